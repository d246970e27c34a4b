//! `FileMeta`: the one description of an SST the engine keeps. The MANIFEST logs it (a
//! version edit adds `(level, FileMeta)` pairs), versions hold it (inside [`super::LiveFile`]),
//! pickers and placement borrow it (through [`crate::compaction::LevelFile`]), and
//! `Db::files` reports it.

use crate::key;

/// An SST's metadata: its number, size, key range, sequence range and entry counts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileMeta {
    /// File number (names the file).
    pub number: u64,
    /// Bytes.
    pub file_size: u64,
    /// Smallest internal key.
    pub smallest: Vec<u8>,
    /// Largest internal key.
    pub largest: Vec<u8>,
    /// Smallest sequence number.
    pub smallest_seq: u64,
    /// Largest sequence number.
    pub largest_seq: u64,
    /// Entries.
    pub num_entries: u64,
    /// Tombstones.
    pub num_deletions: u64,
}

impl FileMeta {
    /// Smallest user key.
    pub fn smallest_user_key(&self) -> &[u8] {
        key::user_key(&self.smallest)
    }

    /// Largest user key.
    pub fn largest_user_key(&self) -> &[u8] {
        key::user_key(&self.largest)
    }

    /// A test SST: number `n`, `size` bytes, user keys `lo` ..= `hi` at sequence 1, ten
    /// entries (the pickers' unit tests).
    #[cfg(test)]
    pub(crate) fn for_test(n: u64, lo: &str, hi: &str, size: u64) -> Self {
        Self {
            number: n,
            file_size: size,
            smallest: key::internal_key(lo.as_bytes(), 1, key::ValueType::Value),
            largest: key::internal_key(hi.as_bytes(), 1, key::ValueType::Value),
            smallest_seq: 1,
            largest_seq: 1,
            num_entries: 10,
            num_deletions: 0,
        }
    }
}
