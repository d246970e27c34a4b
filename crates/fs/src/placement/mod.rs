//! Zone placement policies: pure functions from a read-only view of the zones (and the hints
//! received) to a decision the file layer carries out.
//!
//! - [`lifetime`]: LIZA, ZenFS's lifetime-based allocator, reproduced rule by rule.

pub mod lifetime;

/// Write-lifetime hint of a file (RocksDB's `Env::WriteLifeTimeHint`, equal to Linux's RWH
/// values). Ordered from shortest to longest.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Lifetime {
    /// `WLTH_NOT_SET` = 0 (MANIFEST, OPTIONS, ...).
    #[default]
    NotSet = 0,
    /// `WLTH_NONE` = 1.
    None = 1,
    /// `WLTH_SHORT` = 2 (WAL).
    Short = 2,
    /// `WLTH_MEDIUM` = 3 (L0 and the base level).
    Medium = 3,
    /// `WLTH_LONG` = 4 (base + 1).
    Long = 4,
    /// `WLTH_EXTREME` = 5 (base + 2 and deeper).
    Extreme = 5,
}

impl Lifetime {
    /// From the numeric RWH value; unknown values map to `NotSet`.
    pub fn from_u8(v: u8) -> Self {
        match v {
            1 => Self::None,
            2 => Self::Short,
            3 => Self::Medium,
            4 => Self::Long,
            5 => Self::Extreme,
            _ => Self::NotSet,
        }
    }
}

/// ZenFS's I/O type: the WAL gets a reserved open slot and skips the finish threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IoType {
    /// Write-ahead log.
    Wal,
    /// Everything else.
    Other,
}

/// One IO zone as a placement or cleaning policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ZoneView {
    /// Zone index on the device.
    pub index: u32,
    /// Writable bytes of the zone (device zone capacity).
    pub max_capacity_bytes: u64,
    /// Bytes still writable (0 when full or finished).
    pub remaining_bytes: u64,
    /// Bytes of live file data in the zone.
    pub used_bytes: u64,
    /// Lifetime tag set when the zone was first allocated (NotSet when empty).
    pub lifetime: Lifetime,
    /// Held by a writer (or a migration): no one else may write, finish or reset it.
    pub busy: bool,
}

impl ZoneView {
    /// Nothing written (the whole capacity remains).
    pub fn is_empty(&self) -> bool {
        self.remaining_bytes == self.max_capacity_bytes
    }

    /// Nothing writable remains.
    pub fn is_full(&self) -> bool {
        self.remaining_bytes == 0
    }

    /// Written but not full: holds an active resource.
    pub fn is_active(&self) -> bool {
        !self.is_empty() && !self.is_full()
    }
}

/// Zones and resource tokens as the allocator sees them.
#[derive(Debug, Clone, Copy)]
pub struct AllocView<'a> {
    /// IO zones in index order.
    pub zones: &'a [ZoneView],
    /// Open-zone tokens held by writers.
    pub open_io_zones: u32,
    /// Active-zone tokens held (partially written zones).
    pub active_io_zones: u32,
    /// Open tokens available to IO zones (device max open minus the reserved zones).
    pub max_open_io_zones: u32,
    /// Active tokens available to IO zones (device max active minus the reserved zones).
    pub max_active_io_zones: u32,
    /// Finish threshold, percent of the zone capacity (0 = off).
    pub finish_threshold_pct: u32,
}

/// A request for a zone to write a file's next extent into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementRequest {
    /// The file's lifetime hint.
    pub lifetime: Lifetime,
    /// WAL or not.
    pub io_type: IoType,
    /// Smallest remaining capacity acceptable (migration targets; 0 otherwise).
    pub min_capacity_bytes: u64,
}

/// What the allocator decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementDecision {
    /// Zones to finish before anything else (finish threshold, finish-cheapest), in order.
    pub finish: Vec<u32>,
    /// The outcome.
    pub outcome: Placement,
}

/// Where the next extent goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Write into this already active zone (no active token needed).
    Active(u32),
    /// Take an active token and open this empty zone, tagging it with the file's lifetime.
    Empty(u32),
    /// No open token is free for this I/O type: wait until a writer releases one and ask again.
    WaitForOpenToken,
    /// No active token can be freed now (nothing to finish): wait and ask again.
    WaitForActiveToken,
    /// No zone can be had: the device is out of space.
    NoSpace,
}

/// A placement policy.
pub trait PlacementPolicy: Send + Sync + std::fmt::Debug {
    /// Name used on the command line and in reports (`liza`, ...).
    fn name(&self) -> &'static str;

    /// Decides where the next extent of a file goes.
    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest) -> PlacementDecision;
}
