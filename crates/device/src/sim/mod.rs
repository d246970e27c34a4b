//! The simulated zoned device and how to build one.
//!
//! - [`media`]: the [`Media`] seam (what a media model times) and [`MediaKind`].
//! - [`hook`]: the [`ZoneHook`] seam (zones a media manages itself: SplitZNS's split zones).
//! - `device`: [`SimZonedDevice`], everything media-independent (zone table, admission, payload,
//!   in-flight writes, power cycle, faults, checker, counters).
//! - `threaded` (ZNS+'s IZC and threaded-logging commands) and `threaded_zone` (a threaded
//!   zone's blocks and bytes).
//! - `faults`: [`Faults`], the injected faults.
//! - `delayed_resets`: [`DelayedResets`], a device whose resets take effect after a delay.
//! - [`spec`]: [`SimDeviceSpec`] (profile name, scale, chips per zone, payload, scheduler), the
//!   one way to build a simulated device, and [`SimDevice`], the device scenarios run on.

mod delayed_resets;
pub(crate) mod device;
mod faults;
pub mod hook;
pub mod media;
pub mod spec;
mod threaded;
mod threaded_zone;

pub use delayed_resets::DelayedResets;
pub use device::SimZonedDevice;
pub use faults::Faults;
pub use hook::{PartSlot, Routed, Target, ZoneHook};
pub use media::{Completion, Media, MediaKind, Poll, Ticket};
pub use spec::{HybridSpec, SimDevice, SimDeviceSpec};
