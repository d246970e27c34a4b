//! RocksDB's `kRoundRobin`: below L0, key order starting after the level's cursor (the largest
//! key of the last file taken), wrapping around; L0 oldest first. The scan stops at a file
//! being compacted instead of skipping it, and the cursor moves past the file taken.

use std::cmp::Ordering;

use super::{StartFileRule, StartFiles, StartLevel, sorted_by};
use crate::key;

/// `compaction_pri = kRoundRobin`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRobin;

impl StartFileRule for RoundRobin {
    fn name(&self) -> &'static str {
        "round-robin"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        let files = s.files();
        if s.start == 0 {
            return StartFiles::RoundRobin(sorted_by(files, |a, b| {
                files[a].smallest_seq.cmp(&files[b].smallest_seq)
            }));
        }
        let mut idx = sorted_by(files, |_, _| Ordering::Equal);
        let first = idx
            .iter()
            .position(|&i| {
                s.cursor.is_empty()
                    || key::compare(&files[i].smallest, s.cursor) == Ordering::Greater
            })
            .unwrap_or(0);
        idx.rotate_left(first);
        StartFiles::RoundRobin(idx)
    }
}
