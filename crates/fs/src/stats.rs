//! Counters of the file layer, exposed as a snapshot struct and as JSON.

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
    /// SplitZNS selective allocation (`selective` placement on a device that splits zones):
    /// SSTs written into a subzone. Left out of JSON while 0, as every counter below.
    #[serde(skip_serializing_if = "is_zero")]
    pub subzone_allocations: u64,
    /// SSTs the placement policy wanted in a subzone that went to a wide zone (too large for a
    /// subzone, split-zone cap reached, no active token, no empty zone to split).
    #[serde(skip_serializing_if = "is_zero")]
    pub subzone_fallbacks: u64,
    /// Of `subzone_fallbacks`, SSTs larger than a subzone.
    #[serde(skip_serializing_if = "is_zero")]
    pub subzone_oversize_fallbacks: u64,
    /// MERGE commands: subzones of deleted SSTs reclaimed.
    #[serde(skip_serializing_if = "is_zero")]
    pub subzone_merges: u64,
    /// Subzone finishes (an SST closed before its subzone was full).
    #[serde(skip_serializing_if = "is_zero")]
    pub subzone_finishes: u64,
    /// SPLIT commands: wide zones split.
    #[serde(skip_serializing_if = "is_zero")]
    pub zone_splits: u64,
    /// Split zones deactivated (FINISH) when no writer used them any more.
    #[serde(skip_serializing_if = "is_zero")]
    pub split_zone_finishes: u64,
    /// Split zones turned back into wide zones (RESET) once all their subzones were empty.
    #[serde(skip_serializing_if = "is_zero")]
    pub split_zone_resets: u64,
    /// Split zones now.
    #[serde(skip_serializing_if = "is_zero")]
    pub split_zones: u64,
    /// The most split zones at once.
    #[serde(skip_serializing_if = "is_zero")]
    pub split_zones_peak: u64,
    /// Background file reads (compaction inputs; cleaning's copies are not counted) from wide
    /// zones: bytes read from the device. Left out of JSON while 0, as the three below.
    #[serde(skip_serializing_if = "is_zero")]
    pub background_read_wide_bytes: u64,
    /// Their device reads' latencies summed, ns (bytes over it: the bandwidth one reader
    /// stream saw).
    #[serde(skip_serializing_if = "is_zero")]
    pub background_read_wide_ns: u64,
    /// Background file reads from subzones of split zones (SplitZNS): bytes.
    #[serde(skip_serializing_if = "is_zero")]
    pub background_read_subzone_bytes: u64,
    /// Their device reads' latencies summed, ns.
    #[serde(skip_serializing_if = "is_zero")]
    pub background_read_subzone_ns: u64,
    /// SST file writes (flush and compaction outputs) to wide zones: bytes written to the
    /// device, padding included. Left out of JSON while 0, as the three below.
    #[serde(skip_serializing_if = "is_zero")]
    pub sst_write_wide_bytes: u64,
    /// Their device writes' latencies summed, ns (bytes over it: the bandwidth one SST
    /// writer saw; the wait for a zone is not in it).
    #[serde(skip_serializing_if = "is_zero")]
    pub sst_write_wide_ns: u64,
    /// SST file writes to subzones of split zones (SplitZNS): bytes.
    #[serde(skip_serializing_if = "is_zero")]
    pub sst_write_subzone_bytes: u64,
    /// Their device writes' latencies summed, ns.
    #[serde(skip_serializing_if = "is_zero")]
    pub sst_write_subzone_ns: u64,
    /// Hybrid migration: bytes copied between the devices. Left out of JSON while 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub migrated_bytes: u64,
    /// Hybrid migration: SSTs moved.
    #[serde(skip_serializing_if = "is_zero")]
    pub migrations: u64,
    /// HHZS's SSD cache: reads served from cache zones.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_hits: u64,
    /// HHZS's SSD cache: bytes of evicted blocks written to cache zones.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_admitted_bytes: u64,
    /// HHZS's SSD cache: cache zones evicted (FIFO).
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_zone_evictions: u64,
    /// HHZS's SSD cache: evicted blocks the engine offered.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_offered: u64,
    /// HHZS's SSD cache: offered blocks refused because their SST is not on the HDD.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_offered_not_on_hdd: u64,
    /// HHZS's SSD cache: blocks written to cache zones.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_admissions: u64,
    /// HHZS's SSD cache: queued blocks dropped for want of a cache zone.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_dropped_no_zone: u64,
    /// HHZS's SSD cache: query reads of SSTs that looked the cache up.
    #[serde(skip_serializing_if = "is_zero")]
    pub ssd_cache_lookups: u64,
    /// ZNS+: in-device zone compaction commands cleaning issued. Left out of JSON while 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub izc_commands: u64,
    /// ZNS+: bytes cleaning copied inside the device (part of `gc_copied_bytes`).
    #[serde(skip_serializing_if = "is_zero")]
    pub izc_bytes: u64,
    /// ZNS+: zones reclaimed by threaded logging (opened with their garbage to be written
    /// over); the zones reclaimed by cleaning are `gc_zone_resets`.
    #[serde(skip_serializing_if = "is_zero")]
    pub threaded_reclaims: u64,
    /// ZNS+: file bytes written into threaded zones' garbage blocks.
    #[serde(skip_serializing_if = "is_zero")]
    pub threaded_bytes: u64,
    /// ZNS+: times hybrid recycling's cost rule chose cleaning over threaded logging.
    #[serde(skip_serializing_if = "is_zero")]
    pub threaded_declined: u64,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_zero(v: &u64) -> bool {
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
