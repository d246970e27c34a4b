//! OAZA (Overlapping-Aware Zone Allocation, ASP-DAC'24; the slides are our only source, no
//! code is public). Two forms:
//!
//! - **`oaza`** — the slides' formula. The overlap ratio of a new SST `S_new` at level L is
//!   `O_new = Σ|K_i| / |K_new|`, with `K_i` "the range of keys" of every SST of level L+1
//!   sharing keys with `S_new` and `K_new` the keys of `S_new`: a ratio of **key ranges**, not
//!   bytes ("how much the SSTable is overlapped with SSTables at the neighbor level in terms
//!   of key ranges"). Reconstructed: the width of a key range `[lo, hi]` is
//!   `key_number(hi) − key_number(lo) + 1` with `key_number` the first 8 bytes of the user key
//!   read big-endian (zero-padded), which for db_bench keys (the slides' workload) is the key
//!   integer, so `|K|` counts the keys the range can hold; each `K_i` counts whole, not just
//!   its intersection with `K_new`.
//! - **`oaza-bytes`** — our earlier reading: `|K|` measured in bytes (the bytes of the L+1
//!   SSTs overlapping, over the new SST's bytes, as RocksDB's `kMinOverlappingRatio`).
//!
//! The rest is common and follows the slides:
//!
//! - At the bottom level, L-1 stands in for L+1 ("L-1 if L is the bottom level").
//! - **Vertical estimate**: only zones holding SSTs of the same level L are candidates.
//! - **Horizontal estimate**: among them, the zone of the same-level SST whose ratio is closest
//!   to the new SST's, found in the level's overlap-ratio list ([`OverlapRatioList`], sorted by
//!   ratio, descending, as the slides keep it); then the next closest, and so on.
//!
//! Reconstructed (the slides do not say): if no such zone can take the whole SST, the lifetime
//! rule (LIZA) places it (which may open an empty zone); the file layer cleans and retries when
//! even that fails. Target zones are almost always full (an SST's zone fills long before the
//! SST is compacted away), so most SSTs end up placed by LIZA (`sst_context_placements` in
//! [`crate::FsStats`] counts the rest).
//!
//! **`oaza-band`** ([`OazaBand`]) reads the slides the other natural way: SSTs of similar
//! ratio share zones, so when the target zone is full the SST opens a fresh zone for its
//! overlap-ratio band, and later SSTs of that band go there, instead of falling back to LIZA.
//! A level's bands are its ratio list cut at the quantiles ([`BANDS`] of them,
//! [`band_bounds`], [`band_of`]); the candidates are the zones of the same-level SSTs of the
//! new SST's band, closest ratio first (the target first), then the band's open zone: the zone
//! holding the SST last planned for that level and band, which the policy remembers (a
//! compaction's earlier outputs are not in the tree until it installs them). When none can
//! take the whole SST, a fresh empty zone is opened (the cheapest active zone finished first
//! when no active token is free, as ZenFS does); only when no empty zone can be had does LIZA
//! place it. The slides' GC is only "GC threshold: real-time space utilization"
//! (cleaning starts from the space in use, which is what our cleaners' `gc_threshold` does);
//! the extended journal version's overlap-ratio-adaptive GC victim choice is not in our
//! sources and is not implemented.
//!
//! The per-level lists of (overlap ratio, key range) are rebuilt from the tree view
//! ([`OazaContext::from_tree`]) when an SST is placed, so each ratio reflects the level below
//! as it is then (the slides' incrementally kept `std::set` would hold the ratio from the
//! SST's creation).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use super::lifetime::{
    Liza, mark_finished, open_empty_zone, open_token_limit, zones_below_finish_threshold,
};
use super::policy::{
    AllocView, NEIGHBOURS_LISTED, NeighbourSst, Placement, PlacementDecision, PlacementPolicy,
    PlacementRequest, SstContext, candidate_or_liza, first_fitting, zones_of,
};
use super::tree_view::{NewSst, TreeFile, TreeView};
use super::tree_view::{overlap_bytes, overlapping};

/// OAZA as the slides define the ratio (key ranges). Stateless: the lists are built from the
/// tree view.
#[derive(Debug, Default, Clone, Copy)]
pub struct Oaza;

/// OAZA with the ratio in bytes (`oaza-bytes`, our earlier reading of the slides).
#[derive(Debug, Default, Clone, Copy)]
pub struct OazaBytes;

/// How `|K|` of the slides' `O_new = Σ|K_i| / |K_new|` is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatioMeasure {
    /// Key-range widths (the slides).
    KeyRange,
    /// Bytes (`kMinOverlappingRatio`'s measure).
    Bytes,
}

impl RatioMeasure {
    /// The ratio of an SST over `[lo, hi]` of `size` bytes against the neighbour level's
    /// `next` files (`sorted` unless the neighbour is L0).
    pub fn ratio(
        self,
        next: &[TreeFile<'_>],
        sorted: bool,
        lo: &[u8],
        hi: &[u8],
        size: u64,
    ) -> f64 {
        match self {
            Self::Bytes => overlap_ratio(overlap_bytes(next, sorted, lo, hi), size),
            Self::KeyRange => key_range_ratio(
                overlapping(next, lo, hi)
                    .iter()
                    .map(|f| key_range_width(f.smallest, f.largest)),
                key_range_width(lo, hi),
            ),
        }
    }
}

/// The reconstructed key number: the first 8 bytes of a user key, big-endian, zero-padded
/// (the integer of a db_bench key).
pub fn key_number(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    for (d, s) in b.iter_mut().zip(key) {
        *d = *s;
    }
    u64::from_be_bytes(b)
}

/// `|K|` of the key range `[lo, hi]`: the key numbers it spans, both ends included.
pub fn key_range_width(lo: &[u8], hi: &[u8]) -> u64 {
    key_number(hi)
        .saturating_sub(key_number(lo))
        .saturating_add(1)
}

/// The slides' `O_new = Σ|K_i| / |K_new|` over the widths of the overlapping neighbour SSTs.
pub fn key_range_ratio(widths: impl IntoIterator<Item = u64>, new_width: u64) -> f64 {
    let sum: u128 = widths.into_iter().map(u128::from).sum();
    sum as f64 / new_width.max(1) as f64
}

/// What OAZA reads from the tree about a complete SST.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OazaContext {
    /// The new SST's overlap ratio against level L+1 (L-1 at the bottom level).
    pub overlap_ratio: f64,
    /// SSTs of the same level, closest overlap ratio first, at most [`NEIGHBOURS_LISTED`].
    pub same_level_by_ratio: Vec<NeighbourSst>,
}

impl OazaContext {
    /// The new SST's ratio and its level's ratio list, closest first, from `tree`, with the
    /// slides' key-range ratio.
    pub fn from_tree(sst: &NewSst<'_>, tree: &dyn TreeView) -> Self {
        Self::from_tree_with(sst, tree, RatioMeasure::KeyRange)
    }

    /// [`Self::from_tree`] with the ratio measured by `measure`.
    pub fn from_tree_with(sst: &NewSst<'_>, tree: &dyn TreeView, measure: RatioMeasure) -> Self {
        let Some(ratios) = LevelRatios::of(sst, tree, measure) else {
            return Self::default();
        };
        let list = OverlapRatioList::new(ratios.same_level);
        Self {
            overlap_ratio: ratios.new_sst,
            same_level_by_ratio: closest_with_zones(&list, ratios.new_sst, sst.level, tree),
        }
    }
}

/// The overlap ratios around a new SST: its own and those of its level's SSTs no compaction is
/// consuming, all against the same neighbour level (L+1; L-1 at the bottom level).
struct LevelRatios {
    new_sst: f64,
    /// (ratio, file number) of the level's SSTs, in the level's order.
    same_level: Vec<(f64, u64)>,
}

impl LevelRatios {
    /// `None` when the level has no neighbour level.
    fn of(sst: &NewSst<'_>, tree: &dyn TreeView, measure: RatioMeasure) -> Option<Self> {
        let n = if sst.level < tree.bottom_level() {
            tree.lower_level(sst.level)
        } else {
            tree.upper_level(sst.level)
        }?;
        let next = tree.files(n);
        let sorted = n != 0;
        Some(Self {
            new_sst: measure.ratio(next, sorted, sst.smallest, sst.largest, sst.size),
            same_level: tree
                .files(sst.level)
                .iter()
                .filter(|f| !f.being_compacted)
                .map(|f| {
                    (
                        measure.ratio(next, sorted, f.smallest, f.largest, f.size),
                        f.number,
                    )
                })
                .collect(),
        })
    }
}

/// The SSTs of `list` (of `level`) closest in ratio to `ratio`, at most [`NEIGHBOURS_LISTED`],
/// with the zones holding them.
fn closest_with_zones(
    list: &OverlapRatioList,
    ratio: f64,
    level: u32,
    tree: &dyn TreeView,
) -> Vec<NeighbourSst> {
    let same = tree.files(level);
    let wanted = list
        .closest(ratio, NEIGHBOURS_LISTED)
        .into_iter()
        .filter_map(|(r, number)| same.iter().find(|f| f.number == number).map(|f| (f, r)));
    NeighbourSst::with_zones(tree, wanted)
}

/// One level's overlap-ratio list: (ratio, file number), ratio descending, ties by file
/// number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlapRatioList {
    entries: Vec<(f64, u64)>,
}

impl OverlapRatioList {
    /// Builds the list from (ratio, file number) pairs in any order.
    pub fn new(mut entries: Vec<(f64, u64)>) -> Self {
        entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Self { entries }
    }

    /// The entries, ratio descending.
    pub fn entries(&self) -> &[(f64, u64)] {
        &self.entries
    }

    /// Files in order of closeness of their ratio to `ratio` (closest first; on equal
    /// distance the higher ratio first), at most `limit` of them.
    pub fn closest(&self, ratio: f64, limit: usize) -> Vec<(f64, u64)> {
        let e = &self.entries;
        // First entry with a ratio <= `ratio` (the list is descending).
        let split = e.partition_point(|(r, _)| *r > ratio);
        let (mut hi, mut lo) = (split.checked_sub(1), split);
        let mut out = Vec::with_capacity(limit.min(e.len()));
        while out.len() < limit {
            let pick = match (hi, e.get(lo)) {
                (None, None) => break,
                (Some(h), None) => Some(h),
                (None, Some(_)) => None,
                (Some(h), Some(l)) => {
                    let dh = e[h].0 - ratio;
                    let dl = ratio - l.0;
                    match dh.total_cmp(&dl) {
                        Ordering::Greater => None,
                        _ => Some(h),
                    }
                }
            };
            if let Some(h) = pick {
                out.push(e[h]);
                hi = h.checked_sub(1);
            } else {
                out.push(e[lo]);
                lo += 1;
            }
        }
        out
    }
}

/// Overlap ratio of an SST of `size` bytes with `overlapping_bytes` of neighbour-level SSTs
/// overlapping it (0 for an empty SST).
pub fn overlap_ratio(overlapping_bytes: u64, size: u64) -> f64 {
    if size == 0 {
        0.0
    } else {
        overlapping_bytes as f64 / size as f64
    }
}

/// Every zone OAZA would try, in order, before falling back to the lifetime rule.
pub fn candidate_zones(sst: &OazaContext) -> Vec<u32> {
    zones_of(&sst.same_level_by_ratio)
}

/// The three OAZA policies differ only in the ratio's measure and whether the SST may spill.
macro_rules! oaza_policy {
    ($ty:ident, $name:literal, $measure:expr, $spill:expr) => {
        impl PlacementPolicy for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn place(
                &self,
                view: &AllocView<'_>,
                request: &PlacementRequest<'_>,
            ) -> PlacementDecision {
                candidate_or_liza(view, request)
            }

            fn wants_tree_view(&self) -> bool {
                true
            }

            fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
                Some(SstContext {
                    spill: $spill,
                    ..plan(sst, tree, $measure)
                })
            }
        }
    };
}

/// OAZA whose target zone need not hold the whole SST: the SST goes to the chosen zone while
/// it has room and spills into the next allocation, as the authors' CAZA code lets SSTs do.
/// The slides do not say the whole SST must fit; this is the ablation's measure of that rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct OazaSpill;

oaza_policy!(Oaza, "oaza", RatioMeasure::KeyRange, false);
oaza_policy!(OazaBytes, "oaza-bytes", RatioMeasure::Bytes, false);
oaza_policy!(OazaSpill, "oaza-spill", RatioMeasure::KeyRange, true);

fn plan(sst: &NewSst<'_>, tree: &dyn TreeView, measure: RatioMeasure) -> SstContext {
    SstContext::new(
        sst,
        candidate_zones(&OazaContext::from_tree_with(sst, tree, measure)),
    )
}

/// Overlap-ratio bands per level of `oaza-band`: its ratio list cut at the quartiles.
pub const BANDS: u32 = 4;

/// The bounds between the bands of a level whose SSTs have `ratios` (any order): the ratios
/// at the `1/bands`, `2/bands`, ... quantiles, ascending (`bands - 1` of them; none for an
/// empty level or one band).
pub fn band_bounds(ratios: &[f64], bands: u32) -> Vec<f64> {
    let mut sorted = ratios.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (n, b) = (sorted.len(), bands.max(1) as usize);
    if n == 0 {
        return Vec::new();
    }
    (1..b).map(|k| sorted[k * n / b]).collect()
}

/// The band of `ratio` between `bounds` ([`band_bounds`]): how many bounds it reaches (0: below
/// the first quantile).
pub fn band_of(ratio: f64, bounds: &[f64]) -> u32 {
    u32::try_from(bounds.iter().filter(|b| ratio >= **b).count()).unwrap_or(u32::MAX)
}

/// What `oaza-band` reads from the tree about a complete SST.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BandContext {
    /// The new SST's overlap ratio against level L+1 (L-1 at the bottom level), the slides'
    /// key-range ratio.
    pub overlap_ratio: f64,
    /// Its band among its level's SSTs ([`band_of`]; 0 for a level without a neighbour).
    pub band: u32,
    /// SSTs of the same level and band, closest ratio first, at most [`NEIGHBOURS_LISTED`].
    pub same_band_by_ratio: Vec<NeighbourSst>,
}

impl BandContext {
    /// The new SST's ratio, its band among `bands` of its level and the band's SSTs, closest
    /// first, from `tree`.
    pub fn from_tree(sst: &NewSst<'_>, tree: &dyn TreeView, bands: u32) -> Self {
        let Some(ratios) = LevelRatios::of(sst, tree, RatioMeasure::KeyRange) else {
            return Self::default();
        };
        let all: Vec<f64> = ratios.same_level.iter().map(|(r, _)| *r).collect();
        let bounds = band_bounds(&all, bands);
        let band = band_of(ratios.new_sst, &bounds);
        let list = OverlapRatioList::new(
            ratios
                .same_level
                .into_iter()
                .filter(|(r, _)| band_of(*r, &bounds) == band)
                .collect(),
        );
        Self {
            overlap_ratio: ratios.new_sst,
            band,
            same_band_by_ratio: closest_with_zones(&list, ratios.new_sst, sst.level, tree),
        }
    }
}

/// `oaza-band`'s candidate zones: those of the band's SSTs in the tree, closest ratio first
/// (the slides' target first), then `open`, the zones holding the SST last planned for the
/// band (its open zone), without repeats.
pub fn band_candidates(ctx: &BandContext, open: &[(u32, u64)]) -> Vec<u32> {
    let mut out = zones_of(&ctx.same_band_by_ratio);
    for &(z, _) in open {
        if !out.contains(&z) {
            out.push(z);
        }
    }
    out
}

/// `oaza-band`'s placement, a pure function of the zones and the SST's plan: the first
/// candidate that takes the whole SST; else a fresh empty zone for the band (zones under the
/// finish threshold finished first, then the cheapest active zone while no active token is
/// free); LIZA only when no empty zone can be had, and for files without a plan and
/// migrations. [`PlacementDecision::from_context`] is set for the band's own choices.
pub fn candidate_or_fresh_zone(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> PlacementDecision {
    let Some(sst) = request.sst.filter(|_| request.min_capacity_bytes == 0) else {
        return Liza.place(view, request);
    };
    if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
        return PlacementDecision {
            finish: Vec::new(),
            outcome: Placement::WaitForOpenToken,
            from_context: false,
        };
    }
    if let Some(z) = first_fitting(view, request, sst.candidates.iter().copied(), sst.size) {
        return PlacementDecision {
            finish: Vec::new(),
            outcome: Placement::Active(z),
            from_context: true,
        };
    }
    let mut zones = view.zones.to_vec();
    let finish = zones_below_finish_threshold(&zones, view.finish_threshold_pct);
    for &z in &finish {
        mark_finished(&mut zones, z);
    }
    let active = view.active_io_zones.saturating_sub(finish.len() as u32);
    let fresh = open_empty_zone(&mut zones, active, view.max_active_io_zones, finish);
    if matches!(fresh.outcome, Placement::Empty(_)) {
        PlacementDecision {
            from_context: true,
            ..fresh
        }
    } else {
        Liza.place(view, request)
    }
}

/// OAZA with a zone per overlap-ratio band (`oaza-band`, see the module's documentation).
/// It remembers, per level and band, the SST last planned; the placement itself is
/// [`candidate_or_fresh_zone`].
#[derive(Debug, Default)]
pub struct OazaBand {
    last: Mutex<BTreeMap<(u32, u32), u64>>,
}

impl PlacementPolicy for OazaBand {
    fn name(&self) -> &'static str {
        "oaza-band"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        candidate_or_fresh_zone(view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        let ctx = BandContext::from_tree(sst, tree, BANDS);
        let before = self
            .last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((sst.level, ctx.band), sst.number);
        let open = before
            .map(|n| {
                tree.file_zones(&[n])
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        Some(SstContext::new(sst, band_candidates(&ctx, &open)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree_view::StaticTree;
    use super::super::{IoType, Lifetime, Placement, TreeFile, ZoneView};
    use super::*;

    #[test]
    fn list_is_sorted_by_ratio_descending() {
        let l = OverlapRatioList::new(vec![(0.5, 3), (2.0, 1), (0.5, 2), (1.0, 4)]);
        assert_eq!(l.entries(), &[(2.0, 1), (1.0, 4), (0.5, 2), (0.5, 3)]);
    }

    #[test]
    fn closest_walks_out_from_the_ratio() {
        let l = OverlapRatioList::new(vec![(4.0, 1), (2.0, 2), (1.0, 3), (0.2, 4)]);
        let got: Vec<u64> = l.closest(1.3, 10).iter().map(|e| e.1).collect();
        assert_eq!(got, vec![3, 2, 4, 1]);
        let got: Vec<u64> = l.closest(9.0, 2).iter().map(|e| e.1).collect();
        assert_eq!(got, vec![1, 2]);
        let got: Vec<u64> = l.closest(0.0, 10).iter().map(|e| e.1).collect();
        assert_eq!(got, vec![4, 3, 2, 1]);
        // Equal distance: the higher ratio first.
        let got: Vec<u64> = l.closest(1.5, 2).iter().map(|e| e.1).collect();
        assert_eq!(got, vec![2, 3]);
        assert!(OverlapRatioList::default().closest(1.0, 5).is_empty());
    }

    #[test]
    fn ratio_is_overlap_over_size() {
        assert!((overlap_ratio(300, 100) - 3.0).abs() < 1e-12);
        assert!(overlap_ratio(5, 0).abs() < 1e-12);
    }

    /// The slides' example: the new SST goes to the zone of the same-level SST with the
    /// closest ratio, the next one when that zone cannot take it.
    #[test]
    fn places_next_to_the_closest_ratio_sst() {
        let zones: Vec<ZoneView> = (0..4)
            .map(|i| ZoneView {
                index: i,
                max_capacity_bytes: 1000,
                remaining_bytes: if i == 3 { 10 } else { 500 },
                used_bytes: 500,
                lifetime: Lifetime::Long,
                busy: false,
            })
            .collect();
        let n = |number, zone| NeighbourSst {
            number,
            size: 100,
            zones: vec![(zone, 100)],
            overlap_ratio: 0.0,
        };
        let ctx = OazaContext {
            overlap_ratio: 1.0,
            same_level_by_ratio: vec![n(7, 3), n(8, 1), n(9, 0)],
        };
        let sst = SstContext {
            size: 100,
            candidates: candidate_zones(&ctx),
            ..SstContext::default()
        };
        let v = AllocView {
            zones: &zones,
            open_io_zones: 0,
            active_io_zones: 4,
            max_open_io_zones: 14,
            max_active_io_zones: 14,
            finish_threshold_pct: 0,
            hybrid: None,
        };
        let r = PlacementRequest {
            lifetime: Lifetime::Long,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(&sst),
        };
        assert_eq!(Oaza.place(&v, &r).outcome, Placement::Active(1));
        // With spill allowed the closest-ratio zone takes it although only 10 bytes are left.
        let spill = SstContext {
            spill: true,
            ..sst.clone()
        };
        let r = PlacementRequest {
            sst: Some(&spill),
            ..r
        };
        assert_eq!(OazaSpill.place(&v, &r).outcome, Placement::Active(3));
        // Not when it has no more than the request's minimum left.
        let r = PlacementRequest {
            min_capacity_bytes: 10,
            ..r
        };
        assert_eq!(OazaSpill.place(&v, &r).outcome, Placement::Active(1));
    }

    /// From a tree: an L1 SST's ratio against L2, its level's list closest first, files being
    /// compacted left out; at the bottom level the ratio is taken against the level above.
    #[test]
    fn plans_from_a_tree_view() {
        let t = |number, size, lo: &'static [u8], hi: &'static [u8]| TreeFile {
            number,
            size,
            smallest: lo,
            largest: hi,
            being_compacted: false,
        };
        let mut busy = t(13, 100, b"p", b"q");
        busy.being_compacted = true;
        let tree = StaticTree {
            levels: vec![
                vec![],
                vec![
                    t(10, 100, b"a", b"c"),
                    t(11, 100, b"d", b"f"),
                    busy,
                    t(12, 100, b"x", b"z"),
                ],
                vec![
                    t(20, 300, b"a", b"b"),
                    t(21, 100, b"e", b"e"),
                    t(22, 50, b"g", b"h"),
                ],
            ],
            base_level: 1,
            zones: vec![
                (10, vec![(3, 100)]),
                (11, vec![(4, 100)]),
                (12, vec![(5, 100)]),
            ],
            ..StaticTree::default()
        };
        // New L1 SST [c, h] of 200 bytes: overlaps 21 and 22 of L2 (150 bytes): ratio 0.75.
        let sst = NewSst {
            number: 40,
            level: 1,
            size: 200,
            smallest: b"c",
            largest: b"h",
            temp: false,
        };
        let c = OazaContext::from_tree_with(&sst, &tree, RatioMeasure::Bytes);
        assert!((c.overlap_ratio - 0.75).abs() < 1e-12);
        // Ratios: 10 → 3.0, 11 → 1.0, 12 → 0.0; closest to 0.75 first.
        let got: Vec<(u64, f64)> = c
            .same_level_by_ratio
            .iter()
            .map(|f| (f.number, f.overlap_ratio))
            .collect();
        assert_eq!(got, vec![(11, 1.0), (12, 0.0), (10, 3.0)]);
        assert_eq!(
            OazaBytes.plan_sst(&sst, &tree).unwrap().candidates,
            vec![4, 5, 3]
        );
        // At the bottom (L2) the neighbour is L1.
        let bottom = NewSst {
            level: 2,
            smallest: b"a",
            largest: b"a",
            ..sst
        };
        let c = OazaContext::from_tree_with(&bottom, &tree, RatioMeasure::Bytes);
        assert!((c.overlap_ratio - 0.5).abs() < 1e-12);
    }

    fn key(n: u64) -> Vec<u8> {
        let mut k = n.to_be_bytes().to_vec();
        k.resize(16, b'0');
        k
    }

    #[test]
    fn key_number_and_width_follow_db_bench_keys() {
        assert_eq!(key_number(&key(1234)), 1234);
        assert_eq!(key_number(b"\x01"), 1 << 56);
        assert_eq!(key_range_width(&key(100), &key(199)), 100);
        assert_eq!(key_range_width(&key(7), &key(7)), 1);
        // A reversed range counts one key, never wraps.
        assert_eq!(key_range_width(&key(9), &key(3)), 1);
        assert!((key_range_ratio([100, 10], 60) - 110.0 / 60.0).abs() < 1e-12);
        assert!(key_range_ratio([], 60).abs() < 1e-12);
        assert!((key_range_ratio([5], 0) - 5.0).abs() < 1e-12);
    }

    /// The slides' key-range ratio against the bytes one on the same tree (db_bench keys):
    ///
    /// L1: 10 [0, 99], 11 [100, 199], 12 [500, 999] (100 B each, zones 3, 4, 5).
    /// L2: 20 [0, 49] 100 B, 21 [50, 149] 100 B, 22 [150, 159] 400 B, 23 [600, 609] 100 B.
    /// New L1 SST [120, 179], 100 B: overlaps 21 and 22.
    ///
    /// Key ranges: new (100 + 10) / 60 = 1.833; 10: (50 + 100) / 100 = 1.5; 11: (100 + 10) /
    /// 100 = 1.1; 12: 10 / 500 = 0.02 → closest 10, 11, 12 → zones 3, 4, 5.
    /// Bytes: new (100 + 400) / 100 = 5; 10: 2; 11: 5; 12: 1 → 11, 10, 12 → zones 4, 3, 5.
    #[test]
    fn key_range_ratio_is_the_slides_formula() {
        let k: Vec<Vec<u8>> = [
            0, 99, 100, 199, 500, 999, 49, 50, 149, 150, 159, 600, 609, 120, 179,
        ]
        .iter()
        .map(|&n| key(n))
        .collect();
        let at = |n: u64| -> &[u8] {
            let i = [
                0, 99, 100, 199, 500, 999, 49, 50, 149, 150, 159, 600, 609, 120, 179,
            ]
            .iter()
            .position(|&m| m == n)
            .unwrap();
            &k[i]
        };
        let t = |number, size, lo: u64, hi: u64| TreeFile {
            number,
            size,
            smallest: at(lo),
            largest: at(hi),
            being_compacted: false,
        };
        let tree = StaticTree {
            levels: vec![
                vec![],
                vec![
                    t(10, 100, 0, 99),
                    t(11, 100, 100, 199),
                    t(12, 100, 500, 999),
                ],
                vec![
                    t(20, 100, 0, 49),
                    t(21, 100, 50, 149),
                    t(22, 400, 150, 159),
                    t(23, 100, 600, 609),
                ],
                vec![],
            ],
            base_level: 1,
            zones: vec![
                (10, vec![(3, 100)]),
                (11, vec![(4, 100)]),
                (12, vec![(5, 100)]),
            ],
            ..StaticTree::default()
        };
        let sst = NewSst {
            number: 40,
            level: 1,
            size: 100,
            smallest: at(120),
            largest: at(179),
            temp: false,
        };
        let c = OazaContext::from_tree(&sst, &tree);
        assert!((c.overlap_ratio - 110.0 / 60.0).abs() < 1e-12);
        let got: Vec<(u64, f64)> = c
            .same_level_by_ratio
            .iter()
            .map(|f| (f.number, f.overlap_ratio))
            .collect();
        assert_eq!(got, vec![(10, 1.5), (11, 1.1), (12, 0.02)]);
        assert_eq!(
            Oaza.plan_sst(&sst, &tree).unwrap().candidates,
            vec![3, 4, 5]
        );
        let b = OazaContext::from_tree_with(&sst, &tree, RatioMeasure::Bytes);
        assert!((b.overlap_ratio - 5.0).abs() < 1e-12);
        assert_eq!(
            OazaBytes.plan_sst(&sst, &tree).unwrap().candidates,
            vec![4, 3, 5]
        );
        assert_eq!((Oaza.name(), OazaBytes.name()), ("oaza", "oaza-bytes"));
    }

    #[test]
    fn bands_cut_a_level_at_its_quantiles() {
        let ratios = [4.0, 0.1, 1.2, 0.5, 3.0, 0.2, 1.0, 0.6];
        let bounds = band_bounds(&ratios, 4);
        assert_eq!(bounds, vec![0.5, 1.0, 3.0]);
        let bands: Vec<u32> = ratios.iter().map(|&r| band_of(r, &bounds)).collect();
        assert_eq!(bands, vec![3, 0, 2, 1, 3, 0, 2, 1]);
        // A new SST's ratio falls between the bounds like any other.
        assert_eq!(band_of(0.0, &bounds), 0);
        assert_eq!(band_of(0.99, &bounds), 1);
        assert_eq!(band_of(9.0, &bounds), 3);
        // An empty level, or one band: everything in band 0.
        assert!(band_bounds(&[], 4).is_empty());
        assert!(band_bounds(&ratios, 1).is_empty());
        assert_eq!(band_of(5.0, &[]), 0);
        // Fewer SSTs than bands: bounds repeat, bands stay within 0..4.
        assert_eq!(band_bounds(&[2.0], 4), vec![2.0, 2.0, 2.0]);
        assert_eq!(band_of(2.0, &band_bounds(&[2.0], 4)), 3);
        assert_eq!(band_of(1.0, &band_bounds(&[2.0], 4)), 0);
    }

    /// L1: eight SSTs of 10 keys at 100 i (zones 30 + i), each overlapping one L2 SST of
    /// `w` keys: ratios 0.1, 0.2, 0.5, 0.6, 1.0, 1.2, 3.0, 4.0, two per band.
    #[test]
    fn band_plans_list_the_bands_ssts_then_its_open_zone() {
        const WIDTHS: [u64; 8] = [1, 2, 5, 6, 10, 12, 30, 40];
        let keys: Vec<Vec<u8>> = (0..8u64)
            .flat_map(|i| {
                [
                    key(100 * i),
                    key(100 * i + 9),
                    key(100 * i + WIDTHS[i as usize] - 1),
                ]
            })
            .chain([key(405), key(414), key(505), key(514), key(5), key(14)])
            .collect();
        let l1 = (0..8)
            .map(|i| TreeFile::idle(10 + i as u64, 100, &keys[3 * i], &keys[3 * i + 1]))
            .collect();
        let l2 = (0..8)
            .map(|i| TreeFile::idle(20 + i as u64, 100, &keys[3 * i], &keys[3 * i + 2]))
            .collect();
        let mut zones: Vec<(u64, Vec<(u32, u64)>)> = (0..8)
            .map(|i| (10 + i, vec![(30 + i as u32, 100)]))
            .collect();
        // SST 40, planned first, was written to zone 50.
        zones.push((40, vec![(50, 100)]));
        let tree = StaticTree {
            levels: vec![vec![], l1, l2],
            base_level: 1,
            zones,
            ..StaticTree::default()
        };
        let new = |number, lo: &'static [u8], hi: &'static [u8]| NewSst {
            number,
            level: 1,
            size: 100,
            smallest: lo,
            largest: hi,
            temp: false,
        };
        // The tree outlives the plans; the keys are leaked to give the SSTs static bounds.
        let k = |i: usize| -> &'static [u8] { Box::leak(keys[i].clone().into_boxed_slice()) };
        // [405, 414] overlaps the 10 keys of L2's [400, 409]: ratio 1.0, band 2, whose SSTs
        // are 14 (1.0, zone 34) and 15 (1.2, zone 35).
        let first = new(40, k(24), k(25));
        let c = BandContext::from_tree(&first, &tree, BANDS);
        assert!((c.overlap_ratio - 1.0).abs() < 1e-12);
        assert_eq!(c.band, 2);
        let got: Vec<u64> = c.same_band_by_ratio.iter().map(|f| f.number).collect();
        assert_eq!(got, vec![14, 15]);
        let band = OazaBand::default();
        assert_eq!(
            band.plan_sst(&first, &tree).unwrap().candidates,
            vec![34, 35]
        );
        // [505, 514] overlaps L2's [500, 511]: 1.2, band 2 again: its SSTs closest first, then
        // the band's open zone, the one holding SST 40.
        let second = new(41, k(26), k(27));
        let plan = band.plan_sst(&second, &tree).unwrap();
        assert_eq!(plan.candidates, vec![35, 34, 50]);
        assert_eq!((plan.number, plan.level, plan.size), (41, 1, 100));
        // [5, 14] overlaps L2's [0, 0]: 0.1, band 0: its own SSTs, no other band's zone.
        let other = new(42, k(28), k(29));
        assert_eq!(BandContext::from_tree(&other, &tree, BANDS).band, 0);
        assert_eq!(
            band.plan_sst(&other, &tree).unwrap().candidates,
            vec![30, 31]
        );
        assert_eq!(band.name(), "oaza-band");
        assert!(band.wants_tree_view());
    }

    fn zone(index: u32, remaining: u64, lifetime: Lifetime) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: 1000,
            remaining_bytes: remaining,
            used_bytes: 1000 - remaining,
            lifetime,
            busy: false,
        }
    }

    /// `zones` with `active` of 4 active tokens held, 8 open tokens free.
    fn view(zones: &[ZoneView], active: u32) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: active,
            max_open_io_zones: 8,
            max_active_io_zones: 4,
            finish_threshold_pct: 0,
            hybrid: None,
        }
    }

    /// Where OAZA falls back to LIZA (the target zone 0 is full; LIZA likes the longer-lived
    /// active zone 1), `oaza-band` opens a fresh zone for the band; it takes a candidate with
    /// room first, finishes the cheapest active zone for a token, and leaves to LIZA only what
    /// no empty zone can take, files without a plan and migrations.
    #[test]
    fn a_full_target_zone_opens_a_fresh_zone_for_the_band() {
        let mut zones = vec![
            zone(0, 0, Lifetime::Medium),
            zone(1, 500, Lifetime::Long),
            zone(2, 1000, Lifetime::NotSet),
            zone(3, 1000, Lifetime::NotSet),
        ];
        let sst = SstContext {
            size: 100,
            candidates: vec![0],
            ..SstContext::default()
        };
        let r = PlacementRequest {
            lifetime: Lifetime::Medium,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(&sst),
        };
        let band = OazaBand::default();
        let v = view(&zones, 1);
        let liza = Oaza.place(&v, &r);
        assert_eq!(
            (liza.outcome, liza.from_context),
            (Placement::Active(1), false)
        );
        let d = band.place(&v, &r);
        assert_eq!((d.outcome, d.from_context), (Placement::Empty(2), true));
        assert!(d.finish.is_empty());
        // A candidate that takes the whole SST comes first.
        let with_room = SstContext {
            candidates: vec![0, 1],
            ..sst.clone()
        };
        let d = band.place(
            &v,
            &PlacementRequest {
                sst: Some(&with_room),
                ..r
            },
        );
        assert_eq!((d.outcome, d.from_context), (Placement::Active(1), true));
        // No active token free: the cheapest active zone is finished for the fresh one.
        let d = band.place(&view(&zones, 4), &r);
        assert_eq!(d.finish, vec![1]);
        assert_eq!((d.outcome, d.from_context), (Placement::Empty(2), true));
        // No empty zone: LIZA.
        zones[2].remaining_bytes = 0;
        zones[3].remaining_bytes = 0;
        let d = band.place(&view(&zones, 1), &r);
        assert_eq!((d.outcome, d.from_context), (Placement::Active(1), false));
        // Open tokens all held: wait.
        let busy = AllocView {
            open_io_zones: 7,
            ..view(&zones, 1)
        };
        assert_eq!(band.place(&busy, &r).outcome, Placement::WaitForOpenToken);
        // Files without a plan and migrations: LIZA.
        zones[2].remaining_bytes = 1000;
        let v = view(&zones, 1);
        let plain = PlacementRequest { sst: None, ..r };
        assert_eq!(band.place(&v, &plain), Liza.place(&v, &plain));
        let migration = PlacementRequest {
            min_capacity_bytes: 10,
            ..r
        };
        assert_eq!(band.place(&v, &migration), Liza.place(&v, &migration));
    }
}
