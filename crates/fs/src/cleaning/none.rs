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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::policy::{Lifetime, ZoneView};

    #[test]
    fn never_cleans() {
        assert_eq!(NoCleaner.name(), "none");
        let dead = ZoneView {
            index: 0,
            max_capacity_bytes: 100,
            remaining_bytes: 0,
            used_bytes: 1,
            lifetime: Lifetime::Long,
            busy: false,
        };
        let zones = [dead; 4];
        assert!(
            NoCleaner
                .victims(&CleaningView { zones: &zones })
                .is_empty()
        );
    }
}
