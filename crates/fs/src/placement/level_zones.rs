//! Dedicated zones per level (`level-zones`): GearDB's storage layout (FAST'19, `hm_alloc`;
//! `shared/reference/policies-in-prior-work.md` §3.1), the zone side of the SplitZNS paper's
//! Gear and LLC baselines (§5.1.3: "we allocate dedicated zones for SSTables from different
//! levels").
//!
//! An SST is placed when it is complete ([`LevelZones::plan_sst`]): its candidates are the
//! zones holding SSTs of its own level. It goes into one of them that takes the **whole** SST
//! (the fullest first: GearDB appends to the level's newest zone until the SST no longer fits);
//! otherwise into a new empty zone (the first free in index order, as GearDB's bitmap), never
//! into another level's zone. Every other file (WAL, MANIFEST) is kept out of SST zones (the
//! zones tagged with an SST lifetime) and placed by the lifetime rule among the rest. Zone
//! cleaning's migrations are placed by the lifetime rule unchanged.
//!
//! When a new zone is opened for an SST, the level's zones that could not take it are finished
//! (GearDB leaves them; a ZNS device needs their active tokens back), and if still no active
//! token is free the cheapest zone of any level is finished, as ZenFS does. GearDB frees a zone when its last SST
//! is deleted; the file layer resets zones without live data the same way.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use super::lifetime::{Liza, mark_finished, open_empty_zone, open_token_limit};
use crate::hints::Hint;

use super::policy::{
    AllocView, Lifetime, Placement, PlacementDecision, PlacementPolicy, PlacementRequest,
    SstContext, ZoneView,
};
use super::tree_view::{NewSst, TreeView};

/// Name of the policy ([`super::by_name`]).
pub const NAME: &str = "level-zones";

/// One sequence of zones per level, and one for temporary SSTs. The zones of a level are those
/// holding its (non-temporary) SSTs; the temporary group's are those holding temporary SSTs,
/// which the policy remembers from [`NewSst::temp`] until their deletion is hinted (a reopen
/// forgets them: they then count as their level's).
#[derive(Debug, Default)]
pub struct LevelZones {
    temp: Mutex<BTreeSet<u64>>,
}

impl LevelZones {
    fn temp_files(&self) -> std::sync::MutexGuard<'_, BTreeSet<u64>> {
        self.temp.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether zones tagged `lt` hold SSTs (the lifetimes the engine gives SSTs).
fn sst_lifetime(lt: Lifetime) -> bool {
    lt >= Lifetime::Medium
}

/// `view` with every zone outside `allowed` (and not empty) marked busy, so the lifetime rule
/// neither writes to it nor finishes it.
fn restricted(view: &AllocView<'_>, allowed: impl Fn(&ZoneView) -> bool) -> Vec<ZoneView> {
    view.zones
        .iter()
        .map(|z| ZoneView {
            busy: z.busy || !(z.is_empty() || allowed(z)),
            ..*z
        })
        .collect()
}

impl PlacementPolicy for LevelZones {
    fn name(&self) -> &'static str {
        NAME
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        let mut temp = self.temp_files();
        let numbers: Vec<u64> = if sst.temp {
            temp.insert(sst.number);
            temp.iter().copied().filter(|&n| n != sst.number).collect()
        } else {
            tree.files(sst.level)
                .iter()
                .map(|f| f.number)
                .filter(|&n| n != sst.number && !temp.contains(&n))
                .collect()
        };
        drop(temp);
        let mut zones: Vec<u32> = tree
            .file_zones(&numbers)
            .into_iter()
            .flatten()
            .map(|(z, _)| z)
            .collect();
        zones.sort_unstable();
        zones.dedup();
        Some(SstContext::new(sst, zones))
    }

    fn on_hint(&self, hint: &Hint) {
        if let Hint::FileDeleted { number } = hint {
            self.temp_files().remove(number);
        }
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        if request.min_capacity_bytes > 0 {
            return Liza.place(view, request);
        }
        let Some(sst) = request.sst else {
            let zones = restricted(view, |z| !sst_lifetime(z.lifetime));
            let mut d = Liza.place(
                &AllocView {
                    zones: &zones,
                    ..*view
                },
                request,
            );
            if d.outcome == Placement::WaitForActiveToken {
                // Every active token is on SST zones: finish the cheapest of any zone (the
                // file still does not go into one) and open an empty zone.
                let mut zones: Vec<ZoneView> = view.zones.to_vec();
                for &i in &d.finish {
                    mark_finished(&mut zones, i);
                }
                let active = view.active_io_zones.saturating_sub(d.finish.len() as u32);
                d = open_empty_zone(&mut zones, active, view.max_active_io_zones, d.finish);
            }
            return d;
        };
        if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
            return decision(Vec::new(), Placement::WaitForOpenToken);
        }
        let mine = |z: &ZoneView| !z.busy && z.is_active() && sst.candidates.contains(&z.index);
        // The fullest zone of the level that takes the whole SST.
        if let Some(z) = view
            .zones
            .iter()
            .filter(|z| mine(z) && z.remaining_bytes >= sst.size.max(1))
            .min_by_key(|z| (z.remaining_bytes, z.index))
        {
            let mut d = decision(Vec::new(), Placement::Active(z.index));
            d.from_context = true;
            return d;
        }
        // GearDB moves on to a new zone; on a ZNS device the level's zones that cannot take the
        // SST are finished so that their active tokens return.
        let mut zones: Vec<ZoneView> = view.zones.to_vec();
        let finish: Vec<u32> = view
            .zones
            .iter()
            .filter(|z| mine(z))
            .map(|z| z.index)
            .collect();
        for &i in &finish {
            mark_finished(&mut zones, i);
        }
        let active = view.active_io_zones.saturating_sub(finish.len() as u32);
        // Still no token: finish the cheapest zone of any level (ZenFS's rule).
        open_empty_zone(&mut zones, active, view.max_active_io_zones, finish)
    }
}

/// A decision not taken from the plan.
fn decision(finish: Vec<u32>, outcome: Placement) -> PlacementDecision {
    PlacementDecision {
        finish,
        outcome,
        from_context: false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::IoType;
    use super::*;

    const CAP: u64 = 1000;

    fn zone(index: u32, remaining: u64, lifetime: Lifetime) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: CAP - remaining,
            lifetime,
            busy: false,
        }
    }

    fn view(zones: &[ZoneView]) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: zones.iter().filter(|z| z.is_active()).count() as u32,
            max_open_io_zones: 8,
            max_active_io_zones: 8,
            finish_threshold_pct: 0,
            hybrid: None,
        }
    }

    fn sst(size: u64, candidates: Vec<u32>) -> SstContext {
        SstContext {
            number: 9,
            level: 2,
            size,
            candidates,
            ..SstContext::default()
        }
    }

    fn place(zones: &[ZoneView], lifetime: Lifetime, sst: Option<&SstContext>) -> Placement {
        let request = PlacementRequest {
            lifetime,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst,
        };
        LevelZones::default().place(&view(zones), &request).outcome
    }

    #[test]
    fn an_sst_goes_to_the_fullest_zone_of_its_level_that_takes_it_whole() {
        let zones = [
            zone(0, 600, Lifetime::Extreme),
            zone(1, 300, Lifetime::Extreme),
            zone(2, 100, Lifetime::Extreme),
            zone(3, 200, Lifetime::Extreme),
            zone(4, CAP, Lifetime::NotSet),
        ];
        // Zone 3 is fuller but another level's; zone 2 is too small for the SST.
        let s = sst(250, vec![0, 1, 2]);
        assert_eq!(
            place(&zones, Lifetime::Extreme, Some(&s)),
            Placement::Active(1)
        );
    }

    #[test]
    fn no_zone_of_the_level_fits_so_an_empty_zone_opens_not_another_levels() {
        let zones = [
            zone(0, 100, Lifetime::Extreme),
            zone(1, 900, Lifetime::Extreme),
            zone(2, CAP, Lifetime::NotSet),
        ];
        let s = sst(250, vec![0]);
        assert_eq!(
            place(&zones, Lifetime::Extreme, Some(&s)),
            Placement::Empty(2)
        );
    }

    #[test]
    fn the_wal_stays_out_of_sst_zones() {
        let zones = [
            zone(0, 500, Lifetime::Medium),
            zone(1, 500, Lifetime::Short),
            zone(2, CAP, Lifetime::NotSet),
        ];
        assert_ne!(place(&zones, Lifetime::Short, None), Placement::Active(0));
        let zones = [
            zone(0, 500, Lifetime::Medium),
            zone(2, CAP, Lifetime::NotSet),
        ];
        assert_eq!(place(&zones, Lifetime::Short, None), Placement::Empty(2));
    }

    #[test]
    fn the_wal_takes_a_token_from_an_sst_zone_when_sst_zones_hold_them_all() {
        let zones = [
            zone(0, 500, Lifetime::Medium),
            zone(1, 200, Lifetime::Extreme),
            zone(2, CAP, Lifetime::NotSet),
        ];
        let v = AllocView {
            max_active_io_zones: 2,
            ..view(&zones)
        };
        let request = PlacementRequest {
            lifetime: Lifetime::Short,
            io_type: IoType::Wal,
            min_capacity_bytes: 0,
            sst: None,
        };
        let d = LevelZones::default().place(&v, &request);
        assert_eq!((d.finish, d.outcome), (vec![1], Placement::Empty(2)));
    }

    #[test]
    fn a_new_zone_for_an_sst_finishes_the_level_zones_that_could_not_take_it() {
        let zones = [
            zone(0, 100, Lifetime::Extreme),
            zone(1, 150, Lifetime::Extreme),
            zone(2, 900, Lifetime::Extreme),
            zone(3, CAP, Lifetime::NotSet),
        ];
        let s = sst(250, vec![0, 1]);
        let request = PlacementRequest {
            lifetime: Lifetime::Extreme,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(&s),
        };
        let d = LevelZones::default().place(&view(&zones), &request);
        assert_eq!((d.finish, d.outcome), (vec![0, 1], Placement::Empty(3)));
    }

    #[test]
    fn the_plan_lists_the_zones_of_the_sst_level_only() {
        use super::super::TreeFile;
        use super::super::tree_view::StaticTree;
        let f = |n: u64, lo: &'static [u8], hi: &'static [u8]| TreeFile::idle(n, 100, lo, hi);
        let tree = StaticTree {
            levels: vec![
                vec![],
                vec![f(1, b"a", b"c")],
                vec![f(2, b"a", b"c"), f(3, b"d", b"f")],
                vec![],
            ],
            scores: vec![],
            base_level: 1,
            zones: vec![
                (1, vec![(5, 100)]),
                (2, vec![(7, 60), (6, 40)]),
                (3, vec![(7, 100)]),
            ],
            target_file_size_bytes: 0,
            pri_order: vec![],
        };
        let new = NewSst {
            number: 9,
            level: 2,
            size: 10,
            smallest: b"x",
            largest: b"y",
            temp: false,
        };
        let plan = LevelZones::default().plan_sst(&new, &tree).unwrap();
        assert_eq!(plan.candidates, vec![6, 7]);
    }

    #[test]
    fn temporary_ssts_have_their_own_zones() {
        use super::super::TreeFile;
        use super::super::tree_view::StaticTree;
        let f = |n: u64, lo: &'static [u8], hi: &'static [u8]| TreeFile::idle(n, 100, lo, hi);
        // Files 2 and 3 in L2 (zones 6 and 7); file 4, also in L2, was written temporary.
        let tree = StaticTree {
            levels: vec![
                vec![],
                vec![],
                vec![f(2, b"a", b"c"), f(3, b"d", b"f"), f(4, b"g", b"h")],
                vec![],
            ],
            scores: vec![],
            base_level: 1,
            zones: vec![
                (2, vec![(6, 100)]),
                (3, vec![(7, 100)]),
                (4, vec![(8, 100)]),
            ],
            target_file_size_bytes: 0,
            pri_order: vec![],
        };
        let sst = |number: u64, temp: bool| NewSst {
            number,
            level: 2,
            size: 10,
            smallest: b"x",
            largest: b"y",
            temp,
        };
        let policy = LevelZones::default();
        // The first temporary SST: no temporary zone yet.
        assert!(
            policy
                .plan_sst(&sst(4, true), &tree)
                .unwrap()
                .candidates
                .is_empty()
        );
        // The next goes with it, and a level SST no longer counts file 4's zone as L2's.
        assert_eq!(
            policy.plan_sst(&sst(9, true), &tree).unwrap().candidates,
            vec![8]
        );
        assert_eq!(
            policy.plan_sst(&sst(10, false), &tree).unwrap().candidates,
            vec![6, 7]
        );
        // Once deleted, file 4 is forgotten.
        policy.on_hint(&Hint::FileDeleted { number: 4 });
        policy.on_hint(&Hint::FileDeleted { number: 9 });
        assert_eq!(
            policy.plan_sst(&sst(10, false), &tree).unwrap().candidates,
            vec![6, 7, 8]
        );
    }
}
