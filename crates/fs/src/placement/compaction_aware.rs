//! CAZA (Compaction-Aware Zone Allocation), as the Same-Zone Compaction paper (§VI) states it.
//! The zone is chosen once the SST is complete: [`Caza::plan_sst`] reads the tree through a
//! [`TreeView`] ([`CazaContext::from_tree`]) and lists the candidate zones in order:
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

use super::policy::{
    AllocView, NEIGHBOURS_LISTED, NeighbourSst, PlacementDecision, PlacementPolicy,
    PlacementRequest, SstContext, candidate_or_liza, zones_of,
};
use super::tree_view::overlapping;
use super::tree_view::{NewSst, TreeFile, TreeView};

/// CAZA. Stateless: everything it needs is in the tree view, the zone view and the request.
#[derive(Debug, Default, Clone, Copy)]
pub struct Caza;

/// What CAZA reads from the tree about a complete SST.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CazaContext {
    /// `S_level` of the upper neighbour level (`None` for L0: it has none).
    pub upper_level_score: Option<f64>,
    /// `S_level` of the SST's own level.
    pub level_score: f64,
    /// SSTs of the upper neighbour level (L0 for the base level) overlapping the new SST.
    pub upper: Vec<NeighbourSst>,
    /// SSTs of the lower neighbour level (the base level for L0) overlapping the new SST.
    pub lower: Vec<NeighbourSst>,
    /// SSTs of the same level, nearest key range first (the outward search), at most
    /// [`NEIGHBOURS_LISTED`].
    pub same_level_by_key: Vec<NeighbourSst>,
}

impl CazaContext {
    /// Reads the neighbour levels' overlapping SSTs, the same level's nearest SSTs by key, the
    /// scores and the zones of those SSTs (one batch) from `tree`.
    pub fn from_tree(sst: &NewSst<'_>, tree: &dyn TreeView) -> Self {
        let upper_level = tree.upper_level(sst.level);
        let mut wanted: Vec<&TreeFile<'_>> = Vec::new();
        let mut counts = [0usize; 2];
        for (count, level) in counts
            .iter_mut()
            .zip([upper_level, tree.lower_level(sst.level)])
        {
            if let Some(l) = level {
                let o = overlapping(tree.files(l), sst.smallest, sst.largest);
                *count = o.len();
                wanted.extend(o);
            }
        }
        let mut sorted: Vec<&TreeFile<'_>> = tree
            .files(sst.level)
            .iter()
            .filter(|f| !f.being_compacted)
            .collect();
        if sst.level == 0 {
            sorted.sort_by(|a, b| a.smallest.cmp(b.smallest));
        }
        let keys: Vec<(&[u8], &[u8])> = sorted.iter().map(|f| (f.smallest, f.largest)).collect();
        for i in nearest_by_key(&keys, sst.largest)
            .into_iter()
            .take(NEIGHBOURS_LISTED)
        {
            wanted.push(sorted[i]);
        }
        let mut all = NeighbourSst::with_zones(tree, wanted.into_iter().map(|f| (f, 0.0)));
        let same_level_by_key = all.split_off(counts[0] + counts[1]);
        let lower = all.split_off(counts[0]);
        Self {
            upper_level_score: upper_level.map(|l| tree.level_score(l)),
            level_score: tree.level_score(sst.level),
            upper: all,
            lower,
            same_level_by_key,
        }
    }
}

/// Which neighbour level CAZA aims for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Next to the overlapping SSTs of level i-1.
    Upper,
    /// Next to the overlapping SSTs of level i+1.
    Lower,
}

/// Problem #1: `S_level[i-1] > S_level[i]` → upper, otherwise lower (L0 always lower).
pub fn direction(sst: &CazaContext) -> Direction {
    match sst.upper_level_score {
        Some(up) if up > sst.level_score => Direction::Upper,
        _ => Direction::Lower,
    }
}

/// Problem #2: the neighbour files in the order their zones are tried.
pub fn neighbour_order(sst: &CazaContext) -> Vec<&NeighbourSst> {
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
pub fn candidate_zones(sst: &CazaContext) -> Vec<u32> {
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
        candidate_or_liza(view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        Some(SstContext::new(
            sst,
            candidate_zones(&CazaContext::from_tree(sst, tree)),
        ))
    }
}

/// CAZA's same-level search order: given the same level's files sorted by key as
/// `(smallest, largest)` user keys, the indices to try for a new SST `[lo, hi]`, nearest
/// first. Starting at the insertion point (the first file whose smallest key is at or after
/// `hi`): left of everything, scan rightwards; right of everything, scan leftwards; otherwise
/// alternate outwards, left neighbour first.
pub fn nearest_by_key(files: &[(&[u8], &[u8])], hi: &[u8]) -> Vec<usize> {
    outward_from(files.partition_point(|(s, _)| *s < hi), files.len())
}

/// The outward walk of [`nearest_by_key`] over `n` listed files from insertion point `idx`:
/// `idx == 0`: `0..n`; `idx >= n`: `n-1` down to 0; otherwise `idx-1`, `idx`, `idx-2`,
/// `idx+1`, ... (left first), then what remains of the longer side.
pub fn outward_from(idx: usize, n: usize) -> Vec<usize> {
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
            hybrid: None,
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

    fn ctx(upper_score: Option<f64>, level_score: f64) -> CazaContext {
        CazaContext {
            upper_level_score: upper_score,
            level_score,
            upper: vec![f(1, 300, 1), f(2, 500, 2)],
            lower: vec![f(3, 400, 3), f(4, 200, 4)],
            same_level_by_key: vec![f(5, 100, 5)],
        }
    }

    /// The plan CAZA makes for an SST of 100 bytes at L2 with context `c`.
    fn plan(c: &CazaContext) -> SstContext {
        SstContext {
            number: 100,
            level: 2,
            size: 100,
            candidates: candidate_zones(c),
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
        let c = plan(&ctx(Some(1.5), 1.1));
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
        let c = plan(&ctx(Some(1.5), 1.1));
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
            ..req(&plan(&ctx(None, 0.0)))
        };
        assert_eq!(
            Caza.place(&v, &r),
            super::super::lifetime::Liza.place(&v, &r)
        );
    }

    #[test]
    fn waits_for_an_open_token_like_liza() {
        let c = plan(&ctx(Some(1.5), 1.1));
        let zones: Vec<ZoneView> = (0..8).map(|i| zone(i, 500)).collect();
        let mut v = view(&zones);
        v.open_io_zones = 13;
        assert_eq!(
            Caza.place(&v, &req(&c)).outcome,
            Placement::WaitForOpenToken
        );
    }

    /// From a tree: L2 SST [e, f] with a hotter upper level goes next to the largest
    /// overlapping L1 SST, then the other one; files being compacted are left out; then the
    /// same level's nearest SSTs by key.
    #[test]
    fn plans_from_a_tree_view() {
        use super::super::tree_view::StaticTree;
        let t = TreeFile::idle;
        let mut busy = t(12, 900, b"e", b"e");
        busy.being_compacted = true;
        let tree = StaticTree {
            levels: vec![
                vec![],
                vec![t(10, 100, b"a", b"e"), busy, t(11, 300, b"f", b"k")],
                vec![t(20, 50, b"a", b"c"), t(21, 50, b"x", b"z")],
                vec![t(30, 70, b"d", b"g")],
            ],
            scores: vec![(1, 1.5), (2, 1.1)],
            base_level: 1,
            zones: vec![
                (10, vec![(3, 100)]),
                (11, vec![(4, 200), (5, 100)]),
                (20, vec![(6, 50)]),
                (21, vec![(7, 50)]),
                (30, vec![(8, 70)]),
            ],
            ..StaticTree::default()
        };
        let sst = NewSst {
            number: 40,
            level: 2,
            size: 10,
            smallest: b"e",
            largest: b"f",
            temp: false,
        };
        let c = CazaContext::from_tree(&sst, &tree);
        assert_eq!(c.upper_level_score, Some(1.5));
        assert_eq!(direction(&c), Direction::Upper);
        let p = Caza.plan_sst(&sst, &tree).unwrap();
        assert_eq!((p.number, p.level, p.size), (40, 2, 10));
        assert_eq!(p.candidates, vec![4, 5, 3, 6, 7]);
        let lower: Vec<u64> = c.lower.iter().map(|f| f.number).collect();
        assert_eq!(lower, vec![30]);
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
