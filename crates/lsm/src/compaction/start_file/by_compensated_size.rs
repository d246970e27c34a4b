//! RocksDB's `kByCompensatedSize`: the largest file first, by compensated size (tombstones
//! count extra, see [`crate::compaction::compensated_size`]).

use super::{StartFileRule, StartFiles, StartLevel, sorted_by};
use crate::compaction::levels::compensated_size;

/// `compaction_pri = kByCompensatedSize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ByCompensatedSize;

impl StartFileRule for ByCompensatedSize {
    fn name(&self) -> &'static str {
        "by-compensated-size"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        let (files, avg) = (s.files(), s.view.avg);
        StartFiles::Scan(sorted_by(files, |a, b| {
            compensated_size(&files[b], avg).cmp(&compensated_size(&files[a], avg))
        }))
    }
}
