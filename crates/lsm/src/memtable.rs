//! The memtable: an ordered set of internal keys (a B-tree behind a reader-writer lock), with
//! its approximate memory use counted as RocksDB's arena would (key + value + per-entry
//! overhead).
//!
//! One writer at a time inserts (the write group's leader), readers share the lock. A B-tree
//! keeps a dozen entries per node, so a lookup touches a handful of cache lines where a
//! skiplist of the same size follows a pointer per step; that is most of the cost of a write
//! and of a memtable read.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};

use crate::key::{self, ValueType};

/// Attempts at the lock before a reader or writer parks (a few microseconds of spinning).
const LOCK_SPINS: u32 = 2000;

/// Entries [`MemTable::for_each`] touches ahead of the one it hands out.
const LOOKAHEAD: usize = 32;

/// Asks the CPU to start loading the cache line at `p` into its caches (a hint: no effect
/// on what the program computes).
#[inline]
#[allow(unsafe_code)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint that never faults, whatever the address, and changes no
    // architectural state; SSE, which it needs, is part of the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Per-entry bookkeeping counted toward the memtable size.
const ENTRY_OVERHEAD: u64 = 32;

/// An entry: the internal key followed by the value ([`EntryBytes`]: inline up to
/// [`INLINE`] bytes, else one allocation), ordered by the key with [`key::compare`]. The
/// first eight bytes of the user key also ride as a number, so most comparisons in a B-tree
/// search are decided by one integer comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    buf: EntryBytes,
    /// The user key's first eight bytes as a big-endian number (meaningful when
    /// `has_prefix`).
    prefix: u64,
    /// Length of the internal key at the front of `buf`.
    klen: u32,
    /// Whether `prefix` is set: `false` for a key too short to be an internal key (those
    /// compare bytewise, as [`key::compare`] does). A flag rather than an `Option` keeps an
    /// entry at 56 bytes: B-tree nodes are that much smaller, and a random insert touches
    /// fewer cache lines.
    has_prefix: bool,
}

/// Bytes an entry holds inline (a key of up to 16 bytes with its trailer and an elided
/// value's stub fit).
const INLINE: usize = 38;

/// An entry's bytes: inline when they fit (no allocation per write, nothing to free when
/// the memtable goes, no pointer to follow in a flush), else in their own allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EntryBytes {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl EntryBytes {
    /// The concatenation of `parts`.
    fn of(parts: &[&[u8]]) -> Self {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        if n <= INLINE {
            let mut bytes = [0u8; INLINE];
            let mut at = 0;
            for p in parts {
                bytes[at..at + p.len()].copy_from_slice(p);
                at += p.len();
            }
            return Self::Inline {
                len: n as u8,
                bytes,
            };
        }
        let mut buf = Vec::with_capacity(n);
        for p in parts {
            buf.extend_from_slice(p);
        }
        Self::Heap(buf.into_boxed_slice())
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Heap(b) => b,
        }
    }
}

/// The first eight bytes of `user_key`, zero-padded, as a big-endian number: if two prefixes
/// differ, the user keys differ in the same direction.
fn key_prefix(user_key: &[u8]) -> u64 {
    let mut p = [0u8; 8];
    let n = user_key.len().min(8);
    p[..n].copy_from_slice(&user_key[..n]);
    u64::from_be_bytes(p)
}

impl Entry {
    fn new(ikey: &[u8], value: &[u8]) -> Self {
        let has_prefix = ikey.len() >= 8;
        let prefix = if has_prefix {
            key_prefix(&ikey[..ikey.len() - 8])
        } else {
            0
        };
        Self {
            buf: EntryBytes::of(&[ikey, value]),
            klen: key_len(ikey.len()),
            prefix,
            has_prefix,
        }
    }

    /// The entry of `user_key` at `seq` of type `t` (the internal key built in place).
    fn put(user_key: &[u8], seq: u64, t: ValueType, value: &[u8]) -> Self {
        let klen = user_key.len() + 8;
        let trailer = key::trailer(seq, t).to_le_bytes();
        Self {
            buf: EntryBytes::of(&[user_key, &trailer, value]),
            klen: key_len(klen),
            prefix: key_prefix(user_key),
            has_prefix: true,
        }
    }

    fn key(&self) -> &[u8] {
        &self.buf.bytes()[..self.klen as usize]
    }

    fn value(&self) -> &[u8] {
        &self.buf.bytes()[self.klen as usize..]
    }
}

/// An internal key's length as stored in an [`Entry`] (keys are far below 4 GiB; a longer
/// one would be refused by the write path long before).
fn key_len(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Ord for Entry {
    /// Inlined into the B-tree's node search: the prefix decides almost every comparison of a
    /// random insert, and the full comparison stays out of line.
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.has_prefix && other.has_prefix && self.prefix != other.prefix {
            return self.prefix.cmp(&other.prefix);
        }
        self.cmp_keys(other)
    }
}

impl Entry {
    /// The full internal-key comparison (prefixes equal, or a key without one).
    #[inline(never)]
    fn cmp_keys(&self, other: &Self) -> std::cmp::Ordering {
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
    set: RwLock<BTreeSet<Entry>>,
    bytes: AtomicU64,
    entries: AtomicU64,
    deletes: AtomicU64,
}

/// What a memtable knows about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A value.
    Value(Vec<u8>),
    /// An elided value: its stub (`crate::elided::decode_stub`).
    Elided(Vec<u8>),
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

    /// The set for reading. A writer holds the lock for one B-tree insert (the entry is built
    /// before), so a reader spins briefly before it parks: a parked reader costs a thread
    /// wake-up, many times the wait, and under a fast writer it would park on most lookups.
    fn read(&self) -> RwLockReadGuard<'_, BTreeSet<Entry>> {
        for _ in 0..LOCK_SPINS {
            match self.set.try_read() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
            }
        }
        self.set.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The set for an insert (spinning first, as [`MemTable::read`]).
    fn write(&self) -> RwLockWriteGuard<'_, BTreeSet<Entry>> {
        for _ in 0..LOCK_SPINS {
            match self.set.try_write() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
            }
        }
        self.set.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds an entry.
    pub fn add(&self, seq: u64, t: ValueType, user_key: &[u8], value: &[u8]) {
        // An elided value counts as its full (logical) length.
        let n =
            user_key.len() as u64 + 8 + crate::elided::logical_value_len(t, value) + ENTRY_OVERHEAD;
        let e = Entry::put(user_key, seq, t, value);
        self.write().insert(e);
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
        self.read().is_empty()
    }

    /// The newest version of `user_key` visible at `seq`.
    pub fn get(&self, user_key: &[u8], seq: u64) -> Lookup {
        let lk = Entry::put(user_key, seq, key::MAX_VALUE_TYPE, &[]);
        let set = self.read();
        let Some(e) = set.range((Bound::Included(&lk), Bound::Unbounded)).next() else {
            return Lookup::NotFound;
        };
        match key::parse(e.key()) {
            Some(p) if p.user_key == user_key => match p.value_type {
                ValueType::Value => Lookup::Value(e.value().to_vec()),
                ValueType::ElidedValue => Lookup::Elided(e.value().to_vec()),
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
        self.read()
            .range((lower, Bound::Unbounded))
            .take(max)
            .map(|e| (e.key().to_vec(), e.value().to_vec()))
            .collect()
    }

    /// Calls `f` on every entry in order, without copying them out (holding the read lock:
    /// for an immutable memtable).
    ///
    /// Entries too long to be inline live in their own allocations, in insertion (random)
    /// order: walking them in key order misses the cache on almost every entry. A second
    /// cursor [`LOOKAHEAD`] entries ahead prefetches each entry's bytes, so those misses
    /// overlap instead of stalling one after another.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8])) {
        let set = self.read();
        let mut ahead = set.iter().skip(LOOKAHEAD);
        for e in set.iter() {
            if let Some(next) = ahead.next() {
                prefetch(next.buf.bytes().as_ptr());
            }
            f(e.key(), e.value());
        }
    }

    /// Every entry in order (flush).
    pub fn entries(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.read()
            .iter()
            .map(|e| (e.key().to_vec(), e.value().to_vec()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_stay_small_and_keep_their_bytes_inline_or_not() {
        assert_eq!(std::mem::size_of::<Entry>(), 56);
        let short = Entry::put(b"0123456789abcdef", 7, ValueType::Value, b"stub-bytes");
        assert!(matches!(short.buf, EntryBytes::Inline { .. }));
        assert_eq!(short.key().len(), 24);
        assert_eq!(short.value(), b"stub-bytes");
        let long = Entry::put(b"0123456789abcdef", 7, ValueType::Value, &[9u8; 100]);
        assert!(matches!(long.buf, EntryBytes::Heap(_)));
        assert_eq!(long.value(), &[9u8; 100][..]);
        assert_eq!(short.cmp(&long), std::cmp::Ordering::Equal);
        let boundary = Entry::put(b"k", 1, ValueType::Value, &[1u8; INLINE - 9]);
        assert!(matches!(boundary.buf, EntryBytes::Inline { .. }));
        assert_eq!(boundary.value().len(), INLINE - 9);
    }

    proptest::proptest! {
        /// The prefix shortcut orders entries exactly as the full internal-key comparison.
        #[test]
        fn entry_order_is_internal_key_order(
            a in proptest::collection::vec(0u8..4, 0..12),
            b in proptest::collection::vec(0u8..4, 0..12),
            sa in 0u64..4,
            sb in 0u64..4,
            raw in proptest::bool::ANY,
        ) {
            let (ka, kb) = if raw {
                (a.clone(), b.clone())
            } else {
                (
                    key::internal_key(&a, sa, ValueType::Value),
                    key::internal_key(&b, sb, ValueType::Value),
                )
            };
            let (ea, eb) = (Entry::new(&ka, b"v"), Entry::new(&kb, b""));
            proptest::prop_assert_eq!(ea.cmp(&eb), key::compare(&ka, &kb));
        }
    }

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
