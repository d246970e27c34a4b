//! Zone placement policies: pure functions from a read-only view of the zones (and the hints
//! received) to a decision the file layer carries out.
//!
//! - [`lifetime`]: LIZA, ZenFS's lifetime-based allocator, reproduced rule by rule.
//! - [`compaction_aware`]: CAZA, compaction-aware allocation (Same-Zone Compaction paper, §VI).
//! - [`overlap_ratio`]: OAZA, overlapping-ratio-aware allocation (ASP-DAC'24 slides;
//!   reconstructed).
//!
//! CAZA and OAZA need what only the engine knows (the SST's level and key range, the
//! overlapping SSTs of the neighbour levels and the zones holding them). The engine builds an
//! [`SstContext`] once the SST is complete and passes it with the file
//! ([`crate::ZoneFs::create_sst`]); the policies read it from [`PlacementRequest::sst`].

pub mod compaction_aware;
pub mod lifetime;
pub mod overlap_ratio;

use std::sync::Arc;

/// Placement policy names accepted by [`by_name`].
pub const NAMES: [&str; 3] = ["liza", "caza", "oaza"];

/// The placement policy called `name` (`liza`, `caza`, `oaza`).
///
/// # Errors
/// A message naming the known policies.
pub fn by_name(name: &str) -> Result<Arc<dyn PlacementPolicy>, String> {
    match name {
        "liza" => Ok(Arc::new(lifetime::Liza)),
        "caza" => Ok(Arc::new(compaction_aware::Caza)),
        "oaza" => Ok(Arc::new(overlap_ratio::Oaza)),
        other => Err(format!(
            "unknown placement '{other}'; known: {}",
            NAMES.join(", ")
        )),
    }
}

/// An SST of a neighbour level (or of the same level) as CAZA and OAZA see it.
#[derive(Debug, Clone, PartialEq)]
pub struct NeighbourSst {
    /// File number.
    pub number: u64,
    /// Bytes.
    pub size: u64,
    /// Zones holding it: (zone index, bytes), most bytes first.
    pub zones: Vec<(u32, u64)>,
    /// Its overlap ratio against its own neighbour level (OAZA lists; 0 elsewhere).
    pub overlap_ratio: f64,
}

/// What the engine knows about a complete SST when it asks for its zone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SstContext {
    /// File number.
    pub number: u64,
    /// Level the SST is written to (0 for flushes).
    pub level: u32,
    /// Bytes.
    pub size: u64,
    /// `S_level` of the upper neighbour level (`None` for L0: it has none).
    pub upper_level_score: Option<f64>,
    /// `S_level` of the SST's own level.
    pub level_score: f64,
    /// SSTs of the upper neighbour level (L0 for the base level) overlapping the new SST.
    pub upper: Vec<NeighbourSst>,
    /// SSTs of the lower neighbour level (the base level for L0) overlapping the new SST.
    pub lower: Vec<NeighbourSst>,
    /// SSTs of the same level, nearest key range first (CAZA's outward search).
    pub same_level_by_key: Vec<NeighbourSst>,
    /// OAZA: the new SST's overlap ratio (bytes of overlapping SSTs of level L+1, or L-1 at
    /// the bottom level, over its own bytes).
    pub overlap_ratio: f64,
    /// OAZA: SSTs of the same level, closest overlap ratio first.
    pub same_level_by_ratio: Vec<NeighbourSst>,
}

/// What a policy needs the engine to put into an [`SstContext`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextNeeds {
    /// Neighbour-level overlaps, scores and same-level key neighbours (CAZA).
    pub neighbours: bool,
    /// Overlap ratios and the same-level ratio list (OAZA).
    pub overlap_ratios: bool,
}

impl ContextNeeds {
    /// Nothing: the policy decides from lifetimes alone.
    pub fn none(&self) -> bool {
        !self.neighbours && !self.overlap_ratios
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacementRequest<'a> {
    /// The file's lifetime hint.
    pub lifetime: Lifetime,
    /// WAL or not.
    pub io_type: IoType,
    /// Smallest remaining capacity acceptable (migration targets; 0 otherwise).
    pub min_capacity_bytes: u64,
    /// The complete SST being placed, when the engine described it.
    pub sst: Option<&'a SstContext>,
}

/// What the allocator decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementDecision {
    /// Zones to finish before anything else (finish threshold, finish-cheapest), in order.
    pub finish: Vec<u32>,
    /// The outcome.
    pub outcome: Placement,
    /// Chosen from the SST's context (CAZA's or OAZA's own rules), not by a fallback.
    pub from_context: bool,
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
    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision;

    /// What the engine should describe in an [`SstContext`] for this policy (nothing by
    /// default: building a context costs a walk of the tree).
    fn context_needs(&self) -> ContextNeeds {
        ContextNeeds::default()
    }
}

/// Whether a zone can take a whole SST of `size` bytes now: not held by anyone, written but
/// not full (no new active token needed), with room for all of it.
pub fn fits_whole_sst(zone: &ZoneView, size: u64) -> bool {
    !zone.busy && zone.is_active() && zone.remaining_bytes >= size.max(1)
}

/// The zones holding `files`, in the order the files come (each file's zones most bytes
/// first), without repeats.
pub fn zones_of<'a>(files: impl IntoIterator<Item = &'a NeighbourSst>) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for f in files {
        for &(z, _) in &f.zones {
            if !out.contains(&z) {
                out.push(z);
            }
        }
    }
    out
}

/// The first of `candidates` that can take the whole SST of the request, else what LIZA
/// decides (the fallback of both CAZA and OAZA).
pub fn candidate_or_liza(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    candidates: impl FnOnce(&SstContext) -> Vec<u32>,
) -> PlacementDecision {
    if let Some(sst) = request.sst
        && let Some(z) = first_fitting(view, request, candidates(sst), sst.size)
    {
        return PlacementDecision {
            finish: Vec::new(),
            outcome: Placement::Active(z),
            from_context: true,
        };
    }
    lifetime::Liza.place(view, request)
}

/// The first zone of `candidates` (in order) that can take the whole SST, provided an open
/// token is free for it.
pub fn first_fitting(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    candidates: impl IntoIterator<Item = u32>,
    size: u64,
) -> Option<u32> {
    if view.open_io_zones >= lifetime::open_token_limit(view.max_open_io_zones, request.io_type) {
        return None;
    }
    let need = size.max(request.min_capacity_bytes);
    candidates.into_iter().find(|&z| {
        view.zones
            .binary_search_by_key(&z, |v| v.index)
            .ok()
            .and_then(|i| view.zones.get(i))
            .is_some_and(|v| fits_whole_sst(v, need))
    })
}
