//! The seam between the media-independent simulated device and a media model.
//!
//! [`super::SimZonedDevice`] owns everything a zoned device does whatever stores the bytes (zone
//! table and state machine, admission, payload, in-flight writes, power cycle, faults, checker,
//! counters); a [`Media`] only says *when* the work it is handed completes. Flash timing
//! ([`crate::flash::FlashMedia`]) is one; the HM-SMR disk ([`crate::disk::DiskMedia`]) another.

use zonedb_env::Env;

use super::SimZonedDevice;
use super::hook::ZoneHook;
use crate::{Capabilities, IoClass};

/// What stores a simulated device's bytes. Serialized in a [`crate::Profile`] only when it is not
/// flash, so the profiles printed before this field existed keep their bytes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum MediaKind {
    /// NAND flash behind an SSD controller (dies, channels, program units, block erases).
    #[default]
    Flash,
    /// A host-managed SMR hard disk (one actuator: seek, rotation, zoned bit recording).
    Disk,
}

impl MediaKind {
    /// Whether this is flash (the default, left out of serialized profiles).
    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if signature"
    )]
    pub fn is_flash(&self) -> bool {
        *self == Self::Flash
    }
}

/// A request a media model has taken but not yet timed (its scheduler decides later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ticket(pub u64);

/// When a request handed to a [`Media`] completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// At this virtual time (ns), known when the request is admitted (FIFO booking).
    At(u64),
    /// Not known yet: ask [`Media::poll`] with the ticket.
    Queued(Ticket),
}

/// The answer of [`Media::poll`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// The request completes at this virtual time.
    Done(u64),
    /// Still queued: poll again at this virtual time (always later than the time polled at).
    Until(u64),
}

/// A media model: books the work of admitted requests and says when each completes.
///
/// Every method is called under the device's lock with the current virtual time `now`, in issue
/// order; offsets are zone-relative bytes. A model must be deterministic: the same calls give the
/// same times.
pub trait Media: Send + std::fmt::Debug + 'static {
    /// Which media this is.
    fn kind(&self) -> MediaKind;

    /// The optional command families of the simulated device over this media (none by
    /// default): the media's room implements a family's trait for `SimZonedDevice<E, Self>`
    /// and hands out `device` here.
    fn device_capabilities<E: Env>(device: &SimZonedDevice<E, Self>) -> Capabilities<'_>
    where
        Self: Sized,
    {
        let _ = device;
        Capabilities::none()
    }

    /// Books a read of `len` bytes at `offset` of `zone`, issued for `class`.
    fn read(&mut self, now: u64, zone: u32, offset: u64, len: u64, class: IoClass) -> Completion;

    /// Books a write of `len` bytes at `offset` of `zone` whose capacity is `capacity` bytes;
    /// completes when the write is acknowledged.
    fn write(&mut self, now: u64, zone: u32, offset: u64, len: u64, capacity: u64) -> Completion;

    /// Books a reset of `zone`, which holds `programmed_bytes` of written data.
    fn reset(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> Completion;

    /// Books a finish of `zone` with `unwritten_bytes` of capacity left; `was_empty` if nothing
    /// had been written to it.
    fn finish(&mut self, now: u64, zone: u32, unwritten_bytes: u64, was_empty: bool) -> Completion;

    /// Books an open, close or state change command; returns its completion time.
    fn manage(&mut self, now: u64) -> u64;

    /// When every write acknowledged so far is durable on the media (a flush).
    fn flush_done_ns(&mut self, now: u64) -> u64;

    /// The state of a [`Completion::Queued`] request at `now`. Models that never queue keep the
    /// default (done at once).
    fn poll(&mut self, ticket: Ticket, now: u64) -> Poll {
        let _ = ticket;
        Poll::Done(now)
    }

    /// A power loss at `now`: work not yet started is dropped (the device rolls back the zones).
    fn power_cycle(&mut self, now: u64) {
        let _ = now;
    }

    /// Media operations performed so far (flash page reads and programs; 0 if not counted).
    fn page_ops(&self) -> u64 {
        0
    }

    /// Erase operations performed so far (flash block erases; 0 if not counted).
    fn block_erases(&self) -> u64 {
        0
    }

    /// The zones this media manages itself ([`ZoneHook`]; SplitZNS's split zones), which the
    /// device asks first for every request; `None` for plain media.
    fn zone_hook(&mut self) -> Option<&mut dyn ZoneHook> {
        None
    }

    /// [`Media::zone_hook`], shared.
    fn zone_hook_ref(&self) -> Option<&dyn ZoneHook> {
        None
    }

    /// ZNS+'s commands of this media (its flash timing and state), if it has them.
    fn znsplus(&mut self) -> Option<(&mut crate::flash::TimingEngine, &mut crate::flash::ZnsPlus)> {
        None
    }

    /// [`Media::znsplus`], shared.
    fn znsplus_ref(&self) -> Option<&crate::flash::ZnsPlus> {
        None
    }

    /// For in-device copies: the flash page size and the die-and-plane slot of the page at
    /// zone-relative `offset` of `zone` (a copy keeps a page on its slot only by copyback);
    /// `None` for media without copyback.
    fn copyback_slot(&self, zone: u32, offset: u64) -> Option<(u64, u32)> {
        let _ = (zone, offset);
        None
    }
}
