//! ZenFS's garbage collection rules (`ZenFS::GCWorker`, `fs/fs_zenfs.cc:272-321`).
//!
//! - **Trigger**: `free_percent <= GC_START_LEVEL` (20), with
//!   `free_percent = 100 * free / (free + used + reclaimable)`
//!   ([`CleaningView::free_percent`]).
//! - **Aggressiveness**: `threshold = 100 - GC_SLOPE * (GC_START_LEVEL - free_percent)`
//!   (`GC_SLOPE` = 3): free 19 % → 97, 10 % → 70, 0 % → 40.
//! - **Victims**: every full zone (remaining capacity 0, finished zones included) whose
//!   `garbage% = 100 - 100 * used / max_capacity` (integer division) satisfies
//!   `threshold < garbage% < 100`, in index order. Zones that are 100 % garbage are left to
//!   the reset of unused zones; there is no sorting and no cost-benefit term.
//!
//! ZenFS skips files open for write when it snapshots; here busy zones (held by a writer or a
//! migration) are skipped.

use super::{CleaningPolicy, CleaningView};
use crate::placement::policy::ZoneView;

/// Free-space percentage at or below which GC runs (`GC_START_LEVEL`, `fs/fs_zenfs.h:462`).
pub const GC_START_LEVEL: u64 = 20;

/// Threshold drop per percent of free space below [`GC_START_LEVEL`] (`GC_SLOPE`,
/// `fs/fs_zenfs.h:463`).
pub const GC_SLOPE: u64 = 3;

/// ZenFS's threshold sweep.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZenFsCleaner;

/// The garbage percentage above which a full zone is a victim, for a free-space percentage
/// at or below [`GC_START_LEVEL`]: `100 - GC_SLOPE * (GC_START_LEVEL - free_percent)`
/// (saturating; above the start level the result is 100, i.e. no victim).
pub fn gc_threshold(free_percent: u64) -> u64 {
    100u64.saturating_sub(GC_SLOPE.saturating_mul(GC_START_LEVEL.saturating_sub(free_percent)))
}

/// ZenFS's approximate garbage percentage of a zone: `100 - 100 * used / max_capacity`,
/// integer division as in ZenFS (so it rounds the garbage *up*). `None` for a zone of zero
/// capacity; 0 when `used` exceeds the capacity.
pub fn garbage_percent(zone: &ZoneView) -> Option<u64> {
    if zone.max_capacity_bytes == 0 {
        return None;
    }
    let used_pct = u128::from(zone.used_bytes) * 100 / u128::from(zone.max_capacity_bytes);
    Some(100u64.saturating_sub(u64::try_from(used_pct).unwrap_or(u64::MAX)))
}

impl CleaningPolicy for ZenFsCleaner {
    fn name(&self) -> &'static str {
        "zenfs"
    }

    fn victims(&self, view: &CleaningView<'_>) -> Vec<u32> {
        let free_percent = view.free_percent();
        if free_percent > GC_START_LEVEL {
            return Vec::new();
        }
        let threshold = gc_threshold(free_percent);
        view.zones
            .iter()
            .filter(|z| z.is_full() && !z.busy)
            .filter(|z| garbage_percent(z).is_some_and(|g| threshold < g && g < 100))
            .map(|z| z.index)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cleaning::test_zones::{CAP, zone};

    /// `n` empty zones of capacity [`CAP`], indexed from 100: free space to tune the
    /// free percentage.
    fn padding(n: u32) -> Vec<ZoneView> {
        (100..100 + n).map(|i| zone(i, CAP, 0)).collect()
    }

    /// Zones whose free percentage is exactly `free_pct`: `free_pct` empty zones plus full
    /// zones with the given used bytes (`used` entries, 100 zones in all), indices 0...
    fn with_free(free_pct: u32, used: &[u64]) -> Vec<ZoneView> {
        assert!(used.len() as u32 + free_pct <= 100);
        let mut zones: Vec<ZoneView> = used
            .iter()
            .enumerate()
            .map(|(i, &u)| zone(i as u32, 0, u))
            .collect();
        // Fill up to 100 zones with fully used full zones so the total is 100 * CAP.
        let fillers = 100 - free_pct - used.len() as u32;
        zones.extend((200..200 + fillers).map(|i| zone(i, 0, CAP)));
        zones.extend(padding(free_pct));
        zones
    }

    fn victims(zones: &[ZoneView]) -> Vec<u32> {
        ZenFsCleaner.victims(&CleaningView { zones })
    }

    #[test]
    fn name_is_zenfs() {
        assert_eq!(ZenFsCleaner.name(), "zenfs");
        assert_eq!(GC_START_LEVEL, 20);
        assert_eq!(GC_SLOPE, 3);
    }

    #[test]
    fn threshold_examples_from_the_reference() {
        assert_eq!(gc_threshold(20), 100);
        assert_eq!(gc_threshold(19), 97);
        assert_eq!(gc_threshold(10), 70);
        assert_eq!(gc_threshold(0), 40);
        assert_eq!(gc_threshold(21), 100);
    }

    #[test]
    fn garbage_percent_uses_integer_math() {
        assert_eq!(garbage_percent(&zone(0, 0, 0)), Some(100));
        assert_eq!(garbage_percent(&zone(0, 0, 1)), Some(99));
        assert_eq!(garbage_percent(&zone(0, 0, 30)), Some(70));
        assert_eq!(garbage_percent(&zone(0, 0, 100)), Some(0));
        assert_eq!(garbage_percent(&zone(0, 0, 150)), Some(0));
        let mut odd = zone(0, 0, 1);
        odd.max_capacity_bytes = 3; // 100 * 1 / 3 = 33 -> 67
        assert_eq!(garbage_percent(&odd), Some(67));
        let mut zero = zone(0, 0, 0);
        zero.max_capacity_bytes = 0;
        assert_eq!(garbage_percent(&zero), None);
    }

    #[test]
    fn trigger_at_20_percent_not_21() {
        // Garbage 99 % (> 97 at 19 %, but at 20 % the threshold is 100: nothing qualifies).
        let zones = with_free(21, &[1]);
        assert_eq!(CleaningView { zones: &zones }.free_percent(), 21);
        assert!(victims(&zones).is_empty());

        let zones = with_free(20, &[1]);
        assert_eq!(CleaningView { zones: &zones }.free_percent(), 20);
        // Triggered, but threshold 100 admits nothing.
        assert!(victims(&zones).is_empty());

        let zones = with_free(19, &[1]);
        assert_eq!(CleaningView { zones: &zones }.free_percent(), 19);
        assert_eq!(victims(&zones), vec![0]);
    }

    #[test]
    fn threshold_is_strict_at_19_percent() {
        // used 3 -> garbage 97 (not > 97); used 2 -> 98.
        let zones = with_free(19, &[3, 2]);
        assert_eq!(victims(&zones), vec![1]);
    }

    #[test]
    fn threshold_at_10_and_0_percent() {
        // used 30 -> garbage 70 (not > 70); used 29 -> 71.
        let zones = with_free(10, &[30, 29]);
        assert_eq!(CleaningView { zones: &zones }.free_percent(), 10);
        assert_eq!(victims(&zones), vec![1]);
        // At 0 % free: threshold 40; used 60 -> 40 (no), used 59 -> 41 (yes).
        let zones = with_free(0, &[60, 59]);
        assert_eq!(CleaningView { zones: &zones }.free_percent(), 0);
        assert_eq!(victims(&zones), vec![1]);
    }

    #[test]
    fn only_full_zones_are_victims() {
        // A partially written zone with 99 % garbage of its written part is not full.
        let mut zones = with_free(10, &[1, 1]);
        zones[0].remaining_bytes = 10; // no longer full (and adds a little free space)
        assert!(CleaningView { zones: &zones }.free_percent() <= 20);
        assert_eq!(victims(&zones), vec![1]);
    }

    #[test]
    fn busy_zones_are_skipped() {
        let mut zones = with_free(10, &[1, 1]);
        zones[1].busy = true;
        assert_eq!(victims(&zones), vec![0]);
    }

    #[test]
    fn fully_dead_zones_are_left_to_reset() {
        let zones = with_free(0, &[0, 1, 0]);
        assert_eq!(victims(&zones), vec![1]);
    }

    #[test]
    fn all_qualifying_zones_in_index_order() {
        let zones = with_free(0, &[10, 70, 20, 0, 59, 60]);
        assert_eq!(victims(&zones), vec![0, 2, 4]);
    }

    #[test]
    fn no_zones_no_victims() {
        assert!(victims(&[]).is_empty());
    }
}
