//! SICA and ACC (Adaptive Compaction Controller; Same-Zone Compaction paper, §V-B,
//! pseudocode 1).
//!
//! ```text
//! ACC(free_space_ratio, level):
//!   if free_space_ratio > turning_point: SICA
//!   if level is 0 or 1:                  SICA      (the level constraint)
//!   otherwise:                           ZACA
//! ```
//!
//! The turning point (`acc_turning_point`, 25%) and the first ZACA level
//! (`acc_min_start_level`, 2; 0 drops the constraint) are options. Without a zone view (no
//! zone layer underneath) ACC is SICA.

use super::leveled::pick_leveled;
use super::picker::{CompactionPicker, CompactionPlan, PickerInput};
use super::start_file::{Sica, StartFileRule, Zaca};

/// SICA: RocksDB's size-based victim choice as the paper defines it (the
/// [`super::start_file::sica`] rule at every level).
#[derive(Debug, Clone, Copy, Default)]
pub struct SicaPicker;

impl CompactionPicker for SicaPicker {
    fn name(&self) -> &'static str {
        "sica"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        pick_leveled(input, &|_| &Sica)
    }
}

/// ACC: SICA or ZACA by free space and level.
#[derive(Debug, Clone, Copy)]
pub struct AdaptivePicker {
    /// ZACA only when the free space is at or below this, percent.
    pub turning_point_pct: u32,
    /// ZACA only for start levels at or above this.
    pub min_start_level: u32,
}

impl AdaptivePicker {
    /// The rule ACC applies to a compaction starting at `level` with `free_pct` free space.
    pub fn rule(&self, free_pct: Option<f64>, level: usize) -> &'static dyn StartFileRule {
        match free_pct {
            Some(free) if free <= f64::from(self.turning_point_pct) => {
                if (level as u64) < u64::from(self.min_start_level) {
                    &Sica
                } else {
                    &Zaca
                }
            }
            _ => &Sica,
        }
    }
}

impl CompactionPicker for AdaptivePicker {
    fn name(&self) -> &'static str {
        "acc"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let free = input.zones.map(|z| z.free_pct);
        pick_leveled(input, &|level| self.rule(free, level))
    }

    fn wants_zone_view(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudocode_1() {
        let acc = AdaptivePicker {
            turning_point_pct: 25,
            min_start_level: 2,
        };
        assert_eq!(acc.rule(Some(60.0), 3).name(), "sica");
        assert_eq!(acc.rule(Some(20.0), 0).name(), "sica");
        assert_eq!(acc.rule(Some(20.0), 1).name(), "sica");
        assert_eq!(acc.rule(Some(20.0), 2).name(), "zaca");
        assert_eq!(acc.rule(None, 4).name(), "sica");
        let no_constraint = AdaptivePicker {
            turning_point_pct: 25,
            min_start_level: 0,
        };
        assert_eq!(no_constraint.rule(Some(20.0), 0).name(), "zaca");
        let never = AdaptivePicker {
            turning_point_pct: 0,
            min_start_level: 0,
        };
        assert_eq!(never.rule(Some(0.5), 3).name(), "sica");
    }
}
