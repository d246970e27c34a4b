//! Optional command families: what a device may carry out beyond the NVMe ZNS command set of
//! [`crate::ZonedDevice`]. One family per file, one trait per family:
//!
//! - [`split_zones`]: SplitZNS's subzone commands ([`SplitZones`]).
//! - [`in_device_copy`]: ZNS+'s in-device zone compaction, copyback and sparse (threaded
//!   logging) writes, and its counters ([`InDeviceCopy`]).
//! - [`tiers`]: a hybrid of a fast and a slow device under one zone index space ([`Tiers`]).
//!
//! **Discovery.** A device says which families it has through
//! [`crate::ZonedDevice::capabilities`]: a [`Capabilities`] holding, per family, the device as
//! that family's trait object (`None`: it does not have it). Call sites ask
//! `dev.capabilities().split_zones` and call the family's commands on what they get; a device
//! that wraps another forwards `capabilities()` whole, so no wrapper changes when a family is
//! added. The family traits are dyn-compatible: their commands return a boxed future
//! ([`DeviceFuture`]) created, so admitted, when the command is issued.
//!
//! **Adding a family** is one new file here (the trait) plus one field of [`Capabilities`];
//! the devices that have it fill the field in their `capabilities()`.

pub mod in_device_copy;
pub mod split_zones;
pub mod tiers;

#[cfg(test)]
mod toy;

use std::future::Future;
use std::pin::Pin;

use crate::DeviceError;

pub use in_device_copy::InDeviceCopy;
pub use split_zones::SplitZones;
pub use tiers::Tiers;

/// The future of an optional command: boxed, so the family traits stay dyn-compatible.
pub type DeviceFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, DeviceError>> + Send + 'a>>;

/// The optional command families a device has: per family, the device as that family's
/// trait object, or `None` (the registry of families: one field each).
#[derive(Clone, Copy, Default)]
pub struct Capabilities<'a> {
    /// SplitZNS's subzone commands.
    pub split_zones: Option<&'a dyn SplitZones>,
    /// ZNS+'s in-device copy, copyback and sparse writes.
    pub in_device_copy: Option<&'a dyn InDeviceCopy>,
    /// A fast and a slow device under one zone index space.
    pub tiers: Option<&'a dyn Tiers>,
    /// The test-only toy family (proof that a family is one file plus this line).
    #[cfg(test)]
    pub toy: Option<&'a dyn toy::Trim>,
}

impl Capabilities<'_> {
    /// A device without any optional command.
    pub fn none() -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Capabilities<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capabilities")
            .field("split_zones", &self.split_zones.is_some())
            .field("in_device_copy", &self.in_device_copy.is_some())
            .field("tiers", &self.tiers.is_some())
            .finish()
    }
}
