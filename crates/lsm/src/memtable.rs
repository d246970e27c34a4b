//! The memtable: an ordered set of internal keys (a B-tree behind a reader-writer lock), with
//! its approximate memory use counted as RocksDB's arena would (key + value + per-entry
//! overhead).
//!
//! One writer at a time inserts (the write group's leader), readers share the lock. The
//! B-tree is keyed by the first eight bytes of the user key as a number (`key_prefix`) and
//! points into an append-only arena of entries (`Sorted`), where the entries sharing a
//! prefix (versions of one key, keys longer than eight bytes that start alike) are chained
//! in internal-key order. A search compares integers packed a dozen to two cache lines per
//! node, where a B-tree of whole entries touches a cache line per comparison and a skiplist
//! follows a pointer per step; the search is most of the cost of a write and of a memtable
//! read.

use std::collections::{BTreeMap, btree_map};
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
/// [`INLINE`] bytes, else one allocation), ordered by the key with [`key::compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    buf: EntryBytes,
    /// Length of the internal key at the front of `buf`.
    klen: u32,
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
        Self {
            buf: EntryBytes::of(&[ikey, value]),
            klen: key_len(ikey.len()),
        }
    }

    /// The entry of `user_key` at `seq` of type `t` (the internal key built in place).
    fn put(user_key: &[u8], seq: u64, t: ValueType, value: &[u8]) -> Self {
        let klen = user_key.len() + 8;
        let trailer = key::trailer(seq, t).to_le_bytes();
        Self {
            buf: EntryBytes::of(&[user_key, &trailer, value]),
            klen: key_len(klen),
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
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        key::compare(self.key(), other.key())
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The entries in order: a B-tree from each prefix to its first entry, the entries of a
/// prefix chained in internal-key order (most prefixes hold one entry: a key written once).
/// Entries stay where they were appended, so an insert moves only the B-tree's small
/// integers.
#[derive(Debug, Default)]
struct Sorted {
    /// Prefix to the index of its first entry in `arena`.
    heads: BTreeMap<u64, usize>,
    /// Entries in insertion order.
    arena: Vec<Slot>,
}

/// An entry and the index of the next entry of its prefix ([`END`] for none).
#[derive(Debug)]
struct Slot {
    entry: Entry,
    next: usize,
}

/// The end of a prefix's chain.
const END: usize = usize::MAX;

impl Sorted {
    /// Adds `e` (of user-key prefix `prefix`) in order; an entry equal to one held is
    /// dropped, as a set insert drops it (the write path never adds an internal key twice).
    fn insert(&mut self, prefix: u64, e: Entry) {
        let at = self.arena.len();
        match self.heads.entry(prefix) {
            btree_map::Entry::Vacant(v) => {
                v.insert(at);
                self.arena.push(Slot {
                    entry: e,
                    next: END,
                });
            }
            btree_map::Entry::Occupied(mut o) => {
                let (mut prev, mut cur) = (END, *o.get());
                while let Some(slot) = self.arena.get(cur) {
                    match slot.entry.cmp(&e) {
                        std::cmp::Ordering::Less => (prev, cur) = (cur, slot.next),
                        std::cmp::Ordering::Equal => return,
                        std::cmp::Ordering::Greater => break,
                    }
                }
                self.arena.push(Slot {
                    entry: e,
                    next: cur,
                });
                match self.arena.get_mut(prev) {
                    Some(p) => p.next = at,
                    None => *o.get_mut() = at,
                }
            }
        }
    }

    /// The entries of the chain starting at `head`, in order.
    fn chain(&self, head: usize) -> impl Iterator<Item = &Entry> {
        let mut cur = head;
        std::iter::from_fn(move || {
            let slot = self.arena.get(cur)?;
            cur = slot.next;
            Some(&slot.entry)
        })
    }

    /// The entries with prefixes in `prefixes`, in order.
    fn iter_in(&self, prefixes: impl std::ops::RangeBounds<u64>) -> impl Iterator<Item = &Entry> {
        self.heads
            .range(prefixes)
            .flat_map(|(_, &head)| self.chain(head))
    }
}

/// The B-tree key of a valid internal key (its user key's [`key_prefix`]); `None` for a
/// malformed one (shorter than its trailer).
fn ikey_prefix(ikey: &[u8]) -> Option<u64> {
    (ikey.len() >= 8).then(|| key_prefix(&ikey[..ikey.len() - 8]))
}

/// A memtable.
#[derive(Debug, Default)]
pub struct MemTable {
    set: RwLock<Sorted>,
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
    fn read(&self) -> RwLockReadGuard<'_, Sorted> {
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
    fn write(&self) -> RwLockWriteGuard<'_, Sorted> {
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
        self.write().insert(key_prefix(user_key), e);
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
        self.read().arena.is_empty()
    }

    /// The newest version of `user_key` visible at `seq`.
    pub fn get(&self, user_key: &[u8], seq: u64) -> Lookup {
        let lk = Entry::put(user_key, seq, key::MAX_VALUE_TYPE, &[]);
        let set = self.read();
        // Every version of `user_key` is in its prefix's chain.
        let Some(&head) = set.heads.get(&key_prefix(user_key)) else {
            return Lookup::NotFound;
        };
        let Some(e) = set.chain(head).find(|e| **e >= lk) else {
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
    /// A malformed `from` (shorter than a trailer, such as the empty key of a seek to the
    /// first entry) starts at the first entry not below it bytewise, as the entries' B-tree
    /// range from it did.
    pub fn range_from(&self, from: &[u8], exclusive: bool, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        let k = Entry::new(from, &[]);
        let after = |e: &Entry| {
            let o = e.cmp(&k);
            o.is_gt() || (o.is_eq() && !exclusive)
        };
        let set = self.read();
        // Entries of smaller prefixes have smaller user keys: none is after a valid `from`.
        let first = ikey_prefix(from).unwrap_or(0);
        set.iter_in(first..)
            .skip_while(|e| !after(e))
            .take(max)
            .map(|e| (e.key().to_vec(), e.value().to_vec()))
            .collect()
    }

    /// Up to `max` entries with internal key `<= from` (or `< from` if `exclusive`; every
    /// entry when `from` is `None`), in descending order: the reverse iterator's cursor.
    ///
    /// Each prefix's chain is walked forward (it is singly linked), keeping the last `max`
    /// entries before `from` (a chain is what [`MemTable::range_from`] walks too).
    pub fn range_down_from(
        &self,
        from: Option<&[u8]>,
        exclusive: bool,
        max: usize,
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        let k = from.map(|f| Entry::new(f, &[]));
        let before = |e: &Entry| {
            k.as_ref().is_none_or(|k| {
                let o = e.cmp(k);
                o.is_lt() || (o.is_eq() && !exclusive)
            })
        };
        let set = self.read();
        // Entries of larger prefixes have larger user keys: none is before a valid `from`.
        let last = from.and_then(ikey_prefix).unwrap_or(u64::MAX);
        let mut out = Vec::new();
        let mut ring = std::collections::VecDeque::new();
        for (_, &head) in set.heads.range(..=last).rev() {
            let want = max - out.len();
            if want == 0 {
                break;
            }
            ring.clear();
            // A chain is in order: once an entry is not before `from`, none after it is.
            for e in set.chain(head).take_while(|e| before(e)) {
                if ring.len() == want {
                    ring.pop_front();
                }
                ring.push_back(e);
            }
            out.extend(
                ring.iter()
                    .rev()
                    .map(|e| (e.key().to_vec(), e.value().to_vec())),
            );
        }
        out
    }

    /// Calls `f` on every entry in order, without copying them out (holding the read lock:
    /// for an immutable memtable).
    ///
    /// Entries live in the arena in insertion (random) order, and those too long to be
    /// inline in allocations of their own: walking them in key order misses the cache on
    /// almost every entry. Cursors ahead of the walk prefetch what it will touch, so those
    /// misses overlap instead of stalling one after another.
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8])) {
        let set = self.read();
        // One walk of the B-tree; the cursors ahead index this list.
        let heads: Vec<usize> = set.heads.values().copied().collect();
        // Entries sit in the arena in insertion (random) order: the slot of the prefix
        // 2 x LOOKAHEAD ahead is fetched first, then, LOOKAHEAD ahead, the bytes of an entry
        // too long to be inline.
        for (n, &head) in heads.iter().enumerate() {
            if let Some(&i) = heads.get(n + 2 * LOOKAHEAD) {
                // The address only: nothing is read until the prefetch lands.
                let slot = set.arena.as_ptr().wrapping_add(i).cast::<u8>();
                prefetch(slot);
                prefetch(slot.wrapping_add(std::mem::size_of::<Slot>() - 1));
            }
            if let Some(slot) = heads.get(n + LOOKAHEAD).and_then(|&i| set.arena.get(i))
                && let EntryBytes::Heap(b) = &slot.entry.buf
            {
                prefetch(b.as_ptr());
            }
            for e in set.chain(head) {
                f(e.key(), e.value());
            }
        }
    }

    /// Every entry in order (flush).
    pub fn entries(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        self.for_each(|k, v| out.push((k.to_vec(), v.to_vec())));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_stay_small_and_keep_their_bytes_inline_or_not() {
        assert_eq!(std::mem::size_of::<Entry>(), 48);
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
        /// Ordering by prefix, then by the full comparison inside a bucket, is internal-key
        /// order.
        #[test]
        fn prefix_then_bucket_order_is_internal_key_order(
            a in proptest::collection::vec(0u8..4, 0..12),
            b in proptest::collection::vec(0u8..4, 0..12),
            sa in 0u64..4,
            sb in 0u64..4,
        ) {
            let ka = key::internal_key(&a, sa, ValueType::Value);
            let kb = key::internal_key(&b, sb, ValueType::Value);
            let (ea, eb) = (Entry::new(&ka, b"v"), Entry::new(&kb, b""));
            let by_bucket = ikey_prefix(&ka)
                .cmp(&ikey_prefix(&kb))
                .then_with(|| ea.cmp(&eb));
            proptest::prop_assert_eq!(by_bucket, key::compare(&ka, &kb));
        }

        /// Adds, lookups, range reads and walks agree with a sorted map of internal keys,
        /// keys sharing prefixes (short keys, long keys alike in their first eight bytes,
        /// many versions) included.
        #[test]
        fn memtable_matches_a_sorted_model(
            ops in proptest::collection::vec(
                (proptest::collection::vec(0u8..3, 0..11), 0u64..50, proptest::bool::ANY),
                1..80,
            ),
            probes in proptest::collection::vec(
                (proptest::collection::vec(0u8..3, 0..11), 0u64..60, proptest::bool::ANY),
                1..20,
            ),
        ) {
            let m = MemTable::new();
            let mut model = std::collections::BTreeMap::new();
            for (i, (k, seq, del)) in ops.iter().enumerate() {
                let t = if *del { ValueType::Deletion } else { ValueType::Value };
                let v = if *del { Vec::new() } else { vec![i as u8; i % 50] };
                let ik = key::InternalKey(key::internal_key(k, *seq, t));
                // The write path never repeats an internal key; the first one stays.
                model.entry(ik).or_insert(v.clone());
                m.add(*seq, t, k, &v);
            }
            let all: Vec<_> = model.iter().map(|(k, v)| (k.0.clone(), v.clone())).collect();
            proptest::prop_assert_eq!(m.entries(), all.clone());
            for (k, seq, exclusive) in &probes {
                let from = key::internal_key(k, *seq, ValueType::Value);
                let want: Vec<_> = all
                    .iter()
                    .filter(|(ik, _)| {
                        let o = key::compare(ik, &from);
                        o.is_gt() || (o.is_eq() && !exclusive)
                    })
                    .take(5)
                    .cloned()
                    .collect();
                proptest::prop_assert_eq!(m.range_from(&from, *exclusive, 5), want);
                let down: Vec<_> = all
                    .iter()
                    .rev()
                    .filter(|(ik, _)| {
                        let o = key::compare(ik, &from);
                        o.is_lt() || (o.is_eq() && !exclusive)
                    })
                    .take(5)
                    .cloned()
                    .collect();
                proptest::prop_assert_eq!(m.range_down_from(Some(&from), *exclusive, 5), down);
                let newest = all.iter().find(|(ik, _)| {
                    key::compare(ik, &key::internal_key(k, *seq, key::MAX_VALUE_TYPE)).is_ge()
                });
                let want = match newest.and_then(|(ik, v)| Some((key::parse(ik)?, v))) {
                    Some((p, v)) if p.user_key == k.as_slice() => match p.value_type {
                        ValueType::Deletion => Lookup::Deleted,
                        _ => Lookup::Value(v.clone()),
                    },
                    _ => Lookup::NotFound,
                };
                proptest::prop_assert_eq!(m.get(k, *seq), want);
            }
            proptest::prop_assert_eq!(m.range_from(&[], false, 1000), all.clone());
            let reversed: Vec<_> = all.iter().rev().cloned().collect();
            proptest::prop_assert_eq!(m.range_down_from(None, false, 1000), reversed);
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
