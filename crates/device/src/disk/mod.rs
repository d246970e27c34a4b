//! Host-managed SMR hard disks: a mechanical timing model behind the simulated zoned device.
//!
//! - `profile`: [`DiskProfile`] (zones, spindle, [`SeekCurve`], recording density, command
//!   costs) and the named disk profiles ([`DISK_PROFILE_NAMES`]: `st14000nm0007`), scaling.
//! - `platter`: [`Platter`], where a byte of the drive lies (track, angle) and its track's size.
//! - `media`: [`DiskMedia`], the [`crate::sim::Media`] (FIFO actuator, seek, rotation,
//!   transfer, streaming and read-ahead).
//! - [`SmrHdd`]: the simulated zoned device over [`DiskMedia`].

mod media;
mod platter;
mod profile;

use zonedb_env::Env;

pub use media::DiskMedia;
pub use platter::{Place, Platter};
pub(crate) use profile::clip_zone_count;
pub use profile::{DISK_PROFILE_NAMES, DiskProfile, SeekCurve};

use crate::DeviceError;
use crate::payload::Payload;
use crate::sim::SimZonedDevice;

/// A non-negative quantity computed in floating point (nanoseconds, a track index) rounded to
/// the nearest whole one; negative values (none arise) clamp to 0.
#[allow(
    clippy::cast_sign_loss,
    reason = "clamped to zero first; the values are far below 2^53"
)]
pub(crate) fn whole_ns(x: f64) -> u64 {
    x.max(0.0).round() as u64
}

/// A simulated host-managed SMR HDD.
pub type SmrHdd<E> = SimZonedDevice<E, DiskMedia>;

impl<E: Env> SimZonedDevice<E, DiskMedia> {
    /// A new, empty drive of `profile`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent.
    pub fn new_disk(env: E, profile: DiskProfile, payload: Payload) -> Result<Self, DeviceError> {
        let zones = profile.zones.clone();
        Self::with_media(env, zones, DiskMedia::new(profile)?, payload)
    }

    /// The profile.
    pub fn disk_profile(&self) -> DiskProfile {
        self.with_media_ref(|m| m.profile().clone())
    }
}
