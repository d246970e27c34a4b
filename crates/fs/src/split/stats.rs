//! SplitZNS's counters: split zones, subzones, and the bandwidth SST reads and writes saw by kind of zone.

/// SplitZNS's counters: a part of [`crate::FsStats`] (flattened into its JSON, in this order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SplitStats {
    /// SplitZNS selective allocation (`selective` placement on a device that splits zones):
    /// SSTs written into a subzone. Left out of JSON while 0, as every counter below.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub subzone_allocations: u64,
    /// SSTs the placement policy wanted in a subzone that went to a wide zone (too large for a
    /// subzone, split-zone cap reached, no active token, no empty zone to split).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub subzone_fallbacks: u64,
    /// Of `subzone_fallbacks`, SSTs larger than a subzone.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub subzone_oversize_fallbacks: u64,
    /// MERGE commands: subzones of deleted SSTs reclaimed.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub subzone_merges: u64,
    /// Subzone finishes (an SST closed before its subzone was full).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub subzone_finishes: u64,
    /// SPLIT commands: wide zones split.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub zone_splits: u64,
    /// Split zones deactivated (FINISH) when no writer used them any more.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub split_zone_finishes: u64,
    /// Split zones turned back into wide zones (RESET) once all their subzones were empty.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub split_zone_resets: u64,
    /// Split zones now.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub split_zones: u64,
    /// The most split zones at once.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub split_zones_peak: u64,
    /// Background file reads (compaction inputs; cleaning's copies are not counted) from wide
    /// zones: bytes read from the device. Left out of JSON while 0, as the three below.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub background_read_wide_bytes: u64,
    /// Their device reads' latencies summed, ns (bytes over it: the bandwidth one reader
    /// stream saw).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub background_read_wide_ns: u64,
    /// Background file reads from subzones of split zones (SplitZNS): bytes.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub background_read_subzone_bytes: u64,
    /// Their device reads' latencies summed, ns.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub background_read_subzone_ns: u64,
    /// SST file writes (flush and compaction outputs) to wide zones: bytes written to the
    /// device, padding included. Left out of JSON while 0, as the three below.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub sst_write_wide_bytes: u64,
    /// Their device writes' latencies summed, ns (bytes over it: the bandwidth one SST
    /// writer saw; the wait for a zone is not in it).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub sst_write_wide_ns: u64,
    /// SST file writes to subzones of split zones (SplitZNS): bytes.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub sst_write_subzone_bytes: u64,
    /// Their device writes' latencies summed, ns.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub sst_write_subzone_ns: u64,
}
