//! RocksDB's `kOldestSmallestSeqFirst`: the file whose oldest entry is oldest first (the data
//! that has stayed longest in the level).

use super::{StartFileRule, StartFiles, StartLevel, sorted_by};

/// `compaction_pri = kOldestSmallestSeqFirst`.
#[derive(Debug, Clone, Copy, Default)]
pub struct OldestSmallestSeqFirst;

impl StartFileRule for OldestSmallestSeqFirst {
    fn name(&self) -> &'static str {
        "oldest-smallest-seq-first"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        let files = s.files();
        StartFiles::Scan(sorted_by(files, |a, b| {
            files[a].smallest_seq.cmp(&files[b].smallest_seq)
        }))
    }
}
