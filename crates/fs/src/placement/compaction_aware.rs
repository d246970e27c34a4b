//! CAZA (Compaction-Aware Zone Allocation), as the Same-Zone Compaction paper (§VI) states it.
//! The zone is chosen once the SST is complete, from the [`SstContext`] the engine supplies:
//!
//! 1. **Direction** (Problem #1): compare `S_level[i-1]` (upper neighbour) with `S_level[i]`
//!    (own level). Upper larger: the SST will most likely be merged with the upper level, so
//!    it goes next to an overlapping upper-level SST; otherwise next to an overlapping
//!    lower-level SST. A tie, and L0 (no upper level), go down.
//! 2. **Which neighbour** (Problem #2): upward, the zone of the **largest** overlapping upper
//!    SST, then the next largest (the size-based picker takes the largest file first); downward,
//!    the zone of the **smallest** overlapping lower SST, then the next smallest. Ties go to the
//!    lower file number. Of a file spread over zones, its zone with most of its bytes first.
//! 3. **Fallbacks**: the SSTs of the same level with the closest key ranges, nearest first
//!    (the engine lists them in CAZA's outward search order); then the lifetime rule (LIZA,
//!    which also opens an empty zone); then zone cleaning and a retry (the file layer cleans
//!    when the allocator says [`Placement::NoSpace`](super::Placement::NoSpace)).
//!
//! A zone qualifies when nobody holds it, it is written but not full, and the whole SST fits
//! ("if there is no space in that zone, it places the SST in the zone with the next largest
//! SSTable"). Differences from the public CAZA code, which we do not copy: it never updates
//! its per-zone overlap sum (so it takes the last overlapping zone), it looks up the
//! same-level list by position instead of file number, and its MSST'24 version walks the
//! same-level list in priority order rather than key order.

use super::{
    AllocView, ContextNeeds, NeighbourSst, PlacementDecision, PlacementPolicy, PlacementRequest,
    SstContext, candidate_or_liza, zones_of,
};

/// CAZA. Stateless: everything it needs is in the view and the request.
#[derive(Debug, Default, Clone, Copy)]
pub struct Caza;

/// Which neighbour level CAZA aims for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Next to the overlapping SSTs of level i-1.
    Upper,
    /// Next to the overlapping SSTs of level i+1.
    Lower,
}

/// Problem #1: `S_level[i-1] > S_level[i]` → upper, otherwise lower (L0 always lower).
pub fn direction(sst: &SstContext) -> Direction {
    match sst.upper_level_score {
        Some(up) if up > sst.level_score => Direction::Upper,
        _ => Direction::Lower,
    }
}

/// Problem #2: the neighbour files in the order their zones are tried.
pub fn neighbour_order(sst: &SstContext) -> Vec<&NeighbourSst> {
    let (mut files, largest_first): (Vec<&NeighbourSst>, bool) = match direction(sst) {
        Direction::Upper => (sst.upper.iter().collect(), true),
        Direction::Lower => (sst.lower.iter().collect(), false),
    };
    files.sort_by(|a, b| {
        let by_size = if largest_first {
            b.size.cmp(&a.size)
        } else {
            a.size.cmp(&b.size)
        };
        by_size.then(a.number.cmp(&b.number))
    });
    files
}

/// Every zone CAZA would try, in order, before falling back to the lifetime rule.
pub fn candidate_zones(sst: &SstContext) -> Vec<u32> {
    zones_of(
        neighbour_order(sst)
            .into_iter()
            .chain(sst.same_level_by_key.iter()),
    )
}

impl PlacementPolicy for Caza {
    fn name(&self) -> &'static str {
        "caza"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        candidate_or_liza(view, request, candidate_zones)
    }

    fn context_needs(&self) -> ContextNeeds {
        ContextNeeds {
            neighbours: true,
            overlap_ratios: false,
        }
    }
}

/// CAZA's same-level search order: given the same level's files sorted by key as
/// `(smallest, largest)` user keys, the indices to try for a new SST `[lo, hi]`, nearest
/// first. Starting at the insertion point (the first file whose smallest key is at or after
/// `hi`): left of everything, scan rightwards; right of everything, scan leftwards; otherwise
/// alternate outwards, left neighbour first.
pub fn nearest_by_key(files: &[(&[u8], &[u8])], hi: &[u8]) -> Vec<usize> {
    let idx = files.partition_point(|(s, _)| *s < hi);
    let n = files.len();
    if idx == 0 {
        return (0..n).collect();
    }
    if idx >= n {
        return (0..n).rev().collect();
    }
    let mut out = Vec::with_capacity(n);
    let (mut l, mut r) = (Some(idx - 1), idx);
    while l.is_some() || r < n {
        if let Some(i) = l {
            out.push(i);
            l = i.checked_sub(1);
        }
        if r < n {
            out.push(r);
            r += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{IoType, Lifetime, Placement, ZoneView};
    use super::*;

    const CAP: u64 = 1000;

    fn zone(index: u32, remaining: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: CAP - remaining,
            lifetime: Lifetime::Medium,
            busy: false,
        }
    }

    fn f(number: u64, size: u64, zone: u32) -> NeighbourSst {
        NeighbourSst {
            number,
            size,
            zones: vec![(zone, size)],
            overlap_ratio: 0.0,
        }
    }

    fn view(zones: &[ZoneView]) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: 3,
            max_open_io_zones: 14,
            max_active_io_zones: 14,
            finish_threshold_pct: 0,
        }
    }

    fn req(sst: &SstContext) -> PlacementRequest<'_> {
        PlacementRequest {
            lifetime: Lifetime::Long,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(sst),
        }
    }

    fn ctx(upper_score: Option<f64>, level_score: f64) -> SstContext {
        SstContext {
            number: 100,
            level: 2,
            size: 100,
            upper_level_score: upper_score,
            level_score,
            upper: vec![f(1, 300, 1), f(2, 500, 2)],
            lower: vec![f(3, 400, 3), f(4, 200, 4)],
            same_level_by_key: vec![f(5, 100, 5)],
            ..SstContext::default()
        }
    }

    #[test]
    fn hotter_upper_level_places_next_to_the_largest_upper_sst() {
        let c = ctx(Some(1.5), 1.1);
        assert_eq!(direction(&c), Direction::Upper);
        assert_eq!(candidate_zones(&c), vec![2, 1, 5]);
    }

    #[test]
    fn hotter_own_level_places_next_to_the_smallest_lower_sst() {
        let c = ctx(Some(0.9), 1.2);
        assert_eq!(direction(&c), Direction::Lower);
        assert_eq!(candidate_zones(&c), vec![4, 3, 5]);
    }

    #[test]
    fn l0_and_ties_go_down() {
        assert_eq!(direction(&ctx(None, 3.0)), Direction::Lower);
        assert_eq!(direction(&ctx(Some(1.0), 1.0)), Direction::Lower);
    }

    #[test]
    fn next_candidate_when_the_zone_has_no_room_or_is_busy() {
        let c = ctx(Some(1.5), 1.1);
        let mut zones: Vec<ZoneView> = (0..8).map(|i| zone(i, 500)).collect();
        zones[2].remaining_bytes = 50; // too small for 100 bytes
        let v = view(&zones);
        let d = Caza.place(&v, &req(&c));
        assert_eq!(d.outcome, Placement::Active(1));
        zones[1].busy = true;
        let v = view(&zones);
        assert_eq!(Caza.place(&v, &req(&c)).outcome, Placement::Active(5));
    }

    #[test]
    fn falls_back_to_liza_when_no_neighbour_zone_fits() {
        let c = ctx(Some(1.5), 1.1);
        let mut zones: Vec<ZoneView> = (0..8).map(|i| zone(i, CAP)).collect();
        zones[7] = zone(7, 0); // full
        let v = view(&zones);
        // Every candidate zone is empty (not active): LIZA opens the first empty zone.
        assert_eq!(Caza.place(&v, &req(&c)).outcome, Placement::Empty(0));
    }

    #[test]
    fn without_a_context_it_is_liza() {
        let zones: Vec<ZoneView> = (0..4).map(|i| zone(i, CAP)).collect();
        let v = view(&zones);
        let r = PlacementRequest {
            sst: None,
            ..req(&ctx(None, 0.0))
        };
        assert_eq!(
            Caza.place(&v, &r),
            super::super::lifetime::Liza.place(&v, &r)
        );
    }

    #[test]
    fn waits_for_an_open_token_like_liza() {
        let c = ctx(Some(1.5), 1.1);
        let zones: Vec<ZoneView> = (0..8).map(|i| zone(i, 500)).collect();
        let mut v = view(&zones);
        v.open_io_zones = 13;
        assert_eq!(
            Caza.place(&v, &req(&c)).outcome,
            Placement::WaitForOpenToken
        );
    }

    #[test]
    fn nearest_by_key_walks_outwards_from_the_insertion_point() {
        let keys: Vec<(&[u8], &[u8])> =
            vec![(b"a", b"b"), (b"c", b"d"), (b"f", b"g"), (b"h", b"i")];
        // New SST [d5, e]: insertion point 2 (first smallest >= "e" is "f").
        assert_eq!(nearest_by_key(&keys, b"e"), vec![1, 2, 0, 3]);
        // Left of everything, right of everything.
        assert_eq!(nearest_by_key(&keys, b"0"), vec![0, 1, 2, 3]);
        assert_eq!(nearest_by_key(&keys, b"z"), vec![3, 2, 1, 0]);
        assert!(nearest_by_key(&[], b"k").is_empty());
    }
}
