//! SplitZNS's selective zone allocator (TACO'23 §4.3, `shared/papers/000_…`): wide zones with
//! lifetime-based placement (LIZA) for the SSTs of the low levels and for WAL and metadata;
//! subzones of split zones for the SSTs of level [`Selective::min_level`] and deeper.
//!
//! The rules of a subzone allocation ([`choose_subzone`]), in order:
//! 1. An SST larger than a subzone goes to a wide zone (an SST never spans subzones; the
//!    paper sizes its SSTs to the subzone).
//! 2. The writer needs an open token, as for a wide zone (one is kept for the WAL).
//! 3. The split zone with the most full subzones that still has a free subzone (§4.3: the
//!    greedy rule that balances the chips); ties go to the lower zone. A split zone that is
//!    inactive (finished) counts only while an active token is free to reactivate it.
//! 4. Else, while fewer than [`Selective::max_split_pct`] percent of the IO zones are split
//!    and an active token is free, the first empty wide zone is split.
//! 5. Else a wide zone, by lifetime, like every other file (counted as a fallback).
//!
//! The file layer carries the decision out (`crates/fs/src/subzone.rs`): it finishes the
//! subzone when the SST is closed, deactivates (FINISH) a split zone no writer uses, merges
//! (MERGE) the subzone of a deleted SST, and turns a split zone whose subzones are all empty
//! back into a wide zone (RESET), so split zones hold SSTs and nothing else.

use crate::placement::lifetime::{Liza, first_empty_zone, open_token_limit};
use crate::placement::policy::{
    AllocView, PlacementDecision, PlacementPolicy, PlacementRequest, SstContext,
};
use crate::placement::split::{SplitView, SubzonePlacement, WideFallback};
use crate::placement::tree_view::{NewSst, TreeView};
use zonedb_device::SubzoneId;

/// Name of the policy ([`crate::placement::by_name`]).
pub const NAME: &str = "selective";
/// Lowest level whose SSTs go to subzones by default (the paper: L4 and deeper).
pub const DEFAULT_MIN_LEVEL: u32 = 4;
/// Most IO zones split at once by default, percent (the paper: 60 %).
pub const DEFAULT_MAX_SPLIT_PCT: u32 = 60;

/// The selective allocator: LIZA for wide zones, subzones for deep SSTs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selective {
    /// SSTs written to this level or deeper go to subzones.
    pub min_level: u32,
    /// At most this percentage of the IO zones is split at once.
    pub max_split_pct: u32,
}

impl Default for Selective {
    fn default() -> Self {
        Self {
            min_level: DEFAULT_MIN_LEVEL,
            max_split_pct: DEFAULT_MAX_SPLIT_PCT,
        }
    }
}

impl Selective {
    /// The policy with its two settings.
    ///
    /// # Errors
    /// A message when `max_split_pct` exceeds 100.
    pub fn new(min_level: u32, max_split_pct: u32) -> Result<Self, String> {
        if max_split_pct > 100 {
            return Err(format!(
                "selective_max_split_pct {max_split_pct}: at most 100"
            ));
        }
        Ok(Self {
            min_level,
            max_split_pct,
        })
    }

    /// Split zones allowed on a device of `io_zones` IO zones.
    pub fn max_split_zones(&self, io_zones: usize) -> usize {
        io_zones * self.max_split_pct as usize / 100
    }
}

impl PlacementPolicy for Selective {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Wide zones: LIZA (split zones show busy, so it never takes one).
    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        Liza.place(view, request)
    }

    /// The SST's level is all it needs from the engine.
    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, _tree: &dyn TreeView) -> Option<SstContext> {
        Some(SstContext::new(sst, Vec::new()))
    }

    fn place_subzone(
        &self,
        view: &SplitView<'_>,
        request: &PlacementRequest<'_>,
    ) -> Option<SubzonePlacement> {
        let sst = request.sst?;
        (sst.level >= self.min_level).then(|| {
            choose_subzone(
                view,
                request,
                sst.size,
                self.max_split_zones(view.alloc.zones.len()),
            )
        })
    }
}

/// Where an SST of `size` bytes goes under the rules of the module (`max_split`: split zones
/// allowed).
pub fn choose_subzone(
    view: &SplitView<'_>,
    request: &PlacementRequest<'_>,
    size: u64,
    max_split: usize,
) -> SubzonePlacement {
    let block = view.block_bytes.max(1);
    if size.max(1).div_ceil(block) * block > view.subzone_capacity_bytes {
        return SubzonePlacement::Wide(WideFallback::TooLarge);
    }
    if view.alloc.open_io_zones >= open_token_limit(view.alloc.max_open_io_zones, request.io_type) {
        return SubzonePlacement::WaitForOpenToken;
    }
    let token = view.active_token_free();
    let best = view
        .split_zones
        .iter()
        .filter(|z| !z.busy && (z.active || token))
        .filter_map(|z| z.free_subzone.map(|i| (z, i)))
        .max_by_key(|(z, _)| (z.full_subzones, std::cmp::Reverse(z.index)));
    if let Some((z, index)) = best {
        return SubzonePlacement::Subzone(SubzoneId {
            zone: z.index,
            index,
        });
    }
    if view.split_zones.len() >= max_split {
        return SubzonePlacement::Wide(WideFallback::SplitCap);
    }
    if !token {
        return SubzonePlacement::Wide(WideFallback::NoActiveToken);
    }
    match first_empty_zone(view.alloc.zones) {
        Some(z) => SubzonePlacement::Split(z),
        None => SubzonePlacement::Wide(WideFallback::NoEmptyZone),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::policy::{IoType, Lifetime, ZoneView};
    use crate::placement::split::SplitZoneView;

    const CAP: u64 = 1000;

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

    fn split(index: u32, full: u32, free: Option<u32>, active: bool) -> SplitZoneView {
        SplitZoneView {
            index,
            full_subzones: full,
            free_subzone: free,
            active,
            busy: false,
        }
    }

    fn view<'a>(zones: &'a [ZoneView], split: &'a [SplitZoneView], active: u32) -> SplitView<'a> {
        SplitView {
            alloc: AllocView {
                zones,
                open_io_zones: 0,
                active_io_zones: active,
                max_open_io_zones: 6,
                max_active_io_zones: 6,
                finish_threshold_pct: 0,
                hybrid: None,
            },
            split_zones: split,
            subzone_capacity_bytes: 250,
            block_bytes: 10,
        }
    }

    fn sst(level: u32, size: u64) -> SstContext {
        SstContext {
            level,
            size,
            ..SstContext::default()
        }
    }

    fn req(sst: &SstContext) -> PlacementRequest<'_> {
        PlacementRequest {
            lifetime: Lifetime::Extreme,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(sst),
        }
    }

    fn busy_split(z: ZoneView) -> ZoneView {
        ZoneView { busy: true, ..z }
    }

    #[test]
    fn low_levels_and_files_without_a_plan_stay_wide() {
        let zones = [empty(3), empty(4)];
        let v = view(&zones, &[], 0);
        let p = Selective::default();
        for level in 0..4 {
            assert_eq!(p.place_subzone(&v, &req(&sst(level, 100))), None);
        }
        let wal = PlacementRequest {
            sst: None,
            ..req(&sst(5, 1))
        };
        assert_eq!(p.place_subzone(&v, &wal), None);
        assert_eq!(
            p.place_subzone(&v, &req(&sst(4, 100))),
            Some(SubzonePlacement::Split(3))
        );
        let low = Selective::new(1, 60).unwrap();
        assert_eq!(
            low.place_subzone(&v, &req(&sst(1, 100))),
            Some(SubzonePlacement::Split(3))
        );
        assert!(Selective::new(4, 101).is_err());
    }

    #[test]
    fn the_split_zone_with_the_most_full_subzones_is_taken_first() {
        let zones = [
            busy_split(empty(3)),
            busy_split(empty(4)),
            busy_split(empty(5)),
            empty(6),
        ];
        let s = [
            split(3, 1, Some(1), true),
            split(4, 3, None, true),
            split(5, 2, Some(3), false),
        ];
        let v = view(&zones, &s, 2);
        let d = choose_subzone(&v, &req(&sst(4, 100)), 100, 10);
        // Zone 4 is the fullest but has no free subzone; zone 5 next.
        assert_eq!(
            d,
            SubzonePlacement::Subzone(SubzoneId { zone: 5, index: 3 })
        );
        // Ties go to the lower zone.
        let s = [split(3, 2, Some(2), true), split(5, 2, Some(3), true)];
        let v = view(&zones, &s, 2);
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 10),
            SubzonePlacement::Subzone(SubzoneId { zone: 3, index: 2 })
        );
    }

    #[test]
    fn an_inactive_split_zone_needs_a_free_active_token() {
        let zones = [busy_split(empty(3)), busy_split(empty(4)), empty(5)];
        let s = [split(3, 5, Some(5), false), split(4, 1, Some(1), true)];
        // Every active token held: the active split zone, although less full.
        let v = view(&zones, &s, 6);
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 10),
            SubzonePlacement::Subzone(SubzoneId { zone: 4, index: 1 })
        );
        // And with no active split zone left: a wide zone.
        let s = [split(3, 5, Some(5), false)];
        let v = view(&zones, &s, 6);
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 10),
            SubzonePlacement::Wide(WideFallback::NoActiveToken)
        );
    }

    #[test]
    fn splitting_stops_at_the_cap_and_when_no_empty_zone_is_left() {
        let zones = [busy_split(empty(3)), busy_split(empty(4)), empty(5)];
        let s = [split(3, 16, None, false), split(4, 16, None, false)];
        let v = view(&zones, &s, 0);
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 2),
            SubzonePlacement::Wide(WideFallback::SplitCap)
        );
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 3),
            SubzonePlacement::Split(5)
        );
        let zones = [
            busy_split(empty(3)),
            busy_split(empty(4)),
            busy_split(empty(5)),
        ];
        let v = view(&zones, &s, 0);
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 3),
            SubzonePlacement::Wide(WideFallback::NoEmptyZone)
        );
        // 60 % of 10 IO zones: 6.
        assert_eq!(Selective::default().max_split_zones(10), 6);
    }

    #[test]
    fn an_sst_larger_than_a_subzone_goes_wide_and_open_tokens_are_waited_for() {
        let zones = [empty(3)];
        let v = view(&zones, &[], 0);
        // 250-byte subzones of 10-byte blocks: 241 bytes take 250, 251 take 260.
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 241)), 241, 10),
            SubzonePlacement::Split(3)
        );
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 251)), 251, 10),
            SubzonePlacement::Wide(WideFallback::TooLarge)
        );
        let mut v = view(&zones, &[], 0);
        v.alloc.open_io_zones = 5;
        assert_eq!(
            choose_subzone(&v, &req(&sst(4, 100)), 100, 10),
            SubzonePlacement::WaitForOpenToken
        );
    }
}
