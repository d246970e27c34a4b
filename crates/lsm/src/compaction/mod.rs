//! Compaction picking, as pure functions over a snapshot of the tree.
//!
//! - [`picker`] — the `CompactionPicker` trait, its input view and its output plan.
//! - [`levels`] — level targets (static and dynamic), scores, compensated sizes, file order
//!   by `compaction_pri`, pending compaction bytes, `CalculateSSTWriteHint`, key-range helpers.
//! - [`leveled`] — `LeveledPicker`: RocksDB's leveled picker (the 6.14/7.4 rule set the ZenFS,
//!   CAZA and ZACA papers ran), `pick_leveled` with a per-level start-file rule, and
//!   `RulePicker` (one rule, possibly defined outside the crate, at every level).
//! - [`view`] — `PickView`: the tree for picking, with the clean-cut and overlap helpers.
//! - [`start_file`] — the `StartFileRule` trait and its rules, one file each: RocksDB's
//!   `compaction_pri` orders, SICA, ZACA (paper text and artifact forms); the registry.
//! - [`zone_layout`] — the zones under the SSTs; `S_same` (equation 1) and `S_inval`.
//! - [`same_zone`] — `ZacaPicker`: ZACA at every level.
//! - [`adaptive`] — `SicaPicker` and ACC (SICA or ZACA by free space and level), as the
//!   paper states them (pseudocode 1).
//! - [`adaptive_artifact`] — ACC as the MSST'24 code runs it (`acc-artifact`: ZACA-artifact
//!   or the stock `kMinOverlappingRatio` loop by `max_compaction_kick` and
//!   `max_compaction_start_level`); the two forms side by side in its table.
//! - [`lifetime_leveling`] — `LlcPicker`: Lifetime-Leveling Compaction (`llc`, HotStorage'22,
//!   a SplitZNS baseline): key-order round robin per level from its cursor, L0 drained
//!   eagerly, greedy input expansion while the level/next-level byte ratio rises, outputs
//!   split at the output level's cursor; the rules left out are listed there.
//! - [`gear`] — `GearPicker`: GearDB's gear compaction (`gear`, FAST'19, a SplitZNS
//!   baseline): RocksDB's picking, then a cascade into the next levels' compaction windows
//!   while the output level is full; [`gear::destination`] says where each entry goes.
//! - [`invalidation_score`] — the code's ZACA objective (`GetMaxInvalidateCompactionScore`).
//! - [`drop_rule`] — which entries a flush or compaction leaves out.
//! - [`output_cutting`] — where a compaction closes an output SST.
//! - [`subcompaction`] — whether and where a compaction is split into key ranges merged in
//!   parallel (`max_subcompactions`).

pub mod adaptive;
pub mod adaptive_artifact;
pub mod drop_rule;
pub mod gear;
pub mod invalidation_score;
pub mod leveled;
pub mod levels;
pub mod lifetime_leveling;
pub mod output_cutting;
pub mod picker;
pub mod same_zone;
pub mod start_file;
pub mod subcompaction;
pub mod view;
pub mod zone_layout;

use std::sync::Arc;

pub use adaptive::{AdaptivePicker, SicaPicker};
pub use adaptive_artifact::AccArtifactPicker;
pub use gear::GearPicker;
pub use invalidation_score::InvalidationScore;
pub use leveled::{LeveledPicker, RulePicker, pick_leveled};
pub use levels::{
    LevelTargets, calculate_sst_write_hint, compaction_scores, compensated_size,
    estimated_pending_compaction_bytes, level_targets,
};
pub use lifetime_leveling::LlcPicker;
pub use picker::{
    CompactionInputs, CompactionPicker, CompactionPlan, CompactionReason, LevelFile, PickerInput,
    RunningCompaction,
};
pub use same_zone::ZacaPicker;
pub use start_file::{StartFileRule, StartFiles, StartLevel};
pub use view::PickView;
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
        CompactionScheme::AccArtifact => Arc::new(AccArtifactPicker {
            max_compaction_kick: u64::from(options.max_compaction_kick),
            max_compaction_start_level: options.max_compaction_start_level,
        }),
        CompactionScheme::ZacaArtifact => {
            Arc::new(RulePicker::new(Arc::new(start_file::ZacaArtifact)))
        }
        CompactionScheme::Llc => Arc::new(LlcPicker { relocate: false }),
        CompactionScheme::LlcRelocate => Arc::new(LlcPicker { relocate: true }),
        CompactionScheme::Gear => Arc::new(GearPicker),
    }
}
