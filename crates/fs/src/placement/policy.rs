//! The placement seam: what a policy sees (the zones, the file, the SST's context) and the
//! [`PlacementPolicy`] trait every policy implements, with the helpers policies share.

use super::lifetime;
use super::split::{SplitView, SubzonePlacement};
use super::tree_view::{NewSst, TreeFile, TreeView};
use crate::hints::Hint;
use crate::hybrid::placement::migration::{Migration, MigrationSettings};

/// Same-level SSTs CAZA's key search and OAZA's ratio search list: the nearest this many.
/// Further ones would be tried only after these, so this bounds the work per SST without
/// changing any decision where one of the nearest can take the SST.
pub const NEIGHBOURS_LISTED: usize = 32;

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

impl NeighbourSst {
    /// `files` with the zones `tree` reports for them (one batch).
    pub fn with_zones<'f, 'k: 'f>(
        tree: &dyn TreeView,
        files: impl IntoIterator<Item = (&'f TreeFile<'k>, f64)>,
    ) -> Vec<Self> {
        let files: Vec<(u64, u64, f64)> = files
            .into_iter()
            .map(|(f, ratio)| (f.number, f.size, ratio))
            .collect();
        let numbers: Vec<u64> = files.iter().map(|f| f.0).collect();
        files
            .into_iter()
            .zip(tree.file_zones(&numbers))
            .map(|((number, size, overlap_ratio), zones)| Self {
                number,
                size,
                zones,
                overlap_ratio,
            })
            .collect()
    }
}

/// What a placement policy planned for a complete SST from the tree
/// ([`PlacementPolicy::plan_sst`]); it goes with the file to every zone request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SstContext {
    /// File number.
    pub number: u64,
    /// Level the SST is written to (0 for flushes).
    pub level: u32,
    /// Bytes.
    pub size: u64,
    /// Zones to try, in order, before the policy's fallback: each only if it can take the
    /// whole SST then ([`first_fitting`]), or, with [`Self::spill`], if it has any room.
    pub candidates: Vec<u32>,
    /// Spill allowed (the authors' CAZA code): a candidate needs only room for more than the
    /// request's minimum capacity, not for the whole SST; when it fills, the SST's next extent
    /// asks again with the same plan ([`first_with_room`]).
    pub spill: bool,
    /// Zones the fallback's open-zone match skips: those holding the compaction's input files
    /// (`liza-caza`).
    pub avoid: Vec<u32>,
}

impl SstContext {
    /// A plan for `sst` trying `candidates`.
    pub fn new(sst: &NewSst<'_>, candidates: Vec<u32>) -> Self {
        Self {
            number: sst.number,
            level: sst.level,
            size: sst.size,
            candidates,
            ..Self::default()
        }
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
    /// On a hybrid device (SSD + HDD under one zone index space): its layout, per-device
    /// counters and the time, for policies that place by device; `None` on one device.
    pub hybrid: Option<HybridContext>,
}

/// What a placement policy sees of a hybrid device at one decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridContext {
    /// Which zones are the SSD's and which the HDD's, with each device's budgets.
    pub layout: zonedb_device::HybridLayout,
    /// Each device's counters so far.
    pub stats: zonedb_device::HybridStats,
    /// Virtual (or real) time of the decision, ns.
    pub now_ns: u64,
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

    /// Whether the policy plans complete SSTs from the tree ([`Self::plan_sst`]); the engine
    /// builds a [`TreeView`] only for policies that do (it costs a walk of the tree).
    fn wants_tree_view(&self) -> bool {
        false
    }

    /// Plans a complete SST before its bytes go out, from a view of the tree as it is now
    /// (called only when [`Self::wants_tree_view`]); `None`: the SST is placed like any
    /// other file.
    fn plan_sst(&self, _sst: &NewSst<'_>, _tree: &dyn TreeView) -> Option<SstContext> {
        None
    }

    /// A hint about what the engine does, in the order things happen. Must be quick; the
    /// default ignores it.
    fn on_hint(&self, _hint: &Hint) {}

    /// On a hybrid device: how this policy's migration between the devices runs (HHZS §3.4);
    /// `None`: no migration.
    fn migration(&self) -> Option<MigrationSettings> {
        None
    }

    /// The next migration, from the zones (`view.hybrid` set), the query reads of each live
    /// SST so far (by SST number) and the HDD's query reads per second over the last period.
    fn plan_migration(
        &self,
        _view: &AllocView<'_>,
        _reads: &std::collections::BTreeMap<u64, u64>,
        _hdd_read_rate: f64,
    ) -> Option<Migration> {
        None
    }

    /// A migration moved SST `sst` to `to`.
    fn on_migrated(&self, _sst: u64, _to: zonedb_device::Tier) {}

    /// On a hybrid device: whether blocks the engine's block cache evicts are cached in SSD
    /// zones (HHZS §3.5).
    fn caches_evicted_blocks(&self) -> bool {
        false
    }

    /// On a hybrid device: the SSD zones kept for the WAL (and the cache), the first IO zones.
    fn hybrid_log_zones(&self) -> u32 {
        0
    }

    /// On a device that splits zones, whether the file of `request` goes to a subzone
    /// (asked before [`Self::place`], for the file's first extent); `None`: the file is
    /// placed by [`Self::place`] like any other (the default, for every file).
    fn place_subzone(
        &self,
        _view: &SplitView<'_>,
        _request: &PlacementRequest<'_>,
    ) -> Option<SubzonePlacement> {
        None
    }
}

/// Whether a zone can take a whole SST of `size` bytes now: not held by anyone, written but
/// not full (no new active token needed), with room for all of it.
pub fn fits_whole_sst(zone: &ZoneView, size: u64) -> bool {
    !zone.busy && zone.is_active() && zone.remaining_bytes >= size.max(1)
}

/// The first of `candidates` (in order) with room: not held by anyone, written but not full,
/// more than `min_capacity` bytes left (the authors' CAZA code's `capacity_ > min_capacity`).
pub fn first_with_room(
    zones: &[ZoneView],
    candidates: impl IntoIterator<Item = u32>,
    min_capacity: u64,
) -> Option<u32> {
    candidates.into_iter().find(|&z| {
        zone_view(zones, z)
            .is_some_and(|v| !v.busy && v.is_active() && v.remaining_bytes > min_capacity)
    })
}

/// Zone `index` of `zones` (in index order).
fn zone_view(zones: &[ZoneView], index: u32) -> Option<&ZoneView> {
    zones
        .binary_search_by_key(&index, |v| v.index)
        .ok()
        .and_then(|i| zones.get(i))
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

/// The first of the planned candidates ([`SstContext::candidates`]) that can take the whole
/// SST of the request (with [`SstContext::spill`], that has more than the request's minimum
/// left), else what LIZA decides (the fallback of both CAZA and OAZA).
pub fn candidate_or_liza(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> PlacementDecision {
    let open_ok =
        || view.open_io_zones < lifetime::open_token_limit(view.max_open_io_zones, request.io_type);
    if let Some(sst) = request.sst.filter(|s| s.spill)
        && open_ok()
        && let Some(z) = first_with_room(
            view.zones,
            sst.candidates.iter().copied(),
            request.min_capacity_bytes,
        )
    {
        return PlacementDecision {
            finish: Vec::new(),
            outcome: Placement::Active(z),
            from_context: true,
        };
    }
    if let Some(sst) = request.sst.filter(|s| !s.spill)
        && let Some(z) = first_fitting(view, request, sst.candidates.iter().copied(), sst.size)
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
    candidates
        .into_iter()
        .find(|&z| zone_view(view.zones, z).is_some_and(|v| fits_whole_sst(v, need)))
}
