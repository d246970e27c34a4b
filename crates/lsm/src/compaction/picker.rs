//! The picker interface: a pure function from a snapshot of the tree (files per level, what is
//! being compacted, running compactions, per-level cursors, options, optionally the zone view)
//! to the next compaction. Pickers do no I/O, so policies are tested and simulated without a
//! device; a new picker (ZACA, ACC, Gear, LLC) is one file implementing [`CompactionPicker`].

use crate::options::DbOptions;
use crate::version::FileMeta;

/// One SST as the picker sees it: the version's metadata, borrowed, and whether the file is
/// an input of a running compaction. Dereferences to the [`FileMeta`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelFile<'a> {
    /// The file's metadata, as the version holds it.
    pub meta: &'a FileMeta,
    /// Input of a running compaction.
    pub being_compacted: bool,
}

impl std::ops::Deref for LevelFile<'_> {
    type Target = FileMeta;

    fn deref(&self) -> &FileMeta {
        self.meta
    }
}

/// A running compaction (its inputs are marked `being_compacted` in the view).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningCompaction {
    /// Start level.
    pub start_level: u32,
    /// Output level.
    pub output_level: u32,
    /// Smallest user key over all its inputs.
    pub smallest_user_key: Vec<u8>,
    /// Largest user key over all its inputs.
    pub largest_user_key: Vec<u8>,
}

/// Everything a picker reads.
#[derive(Debug, Clone, Copy)]
pub struct PickerInput<'a> {
    /// Files per level. `levels[0]` is L0 newest first (largest sequence descending), deeper
    /// levels are sorted by smallest key and do not overlap.
    pub levels: &'a [Vec<LevelFile<'a>>],
    /// Running compactions.
    pub running: &'a [RunningCompaction],
    /// Per level: where the scan of the level's ordered files resumes within the same version
    /// (RocksDB's `NextCompactionIndex`; the engine resets it when the version changes).
    pub next_compaction_index: &'a [usize],
    /// Per level: the round-robin cursor (an internal key; empty = start).
    pub compact_cursor: &'a [Vec<u8>],
    /// Engine options.
    pub options: &'a DbOptions,
    /// The zone layer's view (only for pickers whose [`CompactionPicker::wants_zone_view`]).
    pub zones: Option<&'a super::zone_layout::ZoneLayout>,
}

/// The files of one level taking part in a compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionInputs {
    /// Level.
    pub level: u32,
    /// File numbers.
    pub files: Vec<u64>,
}

/// Why a compaction was picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum CompactionReason {
    /// L0 file count (or size) over its trigger.
    LevelL0FilesNum,
    /// A level over its target size.
    LevelMaxLevelSize,
    /// L0 → L0, because L0 → base was blocked.
    IntraL0,
}

/// A compaction to run.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// Start level.
    pub start_level: u32,
    /// Output level.
    pub output_level: u32,
    /// Inputs: the start level first, then the output level (possibly without files).
    pub inputs: Vec<CompactionInputs>,
    /// Files of the first non-empty level below the output level that overlap the inputs
    /// (they drive output cutting).
    pub grandparents: Vec<u64>,
    /// Only the MANIFEST changes (files move to the output level).
    pub trivial_move: bool,
    /// Score of the start level when picked.
    pub score: f64,
    /// Why.
    pub reason: CompactionReason,
    /// Output files are cut at this size (RocksDB's `MaxFileSizeForLevel`).
    pub max_output_file_size: u64,
    /// `max_compaction_bytes` (also the grandparent-overlap limit per output file).
    pub max_compaction_bytes: u64,
    /// No file below the output level overlaps the inputs' key range (tombstones that every
    /// snapshot sees can be dropped). For a cascading plan (non-empty `cascade`) this is said
    /// of the deepest level it writes; the cascade's merge decides it again for each level it
    /// writes, from the job's own version.
    pub bottommost: bool,
    /// New `NextCompactionIndex` for a level.
    pub next_compaction_index: Option<(u32, usize)>,
    /// New round-robin cursor for a level.
    pub compact_cursor: Option<(u32, Vec<u8>)>,
    /// A user key no output file may straddle: an output holding keys up to it is closed
    /// before the first key past it (LLC's cut at the output level's cursor, see
    /// [`super::lifetime_leveling`]; `None` for the other schemes).
    pub split_at: Option<Vec<u8>>,
    /// Levels below the output level a gear compaction cascades into, shallowest first
    /// (GearDB's gear compaction, see [`super::gear`]; empty for the other schemes). Their
    /// input files are in [`Self::inputs`].
    pub cascade: Vec<super::gear::CascadeLevel>,
    /// A user key past which outputs are temporary (LLC's `TEMP_FILE` with
    /// `llc_temp_zones`): outputs are also cut at it, and those whose keys all lie past it
    /// are written as temporary SSTs (their own zone group on `level-zones`). `None` for the
    /// other schemes.
    pub temp_after: Option<Vec<u8>>,
}

impl CompactionPlan {
    /// Every input file number.
    pub fn input_files(&self) -> impl Iterator<Item = u64> + '_ {
        self.inputs.iter().flat_map(|i| i.files.iter().copied())
    }
}

/// A compaction picker.
pub trait CompactionPicker: Send + Sync + std::fmt::Debug {
    /// Name used on the command line and in reports.
    fn name(&self) -> &'static str;

    /// The next compaction, if any is due and possible.
    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan>;

    /// Whether [`PickerInput::zones`] should be filled in (it costs a walk of the zone layer).
    fn wants_zone_view(&self) -> bool {
        false
    }
}
