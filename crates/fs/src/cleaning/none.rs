//! No cleaning: zones are only reclaimed when every file in them is deleted.

use super::{CleaningPolicy, CleaningView};

/// Never cleans.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCleaner;

impl CleaningPolicy for NoCleaner {
    fn name(&self) -> &'static str {
        "none"
    }

    fn victims(&self, _view: &CleaningView<'_>) -> Vec<u32> {
        Vec::new()
    }
}
