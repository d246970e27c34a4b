//! An LRU block cache bounded in bytes, with an eviction callback (the "block evicted" hint the
//! zone layer can use, e.g. for HHZS-style caching decisions).
//!
//! Keys are `(file number, block offset)`; values are shared, immutable block bytes. Every
//! operation is O(log n) on ordered maps (no hashing: iteration order stays deterministic).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use zonedb_device::ElidedBytes;

/// Identifies a block: SST file number and the block's offset in the file.
pub type BlockKey = (u64, u64);

/// Called with the key and size of every block evicted to make room (not for explicit erases).
pub type EvictionCallback = Box<dyn Fn(BlockKey, u64, Option<ElidedBytes>) + Send + Sync>;

#[derive(Debug)]
struct Entry {
    value: Arc<Vec<u8>>,
    /// The block as stored in its file, kept when the cache hands evicted blocks over.
    raw: Option<ElidedBytes>,
    charge: u64,
    /// Last-use stamp; the smallest is evicted first.
    stamp: u64,
}

#[derive(Debug, Default)]
struct Inner {
    entries: BTreeMap<BlockKey, Entry>,
    /// Stamp → key, in least-recently-used order.
    lru: BTreeMap<u64, BlockKey>,
    usage: u64,
    clock: u64,
    hits: u64,
    misses: u64,
    evictions: u64,
}

/// Counters of a cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Lookups that found the block.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Blocks evicted to make room.
    pub evictions: u64,
    /// Bytes held.
    pub usage_bytes: u64,
    /// Blocks held.
    pub entries: u64,
}

/// The cache. Cheap to share behind an `Arc`.
pub struct BlockCache {
    capacity_bytes: u64,
    inner: Mutex<Inner>,
    on_evict: Option<EvictionCallback>,
    /// Keep each block's stored bytes for the eviction callback.
    keep_raw: bool,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("capacity_bytes", &self.capacity_bytes)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl BlockCache {
    /// A cache holding at most `capacity_bytes` (0 disables caching).
    pub fn new(capacity_bytes: u64) -> Self {
        Self {
            capacity_bytes,
            inner: Mutex::new(Inner::default()),
            on_evict: None,
            keep_raw: false,
        }
    }

    /// The same, calling `on_evict` for every block evicted.
    pub fn with_eviction_callback(capacity_bytes: u64, on_evict: EvictionCallback) -> Self {
        Self {
            capacity_bytes,
            inner: Mutex::new(Inner::default()),
            on_evict: Some(on_evict),
            keep_raw: false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The block, if cached (and marks it most recently used).
    pub fn get(&self, key: BlockKey) -> Option<Arc<Vec<u8>>> {
        let mut g = self.lock();
        g.clock += 1;
        let stamp = g.clock;
        let Inner {
            entries,
            lru,
            hits,
            misses,
            ..
        } = &mut *g;
        if let Some(e) = entries.get_mut(&key) {
            lru.remove(&e.stamp);
            e.stamp = stamp;
            lru.insert(stamp, key);
            *hits += 1;
            Some(e.value.clone())
        } else {
            *misses += 1;
            None
        }
    }

    /// Inserts a block, evicting least recently used blocks to fit. A block larger than the
    /// whole cache is not kept.
    pub fn insert(&self, key: BlockKey, value: Arc<Vec<u8>>) {
        let charge = value.len() as u64;
        self.insert_charged(key, value, charge);
    }

    /// Inserts a block charged as `charge` bytes (an elided block is charged as its full
    /// uncompressed size, so the cache holds as many blocks as without elision).
    /// Makes the cache keep each block's stored bytes ([`BlockCache::insert_raw`]) and hand
    /// them to the eviction callback (HHZS's cache hint).
    #[must_use]
    pub fn keeping_raw(mut self, keep: bool) -> Self {
        self.keep_raw = keep;
        self
    }

    /// Whether inserts should pass the block's stored bytes.
    pub fn keeps_raw(&self) -> bool {
        self.keep_raw
    }

    pub fn insert_charged(&self, key: BlockKey, value: Arc<Vec<u8>>, charge: u64) {
        self.insert_raw(key, value, charge, None);
    }

    /// [`BlockCache::insert_charged`] with the block's stored bytes (kept only when
    /// [`BlockCache::keeps_raw`]).
    pub fn insert_raw(
        &self,
        key: BlockKey,
        value: Arc<Vec<u8>>,
        charge: u64,
        raw: Option<ElidedBytes>,
    ) {
        let raw = raw.filter(|_| self.keep_raw);
        if charge > self.capacity_bytes {
            return;
        }
        let mut evicted = Vec::new();
        {
            let mut g = self.lock();
            g.clock += 1;
            let stamp = g.clock;
            if let Some(old) = g.entries.remove(&key) {
                g.lru.remove(&old.stamp);
                g.usage -= old.charge;
            }
            while g.usage + charge > self.capacity_bytes {
                let Some((&s, &victim)) = g.lru.iter().next() else {
                    break;
                };
                g.lru.remove(&s);
                if let Some(e) = g.entries.remove(&victim) {
                    g.usage -= e.charge;
                    g.evictions += 1;
                    evicted.push((victim, e.charge, e.raw));
                }
            }
            g.entries.insert(
                key,
                Entry {
                    value,
                    raw,
                    charge,
                    stamp,
                },
            );
            g.lru.insert(stamp, key);
            g.usage += charge;
        }
        if let Some(cb) = &self.on_evict {
            for (k, c, raw) in evicted {
                cb(k, c, raw);
            }
        }
    }

    /// Drops every block of a file (after the file is deleted).
    pub fn erase_file(&self, file: u64) {
        let mut g = self.lock();
        let keys: Vec<BlockKey> = g
            .entries
            .range((file, 0)..=(file, u64::MAX))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            if let Some(e) = g.entries.remove(&k) {
                g.lru.remove(&e.stamp);
                g.usage -= e.charge;
            }
        }
    }

    /// Counters.
    pub fn stats(&self) -> CacheStats {
        let g = self.lock();
        CacheStats {
            hits: g.hits,
            misses: g.misses,
            evictions: g.evictions,
            usage_bytes: g.usage,
            entries: g.entries.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(n: usize) -> Arc<Vec<u8>> {
        Arc::new(vec![7; n])
    }

    #[test]
    fn least_recently_used_blocks_go_first_and_the_callback_hears_of_it() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let c = BlockCache::with_eviction_callback(
            300,
            Box::new(move |k, n, _| s2.lock().unwrap().push((k, n))),
        );
        c.insert((1, 0), block(100));
        c.insert((1, 100), block(100));
        c.insert((2, 0), block(100));
        assert!(c.get((1, 0)).is_some()); // (1, 100) is now the least recently used
        c.insert((3, 0), block(150));
        assert!(c.get((1, 100)).is_none());
        assert!(c.get((2, 0)).is_none());
        assert!(c.get((1, 0)).is_some());
        assert_eq!(*seen.lock().unwrap(), vec![((1, 100), 100), ((2, 0), 100)]);
        let st = c.stats();
        assert_eq!((st.usage_bytes, st.entries, st.evictions), (250, 2, 2));
        assert_eq!((st.hits, st.misses), (2, 2));
    }

    #[test]
    fn oversized_blocks_and_zero_capacity_cache_nothing() {
        let c = BlockCache::new(10);
        c.insert((1, 0), block(11));
        assert!(c.get((1, 0)).is_none());
        let z = BlockCache::new(0);
        z.insert((1, 0), block(1));
        assert_eq!(z.stats().entries, 0);
    }

    #[test]
    fn erasing_a_file_frees_its_blocks_only() {
        let c = BlockCache::new(1000);
        c.insert((1, 0), block(10));
        c.insert((1, 10), block(10));
        c.insert((2, 0), block(10));
        c.erase_file(1);
        assert_eq!(c.stats().usage_bytes, 10);
        assert!(c.get((2, 0)).is_some());
        // Re-inserting a key replaces it without double counting.
        c.insert((2, 0), block(30));
        assert_eq!(c.stats().usage_bytes, 30);
    }
}
