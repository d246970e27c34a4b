//! RocksDB's `kMinOverlappingRatio`: the file with the fewest next-level bytes per byte of its
//! own first (the cheapest to compact per byte moved down).

use std::cmp::Ordering;

use super::{StartFileRule, StartFiles, StartLevel, sorted_by};
use crate::compaction::levels::compensated_size;
use crate::compaction::picker::LevelFile;
use crate::key;

/// `compaction_pri = kMinOverlappingRatio`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MinOverlappingRatio;

impl StartFileRule for MinOverlappingRatio {
    fn name(&self) -> &'static str {
        "min-overlapping-ratio"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        let files = s.files();
        // The level below the start level (for L0 that is L1, whatever the base level).
        let next: &[LevelFile<'_>] = s.view.levels.get(s.start + 1).map_or(&[], Vec::as_slice);
        let ratio = overlapping_ratios(files, next, s.view.avg);
        StartFiles::Scan(sorted_by(files, |a, b| ratio[a].cmp(&ratio[b])))
    }
}

/// `SortFileByOverlappingRatio`: for each file (in the level's order), the bytes of
/// next-level files its range overlaps × 1024 / its compensated size. The next-level walk
/// moves forward only and re-counts a file that crosses the current file's largest key.
pub fn overlapping_ratios(files: &[LevelFile<'_>], next: &[LevelFile<'_>], avg: u64) -> Vec<u64> {
    let mut it = 0usize;
    files
        .iter()
        .map(|f| {
            let mut overlapping = 0u64;
            while it < next.len() && key::compare(&next[it].largest, &f.smallest) == Ordering::Less
            {
                it += 1;
            }
            while it < next.len() && key::compare(&next[it].smallest, &f.largest) == Ordering::Less
            {
                overlapping += next[it].file_size;
                if key::compare(&next[it].largest, &f.largest) == Ordering::Greater {
                    break;
                }
                it += 1;
            }
            overlapping * 1024 / compensated_size(f, avg).max(1)
        })
        .collect()
}
