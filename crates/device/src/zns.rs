//! The simulated ZNS SSD: the generic simulated zoned device ([`SimZonedDevice`]) over flash
//! ([`FlashMedia`]), built from a [`Profile`].

use zonedb_env::Env;

use crate::DeviceError;
use crate::flash::FlashMedia;
use crate::payload::Payload;
use crate::profile::Profile;
use crate::sim::SimZonedDevice;

pub use crate::sim::Faults;

/// A simulated ZNS SSD.
pub type ZnsSsd<E> = SimZonedDevice<E, FlashMedia>;

impl<E: Env> SimZonedDevice<E, FlashMedia> {
    /// A new, empty device.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent.
    pub fn new(env: E, profile: Profile, payload: Payload) -> Result<Self, DeviceError> {
        let zones = profile.zones.clone();
        Self::with_media(env, zones, FlashMedia::new(profile)?, payload)
    }

    /// A new, empty ZNS+ SSD: the profile's flash with ZNS+'s commands (in-device zone
    /// compaction, threaded logging) timed as `config` says.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile or the configuration is inconsistent.
    pub fn new_znsplus(
        env: E,
        profile: Profile,
        config: crate::flash::ZnsPlusConfig,
        payload: Payload,
    ) -> Result<Self, DeviceError> {
        let zones = profile.zones.clone();
        Self::with_media(
            env,
            zones,
            FlashMedia::with_znsplus(profile, config)?,
            payload,
        )
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.with_media_ref(|m| m.profile().clone())
    }

    /// Erase count of every flash block.
    pub fn erase_counts(&self) -> Vec<u32> {
        self.with_media_ref(|m| m.engine().erase_counts().to_vec())
    }

    /// Busy time booked on each die so far.
    pub fn die_busy_ns(&self) -> Vec<u64> {
        self.with_media_ref(|m| m.engine().die_busy_ns())
    }
}
