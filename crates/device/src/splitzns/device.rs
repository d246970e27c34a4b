//! The simulated device's split-zone paths: requests to split zones are checked and timed by
//! [`SplitZnsMedia`] under the device's lock, in issue order, like every other request; their
//! bytes live in one payload slot per subzone (after the zones' slots), their in-flight writes
//! are tracked per subzone, so a power loss loses exactly the subzone writes not yet
//! acknowledged (acknowledged ones sit in flash or in the power-loss-protected ring).

use zonedb_env::Env;

use super::{SplitZnsMedia, SplitZnsStats, SplitZoneState, SubzoneId};
use crate::error::{SplitOp, SplitRefusal};
use crate::sim::device::{State, Target};
use crate::sim::{Completion, Media, SimZonedDevice};
use crate::zone::{ZoneInfo, ZoneState, ZoneTable};
use crate::{DeviceError, IoClass, ZoneOp};

/// A write to a split zone, admitted: `(payload slot, slot start, device offset, completion)`;
/// `None` when `target` is no split zone (the wide path takes it).
///
/// # Errors
/// The subzone write's errors; a subzone append on a device without split zones:
/// [`DeviceError::Unsupported`]; a wide append to a split zone: [`DeviceError::SplitZone`].
pub(crate) fn split_write<M: Media>(
    table: &mut ZoneTable,
    media: &mut M,
    now: u64,
    target: Target,
    len: u64,
) -> Result<Option<(u32, u64, u64, Completion)>, DeviceError> {
    let zone_count = table.geometry().zone_count;
    let Some(m) = media.splitzns() else {
        return match target {
            Target::Subzone(_) => Err(crate::zone_split_unsupported()),
            _ => Ok(None),
        };
    };
    let (id, offset) = match target {
        Target::At(off) => match m.split_zone_at(off) {
            Some(zone) => (m.table().locate(zone, off).0, Some(off)),
            None => return Ok(None),
        },
        Target::Append(zone) if m.table().is_split(zone) => {
            return Err(DeviceError::SplitZone {
                zone,
                subzone: None,
                op: SplitOp::WideCommand,
                reason: SplitRefusal::SplitZone,
            });
        }
        Target::Append(_) => return Ok(None),
        Target::Subzone(id) => {
            table.info(id.zone)?;
            (id, None)
        }
    };
    let (offset, done) = m.write_subzone(now, table, id, offset, len)?;
    let slot = m.slot_of(zone_count, id);
    Ok(Some((slot, m.table().sub_start(id), offset, done)))
}

/// Checks a read if it falls in a split zone (returns that zone); `None` for a wide zone.
///
/// # Errors
/// The subzone read's errors.
pub(crate) fn split_read_check<M: Media>(
    s: &mut State<M>,
    offset: u64,
    len: u64,
) -> Result<Option<u32>, DeviceError> {
    let Some(m) = s.media.splitzns_ref() else {
        return Ok(None);
    };
    let Some(zone) = m.split_zone_at(offset) else {
        return Ok(None);
    };
    m.check_read(zone, offset, len)?;
    Ok(Some(zone))
}

/// Times a checked read of split zone `zone`: `(payload slot, slot start, completion)`.
pub(crate) fn split_read<M: Media>(
    s: &mut State<M>,
    now: u64,
    zone: u32,
    offset: u64,
    len: u64,
    class: IoClass,
) -> (u32, u64, Completion) {
    let zone_count = s.table.geometry().zone_count;
    let Some(m) = s.media.splitzns() else {
        return (zone, 0, Completion::At(now));
    };
    let id = m.table().locate(zone, offset).0;
    let done = m.read_subzone(now, zone, offset, len, class);
    (m.slot_of(zone_count, id), m.table().sub_start(id), done)
}

/// Zone management of a split zone: FINISH, RESET; any other command is refused. `None` for
/// a wide zone.
///
/// # Errors
/// The split zone's transition errors.
pub(crate) fn split_manage<M: Media>(
    table: &mut ZoneTable,
    media: &mut M,
    now: u64,
    zone: u32,
    op: ZoneOp,
) -> Result<Option<Completion>, DeviceError> {
    let Some(m) = media.splitzns() else {
        return Ok(None);
    };
    if !m.table().is_split(zone) {
        return Ok(None);
    }
    match op {
        ZoneOp::Finish => m.finish_zone(now, table, zone).map(Some),
        ZoneOp::Reset => m.reset_zone(now, table, zone).map(Some),
        _ => Err(DeviceError::SplitZone {
            zone,
            subzone: None,
            op: SplitOp::WideCommand,
            reason: SplitRefusal::SplitZone,
        }),
    }
}

/// Rewrites the descriptors of split zones: deactivated ones show full.
pub(crate) fn split_report(m: &SplitZnsMedia, out: &mut [ZoneInfo]) {
    for z in out {
        if m.table().zone_state(z.index) == Some(SplitZoneState::Inactive) {
            z.state = ZoneState::Full;
            z.write_pointer = z.start + z.capacity_bytes;
        }
    }
}

impl<E: Env, M: Media> SimZonedDevice<E, M> {
    /// SPLIT admitted now.
    pub(crate) fn admit_split(&self, zone: u32, parts: u32) -> Result<Completion, DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        let State {
            table,
            media,
            checker,
            ..
        } = &mut *s;
        let m = media.splitzns().ok_or_else(crate::zone_split_unsupported)?;
        checker.check(table, "before split", None);
        let done = m.split(now, table, zone, parts)?;
        checker.check(table, "after split", None);
        Ok(done)
    }

    /// A subzone finish (or, `merge`, a MERGE) admitted now.
    pub(crate) fn admit_subzone_command(
        &self,
        id: SubzoneId,
        merge: bool,
    ) -> Result<Completion, DeviceError> {
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
        let m = media.splitzns().ok_or_else(crate::zone_split_unsupported)?;
        if !merge {
            return m.finish_subzone(now, id);
        }
        let (done, erases) = m.merge(now, id)?;
        stats.block_erases += erases;
        let slot = m.slot_of(zone_count, id);
        if let Some(q) = in_flight.get_mut(slot as usize) {
            q.clear();
        }
        drop(s);
        self.payload.discard_zone(slot);
        Ok(done)
    }

    /// The subzones' part of a power loss at `now`: each subzone loses its writes not yet
    /// acknowledged (and every later one).
    pub(crate) fn power_cycle_subzones(&self, s: &mut State<M>, now: u64) {
        let zone_count = s.table.geometry().zone_count;
        let Some(m) = s.media.splitzns_ref() else {
            return;
        };
        let subs: Vec<(SubzoneId, u32, u64)> = m
            .table()
            .split_zones()
            .flat_map(|(zone, z)| {
                (0..z.subs.len() as u32).map(move |index| SubzoneId { zone, index })
            })
            .map(|id| (id, m.slot_of(zone_count, id), m.table().sub_start(id)))
            .collect();
        for (id, slot, start) in subs {
            let lost = Self::lost_from(s, now, slot as usize, id.zone);
            s.in_flight[slot as usize].clear();
            if let Some(off) = lost
                && let Some(m) = s.media.splitzns()
            {
                m.truncate_subzone(id, off - start);
                self.payload.truncate_zone(slot, off - start);
            }
        }
    }

    /// SplitZNS counters (`None` on a device without split zones).
    pub fn split_stats(&self) -> Option<SplitZnsStats> {
        self.lock().media.splitzns_ref().map(SplitZnsMedia::stats)
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
}
