//! Compaction picking, as pure functions over a snapshot of the tree.
//!
//! - [`picker`] — the `CompactionPicker` trait, its input view and its output plan.
//! - [`levels`] — level targets (static and dynamic), scores, compensated sizes, file order
//!   by `compaction_pri`, pending compaction bytes, `CalculateSSTWriteHint`, key-range helpers.
//! - [`leveled`] — `LeveledPicker`: RocksDB's leveled picker (the 6.14/7.4 rule set the ZenFS,
//!   CAZA and ZACA papers ran), and `pick_leveled` with a per-level start-file rule.
//! - [`zone_layout`] — the zones under the SSTs; `S_same` (equation 1) and `S_inval`.
//! - [`same_zone`] — ZACA: start files chosen by `S_same`.
//! - [`adaptive`] — SICA and ACC (SICA or ZACA by free space and level).

pub mod adaptive;
pub mod leveled;
pub mod levels;
pub mod picker;
pub mod same_zone;
pub mod zone_layout;

use std::sync::Arc;

pub use adaptive::{AdaptivePicker, SicaPicker};
pub use leveled::{FileRule, LeveledPicker, pick_leveled};
pub use levels::{
    LevelTargets, calculate_sst_write_hint, compaction_scores, compensated_size,
    estimated_pending_compaction_bytes, level_targets,
};
pub use picker::{
    CompactionInputs, CompactionPicker, CompactionPlan, CompactionReason, FileInfo, PickerInput,
    RunningCompaction,
};
pub use same_zone::ZacaPicker;
pub use zone_layout::{ZoneLayout, ZoneMap, ZoneUsage};

/// The picker `options.compaction_scheme` names.
pub fn picker_for(options: &crate::options::DbOptions) -> Arc<dyn CompactionPicker> {
    use crate::options::CompactionScheme;
    match options.compaction_scheme {
        CompactionScheme::Rocksdb => Arc::new(LeveledPicker),
        CompactionScheme::Sica => Arc::new(SicaPicker),
        CompactionScheme::Zaca => Arc::new(ZacaPicker),
        CompactionScheme::Acc => Arc::new(AdaptivePicker {
            turning_point_pct: options.acc_turning_point,
            min_start_level: options.acc_min_start_level,
        }),
    }
}
