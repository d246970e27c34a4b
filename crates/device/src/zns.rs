//! The simulated ZNS SSD: the generic simulated zoned device ([`SimZonedDevice`]) over flash
//! ([`FlashMedia`]), built from a [`Profile`]; with ZNS+'s commands
//! ([`SimZonedDevice::new_znsplus`]) it has the [`InDeviceCopy`] family (the zone rules and
//! bytes of threaded logging are in `sim/threaded.rs`, the flash timing in
//! [`crate::flash::znsplus`]).

use zonedb_env::Env;

use crate::families::{DeviceFuture, InDeviceCopy};
use crate::flash::{FlashMedia, ZnsPlusStats};
use crate::payload::Payload;
use crate::profile::Profile;
use crate::sim::{Media, SimZonedDevice};
use crate::{DeviceError, ElidedBytes};

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

impl<E: Env> InDeviceCopy for SimZonedDevice<E, FlashMedia> {
    /// ZNS+'s IZC.
    fn copy<'a>(&'a self, sources: &'a [(u64, u64)], dest_zone: u32) -> DeviceFuture<'a, u64> {
        let admitted = self.admit_copy(sources, dest_zone);
        Box::pin(async move {
            let (zone, offset, done) = admitted?;
            self.complete_write(zone, offset, done, "after internal copy")
                .await;
            Ok(offset)
        })
    }

    fn threaded_open<'a>(&'a self, zone: u32, valid: &'a [bool]) -> DeviceFuture<'a, ()> {
        let admitted = self.admit_threaded_open(zone, valid);
        Box::pin(async move {
            let done = admitted?;
            self.complete(done, (), "after threaded open").await
        })
    }

    /// Into a zone open for threaded logging: at or past its write pointer, into blocks that
    /// were invalid when it opened (the device plugs the blocks skipped).
    fn write_sparse<'a>(&'a self, offset: u64, data: &'a [u8]) -> DeviceFuture<'a, ()> {
        let admitted = self.admit_sparse(offset, &ElidedBytes::from_vec(data.to_vec()));
        Box::pin(async move {
            let (zone, offset, done) = admitted?;
            self.complete_write(zone, offset, done, "after sparse write")
                .await;
            Ok(())
        })
    }

    fn write_sparse_elided<'a>(
        &'a self,
        offset: u64,
        data: &'a ElidedBytes,
    ) -> DeviceFuture<'a, ()> {
        let admitted = self.admit_sparse(offset, data);
        Box::pin(async move {
            let (zone, offset, done) = admitted?;
            self.complete_write(zone, offset, done, "after sparse write")
                .await;
            Ok(())
        })
    }

    fn copyback_slot(&self, offset: u64) -> Option<(u64, u32)> {
        let s = self.lock();
        let zone = s.table.geometry().zone_of(offset)?;
        let start = s.table.geometry().zone_start(zone);
        s.media.copyback_slot(zone, offset - start)
    }

    fn znsplus_stats(&self) -> ZnsPlusStats {
        self.with_media_ref(|m| m.znsplus_ref().map(crate::flash::ZnsPlus::stats))
            .unwrap_or_default()
    }
}
