//! `liza-caza`: the lifetime allocator of the authors' ZenFS fork that produced the Same-Zone
//! Compaction paper's figures (`lass-lab/CAZAandZACA_MSST24` at the run commit `e4b644d`,
//! `plugin/zenfs/fs/zbd_zenfs.cc`: `AllocateIOZone`, `GetBestOpenZoneMatch`,
//! `GetLifeTimeDiff`, `FinishCheapestIOZone`, `AllocateEmptyZone`,
//! `GetAnyLargestRemainingZone`), reproduced as a pure function. It is also the fallback of
//! [`super::caza_artifact`].
//!
//! One call of [`LizaCaza::place`] is one `AllocateIOZone` call without its CAZA part:
//!
//! 1. **Finish threshold** and **open token**: as upstream ([`super::lifetime`]).
//! 2. **Best open zone** ([`best_open_zone_match_code`]): among zones that are not busy, hold
//!    live data, are not full and have at least `min_capacity` left, **skipping zones tagged
//!    `NotSet`/`None`** and **zones holding the compaction's input files**
//!    ([`SstContext::avoid`](super::SstContext::avoid)), the least [`lifetime_diff_code`];
//!    the best starts at 100 and a zone replaces it only when **strictly** better, so the
//!    first best zone in index order wins and a diff-100 zone is never taken. Whatever diff
//!    the match has, it is **used** (the fork comments out upstream's release of a diff ≥ 50
//!    match): partly written zones are filled before an empty zone is opened.
//! 3. **Active token**: if none is free, finish the cheapest zone until one is (nothing to
//!    finish: [`Placement::WaitForActiveToken`]; the fork spins there).
//! 4. **Empty zone**: the first one in index order, tagged with the file's lifetime.
//! 5. **Any zone** ([`largest_remaining_zone`], `GetAnyLargestRemainingZone`): no empty zone:
//!    the non-busy zone with the most room, more than `min_capacity` (first of equals).
//! 6. Nothing: [`Placement::NoSpace`] (the fork returns no zone; its writer sleeps and retries,
//!    see `FsOptions::alloc_retry_blocking_ms`).
//!
//! Differences from upstream `liza` ([`super::lifetime`]), all verified in the fork's code:
//!
//! - lifetime diff `|zone − file|` for files with a hint of `Short` or longer (upstream: 50 for
//!   an equal lifetime, 100 for a shorter-lived zone): an equal-lifetime zone is the best
//!   match (0), a shorter-lived zone is acceptable;
//! - zones tagged `NotSet`/`None` are never matched, so `NotSet`/`None` files (MANIFEST) always
//!   open an empty zone;
//! - zones holding the compaction's inputs are skipped;
//! - strict "<": ties go to the first zone (upstream "≤": the last);
//! - no release of a diff ≥ 50 match, hence no relaxed-diff rule;
//! - the `GetAnyLargestRemainingZone` step before giving up.
//!
//! Not modelled: the fork re-tags the zone step 5 returns with the file's lifetime and keeps
//! the active token it took for it (a token leak); here the zone keeps its tag and the active
//! count stays what the zones say. The fork passes the compaction's inputs only to the first
//! zone request of an output file (`ZoneFile::AllocateNewZone` clears them); here every request
//! of the file skips their zones.

use super::lifetime::{
    LIFETIME_DIFF_NOT_GOOD, cheapest_zone_to_finish, first_empty_zone, mark_finished,
    open_token_limit, zones_below_finish_threshold,
};
use super::{
    AllocView, IoType, Lifetime, Placement, PlacementDecision, PlacementPolicy, PlacementRequest,
    ZoneView,
};

/// The authors' lifetime allocator. Stateless.
#[derive(Debug, Default, Clone, Copy)]
pub struct LizaCaza;

impl PlacementPolicy for LizaCaza {
    fn name(&self) -> &'static str {
        "liza-caza"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        let mut zones = view.zones.to_vec();
        let finish = apply_finish_threshold(&mut zones, view, request);
        match open_token_or_wait(view, request, finish) {
            Ok(finish) => allocate_after_open_token(&zones, view, request, finish),
            Err(wait) => wait,
        }
    }
}

/// `GetLifeTimeDiff(zone_lt, file_lt)` of the fork (`zbd_zenfs.cc`): for a file hint of
/// `NotSet`/`None`, 0 when the zone has the same tag, else 100; otherwise `|zone − file|`.
pub fn lifetime_diff_code(zone: Lifetime, file: Lifetime) -> u32 {
    if matches!(file, Lifetime::NotSet | Lifetime::None) {
        return if zone == file {
            0
        } else {
            LIFETIME_DIFF_NOT_GOOD
        };
    }
    (zone as u32).abs_diff(file as u32)
}

/// The fork's `GetBestOpenZoneMatch`: `(best diff, zone)`, see the module docs; `avoid` are the
/// zones holding the compaction's input files.
pub fn best_open_zone_match_code(
    zones: &[ZoneView],
    file_lt: Lifetime,
    min_capacity: u64,
    avoid: &[u32],
) -> (u32, Option<u32>) {
    let mut best_diff = LIFETIME_DIFF_NOT_GOOD;
    let mut best = None;
    for z in zones {
        if avoid.contains(&z.index)
            || matches!(z.lifetime, Lifetime::NotSet | Lifetime::None)
            || z.busy
            || z.used_bytes == 0
            || z.is_full()
            || z.remaining_bytes < min_capacity
        {
            continue;
        }
        let diff = lifetime_diff_code(z.lifetime, file_lt);
        if diff < best_diff {
            best_diff = diff;
            best = Some(z.index);
        }
    }
    (best_diff, best)
}

/// `GetAnyLargestRemainingZone(min_capacity)`: the non-busy zone with the most remaining
/// capacity, strictly more than `min_capacity`; the first of equals.
pub fn largest_remaining_zone(zones: &[ZoneView], min_capacity: u64) -> Option<u32> {
    let mut best: Option<&ZoneView> = None;
    for z in zones {
        if !z.busy && z.remaining_bytes > best.map_or(min_capacity, |b| b.remaining_bytes) {
            best = Some(z);
        }
    }
    best.map(|z| z.index)
}

/// `ApplyFinishThreshold` (not for the WAL) on the working copy; the zones finished.
pub(crate) fn apply_finish_threshold(
    zones: &mut [ZoneView],
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> Vec<u32> {
    if request.io_type == IoType::Wal {
        return Vec::new();
    }
    let finish = zones_below_finish_threshold(zones, view.finish_threshold_pct);
    for &z in &finish {
        mark_finished(zones, z);
    }
    finish
}

/// `WaitForOpenIOZoneToken`: `Ok(finish)` when an open token is free, else the wait decision.
pub(crate) fn open_token_or_wait(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    finish: Vec<u32>,
) -> Result<Vec<u32>, PlacementDecision> {
    if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
        return Err(PlacementDecision {
            finish,
            outcome: Placement::WaitForOpenToken,
            from_context: false,
        });
    }
    Ok(finish)
}

/// Steps 2-6 of the module docs, on the working copy `zones` (finish threshold applied,
/// `finish` the zones finished so far).
pub(crate) fn allocate_after_open_token(
    zones: &[ZoneView],
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    mut finish: Vec<u32>,
) -> PlacementDecision {
    let decision = |finish, outcome| PlacementDecision {
        finish,
        outcome,
        from_context: false,
    };
    let avoid = request.sst.map_or(&[][..], |s| s.avoid.as_slice());
    let (_, best) =
        best_open_zone_match_code(zones, request.lifetime, request.min_capacity_bytes, avoid);
    if let Some(z) = best {
        return decision(finish, Placement::Active(z));
    }
    let mut zones = zones.to_vec();
    let mut active = view.active_io_zones.saturating_sub(finish.len() as u32);
    while active >= view.max_active_io_zones {
        let Some(z) = cheapest_zone_to_finish(&zones) else {
            return decision(finish, Placement::WaitForActiveToken);
        };
        mark_finished(&mut zones, z);
        active -= 1;
        finish.push(z);
    }
    if let Some(z) = first_empty_zone(&zones) {
        return decision(finish, Placement::Empty(z));
    }
    match largest_remaining_zone(&zones, request.min_capacity_bytes) {
        Some(z) => decision(finish, Placement::Active(z)),
        None => decision(finish, Placement::NoSpace),
    }
}

#[cfg(test)]
mod tests {
    use super::super::SstContext;
    use super::*;

    const CAP: u64 = 1000;

    fn zone(index: u32, lifetime: Lifetime, remaining: u64, used: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: used,
            lifetime,
            busy: false,
        }
    }

    fn empty(index: u32) -> ZoneView {
        zone(index, Lifetime::NotSet, CAP, 0)
    }

    fn view(zones: &[ZoneView], active: u32, max_active: u32) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: active,
            max_open_io_zones: 14,
            max_active_io_zones: max_active,
            finish_threshold_pct: 0,
            hybrid: None,
        }
    }

    fn req(lifetime: Lifetime, sst: Option<&SstContext>) -> PlacementRequest<'_> {
        PlacementRequest {
            lifetime,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst,
        }
    }

    #[test]
    fn diff_is_the_distance_and_exact_for_unset_hints() {
        assert_eq!(lifetime_diff_code(Lifetime::Long, Lifetime::Long), 0);
        assert_eq!(lifetime_diff_code(Lifetime::Short, Lifetime::Extreme), 3);
        assert_eq!(lifetime_diff_code(Lifetime::Extreme, Lifetime::Medium), 2);
        assert_eq!(lifetime_diff_code(Lifetime::NotSet, Lifetime::NotSet), 0);
        assert_eq!(lifetime_diff_code(Lifetime::Long, Lifetime::None), 100);
    }

    /// The choice order: equal lifetime first, then the nearest, first zone of equals; busy,
    /// full, dead, untagged and avoided zones skipped.
    #[test]
    fn best_match_order() {
        let mut busy = zone(0, Lifetime::Long, 500, 10);
        busy.busy = true;
        let zones = [
            busy,
            zone(1, Lifetime::Long, 0, 10),      // full
            zone(2, Lifetime::Long, 500, 0),     // no live data
            zone(3, Lifetime::NotSet, 500, 10),  // untagged
            zone(4, Lifetime::Extreme, 500, 10), // diff 1
            zone(5, Lifetime::Medium, 500, 10),  // diff 1, later
            zone(6, Lifetime::Long, 500, 10),    // diff 0
            zone(7, Lifetime::Long, 500, 10),    // diff 0, later
        ];
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[]),
            (0, Some(6))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[6]),
            (0, Some(7))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[6, 7]),
            (1, Some(4))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 501, &[]),
            (100, None)
        );
        // NotSet files never match (untagged zones are skipped).
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::NotSet, 0, &[]),
            (100, None)
        );
    }

    /// A partly written zone of the same lifetime is filled even with an active token free
    /// (upstream LIZA opens an empty zone there), and with none free (no finish).
    #[test]
    fn fills_partly_written_zones_before_opening_empty_ones() {
        let zones = [zone(0, Lifetime::Medium, 500, 10), empty(1)];
        for max_active in [1, 14] {
            let v = view(&zones, 1, max_active);
            let d = LizaCaza.place(&v, &req(Lifetime::Medium, None));
            assert_eq!(d.outcome, Placement::Active(0));
            assert!(d.finish.is_empty());
        }
        let v = view(&zones, 1, 14);
        assert_eq!(
            super::super::lifetime::Liza
                .place(&v, &req(Lifetime::Medium, None))
                .outcome,
            Placement::Empty(1)
        );
    }

    #[test]
    fn avoids_the_zones_of_the_compaction_inputs() {
        let zones = [zone(0, Lifetime::Medium, 500, 10), empty(1)];
        let sst = SstContext {
            avoid: vec![0],
            ..SstContext::default()
        };
        let v = view(&zones, 1, 14);
        assert_eq!(
            LizaCaza
                .place(&v, &req(Lifetime::Medium, Some(&sst)))
                .outcome,
            Placement::Empty(1)
        );
    }

    #[test]
    fn finishes_the_cheapest_zone_for_a_token_then_opens_an_empty_zone() {
        let zones = [
            zone(0, Lifetime::NotSet, 300, 10),
            zone(1, Lifetime::NotSet, 200, 10),
            empty(2),
        ];
        let v = view(&zones, 2, 2);
        let d = LizaCaza.place(&v, &req(Lifetime::Long, None));
        assert_eq!(d.finish, vec![1]);
        assert_eq!(d.outcome, Placement::Empty(2));
    }

    #[test]
    fn without_an_empty_zone_takes_the_roomiest_zone_then_no_space() {
        let zones = [
            zone(0, Lifetime::NotSet, 300, 10),
            zone(1, Lifetime::NotSet, 400, 10),
            zone(2, Lifetime::NotSet, 400, 10),
            zone(3, Lifetime::Long, 0, 10),
        ];
        let v = view(&zones, 3, 14);
        assert_eq!(
            LizaCaza.place(&v, &req(Lifetime::Long, None)).outcome,
            Placement::Active(1)
        );
        assert_eq!(largest_remaining_zone(&zones, 400), None);
        let full = [zone(0, Lifetime::Long, 0, 10)];
        let v = view(&full, 0, 14);
        assert_eq!(
            LizaCaza.place(&v, &req(Lifetime::Long, None)).outcome,
            Placement::NoSpace
        );
    }

    #[test]
    fn waits_for_tokens() {
        let mut z = zone(0, Lifetime::NotSet, 300, 10);
        z.busy = true;
        let zones = [z, empty(1)];
        let v = view(&zones, 1, 1);
        assert_eq!(
            LizaCaza.place(&v, &req(Lifetime::Long, None)).outcome,
            Placement::WaitForActiveToken
        );
        let mut v = view(&zones, 0, 14);
        v.open_io_zones = 13;
        assert_eq!(
            LizaCaza.place(&v, &req(Lifetime::Long, None)).outcome,
            Placement::WaitForOpenToken
        );
    }
}
