//! Split zones (SplitZNS) carried out: the placement policy's subzone decisions
//! ([`crate::PlacementPolicy::place_subzone`]) for writers, the end of a subzone's writer
//! (finish the subzone, deactivate the split zone no writer uses), and the reclaiming of
//! subzones whose SST was deleted (MERGE), with an all-empty split zone turned back into a
//! wide zone (RESET).
//!
//! **Choices.** A subzone holds one SST, written from its start; the SST is finished
//! (`finish_subzone`) when its file is closed, and a subzone that fills is never continued
//! into another one (the rest of such a file goes to wide zones). A split zone holds its open
//! and active tokens only while a writer holds one of its subzones: when the last writer lets
//! go it is deactivated (FINISH), and the next write to one of its empty subzones reactivates
//! it (the device's rule), which the allocator allows only with a free active token. A
//! split zone whose subzones are all empty is RESET back to a wide zone at once: split zones
//! hold SSTs and nothing else, the cap on split zones counts only zones holding them, and the
//! capacity goes back to wide placement (the next deep SST splits a zone again if it needs
//! one). Cleaning never picks a split zone (it shows busy to every policy but this one).

use std::pin::pin;

use zonedb_device::{SubzoneId, ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::FileKind;
use crate::fs::ZoneFs;
use crate::placement::policy::{Lifetime, PlacementRequest, SstContext};
use crate::placement::split::{SplitView, SplitZoneView, SubzonePlacement, WideFallback};
use crate::split::selective::choose_subzone;
use crate::state::{SplitAcct, State};

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Takes a subzone for the first extent of a complete SST when the placement policy puts
    /// the SST in one: an empty subzone of a split zone, or the first subzone of a wide zone
    /// it splits now. Waits for an open token like a wide allocation. `None`: the file goes
    /// to a wide zone (no split zones on the device, no plan, the policy says so; a fallback
    /// the policy wanted otherwise is counted).
    ///
    /// # Errors
    /// Device errors of the SPLIT.
    pub(crate) async fn acquire_subzone(
        &self,
        lifetime: Lifetime,
        kind: FileKind,
        sst: Option<&SstContext>,
    ) -> Result<Option<SubzoneId>, FsError> {
        self.take_subzone(lifetime, kind, sst, false).await
    }

    /// The last resort of an SST's first zone when no wide zone has room (after cleaning and
    /// the wait for zones SST writers hold): a free subzone of a split zone that already
    /// exists, whatever the SST's level, when the SST fits one. Split zones are capped and
    /// hold deep SSTs by the policy's rule; a shallow SST there is merged (MERGE) when it is
    /// deleted like any other, so the device's free subzones are not lost to a write that
    /// would otherwise fail. `None`: no such subzone (or no split zones, or no plan).
    ///
    /// # Errors
    /// As [`Self::acquire_subzone`] (no SPLIT is issued here).
    pub(crate) async fn acquire_subzone_last_resort(
        &self,
        kind: FileKind,
        sst: Option<&SstContext>,
    ) -> Result<Option<SubzoneId>, FsError> {
        self.take_subzone(Lifetime::NotSet, kind, sst, true).await
    }

    /// [`Self::acquire_subzone`], or with `last_resort` [`Self::acquire_subzone_last_resort`]:
    /// the decision is the policy's, or the first rules of
    /// [`choose_subzone`] without a new split (an empty wide zone would have been taken as a
    /// wide zone) and without counting a fallback.
    async fn take_subzone(
        &self,
        lifetime: Lifetime,
        kind: FileKind,
        sst: Option<&SstContext>,
        last_resort: bool,
    ) -> Result<Option<SubzoneId>, FsError> {
        let (Some(geo), Some(sst)) = (self.split_geo, sst) else {
            return Ok(None);
        };
        let request = PlacementRequest {
            lifetime,
            io_type: kind.io_type(),
            min_capacity_bytes: 0,
            sst: Some(sst),
        };
        let mut waited_since: Option<u64> = None;
        loop {
            let mut notified = pin!(self.tokens.notified());
            notified.as_mut().enable();
            let decision = {
                let mut s = self.lock();
                let views = s.views();
                let split = split_zone_views(&s);
                let view = SplitView {
                    alloc: s.alloc_view(&views),
                    split_zones: &split,
                    subzone_capacity_bytes: geo.subzone_capacity_bytes,
                    block_bytes: self.block,
                };
                let decision = if last_resort {
                    match choose_subzone(&view, &request, sst.size, split.len()) {
                        SubzonePlacement::Split(_) | SubzonePlacement::Wide(_) => return Ok(None),
                        d => d,
                    }
                } else {
                    let Some(d) = self.opts.placement.place_subzone(&view, &request) else {
                        return Ok(None);
                    };
                    d
                };
                self.take_decision(&mut s, decision);
                if matches!(
                    decision,
                    SubzonePlacement::Subzone(_) | SubzonePlacement::Split(_)
                ) {
                    self.counters().last_resort_subzones += u64::from(last_resort);
                    let free: u64 = s.zones.iter().map(crate::state::ZoneAcct::remaining).sum();
                    self.counters().free_series.push((self.env.now(), free));
                }
                decision
            };
            if let Some(t0) = waited_since
                && decision != SubzonePlacement::WaitForOpenToken
            {
                self.counters().blocking_ns += self.env.now() - t0;
            }
            match decision {
                SubzonePlacement::Subzone(id) => return Ok(Some(id)),
                SubzonePlacement::Split(zone) => {
                    return self.split_for_writer(zone, geo).await.map(Some);
                }
                SubzonePlacement::Wide(_) => return Ok(None),
                SubzonePlacement::WaitForOpenToken => {
                    waited_since.get_or_insert(self.env.now());
                    notified.await;
                }
            }
        }
    }

    /// Books a decision under the state lock: the writer's open token, the subzone taken (its
    /// split zone active again), the zone to split held busy, or the fallback counted.
    fn take_decision(&self, s: &mut State, decision: SubzonePlacement) {
        match decision {
            SubzonePlacement::Subzone(id) => {
                s.open_tokens += 1;
                if let Some(z) = s.zone_mut(id.zone) {
                    // An inactive split zone takes its tokens again at the first write.
                    z.active = true;
                }
                if let Some(u) = s.sub_mut(id) {
                    u.writer = true;
                }
                self.counters().split.subzone_allocations += 1;
            }
            SubzonePlacement::Split(zone) => {
                s.open_tokens += 1;
                if let Some(z) = s.zone_mut(zone) {
                    // Busy until the device has split it; a split zone is open (active).
                    z.busy = true;
                    z.active = true;
                }
            }
            SubzonePlacement::Wide(why) => {
                let mut c = self.counters();
                c.split.subzone_fallbacks += 1;
                c.split.subzone_oversize_fallbacks += u64::from(why == WideFallback::TooLarge);
            }
            SubzonePlacement::WaitForOpenToken => {}
        }
    }

    /// SPLITs the empty wide `zone` held for a writer and gives the writer its first subzone.
    async fn split_for_writer(
        &self,
        zone: u32,
        geo: zonedb_device::splitzns::SplitZnsGeometry,
    ) -> Result<SubzoneId, FsError> {
        let result = async { self.split_zones()?.split_zone(zone, geo.subzones).await }.await;
        let mut s = self.lock();
        let Some(z) = s.zone_mut(zone) else {
            return Err(FsError::Corrupt(format!("split of unknown zone {zone}")));
        };
        z.busy = false;
        if let Err(e) = result {
            z.active = false;
            s.open_tokens = s.open_tokens.saturating_sub(1);
            drop(s);
            self.tokens.notify_waiters();
            return Err(e.into());
        }
        let mut split = SplitAcct::new(z.start, &geo);
        if let Some(first) = split.subs.first_mut() {
            first.writer = true;
        }
        z.split = Some(split);
        z.lifetime = Lifetime::NotSet;
        let count = s.split_zone_count() as u64;
        let mut c = self.counters();
        c.split.zone_splits += 1;
        c.split.subzone_allocations += 1;
        c.split.split_zones_peak = c.split.split_zones_peak.max(count);
        Ok(SubzoneId { zone, index: 0 })
    }

    /// A writer lets subzone `id` go (its SST is closed, or the subzone is full): the subzone
    /// is finished if it is not full, the writer's open token returns, and a split zone no
    /// writer uses any more is deactivated (FINISH), giving its tokens back.
    ///
    /// # Errors
    /// Device errors.
    pub(crate) async fn release_subzone(&self, id: SubzoneId) -> Result<(), FsError> {
        let open = self
            .lock()
            .sub(id)
            .is_some_and(|u| u.written() > 0 && u.remaining() > 0);
        let mut result = Ok(());
        if open {
            result = async { self.split_zones()?.finish_subzone(id).await }
                .await
                .map_err(FsError::from);
            if result.is_ok() {
                if let Some(u) = self.lock().sub_mut(id) {
                    u.wp = u.start + u.capacity;
                }
                self.counters().split.subzone_finishes += 1;
            }
        }
        let deactivate = {
            let mut s = self.lock();
            s.open_tokens = s.open_tokens.saturating_sub(1);
            if let Some(u) = s.sub_mut(id) {
                u.writer = false;
            }
            s.zone_mut(id.zone).is_some_and(|z| {
                let idle = z.split.as_ref().is_some_and(|sp| {
                    !sp.has_writer()
                        && sp
                            .subs
                            .iter()
                            .all(|u| u.written() == 0 || u.remaining() == 0)
                });
                let go = result.is_ok() && idle && z.active && !z.busy;
                if go {
                    // Busy until the FINISH is done: no writer takes a subzone meanwhile.
                    z.busy = true;
                }
                go
            })
        };
        if deactivate {
            let finished = self.dev.manage(id.zone, ZoneOp::Finish).await;
            if let Some(z) = self.lock().zone_mut(id.zone) {
                z.busy = false;
                if finished.is_ok() {
                    z.active = false;
                }
            }
            if finished.is_ok() {
                self.counters().split.split_zone_finishes += 1;
            }
            result = finished.map_err(FsError::from);
        }
        self.tokens.notify_waiters();
        result
    }

    /// Merges (MERGE) every subzone that holds no live data, no writer and no reader, then
    /// turns every split zone whose subzones are all empty back into a wide zone (RESET).
    /// What made them unused is made durable first, as for zone resets.
    ///
    /// # Errors
    /// Device errors.
    pub(crate) async fn merge_unused_subzones(&self) -> Result<(), FsError> {
        let victims: Vec<SubzoneId> = {
            let mut s = self.lock();
            let mut v = Vec::new();
            for z in s.zones.iter_mut().filter(|z| z.readers == 0 && !z.failed) {
                let zone = z.index;
                let Some(split) = z.split.as_mut() else {
                    continue;
                };
                for (i, u) in split.subs.iter_mut().enumerate() {
                    if u.used == 0 && u.written() > 0 && !u.writer && !u.merging {
                        u.merging = true;
                        v.push(SubzoneId {
                            zone,
                            index: u32::try_from(i).unwrap_or(u32::MAX),
                        });
                    }
                }
            }
            v
        };
        let mut result = if victims.is_empty() {
            Ok(())
        } else {
            self.sync_device().await
        };
        for &id in &victims {
            let merged = if result.is_ok() {
                async { self.split_zones()?.merge_subzone(id).await }
                    .await
                    .map_err(FsError::from)
            } else {
                Ok(())
            };
            let ok = result.is_ok() && merged.is_ok();
            if let Some(u) = self.lock().sub_mut(id) {
                u.merging = false;
                if ok {
                    u.wp = u.start;
                }
            }
            if ok {
                self.counters().split.subzone_merges += 1;
            }
            if result.is_ok() {
                result = merged;
            }
        }
        result?;
        let empty: Vec<u32> = {
            let mut s = self.lock();
            let mut v = Vec::new();
            for z in &mut s.zones {
                if !z.busy && z.readers == 0 && z.split.as_ref().is_some_and(SplitAcct::all_empty) {
                    z.busy = true;
                    v.push(z.index);
                }
            }
            v
        };
        let mut result = Ok(());
        for &zone in &empty {
            let reset = if result.is_ok() {
                self.dev.manage(zone, ZoneOp::Reset).await
            } else {
                Ok(())
            };
            let ok = result.is_ok() && reset.is_ok();
            if let Some(z) = self.lock().zone_mut(zone) {
                z.busy = false;
                if ok {
                    z.split = None;
                    z.wp = z.start;
                    z.active = false;
                    z.lifetime = Lifetime::NotSet;
                }
            }
            if ok {
                self.counters().split.split_zone_resets += 1;
            }
            if result.is_ok() {
                result = reset.map_err(FsError::from);
            }
        }
        if !victims.is_empty() || !empty.is_empty() {
            self.tokens.notify_waiters();
        }
        result
    }
}

/// The split zones of `s` as the subzone allocator sees them.
pub(crate) fn split_zone_views(s: &State) -> Vec<SplitZoneView> {
    s.zones
        .iter()
        .filter_map(|z| {
            let split = z.split.as_ref()?;
            let full = split
                .subs
                .iter()
                .filter(|u| u.written() > 0 && !u.writer)
                .count();
            let free = split
                .subs
                .iter()
                .position(|u| u.written() == 0 && !u.writer && !u.merging);
            Some(SplitZoneView {
                index: z.index,
                full_subzones: u32::try_from(full).unwrap_or(u32::MAX),
                free_subzone: free.and_then(|i| u32::try_from(i).ok()),
                active: z.active,
                busy: z.busy || z.failed,
            })
        })
        .collect()
}
