//! ZNS+'s counters: in-device zone compaction and threaded logging.

/// ZNS+'s counters: a part of [`crate::FsStats`] (flattened into its JSON, in this order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ZnsPlusStats {
    /// ZNS+: in-device zone compaction commands cleaning issued. Left out of JSON while 0.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub izc_commands: u64,
    /// ZNS+: bytes cleaning copied inside the device (part of `gc_copied_bytes`).
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub izc_bytes: u64,
    /// ZNS+: zones reclaimed by threaded logging (opened with their garbage to be written
    /// over); the zones reclaimed by cleaning are `gc_zone_resets`.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub threaded_reclaims: u64,
    /// ZNS+: file bytes written into threaded zones' garbage blocks.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub threaded_bytes: u64,
    /// ZNS+: times hybrid recycling's cost rule chose cleaning over threaded logging.
    #[serde(skip_serializing_if = "crate::stats::is_zero")]
    pub threaded_declined: u64,
}
