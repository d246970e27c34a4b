//! RocksDB's `kOldestLargestSeqFirst`: the file whose newest entry is oldest first (the range
//! that has not been written to for the longest time).

use super::{StartFileRule, StartFiles, StartLevel, sorted_by};

/// `compaction_pri = kOldestLargestSeqFirst`.
#[derive(Debug, Clone, Copy, Default)]
pub struct OldestLargestSeqFirst;

impl StartFileRule for OldestLargestSeqFirst {
    fn name(&self) -> &'static str {
        "oldest-largest-seq-first"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        let files = s.files();
        StartFiles::Scan(sorted_by(files, |a, b| {
            files[a].largest_seq.cmp(&files[b].largest_seq)
        }))
    }
}
