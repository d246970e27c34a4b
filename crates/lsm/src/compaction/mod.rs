//! Compaction picking, as pure functions over a snapshot of the tree.
//!
//! - [`picker`] — the `CompactionPicker` trait, its input view and its output plan.
//! - [`levels`] — level targets (static and dynamic), scores, compensated sizes, file order
//!   by `compaction_pri`, pending compaction bytes, `CalculateSSTWriteHint`, key-range helpers.
//! - [`leveled`] — `LeveledPicker`: RocksDB's leveled picker (the 6.14/7.4 rule set the ZenFS,
//!   CAZA and ZACA papers ran).

pub mod leveled;
pub mod levels;
pub mod picker;

pub use leveled::LeveledPicker;
pub use levels::{
    LevelTargets, calculate_sst_write_hint, compaction_scores, compensated_size,
    estimated_pending_compaction_bytes, level_targets,
};
pub use picker::{
    CompactionInputs, CompactionPicker, CompactionPlan, CompactionReason, FileInfo, PickerInput,
    RunningCompaction, ZoneMap,
};
