//! The memtable: a concurrent skiplist of internal keys (crossbeam's `SkipMap`), with its
//! approximate memory use counted as RocksDB's arena would (key + value + per-entry overhead).

use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_skiplist::SkipMap;

use crate::key::{self, ValueType};

/// Per-entry bookkeeping counted toward the memtable size.
const ENTRY_OVERHEAD: u64 = 32;

/// An entry in one allocation: the internal key followed by the value, ordered by the key
/// with [`key::compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    buf: Box<[u8]>,
    klen: usize,
}

impl Entry {
    fn new(ikey: &[u8], value: &[u8]) -> Self {
        let mut buf = Vec::with_capacity(ikey.len() + value.len());
        buf.extend_from_slice(ikey);
        buf.extend_from_slice(value);
        Self {
            buf: buf.into_boxed_slice(),
            klen: ikey.len(),
        }
    }

    fn key(&self) -> &[u8] {
        &self.buf[..self.klen]
    }

    fn value(&self) -> &[u8] {
        &self.buf[self.klen..]
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        key::compare(self.key(), other.key())
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A memtable.
#[derive(Debug, Default)]
pub struct MemTable {
    map: SkipMap<Entry, ()>,
    bytes: AtomicU64,
    entries: AtomicU64,
    deletes: AtomicU64,
}

/// What a memtable knows about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A value.
    Value(Vec<u8>),
    /// A tombstone: the key is deleted (stop looking).
    Deleted,
    /// Nothing here (look further).
    NotFound,
}

impl MemTable {
    /// An empty memtable.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry.
    pub fn add(&self, seq: u64, t: ValueType, user_key: &[u8], value: &[u8]) {
        let k = key::internal_key(user_key, seq, t);
        let n = k.len() as u64 + value.len() as u64 + ENTRY_OVERHEAD;
        self.map.insert(Entry::new(&k, value), ());
        self.bytes.fetch_add(n, Ordering::Relaxed);
        self.entries.fetch_add(1, Ordering::Relaxed);
        if t == ValueType::Deletion {
            self.deletes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Approximate bytes used.
    pub fn approximate_bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Entries.
    pub fn len(&self) -> u64 {
        self.entries.load(Ordering::Relaxed)
    }

    /// Tombstones.
    pub fn num_deletes(&self) -> u64 {
        self.deletes.load(Ordering::Relaxed)
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The newest version of `user_key` visible at `seq`.
    pub fn get(&self, user_key: &[u8], seq: u64) -> Lookup {
        let lk = Entry::new(&key::lookup_key(user_key, seq), &[]);
        let Some(e) = self.map.lower_bound(Bound::Included(&lk)) else {
            return Lookup::NotFound;
        };
        match key::parse(e.key().key()) {
            Some(p) if p.user_key == user_key => match p.value_type {
                ValueType::Value => Lookup::Value(e.key().value().to_vec()),
                ValueType::Deletion => Lookup::Deleted,
            },
            _ => Lookup::NotFound,
        }
    }

    /// Up to `max` entries with internal key `>= from` (or `> from` if `exclusive`), in order.
    pub fn range_from(&self, from: &[u8], exclusive: bool, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        let k = Entry::new(from, &[]);
        let lower = if exclusive {
            Bound::Excluded(&k)
        } else {
            Bound::Included(&k)
        };
        self.map
            .range((lower, Bound::Unbounded))
            .take(max)
            .map(|e| (e.key().key().to_vec(), e.key().value().to_vec()))
            .collect()
    }

    /// Calls `f` on every entry in order, without copying them out.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8])) {
        for e in &self.map {
            f(e.key().key(), e.key().value());
        }
    }

    /// Every entry in order (flush).
    pub fn entries(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.map
            .iter()
            .map(|e| (e.key().key().to_vec(), e.key().value().to_vec()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_visible_version_wins() {
        let m = MemTable::new();
        m.add(1, ValueType::Value, b"k", b"v1");
        m.add(3, ValueType::Value, b"k", b"v3");
        m.add(5, ValueType::Deletion, b"k", b"");
        m.add(2, ValueType::Value, b"j", b"j2");
        assert_eq!(m.get(b"k", 0), Lookup::NotFound);
        assert_eq!(m.get(b"k", 2), Lookup::Value(b"v1".to_vec()));
        assert_eq!(m.get(b"k", 4), Lookup::Value(b"v3".to_vec()));
        assert_eq!(m.get(b"k", 9), Lookup::Deleted);
        assert_eq!(m.get(b"i", 9), Lookup::NotFound);
        assert_eq!(m.get(b"l", 9), Lookup::NotFound);
        assert_eq!(m.entries().len(), 4);
        assert_eq!(m.num_deletes(), 1);
    }
}
