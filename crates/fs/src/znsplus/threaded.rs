//! ZNS+'s hybrid recycling (HSR) on the host: when a reclaim is due, a writer of SSTs may get
//! a zone with garbage opened for threaded logging (TL) instead of an empty one, its live
//! blocks left where they are (the device plugs them) and its garbage blocks written over in
//! increasing order. Threaded logging replaces cleaning, as in F2FS, the host of the ZNS+
//! slides ("hybrid segment recycling: segment cleaning vs. threaded logging"); the choice
//! between the two is the ZNS+ artifact's (`get_new_ssr_segment` of its F2FS):
//!
//! - a reclaim is due when the cleaner would clean now: it picks a victim (its own trigger,
//!   e.g. greedy's free space below 20%). F2FS's `need_SSR` likewise fires only when its free
//!   sections run down to the reserve, just before foreground cleaning; above that, writers
//!   take empty zones. With no victim there is nothing to weigh threaded logging against, and
//!   it is never chosen ([`hybrid_recycling`]);
//! - the TL candidate is the full zone, not busy, with the fewest live bytes and some garbage;
//!   the cleaning candidate is the cleaner's first victim;
//! - TL wins when `0.90 x live(TL)` is below `(1 + 0.02 + 0.18) x live(cleaning)` (in blocks):
//!   plugging costs the device 90% of a host copy, and a copy adds 2% for metadata and 18% for
//!   node updates (F2FS data segments);
//! - every decision with both candidates is counted (`threaded_reclaims`,
//!   `threaded_declined` in [`crate::FsStats`]).
//!
//! [`ThreadedTrigger::NeedSsr`] (a variant, not the default) adds the trigger of the
//! artifact's F2FS, `need_SSR`: threaded logging is weighed only while the free sections are
//! at most the reserved sections plus one (its dirty node, dentry and inode-metadata sections
//! are none here: the metadata log has zones of its own), and from half the reserve down it is
//! taken without the cost rule (`get_new_ssr_segment`). Sections are this layer's IO zones,
//! free sections its empty zones; the reserve is what `mkfs.f2fs` reserves
//! ([`f2fs_reserved_sections`]): with zone-sized sections it depends on the zone count only,
//! which every scale keeps (a scale divides the zone size), so it is the same at every scale
//! (28 of the 157 IO zones of `splitzns-paper`, 18%, at a 10% overprovision ratio).
//!
//! A threaded zone stays open for threaded logging until no garbage block is left past its
//! write pointer (then it is finished): SST writers take a released one again before opening
//! another (F2FS's threaded log goes on in its section), and to placement and cleaning it is
//! busy. At most [`MAX_THREADED_ZONES`] are open at once (ZNS+'s six active blocks per chip).

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use crate::FsError;
use crate::cleaning::CleaningView;
use crate::fs::ZoneFs;
use crate::placement::policy::Lifetime;
use crate::state::{Threaded, ZoneAcct};
pub use crate::znsplus::options::ThreadedTrigger;

/// Zones open for threaded logging at once (ZNS+: 6 active blocks per chip).
pub const MAX_THREADED_ZONES: usize = 6;

/// Plugging's cost per live block against a host copy's, percent (ZNS+: 90).
pub const TL_COST_PCT: u64 = 90;
/// A copy's cost per live block, percent: the copy, 2% metadata, 18% node updates (ZNS+'s
/// F2FS for data segments).
pub const CLEANING_COST_PCT: u64 = 100 + 2 + 18;

/// Whether HSR reclaims by threaded logging a zone of `tl_live` live blocks rather than
/// cleaning one of `cleaning_live`.
pub fn prefers_threaded(tl_live: u64, cleaning_live: u64) -> bool {
    tl_live.saturating_mul(TL_COST_PCT) < cleaning_live.saturating_mul(CLEANING_COST_PCT)
}

/// The sections `mkfs.f2fs` reserves on a main area of `sections` zone-sized sections:
/// `2 x (100 / ovp + 1) + 6` with the overprovision ratio `ovp` (percent) that leaves the most
/// user space (`get_best_overprovision`: 0.01 to 10 in steps of 0.01 on a main area of 256
/// segments or more, as every zone of 2 MiB segments or larger gives), truncated as F2FS
/// stores it.
pub fn f2fs_reserved_sections(sections: u64) -> u64 {
    let n = sections as f64;
    let reserved = |ovp: f64| 2.0 * (100.0 / ovp + 1.0) + 6.0;
    let mut best = (0.0, 0.0);
    for step in 1..=1000u32 {
        let ovp = f64::from(step) / 100.0;
        let r = reserved(ovp);
        let space = n - r - (n - r) * ovp / 100.0;
        if space > best.0 {
            best = (space, ovp);
        }
    }
    if best.1 == 0.0 {
        return sections;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "F2FS stores the reserve as an integer count"
    )]
    let r = reserved(best.1) as u64;
    r.min(sections)
}

/// F2FS's `need_SSR` (the artifact's): `free` empty sections at most `reserved + 1`.
pub fn need_ssr(free: u64, reserved: u64) -> bool {
    free <= reserved + 1
}

/// `get_new_ssr_segment`'s shortcut: at most half the reserve free, threaded logging without
/// the cost rule.
pub fn ssr_without_cost_rule(free: u64, reserved: u64) -> bool {
    free <= reserved / 2
}

/// What hybrid recycling does for an SST writer that needs a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recycling {
    /// No reclaim is due (the cleaner picks no victim): the writer takes the zone placement
    /// gives it, an empty one while there is one.
    NotDue,
    /// A reclaim is due and cleaning costs less (or no zone can be threaded): the writer
    /// takes the zone placement gives it and the cleaner reclaims.
    Clean,
    /// A reclaim is due and threaded logging costs less: the writer gets the TL candidate.
    Threaded,
}

/// HSR's choice from the live blocks of the cleaner's first victim (`None`: the cleaner picks
/// none, no reclaim is due) and of the TL candidate (`None`: no zone can be threaded).
/// Threaded logging is only ever weighed against a real victim.
pub fn hybrid_recycling(victim_live: Option<u64>, tl_live: Option<u64>) -> Recycling {
    match (victim_live, tl_live) {
        (None, _) => Recycling::NotDue,
        (Some(_), None) => Recycling::Clean,
        (Some(victim), Some(tl)) => {
            if prefers_threaded(tl, victim) {
                Recycling::Threaded
            } else {
                Recycling::Clean
            }
        }
    }
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// A zone opened for threaded logging for a writer of `lifetime`, when HSR says so;
    /// `None` otherwise (and when the device refuses: too many threaded zones, no resource).
    pub(crate) async fn try_threaded_zone(
        &self,
        lifetime: Lifetime,
    ) -> Result<Option<u32>, FsError> {
        if !self.opts.znsplus.threaded_logging || self.dev.capabilities().in_device_copy.is_none() {
            return Ok(None);
        }
        let block = self.block;
        let (zone, valid) = {
            let mut s = self.lock();
            // A threaded zone given back with garbage left: the next SST writer goes on there.
            if s.open_tokens < s.max_open_io
                && let Some(z) = s
                    .zones
                    .iter_mut()
                    .find(|z| z.threaded.is_some() && !z.busy && !z.failed && z.remaining() > 0)
            {
                z.busy = true;
                z.lifetime = lifetime;
                let zone = z.index;
                s.open_tokens += 1;
                return Ok(Some(zone));
            }
            if s.zones.iter().filter(|z| z.threaded.is_some()).count() >= MAX_THREADED_ZONES {
                return Ok(None);
            }
            // A threaded zone takes a writer's open and active tokens, within their budget.
            if s.open_tokens >= s.max_open_io || s.active_tokens() >= s.max_active_io {
                return Ok(None);
            }
            // A reclaim is due only when the cleaner would clean now; its first victim is
            // what threaded logging is weighed against.
            let views = s.cleaning_views();
            let victim_live = self
                .opts
                .cleaner
                .victims(&CleaningView { zones: &views })
                .first()
                .and_then(|&v| s.zone(v))
                .map(|z| z.used.div_ceil(block));
            if victim_live.is_none() {
                return Ok(None);
            }
            let mut forced = false;
            if self.opts.znsplus.threaded_trigger == ThreadedTrigger::NeedSsr {
                let free = s.free_zones();
                let reserved = f2fs_reserved_sections(s.zones.len() as u64);
                if !need_ssr(free, reserved) {
                    return Ok(None);
                }
                forced = ssr_without_cost_rule(free, reserved);
            }
            let min_garbage = u64::from(self.opts.znsplus.threaded_min_garbage_pct);
            let candidate = s.threaded_candidate(block, min_garbage);
            let tl_live = candidate
                .as_ref()
                .map(|((_, used), _)| used.div_ceil(block));
            let choice = match hybrid_recycling(victim_live, tl_live) {
                Recycling::Clean if forced && tl_live.is_some() => Recycling::Threaded,
                other => other,
            };
            let (cand, valid) = match (choice, candidate) {
                (Recycling::Threaded, Some(c)) => c,
                (Recycling::Clean, Some(_)) => {
                    self.counters().znsplus.threaded_declined += 1;
                    return Ok(None);
                }
                _ => return Ok(None),
            };
            // The tokens are taken now, so no writer allocating meanwhile overshoots the
            // device's limits; given back if the device refuses.
            if let Some(z) = s.zone_mut(cand.0) {
                z.busy = true;
                z.active = true;
            }
            s.open_tokens += 1;
            (cand.0, valid)
        };
        let opened = match self.dev.capabilities().in_device_copy {
            Some(c) => c.threaded_open(zone, &valid).await.is_ok(),
            None => false,
        };
        if !opened {
            let mut s = self.lock();
            if let Some(z) = s.zone_mut(zone) {
                z.busy = false;
                z.active = false;
            }
            s.open_tokens = s.open_tokens.saturating_sub(1);
            drop(s);
            self.tokens.notify_waiters();
            return Ok(None);
        }
        {
            let mut s = self.lock();
            if let Some(z) = s.zone_mut(zone) {
                z.threaded = Some(Threaded { valid, block });
                z.wp = z.start;
                z.lifetime = lifetime;
            }
            let free: u64 = s.zones.iter().map(ZoneAcct::remaining).sum();
            let mut c = self.counters();
            c.znsplus.threaded_reclaims += 1;
            c.free_series.push((self.env.now(), free));
        }
        self.kick.notify_one();
        Ok(Some(zone))
    }
}

impl crate::state::State {
    /// F2FS's free sections: IO zones nothing is written to and no writer holds.
    fn free_zones(&self) -> u64 {
        self.zones
            .iter()
            .filter(|z| {
                z.written() == 0
                    && z.threaded.is_none()
                    && z.split.is_none()
                    && !z.busy
                    && !z.failed
            })
            .count() as u64
    }

    /// HSR's threaded-logging candidate: the full zone (not busy, no reader) with the fewest
    /// live bytes that has a block to write over (live extents that do not fill their blocks
    /// can leave none), with its live blocks; `(zone, live bytes)`.
    /// `min_garbage_pct`: at least this share of the capacity garbage.
    fn threaded_candidate(
        &self,
        block: u64,
        min_garbage_pct: u64,
    ) -> Option<((u32, u64), Vec<bool>)> {
        let mut candidates: Vec<(u64, u32)> = self
            .zones
            .iter()
            .filter(|z| {
                z.threaded.is_none()
                    && z.split.is_none()
                    && !z.busy
                    && !z.failed
                    && z.readers == 0
                    && z.written() > 0
                    && z.remaining() == 0
                    && z.used + block <= z.capacity
                    && (z.capacity - z.used) * 100 >= z.capacity * min_garbage_pct
            })
            .map(|z| (z.used, z.index))
            .collect();
        candidates.sort_unstable();
        candidates.into_iter().find_map(|(used, z)| {
            let valid = self.live_blocks(z, block);
            valid.iter().any(|v| !v).then_some(((z, used), valid))
        })
    }

    /// Per block of zone `zone`'s capacity: whether a live extent touches it.
    pub(crate) fn live_blocks(&self, zone: u32, block: u64) -> Vec<bool> {
        let Some(z) = self.zone(zone) else {
            return Vec::new();
        };
        let (lo, hi) = (z.start, z.start + z.capacity);
        let mut valid = vec![false; usize::try_from(z.capacity / block).unwrap_or(0)];
        for e in self.files.values().flat_map(|f| f.meta.extents.iter()) {
            if e.start >= lo && e.start < hi {
                let a = (e.start - lo) / block;
                let b = (e.start + e.len - lo).div_ceil(block);
                for i in a..b {
                    if let Some(v) = valid.get_mut(usize::try_from(i).unwrap_or(usize::MAX)) {
                        *v = true;
                    }
                }
            }
        }
        valid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_victim_means_no_reclaim_and_never_threaded_logging() {
        // Whatever the TL candidate, without a cleaning victim nothing is due: no self-
        // comparison (which 0.9 x < 1.2 x would always win).
        for tl in [None, Some(0), Some(1), Some(1000), Some(u64::MAX)] {
            assert_eq!(hybrid_recycling(None, tl), Recycling::NotDue, "{tl:?}");
        }
        // A victim and no zone to thread: cleaning.
        assert_eq!(hybrid_recycling(Some(10), None), Recycling::Clean);
        // A victim: the cost rule decides.
        assert_eq!(
            hybrid_recycling(Some(1000), Some(1000)),
            Recycling::Threaded
        );
        assert_eq!(hybrid_recycling(Some(250), Some(1000)), Recycling::Clean);
        assert_eq!(
            hybrid_recycling(Some(1000), Some(1332)),
            Recycling::Threaded
        );
        assert_eq!(hybrid_recycling(Some(1000), Some(1334)), Recycling::Clean);
    }

    #[test]
    fn need_ssr_reserves_what_mkfs_f2fs_does_and_fires_only_near_the_reserve() {
        // mkfs.f2fs picks 10% overprovision on these main areas: 2 x (100 / 10 + 1) + 6.
        assert_eq!(f2fs_reserved_sections(157), 28);
        // On 1,000 sections 4.49% leaves more user space: 2 x (100 / 4.49 + 1) + 6 = 52.5.
        assert_eq!(f2fs_reserved_sections(1000), 52);
        // The engine's tiny device (77 IO zones) too; a main area too small for any ratio
        // is all reserve.
        assert_eq!(f2fs_reserved_sections(77), 28);
        assert_eq!(f2fs_reserved_sections(20), 20);
        assert_eq!(f2fs_reserved_sections(0), 0);
        // `need_SSR`: free sections at most reserved + 1.
        assert!(!need_ssr(31, 28));
        assert!(!need_ssr(30, 28));
        assert!(need_ssr(29, 28));
        assert!(need_ssr(0, 28));
        // At most half the reserve: threaded logging whatever the cost rule says.
        assert!(!ssr_without_cost_rule(15, 28));
        assert!(ssr_without_cost_rule(14, 28));
        // 157 IO zones: 29 free (18.5%) is where it starts, far below the cleaner's 20%.
        let r = f2fs_reserved_sections(157);
        assert!((r + 1) * 100 < 157 * 20);
        assert_eq!(ThreadedTrigger::default(), ThreadedTrigger::Victim);
        for t in [ThreadedTrigger::Victim, ThreadedTrigger::NeedSsr] {
            assert_eq!(ThreadedTrigger::by_name(t.name()).unwrap(), t);
        }
        assert!(ThreadedTrigger::by_name("always").is_err());
    }

    #[test]
    fn threaded_logging_wins_on_the_same_zone_and_loses_to_a_much_emptier_one() {
        // The same zone both ways: 0.9 x < 1.2 x.
        assert!(prefers_threaded(1000, 1000));
        // Cleaning a zone with a quarter of the live blocks: 900 vs 300 -> clean.
        assert!(!prefers_threaded(1000, 250));
        // The break-even: 0.9 x tl < 1.2 x gc <=> tl < 4/3 gc.
        assert!(prefers_threaded(1332, 1000));
        assert!(!prefers_threaded(1334, 1000));
        assert!(!prefers_threaded(0, 0));
    }
}
