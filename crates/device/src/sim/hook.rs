//! The seam through which a media adds zones of its own kind to the generic simulated device
//! (SplitZNS's split zones, [`crate::splitzns`]): the device asks the media's [`ZoneHook`]
//! first for every request and lets it take the ones that are its own; a media without one
//! (the default) leaves every request to the device's wide-zone paths. The hook knows the
//! device only through these calls, so the generic device depends on no media's zones.

use super::media::Completion;
use crate::zone::{ZoneInfo, ZoneTable};
use crate::{DeviceError, IoClass, ZoneOp};

/// Where a write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// At this device offset (the write pointer of its zone).
    At(u64),
    /// Appended to this zone.
    Append(u32),
    /// Appended to part `.1` of zone `.0` (a media's own sub-zone: a SplitZNS subzone).
    Part(u32, u32),
}

/// A write a hook took: its payload slot and the slot's start, the device offset assigned and
/// when it completes.
#[derive(Debug, Clone, Copy)]
pub struct Routed {
    /// Payload slot (after the zones' slots).
    pub slot: u32,
    /// Device offset the slot starts at.
    pub slot_start: u64,
    /// Device offset the write was placed at.
    pub offset: u64,
    /// When it completes.
    pub done: Completion,
}

/// A payload slot of a hook's own: part `index` of `zone`, starting at device offset `start`.
#[derive(Debug, Clone, Copy)]
pub struct PartSlot {
    /// Payload slot.
    pub slot: u32,
    /// Zone.
    pub zone: u32,
    /// Part of the zone.
    pub index: u32,
    /// Device offset the slot starts at.
    pub start: u64,
}

/// Zones a media manages itself. Every method is called under the device's lock, in issue
/// order, with the current virtual time `now`.
pub trait ZoneHook: Send {
    /// Payload slots the device keeps for `zone_count` zones: one per zone, then the hook's.
    fn payload_slots(&self, zone_count: u32) -> u32;

    /// Takes a write that is the hook's (one into a zone of its own, every [`Target::Part`]);
    /// `None` leaves it to the wide path.
    ///
    /// # Errors
    /// The refusals of the hook's zones.
    fn write(
        &mut self,
        table: &mut ZoneTable,
        now: u64,
        target: Target,
        len: u64,
    ) -> Result<Option<Routed>, DeviceError>;

    /// Checks a read of a zone of the hook's own (returns that zone); `None` for another zone.
    ///
    /// # Errors
    /// The refusals of the hook's zones.
    fn check_read(&self, offset: u64, len: u64) -> Result<Option<u32>, DeviceError>;

    /// Times a read [`ZoneHook::check_read`] took: `(payload slot, slot start, completion)`.
    fn read(
        &mut self,
        now: u64,
        zone_count: u32,
        zone: u32,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> (u32, u64, Completion);

    /// Zone management of a zone of the hook's own; `None` for another zone.
    ///
    /// # Errors
    /// The refusals of the hook's zones.
    fn manage(
        &mut self,
        table: &mut ZoneTable,
        now: u64,
        zone: u32,
        op: ZoneOp,
    ) -> Result<Option<Completion>, DeviceError>;

    /// Rewrites the descriptors of the hook's zones in a zone report.
    fn report(&self, out: &mut [ZoneInfo]);

    /// The hook's payload slots now (their writes are lost at a power loss as a zone's are).
    fn part_slots(&self, zone_count: u32) -> Vec<PartSlot>;

    /// A power loss kept the first `kept` bytes of part `index` of `zone`.
    fn truncate_part(&mut self, zone: u32, index: u32, kept: u64);

    /// After a power loss, the zone table rebuilt: takes again what the hook's zones hold in it.
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] on a model bug.
    fn power_up(&self, table: &mut ZoneTable) -> Result<(), DeviceError>;

    /// Whether the bytes of a range may be taken from the payload without a read (SplitZNS:
    /// no, a subzone's data may still sit in its ring).
    fn peekable(&self) -> bool {
        false
    }
}
