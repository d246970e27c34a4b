//! The simulated device's split zones: [`SplitZnsMedia`] is the generic device's
//! [`ZoneHook`] (requests to split zones are checked and timed by it under the device's lock,
//! in issue order, like every other request; their bytes live in one payload slot per subzone,
//! after the zones' slots; their in-flight writes are tracked per subzone, so a power loss
//! loses exactly the subzone writes not yet acknowledged: acknowledged ones sit in flash or in
//! the power-loss-protected ring), and the SplitZNS SSD has the [`SplitZones`] family. This
//! room depends on the generic device; the generic device knows nothing of split zones.

use zonedb_env::Env;

use super::{
    SplitZnsGeometry, SplitZnsMedia, SplitZnsStats, SplitZoneState, SubzoneId, SubzoneInfo,
};
use crate::error::{SplitOp, SplitRefusal};
use crate::families::{DeviceFuture, SplitZones};
use crate::sim::device::{State, WriteData};
use crate::sim::{Completion, PartSlot, Routed, SimZonedDevice, Target, ZoneHook};
use crate::zone::{ZoneInfo, ZoneState, ZoneTable};
use crate::{DeviceError, IoClass, ZoneOp};

fn wide_command_refused(zone: u32) -> DeviceError {
    DeviceError::SplitZone {
        zone,
        subzone: None,
        op: SplitOp::WideCommand,
        reason: SplitRefusal::SplitZone,
    }
}

impl ZoneHook for SplitZnsMedia {
    fn payload_slots(&self, zone_count: u32) -> u32 {
        SplitZnsMedia::payload_slots(self, zone_count)
    }

    /// Writes into split zones and every subzone append; a wide append to a split zone is
    /// refused ([`DeviceError::SplitZone`]).
    fn write(
        &mut self,
        table: &mut ZoneTable,
        now: u64,
        target: Target,
        len: u64,
    ) -> Result<Option<Routed>, DeviceError> {
        let zone_count = table.geometry().zone_count;
        let (id, offset) = match target {
            Target::At(off) => match self.split_zone_at(off) {
                Some(zone) => (self.table().locate(zone, off).0, Some(off)),
                None => return Ok(None),
            },
            Target::Append(zone) if self.table().is_split(zone) => {
                return Err(wide_command_refused(zone));
            }
            Target::Append(_) => return Ok(None),
            Target::Part(zone, index) => {
                table.info(zone)?;
                (SubzoneId { zone, index }, None)
            }
        };
        let (offset, done) = self.write_subzone(now, table, id, offset, len)?;
        Ok(Some(Routed {
            slot: self.slot_of(zone_count, id),
            slot_start: self.table().sub_start(id),
            offset,
            done,
        }))
    }

    fn check_read(&self, offset: u64, len: u64) -> Result<Option<u32>, DeviceError> {
        let Some(zone) = self.split_zone_at(offset) else {
            return Ok(None);
        };
        SplitZnsMedia::check_read(self, zone, offset, len)?;
        Ok(Some(zone))
    }

    fn read(
        &mut self,
        now: u64,
        zone_count: u32,
        zone: u32,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> (u32, u64, Completion) {
        let id = self.table().locate(zone, offset).0;
        let done = self.read_subzone(now, zone, offset, len, class);
        (
            self.slot_of(zone_count, id),
            self.table().sub_start(id),
            done,
        )
    }

    /// A split zone's FINISH and RESET; any other command is refused.
    fn manage(
        &mut self,
        table: &mut ZoneTable,
        now: u64,
        zone: u32,
        op: ZoneOp,
    ) -> Result<Option<Completion>, DeviceError> {
        if !self.table().is_split(zone) {
            return Ok(None);
        }
        match op {
            ZoneOp::Finish => self.finish_zone(now, table, zone).map(Some),
            ZoneOp::Reset => self.reset_zone(now, table, zone).map(Some),
            _ => Err(wide_command_refused(zone)),
        }
    }

    /// Deactivated split zones show full.
    fn report(&self, out: &mut [ZoneInfo]) {
        for z in out {
            if self.table().zone_state(z.index) == Some(SplitZoneState::Inactive) {
                z.state = ZoneState::Full;
                z.write_pointer = z.start + z.capacity_bytes;
            }
        }
    }

    fn part_slots(&self, zone_count: u32) -> Vec<PartSlot> {
        self.table()
            .split_zones()
            .flat_map(|(zone, z)| {
                (0..z.subs.len() as u32).map(move |index| SubzoneId { zone, index })
            })
            .map(|id| PartSlot {
                slot: self.slot_of(zone_count, id),
                zone: id.zone,
                index: id.index,
                start: self.table().sub_start(id),
            })
            .collect()
    }

    fn truncate_part(&mut self, zone: u32, index: u32, kept: u64) {
        self.truncate_subzone(SubzoneId { zone, index }, kept);
    }

    fn power_up(&self, table: &mut ZoneTable) -> Result<(), DeviceError> {
        self.retake_tokens(table)
    }
}

impl<E: Env> SimZonedDevice<E, SplitZnsMedia> {
    /// A new, empty SplitZNS device of `profile` with the accelerations of `config`; with the
    /// Read Scheduler on, query reads go first within the profile's queueing discipline
    /// ([`crate::flash::Scheduler::query_first`]), which it does not change.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent, cannot be scheduled so,
    /// or its zones do not split into one block-aligned subzone per chip.
    pub fn new_splitzns(
        env: E,
        mut profile: crate::Profile,
        config: super::SplitZnsConfig,
        payload: crate::payload::Payload,
    ) -> Result<Self, DeviceError> {
        if config.read_scheduler {
            // The text's query-first order (kept if the profile's already serves queries
            // first, as the class order does), on the queueing the profile has.
            let s = profile.scheduler.query_first();
            profile = profile.with_scheduler(s)?;
        }
        let zones = profile.zones.clone();
        Self::with_media(env, zones, SplitZnsMedia::new(profile, config)?, payload)
    }

    /// The profile.
    pub fn profile(&self) -> crate::Profile {
        self.with_media_ref(|m| m.profile().clone())
    }

    /// SplitZNS counters.
    pub fn split_stats(&self) -> SplitZnsStats {
        self.lock().media.stats()
    }

    /// SPLIT admitted now.
    fn admit_split(&self, zone: u32, parts: u32) -> Result<Completion, DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        let State {
            table,
            media,
            checker,
            ..
        } = &mut *s;
        checker.check(table, "before split", None);
        let done = media.split(now, table, zone, parts)?;
        checker.check(table, "after split", None);
        Ok(done)
    }

    /// A subzone finish (or, `merge`, a MERGE) admitted now.
    fn admit_subzone_command(&self, id: SubzoneId, merge: bool) -> Result<Completion, DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        let zone_count = s.table.geometry().zone_count;
        s.table.info(id.zone)?;
        let State {
            media,
            stats,
            in_flight,
            ..
        } = &mut *s;
        if !merge {
            return media.finish_subzone(now, id);
        }
        let (done, erases) = media.merge(now, id)?;
        stats.block_erases += erases;
        let slot = media.slot_of(zone_count, id);
        if let Some(q) = in_flight.get_mut(slot as usize) {
            q.clear();
        }
        drop(s);
        self.payload.discard_zone(slot);
        Ok(done)
    }
}

impl<E: Env> SplitZones for SimZonedDevice<E, SplitZnsMedia> {
    fn split_geometry(&self) -> SplitZnsGeometry {
        self.lock().media.geometry()
    }

    fn split_zone(&self, zone: u32, parts: u32) -> DeviceFuture<'_, ()> {
        let admitted = self.admit_split(zone, parts);
        Box::pin(async move {
            let done = admitted?;
            self.complete(done, (), "after split").await
        })
    }

    fn report_subzones(&self, zone: u32) -> Result<Vec<SubzoneInfo>, DeviceError> {
        let now = self.env.now();
        SplitZnsMedia::report(&mut self.lock().media, now, zone)
    }

    fn append_subzone<'a>(&'a self, subzone: SubzoneId, data: &'a [u8]) -> DeviceFuture<'a, u64> {
        let admitted = self.admit_write(
            Target::Part(subzone.zone, subzone.index),
            WriteData::Dense(data),
        );
        Box::pin(async move {
            let (slot, offset, done) = admitted?;
            self.complete_write(slot, offset, done, "after subzone append")
                .await;
            Ok(offset)
        })
    }

    fn finish_subzone(&self, subzone: SubzoneId) -> DeviceFuture<'_, ()> {
        let admitted = self.admit_subzone_command(subzone, false);
        Box::pin(async move {
            let done = admitted?;
            self.complete(done, (), "after subzone finish").await
        })
    }

    fn merge_subzone(&self, subzone: SubzoneId) -> DeviceFuture<'_, ()> {
        let admitted = self.admit_subzone_command(subzone, true);
        Box::pin(async move {
            let done = admitted?;
            self.complete(done, (), "after merge").await
        })
    }
}
