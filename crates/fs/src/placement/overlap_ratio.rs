//! OAZA (Overlapping-Aware Zone Allocation), reconstructed from the ASP-DAC'24 slides (no
//! public code exists; the parameters below are our reading of them):
//!
//! - **Overlap ratio** of a new SST at level L: the bytes of the level L+1 SSTs whose key
//!   ranges overlap it, over its own bytes (`O_new = Σ|K_i| / |K_new|`, with key-range "size"
//!   measured in bytes as RocksDB's `kMinOverlappingRatio` does). At the bottom level, L-1
//!   stands in for L+1.
//! - **Vertical estimate**: only zones holding SSTs of the same level L are candidates.
//! - **Horizontal estimate**: among them, the zone of the same-level SST whose overlap ratio is
//!   closest to the new SST's (its relative hotness), found in the level's overlap-ratio list
//!   ([`OverlapRatioList`], sorted by ratio, descending, as the slides keep it); then the next
//!   closest, and so on.
//! - If no such zone can take the whole SST, the lifetime rule (LIZA) places it (which may
//!   open an empty zone); the file layer cleans and retries when even that fails.
//!
//! The engine keeps the per-level lists of (overlap ratio, key range): it rebuilds them from
//! the current version when it places an SST, so each ratio reflects the level below as it is
//! then (the slides' incrementally kept `std::set` would hold the ratio from the SST's
//! creation).

use std::cmp::Ordering;

use super::{
    AllocView, ContextNeeds, PlacementDecision, PlacementPolicy, PlacementRequest, SstContext,
    candidate_or_liza, zones_of,
};

/// OAZA. Stateless: the lists come with the request.
#[derive(Debug, Default, Clone, Copy)]
pub struct Oaza;

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
pub fn candidate_zones(sst: &SstContext) -> Vec<u32> {
    zones_of(&sst.same_level_by_ratio)
}

impl PlacementPolicy for Oaza {
    fn name(&self) -> &'static str {
        "oaza"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        candidate_or_liza(view, request, candidate_zones)
    }

    fn context_needs(&self) -> ContextNeeds {
        ContextNeeds {
            neighbours: false,
            overlap_ratios: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{IoType, Lifetime, NeighbourSst, Placement, ZoneView};
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
        let sst = SstContext {
            size: 100,
            same_level_by_ratio: vec![n(7, 3), n(8, 1), n(9, 0)],
            ..SstContext::default()
        };
        let v = AllocView {
            zones: &zones,
            open_io_zones: 0,
            active_io_zones: 4,
            max_open_io_zones: 14,
            max_active_io_zones: 14,
            finish_threshold_pct: 0,
        };
        let r = PlacementRequest {
            lifetime: Lifetime::Long,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(&sst),
        };
        assert_eq!(Oaza.place(&v, &r).outcome, Placement::Active(1));
    }
}
