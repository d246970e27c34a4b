//! TEMPORARY STUB.
use super::{CleaningPolicy, CleaningView};
/// Greedy.
#[derive(Debug, Clone, Copy)]
pub struct GreedyCleaner {
    pub free_threshold_pct: u32,
}
impl Default for GreedyCleaner {
    fn default() -> Self {
        Self {
            free_threshold_pct: 20,
        }
    }
}
impl CleaningPolicy for GreedyCleaner {
    fn name(&self) -> &'static str {
        "greedy"
    }
    fn victims(&self, view: &CleaningView<'_>) -> Vec<u32> {
        if view.free_percent() >= u64::from(self.free_threshold_pct) {
            return vec![];
        }
        view.zones
            .iter()
            .filter(|z| z.is_full() && !z.busy && z.used_bytes < z.max_capacity_bytes)
            .min_by_key(|z| z.used_bytes)
            .map(|z| vec![z.index])
            .unwrap_or_default()
    }
}
