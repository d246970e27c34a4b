//! ZACA alone (the Same-Zone Compaction paper's "ZACA"; ACC with no level constraint and a
//! 100% turning point): leveled picking with the ZACA start-file rule at every level (see
//! [`super::start_file::zaca`]).

use super::leveled::pick_leveled;
use super::picker::{CompactionPicker, CompactionPlan, PickerInput};
use super::start_file::Zaca;

/// ZACA at every level, whatever the free space.
#[derive(Debug, Clone, Copy, Default)]
pub struct ZacaPicker;

impl CompactionPicker for ZacaPicker {
    fn name(&self) -> &'static str {
        "zaca"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        pick_leveled(input, &|_| &Zaca)
    }

    fn wants_zone_view(&self) -> bool {
        true
    }
}
