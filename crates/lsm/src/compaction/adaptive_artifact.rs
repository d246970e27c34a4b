//! ACC as the MSST'24 code runs it (`acc-artifact`), beside [`super::adaptive`] (the paper's
//! pseudocode 1, `acc`).
//!
//! | | `acc` (paper text, pseudocode 1) | `acc-artifact` (code) |
//! |---|---|---|
//! | ZACA when | free% ≤ `acc_turning_point` and level ≥ `acc_min_start_level` | free% < `max_compaction_kick` and start level ≥ `max_compaction_start_level` |
//! | free% | unwritten bytes / IO capacity (exact) | `CalculateFreePercent`: whole MiB, device = every zone incl. metadata, floored ([`ZoneLayout::artifact_free_pct`]) |
//! | ZACA | [`Zaca`](super::start_file::Zaca): highest `S_same` (equation 1), SICA order | [`ZacaArtifact`]: highest mean squared invalid % (`GetMaxInvalidateCompactionScore`), `kMinOverlappingRatio` order |
//! | otherwise | SICA (largest file first) | the stock RocksDB 7.4 loop, `kMinOverlappingRatio` from `NextCompactionIndex` |
//!
//! Ported from `LevelCompactionBuilder::PickFileToCompact()` (`db/compaction/
//! compaction_picker_level.cc`, e4b644d): `goto baseline` when `compaction_scheme ==
//! BASELINE_COMPACTION || zns_free_percent >= max_compaction_kick || start_level_ <
//! max_compaction_start_level`. The db_bench defaults are `max_compaction_kick = 25`,
//! `max_compaction_start_level = 2`; the paper's run script (`script/benchmark.sh`) sweeps
//! `-max_compaction_kick` over 30, 40, 50, 60, 70, 100 with CAZA-ADV (Fig. 13/14's
//! turning points ≥ 30; 100 is ZACA whenever anything is written), while the A-LIZA / A-CAZA
//! figures (8–12, 15–17) use the turning point 25, the db_bench default. Both schemes ignore
//! `compaction_pri`: the artifact ran RocksDB 7.4's default, `kMinOverlappingRatio`.
//!
//! The authors' Baseline is the stock picker with `compaction_pri = kMinOverlappingRatio`:
//! that is `compaction_scheme = "rocksdb"` with the default `compaction_pri` (trivial moves
//! included, as 7.4's `Compaction::IsTrivialMove`).

use super::leveled::pick_leveled;
use super::picker::{CompactionPicker, CompactionPlan, PickerInput};
use super::start_file::{MinOverlappingRatio, StartFileRule, ZacaArtifact};
use super::zone_layout::ZoneLayout;

/// The artifact's controller: ZACA-artifact or the stock loop by free space and level.
#[derive(Debug, Clone, Copy)]
pub struct AccArtifactPicker {
    /// `max_compaction_kick`: ZACA only while the free percentage is below this.
    pub max_compaction_kick: u64,
    /// `max_compaction_start_level`: ZACA only for start levels at or above this.
    pub max_compaction_start_level: u32,
}

impl AccArtifactPicker {
    /// The rule for a compaction starting at `level` with `free_pct` free space (`None`: no
    /// zone layer; the code's free percentage then stays 100).
    pub fn rule(&self, free_pct: Option<u64>, level: usize) -> &'static dyn StartFileRule {
        let free = free_pct.unwrap_or(100);
        if free >= self.max_compaction_kick
            || (level as u64) < u64::from(self.max_compaction_start_level)
        {
            &MinOverlappingRatio
        } else {
            &ZacaArtifact
        }
    }
}

impl CompactionPicker for AccArtifactPicker {
    fn name(&self) -> &'static str {
        "acc-artifact"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let free = input.zones.map(ZoneLayout::artifact_free_pct);
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
    fn zaca_below_the_kick_from_the_start_level() {
        let acc = AccArtifactPicker {
            max_compaction_kick: 25,
            max_compaction_start_level: 2,
        };
        assert_eq!(acc.rule(Some(24), 2).name(), "zaca-artifact");
        assert_eq!(acc.rule(Some(0), 5).name(), "zaca-artifact");
        // At the kick (the code's `>=`) and above: the stock loop.
        assert_eq!(acc.rule(Some(25), 3).name(), "min-overlapping-ratio");
        assert_eq!(acc.rule(Some(60), 3).name(), "min-overlapping-ratio");
        // Below the start level.
        assert_eq!(acc.rule(Some(10), 1).name(), "min-overlapping-ratio");
        assert_eq!(acc.rule(Some(10), 0).name(), "min-overlapping-ratio");
        // No zone layer: free 100.
        assert_eq!(acc.rule(None, 4).name(), "min-overlapping-ratio");
        let always = AccArtifactPicker {
            max_compaction_kick: 101,
            max_compaction_start_level: 0,
        };
        assert_eq!(always.rule(None, 0).name(), "zaca-artifact");
        let never = AccArtifactPicker {
            max_compaction_kick: 0,
            max_compaction_start_level: 0,
        };
        assert_eq!(never.rule(Some(0), 3).name(), "min-overlapping-ratio");
    }
}
