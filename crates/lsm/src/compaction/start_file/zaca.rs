//! ZACA (Zone-Aware Compaction victim selection; Same-Zone Compaction paper, §V-A).
//!
//! For every candidate file `VC_k` of the start level, in SICA order, skipping files being
//! compacted: expand it to a clean cut, add the overlapping files of the next level (clean cut
//! too) to form the group `G_k`, and score the group with `S_same` (equation 1) over the zone
//! layout. The group with the highest score is compacted; on equal scores the one whose
//! start-level files are larger (compensated size) wins, then the earlier one in SICA order.
//!
//! A candidate that is a single file with nothing below it (a trivial move, which copies
//! nothing) is taken at once: the MSST'24 code hands such a level to RocksDB's stock loop,
//! which under its default `kMinOverlappingRatio` takes that file first (ratio 0). SICA
//! decides when no candidate can be scored or there is no zone view. `NextCompactionIndex` is
//! not moved. Unlike that code, whose picker maximises a mean squared post-compaction
//! invalidation percentage, the score is the paper's equation 1.

use super::sica::sica_order;
use super::{StartFileRule, StartFiles, StartLevel};
use crate::compaction::view::PickView;
use crate::compaction::zone_layout::ZoneLayout;

/// ZACA's start-file rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct Zaca;

impl StartFileRule for Zaca {
    fn name(&self) -> &'static str {
        "zaca"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        if let Some(layout) = s.view.zones
            && let Some(inputs) = pick_start_files(s.view, layout, s.start, s.output)
        {
            return StartFiles::Chosen(inputs);
        }
        StartFiles::Scan(sica_order(s.view, s.start, s.output))
    }

    fn wants_zone_view(&self) -> bool {
        true
    }
}

/// ZACA's choice of start files for a compaction from `start` into `output` (indices into the
/// level), or `None` when no candidate scores (SICA decides then).
pub fn pick_start_files(
    b: &PickView<'_>,
    layout: &ZoneLayout,
    start: usize,
    output: usize,
) -> Option<Vec<usize>> {
    let mut best: Option<(f64, u64, Vec<usize>)> = None;
    for i in sica_order(b, start, output) {
        if b.levels[start][i].being_compacted {
            continue;
        }
        let Some((inputs, out)) = b.candidate_group(start, output, i) else {
            continue;
        };
        if b.any_being_compacted(output, &out) {
            continue;
        }
        if inputs.len() == 1 && out.is_empty() {
            // A trivial move copies nothing: take it, as the stock loop the MSST'24 code
            // hands it to does under its default `kMinOverlappingRatio` (ratio 0 first).
            return Some(inputs);
        }
        let group = b
            .files(start, &inputs)
            .into_iter()
            .chain(b.files(output, &out))
            .map(|f| f.number);
        let Some(score) = layout.same_zone_score(group) else {
            continue;
        };
        let size = b.compensated(start, &inputs);
        let better = best
            .as_ref()
            .is_none_or(|(s, c, _)| match score.total_cmp(s) {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Equal => size > *c,
                std::cmp::Ordering::Less => false,
            });
        if better {
            best = Some((score, size, inputs));
        }
    }
    best.map(|(_, _, inputs)| inputs)
}
