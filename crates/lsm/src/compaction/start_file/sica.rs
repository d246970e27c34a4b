//! SICA, the size-based rule as the Same-Zone Compaction paper states it: the largest file
//! (compensated size) first; among equally large files, the one with the fewest overlapping
//! bytes in the output level; then key order. Scans from `NextCompactionIndex`.

use super::{StartFileRule, StartFiles, StartLevel};
use crate::compaction::levels::{self, compensated_size, overlapping_inputs};
use crate::compaction::view::PickView;

/// SICA's start-file rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sica;

impl StartFileRule for Sica {
    fn name(&self) -> &'static str {
        "sica"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        StartFiles::Scan(sica_order(s.view, s.start, s.output))
    }
}

/// SICA's order of `start`'s files: compensated size descending, then overlapping bytes in
/// `output` ascending, then key order.
pub fn sica_order(view: &PickView<'_>, start: usize, output: usize) -> Vec<usize> {
    let files = &view.levels[start];
    let overlap: Vec<u64> = files
        .iter()
        .map(|f| {
            overlapping_inputs(
                view.levels,
                output,
                levels::smallest_uk(f),
                levels::largest_uk(f),
            )
            .iter()
            .map(|g| g.file_size)
            .sum()
        })
        .collect();
    let mut idx: Vec<usize> = (0..files.len()).collect();
    idx.sort_by(|&a, &b| {
        compensated_size(&files[b], view.avg)
            .cmp(&compensated_size(&files[a], view.avg))
            .then(overlap[a].cmp(&overlap[b]))
            .then_with(|| crate::key::compare(&files[a].smallest, &files[b].smallest))
    });
    idx
}
