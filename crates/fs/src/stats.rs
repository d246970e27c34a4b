//! Counters of the file layer, exposed as a snapshot struct and as JSON. Each paper feature
//! keeps its own part ([`crate::split::SplitStats`], [`crate::hybrid::HybridStats`],
//! [`crate::znsplus::ZnsPlusStats`]), flattened into [`FsStats`]'s JSON.

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use crate::fs::ZoneFs;
use crate::hybrid::stats::HybridStats;
use crate::split::stats::SplitStats;
use crate::state::ZoneAcct;
use crate::znsplus::stats::ZnsPlusStats;

/// A snapshot of the layer's statistics.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FsStats {
    /// Bytes appended by users of the layer.
    pub user_bytes_written: u64,
    /// Bytes the layer wrote to the device: file data with padding and framing, metadata,
    /// cleaning copies.
    pub device_bytes_written: u64,
    /// Of which metadata records.
    pub metadata_bytes_written: u64,
    /// Of which bytes copied by cleaning.
    pub gc_copied_bytes: u64,
    /// Zone resets issued.
    pub zone_resets: u64,
    /// Zone resets of cleaning victims: zones cleaning migrated and reclaimed (ZenFS's
    /// "reclaimed by ZC"; the Same-Zone Compaction paper's figure 12 counts these).
    pub gc_zone_resets: u64,
    /// Zone finishes issued.
    pub zone_finishes: u64,
    /// Block erases the device performed (simulated devices).
    pub block_erases: u64,
    /// Cleaning passes that moved data or reset zones.
    pub cleaning_runs: u64,
    /// Virtual (or real) time spent cleaning.
    pub cleaning_ns: u64,
    /// Time writers waited for space (cleaning, allocation retries) or for zone tokens.
    pub io_blocking_ns: u64,
    /// Allocation attempts in the retry loop of `FsOptions::alloc_retry_blocking_ns`.
    pub alloc_retries: u64,
    /// Of `io_blocking_ns`, the time spent in that retry loop.
    pub alloc_retry_blocking_ns: u64,
    /// Zone allocations for SSTs described by an `SstContext` (CAZA, OAZA).
    pub sst_context_allocations: u64,
    /// Of those, the ones the policy's own rules placed (the rest fell back to LIZA).
    pub sst_context_placements: u64,
    /// Allocations the placement policy could not serve that took a partially written zone
    /// of another lifetime instead of failing (after cleaning freed nothing).
    pub last_resort_allocations: u64,
    /// Times a writer found every zone with room held by other writers, one of them an SST
    /// writer, and waited for a zone to come back instead of failing (its wait is in
    /// `io_blocking_ns`).
    pub last_resort_waits: u64,
    /// SSTs that found no wide zone with room and went to a free subzone of an existing
    /// split zone instead, whatever their level (SplitZNS).
    pub last_resort_subzones: u64,
    /// Unwritten remaining capacity of the IO zones.
    pub free_bytes: u64,
    /// Live file bytes.
    pub used_bytes: u64,
    /// Garbage in full zones, reclaimable by cleaning.
    pub reclaimable_bytes: u64,
    /// Written but dead bytes in every zone (full or not).
    pub garbage_bytes: u64,
    /// `(used + garbage) / used`: bytes occupied per live byte (1.0 when nothing is live).
    pub space_amplification: f64,
    /// Device bytes written per user byte.
    pub write_amplification: f64,
    /// Files.
    pub files: u64,
    /// Free bytes over time: `(time_ns, free_bytes)`, sampled at each zone allocation.
    pub free_bytes_series: Vec<(u64, u64)>,
    /// SplitZNS's counters (left out of JSON while 0).
    #[serde(flatten)]
    pub split: SplitStats,
    /// HHZS's counters (left out of JSON while 0).
    #[serde(flatten)]
    pub hybrid: HybridStats,
    /// ZNS+'s counters (left out of JSON while 0).
    #[serde(flatten)]
    pub znsplus: ZnsPlusStats,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
pub(crate) fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Bytes and the device time they took, split by the kind of zone: wide zones and subzones of
/// split zones.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ByZoneKind {
    pub(crate) wide: Timed,
    pub(crate) subzone: Timed,
}

/// Bytes and the summed device latency they took, ns.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Timed {
    pub(crate) bytes: u64,
    pub(crate) ns: u64,
}

impl ByZoneKind {
    /// Counts `bytes` that took `ns`, in a subzone or in a wide zone.
    pub(crate) fn add(&mut self, subzone: bool, bytes: u64, ns: u64) {
        let t = if subzone {
            &mut self.subzone
        } else {
            &mut self.wide
        };
        t.bytes += bytes;
        t.ns += ns;
    }
}

#[derive(Debug, Default)]
/// The layer's counters, under one lock ([`ZoneFs::counters`]).
pub(crate) struct Counters {
    pub(crate) user_bytes: u64,
    pub(crate) device_bytes: u64,
    pub(crate) metadata_bytes: u64,
    pub(crate) gc_bytes: u64,
    pub(crate) resets: u64,
    pub(crate) gc_resets: u64,
    pub(crate) finishes: u64,
    pub(crate) cleaning_runs: u64,
    pub(crate) cleaning_ns: u64,
    pub(crate) blocking_ns: u64,
    pub(crate) alloc_retries: u64,
    pub(crate) alloc_retry_ns: u64,
    pub(crate) context_requests: u64,
    pub(crate) context_placements: u64,
    pub(crate) last_resort_allocations: u64,
    pub(crate) last_resort_waits: u64,
    pub(crate) last_resort_subzones: u64,
    pub(crate) free_series: Vec<(u64, u64)>,
    /// SplitZNS's counters (`split_zones` and the reads and writes by kind of zone are filled
    /// in by [`ZoneFs::stats`]).
    pub(crate) split: SplitStats,
    /// HHZS's migration counters (the SSD cache keeps its own).
    pub(crate) hybrid: HybridStats,
    /// ZNS+'s counters.
    pub(crate) znsplus: ZnsPlusStats,
    /// Background (compaction input) file reads by the kind of zone they come from
    /// (summed device-read latency).
    pub(crate) background_reads: ByZoneKind,
    /// SST file writes by the kind of zone they go to (summed device-write latency).
    pub(crate) sst_writes: ByZoneKind,
    /// Query reads of the SSTs deleted since mount, by file id (live files count theirs in
    /// the state: `FileEntry::query_reads`).
    pub(crate) deleted_sst_query_reads: std::collections::BTreeMap<u64, u64>,
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Statistics now.
    pub fn stats(&self) -> FsStats {
        // The cache's lock is never taken under the state's.
        let cache = self.ssd_cache_stats().unwrap_or_default();
        let s = self.lock();
        let c = self.counters();
        let free: u64 = s.zones.iter().map(ZoneAcct::remaining).sum();
        let used: u64 = s.zones.iter().map(|z| z.used).sum();
        let reclaimable: u64 = s
            .zones
            .iter()
            .filter(|z| z.remaining() == 0)
            .map(|z| z.capacity.saturating_sub(z.used))
            .sum();
        let garbage: u64 = s
            .zones
            .iter()
            .map(|z| z.written().saturating_sub(z.used))
            .sum();
        FsStats {
            user_bytes_written: c.user_bytes,
            device_bytes_written: c.device_bytes,
            metadata_bytes_written: c.metadata_bytes,
            gc_copied_bytes: c.gc_bytes,
            zone_resets: c.resets,
            gc_zone_resets: c.gc_resets,
            zone_finishes: c.finishes,
            block_erases: self.dev.stats().block_erases,
            cleaning_runs: c.cleaning_runs,
            cleaning_ns: c.cleaning_ns,
            io_blocking_ns: c.blocking_ns,
            alloc_retries: c.alloc_retries,
            alloc_retry_blocking_ns: c.alloc_retry_ns,
            sst_context_allocations: c.context_requests,
            sst_context_placements: c.context_placements,
            last_resort_allocations: c.last_resort_allocations,
            last_resort_waits: c.last_resort_waits,
            last_resort_subzones: c.last_resort_subzones,
            free_bytes: free,
            used_bytes: used,
            reclaimable_bytes: reclaimable,
            garbage_bytes: garbage,
            space_amplification: if used == 0 {
                1.0
            } else {
                (used + garbage) as f64 / used as f64
            },
            write_amplification: if c.user_bytes == 0 {
                0.0
            } else {
                c.device_bytes as f64 / c.user_bytes as f64
            },
            files: s.files.len() as u64,
            free_bytes_series: c.free_series.clone(),
            split: SplitStats {
                split_zones: s.split_zone_count() as u64,
                background_read_wide_bytes: c.background_reads.wide.bytes,
                background_read_wide_ns: c.background_reads.wide.ns,
                background_read_subzone_bytes: c.background_reads.subzone.bytes,
                background_read_subzone_ns: c.background_reads.subzone.ns,
                sst_write_wide_bytes: c.sst_writes.wide.bytes,
                sst_write_wide_ns: c.sst_writes.wide.ns,
                sst_write_subzone_bytes: c.sst_writes.subzone.bytes,
                sst_write_subzone_ns: c.sst_writes.subzone.ns,
                ..c.split
            },
            hybrid: HybridStats {
                ssd_cache_hits: cache.hits,
                ssd_cache_admitted_bytes: cache.admitted_bytes,
                ssd_cache_zone_evictions: cache.zone_evictions,
                ssd_cache_offered: cache.offered,
                ssd_cache_offered_not_on_hdd: cache.offered_not_on_hdd,
                ssd_cache_admissions: cache.admissions,
                ssd_cache_dropped_no_zone: cache.dropped_no_zone,
                ssd_cache_lookups: cache.lookups,
                ..c.hybrid
            },
            znsplus: c.znsplus,
        }
    }
}
