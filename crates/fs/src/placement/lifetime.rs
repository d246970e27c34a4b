//! LIZA (LIfetime-based Zone Allocation): ZenFS's `AllocateIOZone` reproduced rule by rule as
//! a pure function (`fs/zbd_zenfs.cc:396-831`).
//!
//! One call of [`Liza::place`] corresponds to one `AllocateIOZone` call:
//!
//! 1. **Finish threshold** (non-WAL only, threshold > 0): every non-busy, partially written
//!    zone whose remaining capacity is below `max_capacity * threshold / 100` is finished and
//!    its active token returned.
//! 2. **Open token**: the WAL may hold up to `max_open_io_zones` open tokens, everything else
//!    `max_open_io_zones - 1` (one slot is reserved for the WAL). Otherwise:
//!    [`Placement::WaitForOpenToken`].
//! 3. **Best open zone** ([`best_open_zone_match`]): if its lifetime difference is below
//!    [`LIFETIME_DIFF_COULD_BE_WORSE`], write there (no active token needed).
//! 4. **Active token**: if none is free and the best zone has exactly the same lifetime
//!    (diff 50), write there anyway ("relaxed lifetime diff"). Otherwise, while no token is
//!    free, finish the cheapest zone ([`cheapest_zone_to_finish`]); if nothing can be
//!    finished: [`Placement::WaitForActiveToken`].
//! 5. **Empty zone**: with a token, the first empty zone in index order; none:
//!    [`Placement::NoSpace`].
//!
//! Zones finished along the way are listed in [`PlacementDecision::finish`], in the order
//! ZenFS finishes them; the caller finishes them before acting on the outcome. They are
//! reported even when the outcome is a wait or `NoSpace` (ZenFS has finished them by then).
//!
//! Busy zones (held by a writer or a migration) are never chosen, finished or opened, like
//! zones whose `Acquire()` fails in ZenFS.

use std::cmp::Ordering;

use super::policy::{
    AllocView, IoType, Lifetime, Placement, PlacementDecision, PlacementPolicy, PlacementRequest,
    ZoneView,
};

/// Lifetime difference of a bad match (`fs/zbd_zenfs.cc:393`).
pub const LIFETIME_DIFF_NOT_GOOD: u32 = 100;

/// Lifetime difference of an equal-lifetime match, used only when no active token is free
/// (`fs/zbd_zenfs.cc:394`).
pub const LIFETIME_DIFF_COULD_BE_WORSE: u32 = 50;

/// ZenFS's lifetime-based allocator. Stateless: everything it needs is in the view.
#[derive(Debug, Default, Clone, Copy)]
pub struct Liza;

impl PlacementPolicy for Liza {
    fn name(&self) -> &'static str {
        "liza"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        allocate_io_zone(view, request)
    }
}

/// `GetLifeTimeDiff(zone_lt, file_lt)` (`fs/zbd_zenfs.cc:396-413`): how well a zone tagged
/// `zone` suits a file with hint `file`; lower is better.
///
/// - file `NotSet`/`None`: 0 if the zone has the same hint, otherwise
///   [`LIFETIME_DIFF_NOT_GOOD`];
/// - zone longer-lived than the file: `zone - file` (1 to 3);
/// - same lifetime: [`LIFETIME_DIFF_COULD_BE_WORSE`];
/// - zone shorter-lived than the file: [`LIFETIME_DIFF_NOT_GOOD`].
pub fn lifetime_diff(zone: Lifetime, file: Lifetime) -> u32 {
    if matches!(file, Lifetime::NotSet | Lifetime::None) {
        return if zone == file {
            0
        } else {
            LIFETIME_DIFF_NOT_GOOD
        };
    }
    let (z, f) = (zone as u32, file as u32);
    match z.cmp(&f) {
        Ordering::Greater => z - f,
        Ordering::Equal => LIFETIME_DIFF_COULD_BE_WORSE,
        Ordering::Less => LIFETIME_DIFF_NOT_GOOD,
    }
}

/// `GetBestOpenZoneMatch(file_lt, &best_diff, &zone, min_capacity)`
/// (`fs/zbd_zenfs.cc:592-630`): the partially written zone that best suits a file.
///
/// Candidates, scanned in index order: not busy, holding live data (`used_bytes > 0`), not
/// full, with at least `min_capacity` bytes remaining. The best diff starts at
/// [`LIFETIME_DIFF_NOT_GOOD`] and a candidate replaces the current best when its diff is
/// `<=` the best, so ties go to the **later** zone and a candidate with diff 100 is still
/// returned.
///
/// Returns `(best_diff, zone index)`; `(100, None)` when there is no candidate.
pub fn best_open_zone_match(
    view: &AllocView<'_>,
    file_lt: Lifetime,
    min_capacity: u64,
) -> (u32, Option<u32>) {
    best_match_in(view.zones, file_lt, min_capacity)
}

fn best_match_in(zones: &[ZoneView], file_lt: Lifetime, min_capacity: u64) -> (u32, Option<u32>) {
    let mut best_diff = LIFETIME_DIFF_NOT_GOOD;
    let mut best = None;
    for z in zones {
        if z.busy || z.used_bytes == 0 || z.is_full() || z.remaining_bytes < min_capacity {
            continue;
        }
        let diff = lifetime_diff(z.lifetime, file_lt);
        if diff <= best_diff {
            best_diff = diff;
            best = Some(z.index);
        }
    }
    (best_diff, best)
}

/// Remaining capacity below which `ApplyFinishThreshold` finishes a zone:
/// `max_capacity * threshold_pct / 100` (`fs/zbd_zenfs.cc:515-544`), computed without
/// overflow.
pub fn finish_threshold_bytes(max_capacity_bytes: u64, threshold_pct: u32) -> u64 {
    let bytes = u128::from(max_capacity_bytes) * u128::from(threshold_pct) / 100;
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

/// Zones `ApplyFinishThreshold` finishes (`fs/zbd_zenfs.cc:515-544`), in index order: every
/// non-busy, partially written zone whose remaining capacity is below
/// [`finish_threshold_bytes`]. Empty when `threshold_pct` is 0.
pub fn zones_below_finish_threshold(zones: &[ZoneView], threshold_pct: u32) -> Vec<u32> {
    if threshold_pct == 0 {
        return Vec::new();
    }
    zones
        .iter()
        .filter(|z| {
            !z.busy
                && z.is_active()
                && z.remaining_bytes < finish_threshold_bytes(z.max_capacity_bytes, threshold_pct)
        })
        .map(|z| z.index)
        .collect()
}

/// `FinishCheapestIOZone()`'s victim (`fs/zbd_zenfs.cc:546-590`): the non-busy, partially
/// written zone with the least remaining capacity. ZenFS replaces the victim only when a
/// later zone has strictly less remaining (`victim->capacity_ > z->capacity_`), so ties go
/// to the **first** zone in index order. `None` when every non-busy zone is empty or full.
pub fn cheapest_zone_to_finish(zones: &[ZoneView]) -> Option<u32> {
    let mut victim: Option<&ZoneView> = None;
    for z in zones {
        if z.busy || !z.is_active() {
            continue;
        }
        match victim {
            Some(v) if v.remaining_bytes <= z.remaining_bytes => {}
            _ => victim = Some(z),
        }
    }
    victim.map(|z| z.index)
}

/// `AllocateEmptyZone()` (`fs/zbd_zenfs.cc:632-648`): the first non-busy empty zone in index
/// order.
pub fn first_empty_zone(zones: &[ZoneView]) -> Option<u32> {
    zones
        .iter()
        .find(|z| !z.busy && z.is_empty())
        .map(|z| z.index)
}

/// Open-token limit for an I/O type (`WaitForOpenIOZoneToken`, `fs/zbd_zenfs.cc:461-484`):
/// `max_open_io_zones` for the WAL, one less for everything else.
pub fn open_token_limit(max_open_io_zones: u32, io_type: IoType) -> u32 {
    match io_type {
        IoType::Wal => max_open_io_zones,
        IoType::Other => max_open_io_zones.saturating_sub(1),
    }
}

/// Marks zone `index` finished in the working copy: nothing writable remains.
pub(crate) fn mark_finished(zones: &mut [ZoneView], index: u32) {
    if let Some(z) = zones.iter_mut().find(|z| z.index == index) {
        z.remaining_bytes = 0;
    }
}

/// `AllocateIOZone(file_lt, io_type, &out)` (`fs/zbd_zenfs.cc:716-831`).
fn allocate_io_zone(view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
    // Working copy: zones finished in this call become full, their tokens return.
    let mut zones: Vec<ZoneView> = view.zones.to_vec();
    let mut active = view.active_io_zones;
    let mut finish = Vec::new();

    // Step 2: finish threshold (non-WAL only).
    if request.io_type != IoType::Wal {
        for index in zones_below_finish_threshold(&zones, view.finish_threshold_pct) {
            mark_finished(&mut zones, index);
            active = active.saturating_sub(1);
            finish.push(index);
        }
    }

    // Step 3: open token, one slot reserved for the WAL.
    if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
        return PlacementDecision {
            finish,
            outcome: Placement::WaitForOpenToken,
            from_context: false,
        };
    }

    // Steps 4-5: a partially written zone with a strictly better than equal lifetime.
    let (best_diff, candidate) =
        best_match_in(&zones, request.lifetime, request.min_capacity_bytes);
    if let Some(zone) = candidate
        && best_diff < LIFETIME_DIFF_COULD_BE_WORSE
    {
        return PlacementDecision {
            finish,
            outcome: Placement::Active(zone),
            from_context: false,
        };
    }

    // Step 6: an active token, or the relaxed same-lifetime rule, or finish the cheapest.
    let got_token = active < view.max_active_io_zones;
    if let Some(zone) = candidate
        && !got_token
        && best_diff == LIFETIME_DIFF_COULD_BE_WORSE
    {
        return PlacementDecision {
            finish,
            outcome: Placement::Active(zone),
            from_context: false,
        };
    }
    open_empty_zone(&mut zones, active, view.max_active_io_zones, finish)
}

/// `AllocateIOZone`'s last steps over a working copy of the zones (zones already decided
/// finished marked so, `active` the active tokens still held): finishes the cheapest zone
/// ([`cheapest_zone_to_finish`]) until an active token is free, then takes the first empty
/// zone. [`Placement::WaitForActiveToken`] when nothing can be finished, `NoSpace` when no
/// zone is empty; `finish` goes on to list every zone to finish, in order.
pub(crate) fn open_empty_zone(
    zones: &mut [ZoneView],
    mut active: u32,
    max_active: u32,
    mut finish: Vec<u32>,
) -> PlacementDecision {
    while active >= max_active {
        let Some(index) = cheapest_zone_to_finish(zones) else {
            return PlacementDecision {
                finish,
                outcome: Placement::WaitForActiveToken,
                from_context: false,
            };
        };
        mark_finished(zones, index);
        active = active.saturating_sub(1);
        finish.push(index);
    }
    PlacementDecision {
        finish,
        outcome: first_empty_zone(zones).map_or(Placement::NoSpace, Placement::Empty),
        from_context: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: u64 = 1000;
    const ALL: [Lifetime; 6] = [
        Lifetime::NotSet,
        Lifetime::None,
        Lifetime::Short,
        Lifetime::Medium,
        Lifetime::Long,
        Lifetime::Extreme,
    ];

    fn empty(index: u32) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: CAP,
            used_bytes: 0,
            lifetime: Lifetime::NotSet,
            busy: false,
        }
    }

    /// Partially written zone with `remaining` bytes left and 100 live bytes.
    fn active(index: u32, lifetime: Lifetime, remaining: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: 100,
            lifetime,
            busy: false,
        }
    }

    fn full(index: u32, lifetime: Lifetime) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: 0,
            used_bytes: 500,
            lifetime,
            busy: false,
        }
    }

    fn busy(mut z: ZoneView) -> ZoneView {
        z.busy = true;
        z
    }

    /// View with ample open tokens, `active` of `max_active` active tokens held, no threshold.
    fn view(zones: &[ZoneView], active: u32, max_active: u32) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: active,
            max_open_io_zones: 10,
            max_active_io_zones: max_active,
            finish_threshold_pct: 0,
            hybrid: None,
        }
    }

    fn req(lifetime: Lifetime) -> PlacementRequest<'static> {
        PlacementRequest {
            lifetime,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: None,
        }
    }

    fn wal() -> PlacementRequest<'static> {
        PlacementRequest {
            lifetime: Lifetime::Short,
            io_type: IoType::Wal,
            min_capacity_bytes: 0,
            sst: None,
        }
    }

    fn decide(v: &AllocView<'_>, r: &PlacementRequest<'_>) -> PlacementDecision {
        Liza.place(v, r)
    }

    fn outcome(v: &AllocView<'_>, r: &PlacementRequest<'_>) -> Placement {
        decide(v, r).outcome
    }

    #[test]
    fn name_is_liza() {
        assert_eq!(Liza.name(), "liza");
    }

    #[test]
    fn constants_match_zenfs() {
        assert_eq!(LIFETIME_DIFF_NOT_GOOD, 100);
        assert_eq!(LIFETIME_DIFF_COULD_BE_WORSE, 50);
    }

    #[test]
    fn diff_file_not_set_or_none_is_exact_match_only() {
        for zone in ALL {
            let want_not_set = if zone == Lifetime::NotSet { 0 } else { 100 };
            assert_eq!(
                lifetime_diff(zone, Lifetime::NotSet),
                want_not_set,
                "{zone:?}"
            );
            let want_none = if zone == Lifetime::None { 0 } else { 100 };
            assert_eq!(lifetime_diff(zone, Lifetime::None), want_none, "{zone:?}");
        }
    }

    #[test]
    fn diff_longer_zone_is_the_distance() {
        assert_eq!(lifetime_diff(Lifetime::Medium, Lifetime::Short), 1);
        assert_eq!(lifetime_diff(Lifetime::Long, Lifetime::Short), 2);
        assert_eq!(lifetime_diff(Lifetime::Extreme, Lifetime::Short), 3);
        assert_eq!(lifetime_diff(Lifetime::Extreme, Lifetime::Medium), 2);
    }

    #[test]
    fn diff_equal_lifetime_could_be_worse() {
        for lt in [
            Lifetime::Short,
            Lifetime::Medium,
            Lifetime::Long,
            Lifetime::Extreme,
        ] {
            assert_eq!(lifetime_diff(lt, lt), LIFETIME_DIFF_COULD_BE_WORSE);
        }
    }

    #[test]
    fn diff_shorter_zone_is_not_good_including_not_set_and_none_zones() {
        assert_eq!(lifetime_diff(Lifetime::NotSet, Lifetime::Short), 100);
        assert_eq!(lifetime_diff(Lifetime::None, Lifetime::Short), 100);
        assert_eq!(lifetime_diff(Lifetime::Short, Lifetime::Medium), 100);
        assert_eq!(lifetime_diff(Lifetime::Long, Lifetime::Extreme), 100);
    }

    /// The whole preference matrix of the reference (§2.2), plus the `NONE` file row.
    #[test]
    fn diff_full_matrix() {
        // rows = file hint, columns = zone hint (NOT_SET, NONE, SHORT, MEDIUM, LONG, EXTREME)
        let matrix: [[u32; 6]; 6] = [
            [0, 100, 100, 100, 100, 100],
            [100, 0, 100, 100, 100, 100],
            [100, 100, 50, 1, 2, 3],
            [100, 100, 100, 50, 1, 2],
            [100, 100, 100, 100, 50, 1],
            [100, 100, 100, 100, 100, 50],
        ];
        for (fi, file) in ALL.into_iter().enumerate() {
            for (zi, zone) in ALL.into_iter().enumerate() {
                assert_eq!(
                    lifetime_diff(zone, file),
                    matrix[fi][zi],
                    "zone {zone:?} file {file:?}"
                );
            }
        }
    }

    #[test]
    fn best_match_picks_minimal_diff() {
        let zones = [
            active(0, Lifetime::Extreme, 500),
            active(1, Lifetime::Medium, 500),
            active(2, Lifetime::Long, 500),
        ];
        let v = view(&zones, 3, 10);
        assert_eq!(best_open_zone_match(&v, Lifetime::Short, 0), (1, Some(1)));
    }

    #[test]
    fn best_match_ties_go_to_the_later_zone() {
        let zones = [
            active(0, Lifetime::Long, 500),
            active(1, Lifetime::Long, 500),
            active(2, Lifetime::Extreme, 500),
        ];
        let v = view(&zones, 3, 10);
        assert_eq!(best_open_zone_match(&v, Lifetime::Medium, 0), (1, Some(1)));
        let zones = [
            active(0, Lifetime::Medium, 500),
            active(1, Lifetime::Medium, 500),
        ];
        let v = view(&zones, 2, 10);
        assert_eq!(best_open_zone_match(&v, Lifetime::Medium, 0), (50, Some(1)));
    }

    #[test]
    fn best_match_returns_a_diff_100_candidate() {
        let zones = [
            active(0, Lifetime::Short, 500),
            active(1, Lifetime::NotSet, 500),
        ];
        let v = view(&zones, 2, 10);
        assert_eq!(
            best_open_zone_match(&v, Lifetime::Extreme, 0),
            (100, Some(1))
        );
    }

    #[test]
    fn best_match_none_without_candidates() {
        let zones = [empty(0), full(1, Lifetime::Long)];
        let v = view(&zones, 0, 10);
        assert_eq!(best_open_zone_match(&v, Lifetime::Medium, 0), (100, None));
    }

    #[test]
    fn best_match_skips_busy_full_dead_and_too_small_zones() {
        let mut dead = active(3, Lifetime::Long, 500);
        dead.used_bytes = 0;
        let zones = [
            busy(active(0, Lifetime::Long, 500)),
            full(1, Lifetime::Long),
            active(2, Lifetime::Long, 99),
            dead,
            empty(4),
            active(5, Lifetime::Extreme, 100),
        ];
        let v = view(&zones, 4, 10);
        assert_eq!(
            best_open_zone_match(&v, Lifetime::Medium, 100),
            (2, Some(5))
        );
        assert_eq!(best_open_zone_match(&v, Lifetime::Medium, 101), (100, None));
        assert_eq!(best_open_zone_match(&v, Lifetime::Medium, 0), (1, Some(2)));
    }

    #[test]
    fn good_match_is_used_without_a_token() {
        let zones = [active(0, Lifetime::Long, 500), empty(1)];
        let v = view(&zones, 1, 1);
        let d = decide(&v, &req(Lifetime::Medium));
        assert_eq!(d.outcome, Placement::Active(0));
        assert!(d.finish.is_empty());
    }

    #[test]
    fn not_set_exact_match_is_used_without_a_token() {
        let zones = [active(0, Lifetime::NotSet, 500), empty(1)];
        let v = view(&zones, 1, 1);
        let d = decide(&v, &req(Lifetime::NotSet));
        assert_eq!(d.outcome, Placement::Active(0));
        assert!(d.finish.is_empty());
    }

    #[test]
    fn same_lifetime_with_a_token_opens_an_empty_zone() {
        let zones = [active(0, Lifetime::Medium, 500), empty(1)];
        let v = view(&zones, 1, 2);
        assert_eq!(outcome(&v, &req(Lifetime::Medium)), Placement::Empty(1));
    }

    #[test]
    fn relaxed_diff_50_rule_when_no_token() {
        let zones = [active(0, Lifetime::Medium, 500), empty(1)];
        let v = view(&zones, 1, 1);
        let d = decide(&v, &req(Lifetime::Medium));
        assert_eq!(d.outcome, Placement::Active(0));
        assert!(d.finish.is_empty());
    }

    #[test]
    fn diff_100_candidate_is_not_used_when_no_token() {
        // The only candidate is a bad match: finish the cheapest zone and open an empty one.
        let zones = [active(0, Lifetime::Short, 500), empty(1)];
        let v = view(&zones, 1, 1);
        let d = decide(&v, &req(Lifetime::Extreme));
        assert_eq!(d.finish, vec![0]);
        assert_eq!(d.outcome, Placement::Empty(1));
    }

    #[test]
    fn finish_cheapest_when_no_token_and_no_good_match() {
        let zones = [
            active(0, Lifetime::Short, 400),
            active(1, Lifetime::Short, 200),
            active(2, Lifetime::Short, 300),
            empty(3),
        ];
        let v = view(&zones, 3, 3);
        let d = decide(&v, &req(Lifetime::Long));
        assert_eq!(d.finish, vec![1]);
        assert_eq!(d.outcome, Placement::Empty(3));
    }

    #[test]
    fn finish_cheapest_ties_go_to_the_first_zone() {
        let zones = [
            active(0, Lifetime::Short, 400),
            active(1, Lifetime::Short, 200),
            active(2, Lifetime::Short, 200),
            empty(3),
        ];
        assert_eq!(cheapest_zone_to_finish(&zones), Some(1));
        let v = view(&zones, 3, 3);
        assert_eq!(decide(&v, &req(Lifetime::Long)).finish, vec![1]);
    }

    #[test]
    fn finish_cheapest_counts_dead_partial_zones_and_skips_busy_ones() {
        let mut dead = active(1, Lifetime::Short, 300);
        dead.used_bytes = 0;
        let zones = [
            busy(active(0, Lifetime::Short, 10)),
            dead,
            active(2, Lifetime::Short, 400),
            full(3, Lifetime::Short),
            empty(4),
        ];
        assert_eq!(cheapest_zone_to_finish(&zones), Some(1));
        let v = view(&zones, 3, 3);
        let d = decide(&v, &req(Lifetime::Long));
        assert_eq!(d.finish, vec![1]);
        assert_eq!(d.outcome, Placement::Empty(4));
    }

    #[test]
    fn finish_cheapest_repeats_until_a_token_is_free() {
        // Over-committed active count: two finishes are needed.
        let zones = [
            active(0, Lifetime::Short, 300),
            active(1, Lifetime::Short, 100),
            active(2, Lifetime::Short, 200),
            empty(3),
        ];
        let v = view(&zones, 3, 2);
        let d = decide(&v, &req(Lifetime::Long));
        assert_eq!(d.finish, vec![1, 2]);
        assert_eq!(d.outcome, Placement::Empty(3));
    }

    #[test]
    fn wait_for_active_token_when_nothing_finishable() {
        let zones = [
            busy(active(0, Lifetime::Short, 300)),
            busy(active(1, Lifetime::Short, 300)),
            full(2, Lifetime::Short),
            empty(3),
        ];
        let v = view(&zones, 2, 2);
        let d = decide(&v, &req(Lifetime::Long));
        assert!(d.finish.is_empty());
        assert_eq!(d.outcome, Placement::WaitForActiveToken);
    }

    #[test]
    fn non_wal_waits_at_max_open_minus_one_and_wal_proceeds() {
        let zones = [active(0, Lifetime::Long, 500), empty(1)];
        let mut v = view(&zones, 1, 10);
        v.max_open_io_zones = 4;
        v.open_io_zones = 3;
        assert_eq!(
            outcome(&v, &req(Lifetime::Medium)),
            Placement::WaitForOpenToken
        );
        assert_eq!(outcome(&v, &wal()), Placement::Active(0));
        v.open_io_zones = 2;
        assert_eq!(outcome(&v, &req(Lifetime::Medium)), Placement::Active(0));
        v.open_io_zones = 4;
        assert_eq!(outcome(&v, &wal()), Placement::WaitForOpenToken);
        assert_eq!(open_token_limit(4, IoType::Wal), 4);
        assert_eq!(open_token_limit(4, IoType::Other), 3);
        assert_eq!(open_token_limit(0, IoType::Other), 0);
    }

    #[test]
    fn finish_threshold_finishes_only_non_busy_active_zones_below_it() {
        // threshold 10 % of 1000 = 100 bytes: strictly below is finished.
        let mut dead = active(5, Lifetime::Medium, 50);
        dead.used_bytes = 0;
        let zones = [
            active(0, Lifetime::Short, 99),
            active(1, Lifetime::Short, 100),
            busy(active(2, Lifetime::Short, 10)),
            full(3, Lifetime::Short),
            empty(4),
            dead,
            active(6, Lifetime::Long, 1),
        ];
        let mut v = view(&zones, 5, 10);
        v.finish_threshold_pct = 10;
        assert_eq!(zones_below_finish_threshold(&zones, 10), vec![0, 5, 6]);
        let d = decide(&v, &req(Lifetime::Medium));
        assert_eq!(d.finish, vec![0, 5, 6]);
        // Zone 6 (LONG, diff 1) was finished, so it is no longer a candidate.
        assert_eq!(d.outcome, Placement::Empty(4));
    }

    #[test]
    fn finish_threshold_off_at_zero() {
        let zones = [active(0, Lifetime::Short, 1), empty(1)];
        assert!(zones_below_finish_threshold(&zones, 0).is_empty());
        let v = view(&zones, 1, 10);
        assert!(decide(&v, &req(Lifetime::Medium)).finish.is_empty());
    }

    #[test]
    fn finish_threshold_not_applied_for_wal() {
        let zones = [active(0, Lifetime::Medium, 50), empty(1)];
        let mut v = view(&zones, 1, 10);
        v.finish_threshold_pct = 10;
        let d = decide(&v, &wal());
        assert!(d.finish.is_empty());
        assert_eq!(d.outcome, Placement::Active(0));
        let d = decide(&v, &req(Lifetime::Short));
        assert_eq!(d.finish, vec![0]);
        assert_eq!(d.outcome, Placement::Empty(1));
    }

    #[test]
    fn finish_threshold_returns_active_tokens() {
        // All tokens held; the threshold finish frees one, so no finish-cheapest is needed.
        let zones = [
            active(0, Lifetime::Short, 50),
            active(1, Lifetime::Short, 10),
            active(2, Lifetime::Short, 500),
            empty(3),
        ];
        let mut v = view(&zones, 3, 3);
        v.finish_threshold_pct = 6;
        let d = decide(&v, &req(Lifetime::Long));
        assert_eq!(d.finish, vec![0, 1]);
        assert_eq!(d.outcome, Placement::Empty(3));
    }

    #[test]
    fn finish_list_kept_when_waiting_for_an_open_token() {
        let zones = [active(0, Lifetime::Short, 50), empty(1)];
        let mut v = view(&zones, 1, 10);
        v.finish_threshold_pct = 10;
        v.max_open_io_zones = 1;
        let d = decide(&v, &req(Lifetime::Medium));
        assert_eq!(d.finish, vec![0]);
        assert_eq!(d.outcome, Placement::WaitForOpenToken);
    }

    #[test]
    fn finish_threshold_bytes_rounds_down() {
        assert_eq!(finish_threshold_bytes(1000, 10), 100);
        assert_eq!(finish_threshold_bytes(999, 10), 99);
        assert_eq!(finish_threshold_bytes(u64::MAX, 100), u64::MAX);
        assert_eq!(finish_threshold_bytes(u64::MAX, 200), u64::MAX);
    }

    #[test]
    fn first_empty_zone_in_index_order() {
        let zones = [full(0, Lifetime::Long), busy(empty(1)), empty(2), empty(3)];
        assert_eq!(first_empty_zone(&zones), Some(2));
        let v = view(&zones, 0, 10);
        assert_eq!(outcome(&v, &req(Lifetime::Medium)), Placement::Empty(2));
    }

    #[test]
    fn no_space_when_no_empty_zone() {
        let zones = [full(0, Lifetime::Long), busy(empty(1))];
        let v = view(&zones, 0, 10);
        assert_eq!(outcome(&v, &req(Lifetime::Medium)), Placement::NoSpace);
    }

    #[test]
    fn no_space_keeps_the_finishes_done() {
        let zones = [active(0, Lifetime::Short, 300), full(1, Lifetime::Short)];
        let v = view(&zones, 1, 1);
        let d = decide(&v, &req(Lifetime::Long));
        assert_eq!(d.finish, vec![0]);
        assert_eq!(d.outcome, Placement::NoSpace);
    }

    #[test]
    fn busy_zones_skipped_everywhere() {
        let zones = [
            busy(active(0, Lifetime::Long, 10)),
            busy(empty(1)),
            active(2, Lifetime::Short, 500),
            empty(3),
        ];
        let mut v = view(&zones, 2, 2);
        v.finish_threshold_pct = 5;
        let d = decide(&v, &req(Lifetime::Medium));
        // Zone 0 would be a diff-1 match, below the threshold and the cheapest, and zone 1
        // the first empty zone: all skipped because busy.
        assert_eq!(d.finish, vec![2]);
        assert_eq!(d.outcome, Placement::Empty(3));
    }

    #[test]
    fn min_capacity_respected() {
        let zones = [active(0, Lifetime::Long, 100), empty(1)];
        let v = view(&zones, 1, 10);
        let mut r = req(Lifetime::Medium);
        r.min_capacity_bytes = 100;
        assert_eq!(outcome(&v, &r), Placement::Active(0));
        r.min_capacity_bytes = 101;
        assert_eq!(outcome(&v, &r), Placement::Empty(1));
    }

    #[test]
    fn min_capacity_applies_to_the_relaxed_rule_too() {
        let zones = [active(0, Lifetime::Medium, 100), empty(1)];
        let v = view(&zones, 1, 1);
        let mut r = req(Lifetime::Medium);
        r.min_capacity_bytes = 101;
        let d = decide(&v, &r);
        assert_eq!(d.finish, vec![0]);
        assert_eq!(d.outcome, Placement::Empty(1));
    }

    #[test]
    fn wal_prefers_longer_lived_partial_zones() {
        let zones = [
            active(0, Lifetime::Long, 500),
            active(1, Lifetime::Medium, 500),
            empty(2),
        ];
        let v = view(&zones, 2, 10);
        assert_eq!(outcome(&v, &wal()), Placement::Active(1));
    }
}
