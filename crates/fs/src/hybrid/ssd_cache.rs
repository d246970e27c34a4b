//! Application-hinted caching on a hybrid device (HHZS §3.5): data blocks the engine's block
//! cache evicts, of SSTs whose data is on the HDD, are appended to an SSD *cache zone* taken
//! from the WAL zones; a read of such a block (same SST, offset and length) is served from the
//! SSD. Whole cache zones are evicted oldest first (FIFO) when no empty WAL zone is left for
//! the cache or when the WAL needs the space. A block is never served after its SST is
//! deleted: deleting an SST drops its entries.
//!
//! The hint carries the block's stored bytes (no HDD read is spent on admission); admissions
//! are queued by the hint and written by a background task.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use zonedb_device::{ElidedBytes, IoClass, Tier, ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::extensions::Extensions;
use crate::file::sst_number;
use crate::fs::{FsOptions, ZoneFs};
use crate::metalog::META_ZONES;

/// Where a cached block lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    dev_offset: u64,
    len: u64,
    zone: u32,
}

/// The SSD cache's state.
#[derive(Debug, Default)]
pub(crate) struct SsdCache {
    /// WAL zones the cache may take (the policy's reserved log zones).
    pub(crate) log_zones: Vec<u32>,
    /// (SST number, block offset) -> its copy.
    map: BTreeMap<(u64, u64), Slot>,
    /// Cache zones, oldest first (the last is the active one), with the blocks in each.
    zones: VecDeque<(u32, Vec<(u64, u64)>)>,
    /// Admissions not written yet.
    pending: VecDeque<(u64, u64, ElidedBytes)>,
    /// Counters.
    pub(crate) stats: SsdCacheStats,
}

/// What the SSD cache did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SsdCacheStats {
    /// Evicted blocks the engine offered (with their bytes).
    pub offered: u64,
    /// Of those, refused: their SST's data is not on the HDD.
    pub offered_not_on_hdd: u64,
    /// Of those, refused: cached or queued already.
    pub offered_cached: u64,
    /// Queued admissions dropped: no cache zone to take.
    pub dropped_no_zone: u64,
    /// Blocks written to cache zones.
    pub admissions: u64,
    /// Bytes written to cache zones.
    pub admitted_bytes: u64,
    /// Query reads of SSTs that looked the cache up.
    pub lookups: u64,
    /// Reads served from the cache.
    pub hits: u64,
    /// Cache zones evicted (FIFO).
    pub zone_evictions: u64,
    /// Of those, evicted so the WAL gets the zone.
    pub wal_evictions: u64,
}

impl SsdCache {
    /// An empty cache over the WAL zones `log_zones`.
    pub(crate) fn new(log_zones: Vec<u32>) -> Self {
        Self {
            log_zones,
            ..Self::default()
        }
    }
}

/// The cache's per-mount state, kept in the layer's [`Extensions`].
#[derive(Debug)]
struct CacheState {
    cache: Mutex<SsdCache>,
    /// Wakes the cache's writer.
    kick: Arc<tokio::sync::Notify>,
}

/// Puts the SSD cache in when the placement policy caches evicted blocks on a hybrid
/// device: its zones are the policy's reserved WAL zones, the first IO zones.
pub(crate) fn attach<D: ZonedDevice>(opts: &FsOptions, dev: &D, ext: &mut Extensions) {
    if opts.placement.caches_evicted_blocks() && dev.capabilities().tiers.is_some() {
        let n = opts.placement.hybrid_log_zones();
        ext.insert(CacheState {
            cache: Mutex::new(SsdCache::new((META_ZONES..META_ZONES + n).collect())),
            kick: Arc::new(tokio::sync::Notify::new()),
        });
    }
}

impl CacheState {
    fn lock(&self) -> std::sync::MutexGuard<'_, SsdCache> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    fn cache_state(&self) -> Option<&CacheState> {
        self.extensions.get::<CacheState>()
    }

    fn cache(&self) -> Option<std::sync::MutexGuard<'_, SsdCache>> {
        self.cache_state().map(CacheState::lock)
    }

    /// The SSD cache's counters (`None` when off).
    pub fn ssd_cache_stats(&self) -> Option<SsdCacheStats> {
        self.cache().map(|c| c.stats)
    }

    /// Whether the engine should hand evicted blocks' bytes over (the SSD cache is on).
    pub fn wants_evicted_blocks(&self) -> bool {
        self.cache_state().is_some()
    }

    /// Takes an evicted block (`data`: its stored bytes at `offset` of SST `file`): queued
    /// for the cache if its SST is on the HDD and the block is not cached yet.
    pub(crate) fn offer_evicted_block(&self, file: u64, offset: u64, data: &ElidedBytes) {
        let Some(layout) = self.hybrid_layout() else {
            return;
        };
        let on_hdd = {
            let s = self.lock();
            s.names
                .iter()
                .find(|(n, _)| sst_number(n) == Some(file))
                .and_then(|(_, id)| s.files.get(id))
                .and_then(|f| f.meta.extents.first())
                .and_then(|e| s.zone_of(e.start))
                .and_then(|z| layout.tier_of(z))
                == Some(Tier::Hdd)
        };
        let Some(state) = self.cache_state() else {
            return;
        };
        let mut c = state.lock();
        c.stats.offered += 1;
        if !on_hdd {
            c.stats.offered_not_on_hdd += 1;
            return;
        }
        if c.map.contains_key(&(file, offset))
            || c.pending.iter().any(|p| (p.0, p.1) == (file, offset))
        {
            c.stats.offered_cached += 1;
            return;
        }
        c.pending.push_back((file, offset, data.clone()));
        drop(c);
        state.kick.notify_one();
    }

    /// Drops every cached block of SST `number` (deleted).
    pub(crate) fn forget_cached_sst(&self, number: u64) {
        if let Some(mut c) = self.cache() {
            let keys: Vec<(u64, u64)> = c
                .map
                .range((number, 0)..=(number, u64::MAX))
                .map(|(k, _)| *k)
                .collect();
            for k in keys {
                c.map.remove(&k);
            }
            c.pending.retain(|p| p.0 != number);
        }
    }

    /// A read of `len` bytes at `offset` of file `name` served from the SSD cache, if the
    /// block is there.
    pub(crate) async fn read_from_ssd_cache(
        &self,
        name: &str,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> Option<Result<ElidedBytes, FsError>> {
        let number = sst_number(name)?;
        // The entry is looked up and its zone's reader counted under the cache's lock, so an
        // eviction (which drops the entries under that lock, then waits for readers before
        // the reset) cannot reset the zone between the two.
        let (slot, _readers) = {
            let mut c = self.cache()?;
            c.stats.lookups += 1;
            let slot = *c.map.get(&(number, offset)).filter(|s| s.len == len)?;
            c.stats.hits += 1;
            let mut s = self.lock();
            let readers =
                crate::read::ZoneReaders::new(self, &mut s, std::iter::once(slot.dev_offset));
            (slot, readers)
        };
        let a = slot.dev_offset / self.block * self.block;
        let b = crate::fs::align_up(slot.dev_offset + len, self.block);
        Some(
            self.dev
                .read_elided(a, b - a, class)
                .await
                .map_err(FsError::from)
                .map(|data| {
                    let mut out = ElidedBytes::new();
                    out.push_range(&data, slot.dev_offset - a, len);
                    out
                }),
        )
    }

    /// Gives the WAL a zone back when every WAL zone is taken and the cache holds one: the
    /// oldest cache zone is evicted.
    pub(crate) async fn cache_yield_for_wal(&self) -> Result<(), FsError> {
        let victim = {
            let Some(c) = self.cache() else {
                return Ok(());
            };
            let s = self.lock();
            let free = c.log_zones.iter().any(|&z| {
                s.zone(z)
                    .is_some_and(|a| !a.busy && (a.written() == 0 || a.remaining() > 0))
            });
            if free {
                return Ok(());
            }
            c.zones.front().map(|(z, _)| *z)
        };
        if let Some(z) = victim {
            self.evict_cache_zone(z, true).await?;
        }
        Ok(())
    }

    /// Evicts cache zone `zone`: its entries dropped, the zone reset and given back.
    async fn evict_cache_zone(&self, zone: u32, for_wal: bool) -> Result<(), FsError> {
        {
            let Some(mut c) = self.cache() else {
                return Ok(());
            };
            let Some(i) = c.zones.iter().position(|(z, _)| *z == zone) else {
                return Ok(());
            };
            let (_, keys) = c.zones.remove(i).unwrap_or_default();
            for k in keys {
                if c.map.get(&k).is_some_and(|s| s.zone == zone) {
                    c.map.remove(&k);
                }
            }
            c.stats.zone_evictions += 1;
            if for_wal {
                c.stats.wal_evictions += 1;
            }
        }
        let _io = self.feature_io.lock().await;
        // Reads that looked a block up before the entries went finish first.
        while self.lock().zone(zone).is_some_and(|a| a.readers > 0) {
            self.env.sleep(10_000).await;
        }
        let r = self.dev.manage(zone, ZoneOp::Reset).await;
        {
            let mut s = self.lock();
            if let Some(a) = s.zone_mut(zone) {
                a.wp = a.start;
                a.active = false;
                a.busy = false;
                a.lifetime = crate::placement::policy::Lifetime::NotSet;
            }
        }
        self.counters().resets += 1;
        self.tokens.notify_waiters();
        r.map_err(FsError::from)
    }

    /// The active cache zone with room for `len` bytes: the newest cache zone, else an empty
    /// WAL zone converted, else the oldest cache zone evicted and reused.
    async fn cache_zone_for(&self, len: u64) -> Result<Option<u32>, FsError> {
        loop {
            let (newest, empty, oldest) = {
                let Some(c) = self.cache() else {
                    return Ok(None);
                };
                let s = self.lock();
                let newest = c
                    .zones
                    .back()
                    .map(|(z, _)| *z)
                    .filter(|&z| s.zone(z).is_some_and(|a| a.remaining() >= len));
                let empty = c
                    .log_zones
                    .iter()
                    .copied()
                    .find(|&z| s.zone(z).is_some_and(|a| !a.busy && a.written() == 0));
                (newest, empty, c.zones.front().map(|(z, _)| *z))
            };
            if newest.is_some() {
                return Ok(newest);
            }
            if let Some(z) = empty {
                // An empty WAL zone becomes the active cache zone (the WAL takes one back
                // when it has none: `cache_yield_for_wal`).
                let mut s = self.lock();
                if let Some(a) = s.zone_mut(z).filter(|a| !a.busy && a.written() == 0) {
                    a.busy = true;
                    a.active = true;
                    drop(s);
                    if let Some(mut c) = self.cache() {
                        c.zones.push_back((z, Vec::new()));
                    }
                    return Ok(Some(z));
                }
                continue;
            }
            match oldest {
                Some(z) => {
                    self.evict_cache_zone(z, false).await?;
                }
                None => return Ok(None),
            }
        }
    }

    /// Writes the queued admissions.
    async fn drain_cache_admissions(&self) -> Result<(), FsError> {
        loop {
            let Some((file, offset, data)) = self.cache().and_then(|mut c| c.pending.pop_front())
            else {
                return Ok(());
            };
            let len = data.len();
            if len == 0 {
                continue;
            }
            let stored = crate::fs::align_up(len, self.block);
            let Some(zone) = self.cache_zone_for(stored).await? else {
                if let Some(mut c) = self.cache() {
                    c.stats.dropped_no_zone += 1;
                }
                continue;
            };
            let io = self.feature_io.lock().await;
            // The zone may have been evicted (and handed to the WAL) while this task waited
            // for the I/O lock: write only into a zone that is still a cache zone with room,
            // else take a zone again.
            let wp = {
                let Some(c) = self.cache() else {
                    return Ok(());
                };
                let s = self.lock();
                c.zones
                    .iter()
                    .any(|(z, _)| *z == zone)
                    .then(|| s.zone(zone).filter(|a| a.remaining() >= stored))
                    .flatten()
                    .map(|a| a.wp)
            };
            let Some(wp) = wp else {
                drop(io);
                if let Some(mut c) = self.cache() {
                    c.pending.push_front((file, offset, data));
                }
                continue;
            };
            let mut padded = data.clone();
            if stored > len {
                padded.push_bytes(&vec![0u8; usize::try_from(stored - len).unwrap_or(0)]);
            }
            self.dev.write_elided(wp, &padded).await?;
            if let Some(a) = self.lock().zone_mut(zone) {
                a.wp += stored;
            }
            self.counters().device_bytes += stored;
            // Entered while the I/O lock is held, so an eviction (which drops the zone's
            // entries, then resets under that lock) either sees this entry or has already
            // taken the zone out of the cache, and then the entry is not made: no entry ever
            // points into a zone that is not a cache zone.
            if let Some(mut c) = self.cache() {
                // Its SST may have gone while the block was written.
                let live = self
                    .lock()
                    .names
                    .keys()
                    .any(|n| sst_number(n) == Some(file));
                if let Some((_, keys)) = c.zones.iter_mut().find(|(z, _)| *z == zone)
                    && live
                {
                    keys.push((file, offset));
                    c.map.insert(
                        (file, offset),
                        Slot {
                            dev_offset: wp,
                            len,
                            zone,
                        },
                    );
                }
                c.stats.admissions += 1;
                c.stats.admitted_bytes += stored;
            }
            drop(io);
        }
    }
}

/// Starts the task that writes admitted blocks to cache zones, when the cache is on.
pub(crate) fn start<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) {
    // The state is attached at mount and never replaced, so its kick is the writer's for good.
    let Some(kick) = fs.cache_state().map(|c| c.kick.clone()) else {
        return;
    };
    let weak: Weak<ZoneFs<E, D>> = Arc::downgrade(fs);
    let _handle = fs.env.spawn_background("ssd-cache-writer", async move {
        loop {
            kick.notified().await;
            let Some(fs) = weak.upgrade() else { break };
            // Errors (a full SSD) only cost cache admissions.
            let _ = fs.drain_cache_admissions().await;
        }
    });
}
