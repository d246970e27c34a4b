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
    /// Allocation attempts in the retry loop of `FsOptions::alloc_retry_blocking_ms`.
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
}
