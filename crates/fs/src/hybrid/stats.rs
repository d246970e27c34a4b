//! HHZS's counters: migration between the devices and the SSD cache.

/// HHZS's counters: a part of [`crate::FsStats`] (flattened into its JSON, in this order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct HybridStats {
    /// Hybrid migration: bytes copied between the devices. Left out of JSON while 0.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub migrated_bytes: u64,
    /// Hybrid migration: SSTs moved.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub migrations: u64,
    /// HHZS's SSD cache: reads served from cache zones.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_hits: u64,
    /// HHZS's SSD cache: bytes of evicted blocks written to cache zones.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_admitted_bytes: u64,
    /// HHZS's SSD cache: cache zones evicted (FIFO).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_zone_evictions: u64,
    /// HHZS's SSD cache: evicted blocks the engine offered.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_offered: u64,
    /// HHZS's SSD cache: offered blocks refused because their SST is not on the HDD.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_offered_not_on_hdd: u64,
    /// HHZS's SSD cache: blocks written to cache zones.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_admissions: u64,
    /// HHZS's SSD cache: queued blocks dropped for want of a cache zone.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_dropped_no_zone: u64,
    /// HHZS's SSD cache: query reads of SSTs that looked the cache up.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub ssd_cache_lookups: u64,
}
