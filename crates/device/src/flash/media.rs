//! Flash as a [`Media`]: the timing engine of a [`Profile`] (with its scheduler) behind the
//! simulated device.

use super::TimingEngine;
use crate::DeviceError;
use crate::IoClass;
use crate::profile::Profile;
use crate::sim::{Completion, Media, MediaKind, Poll, Ticket};

/// NAND flash timed by [`TimingEngine`] (dies, channels, controller, host link, write buffer).
#[derive(Debug)]
pub struct FlashMedia {
    profile: Profile,
    engine: TimingEngine,
    /// ZNS+'s commands (IZC, threaded logging), when the device has them.
    znsplus: Option<super::ZnsPlus>,
}

impl FlashMedia {
    /// The flash of `profile`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent.
    pub fn new(profile: Profile) -> Result<Self, DeviceError> {
        profile.validate()?;
        let engine = TimingEngine::new(profile.layout()?, profile.timing.clone())
            .with_scheduler(profile.scheduler);
        Ok(Self {
            profile,
            engine,
            znsplus: None,
        })
    }

    /// The flash of `profile` with ZNS+'s commands ([`super::znsplus`]).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent or uses the priority
    /// scheduler (ZNS+'s work is booked first come, first served).
    pub fn with_znsplus(
        profile: Profile,
        config: super::ZnsPlusConfig,
    ) -> Result<Self, DeviceError> {
        if !profile.scheduler.is_fifo() {
            return Err(DeviceError::InvalidConfig(format!(
                "profile {}: ZNS+ needs the FIFO scheduler",
                profile.name
            )));
        }
        if config.max_copy_blocks == 0 || config.copyback_ns == 0 {
            return Err(DeviceError::InvalidConfig(
                "ZNS+: max_copy_blocks and copyback_ns must be above 0".into(),
            ));
        }
        let mut m = Self::new(profile)?;
        m.znsplus = Some(super::ZnsPlus::new(config));
        Ok(m)
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The timing engine.
    pub fn engine(&self) -> &TimingEngine {
        &self.engine
    }

    /// The timing engine, to book work (SplitZNS's subzones).
    pub(crate) fn engine_mut(&mut self) -> &mut TimingEngine {
        &mut self.engine
    }
}

impl Media for FlashMedia {
    fn kind(&self) -> MediaKind {
        MediaKind::Flash
    }

    /// ZNS+'s family when the flash has its commands.
    fn device_capabilities<E: zonedb_env::Env>(
        device: &crate::sim::SimZonedDevice<E, Self>,
    ) -> crate::Capabilities<'_> {
        let znsplus = device.with_media_ref(|m| m.znsplus.is_some());
        crate::Capabilities {
            in_device_copy: znsplus.then_some(device as &dyn crate::InDeviceCopy),
            ..crate::Capabilities::none()
        }
    }

    fn znsplus(&mut self) -> Option<(&mut TimingEngine, &mut super::ZnsPlus)> {
        let Self {
            engine, znsplus, ..
        } = self;
        znsplus.as_mut().map(|z| (engine, z))
    }

    fn znsplus_ref(&self) -> Option<&super::ZnsPlus> {
        self.znsplus.as_ref()
    }

    fn copyback_slot(&self, zone: u32, offset: u64) -> Option<(u64, u32)> {
        self.znsplus.as_ref()?;
        let layout = self.engine.layout();
        let g = layout.geometry();
        let a = layout.locate_in(super::Place::Zone(zone), offset / g.page_size_bytes);
        Some((g.page_size_bytes, a.die * g.planes_per_die + a.plane))
    }

    fn read(&mut self, now: u64, zone: u32, offset: u64, len: u64, class: IoClass) -> Completion {
        self.engine.read_for(now, zone, offset, len, class)
    }

    fn write(&mut self, now: u64, zone: u32, offset: u64, len: u64, capacity: u64) -> Completion {
        self.engine.write_for(now, zone, offset, len, capacity)
    }

    fn reset(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> Completion {
        self.engine.reset_for(now, zone, programmed_bytes)
    }

    fn finish(&mut self, now: u64, zone: u32, unwritten_bytes: u64, was_empty: bool) -> Completion {
        self.engine
            .finish_for(now, zone, unwritten_bytes, was_empty)
    }

    fn manage(&mut self, now: u64) -> u64 {
        self.engine.manage(now)
    }

    fn flush_done_ns(&mut self, now: u64) -> u64 {
        self.engine.flush_done_ns(now)
    }

    fn poll(&mut self, ticket: Ticket, now: u64) -> Poll {
        self.engine.poll(ticket, now)
    }

    fn power_cycle(&mut self, now: u64) {
        let _ = now;
        self.engine.drop_queued();
    }

    fn page_ops(&self) -> u64 {
        self.engine.page_ops()
    }

    fn block_erases(&self) -> u64 {
        self.engine.block_erases()
    }
}
