//! The one way to build a simulated device: a [`SimDeviceSpec`] (profile name, scale, chips per
//! zone, zone limits, scheduler, payload) resolves to a [`Profile`] and builds a [`SimDevice`].

use std::path::PathBuf;

use zonedb_env::Env;

use super::Faults;
use crate::flash::Scheduler;
use crate::payload::Payload;
use crate::profile::{Profile, parse_scale};
use crate::sim::MediaKind;
use crate::splitzns::{SplitZnsConfig, SplitZnsGeometry, SplitZnsSsd, SplitZnsStats};
use crate::zone::{ZoneGeometry, ZoneInfo};
use crate::{
    DeviceCapabilities, DeviceError, DeviceStats, ElidedBytes, IoClass, SubzoneId, SubzoneInfo,
    ZnsSsd, ZoneOp, ZonedDevice,
};

/// Where a simulated device keeps written bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SimPayload {
    /// In memory (chunks recycled across resets).
    #[default]
    Memory,
    /// Nowhere: reads return zeros (timing-only runs).
    Discard,
    /// In a sparse file at this path (created; the caller removes it).
    File(PathBuf),
}

impl SimPayload {
    /// The store for `slots` payload slots (one per zone; a SplitZNS device adds one per
    /// subzone) of a device of `zones`.
    fn open(&self, zones: &ZoneGeometry, slots: u32) -> Result<Payload, DeviceError> {
        Ok(match self {
            Self::Memory => Payload::memory(slots),
            Self::Discard => Payload::Discard,
            Self::File(path) => Payload::file(path, zones)?,
        })
    }
}

/// A simulated device as the CLI and scenarios name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimDeviceSpec {
    /// Profile name ([`crate::profile::PROFILE_NAMES`]).
    pub profile: String,
    /// Scale `1/N` (or `N`).
    pub scale: String,
    /// Chips each zone is striped over (the profile's own if `None`).
    pub chips_per_zone: Option<u32>,
    /// Open zone limit (the profile's own if `None`; 0 = none).
    pub max_open_zones: Option<u32>,
    /// Active zone limit (the profile's own if `None`; 0 = none).
    pub max_active_zones: Option<u32>,
    /// How the media orders queued work (the profile's own, FIFO, if `None`).
    pub scheduler: Option<Scheduler>,
    /// Where written bytes live.
    pub payload: SimPayload,
    /// A SplitZNS device with these accelerations (`None`: a ZNS SSD). With the Read
    /// Scheduler on, the dies get per-die priority queues whatever `scheduler` says.
    pub splitzns: Option<SplitZnsConfig>,
}

impl SimDeviceSpec {
    /// The profile `profile` at scale `scale`, everything else as the profile says, payload in
    /// memory.
    pub fn new(profile: &str, scale: &str) -> Self {
        Self {
            profile: profile.into(),
            scale: scale.into(),
            chips_per_zone: None,
            max_open_zones: None,
            max_active_zones: None,
            scheduler: None,
            payload: SimPayload::Memory,
            splitzns: None,
        }
    }

    /// A SplitZNS device with the accelerations of `config` (`None`: a ZNS SSD).
    #[must_use]
    pub fn splitzns(mut self, config: Option<SplitZnsConfig>) -> Self {
        self.splitzns = config;
        self
    }

    /// With zones striped over `chips` chips (`None`: the profile's own).
    #[must_use]
    pub fn chips_per_zone(mut self, chips: Option<u32>) -> Self {
        self.chips_per_zone = chips;
        self
    }

    /// With other open / active zone limits (`None`: the profile's own).
    #[must_use]
    pub fn zone_limits(mut self, max_open: Option<u32>, max_active: Option<u32>) -> Self {
        self.max_open_zones = max_open;
        self.max_active_zones = max_active;
        self
    }

    /// With the scheduler `scheduler` (`None`: the profile's own).
    #[must_use]
    pub fn scheduler(mut self, scheduler: Option<Scheduler>) -> Self {
        self.scheduler = scheduler;
        self
    }

    /// With the payload store `payload`.
    #[must_use]
    pub fn payload(mut self, payload: SimPayload) -> Self {
        self.payload = payload;
        self
    }

    /// The profile this spec names: looked up, scaled, re-mapped, limited.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for an unknown profile, a bad scale, chips per zone or
    /// limits.
    pub fn profile(&self) -> Result<Profile, DeviceError> {
        let mut p = Profile::by_name(&self.profile)?.scaled(parse_scale(&self.scale)?)?;
        if let Some(c) = self.chips_per_zone {
            p = p.with_chips_per_zone(c)?;
        }
        if self.max_open_zones.is_some() || self.max_active_zones.is_some() {
            let open = self.max_open_zones.unwrap_or(p.zones.max_open_zones);
            let active = self.max_active_zones.unwrap_or(p.zones.max_active_zones);
            p = p.with_zone_limits(open, active)?;
        }
        if let Some(s) = self.scheduler {
            p = p.with_scheduler(s)?;
        }
        Ok(p)
    }

    /// A new, empty device of this spec.
    ///
    /// # Errors
    /// As [`SimDeviceSpec::profile`], and payload file errors.
    pub fn build<E: Env>(&self, env: E) -> Result<SimDevice<E>, DeviceError> {
        let profile = self.profile()?;
        match self.splitzns {
            None => SimDevice::new(env, profile, &self.payload),
            Some(config) => {
                let slots = profile.zones.zone_count * (1 + profile.chips_per_zone);
                let payload = self.payload.open(&profile.zones, slots)?;
                Ok(SimDevice::SplitZns(SplitZnsSsd::new_splitzns(
                    env, profile, config, payload,
                )?))
            }
        }
    }
}

/// A simulated device of any media, as scenarios, torture runs and the CLI use it.
#[derive(Debug)]
#[non_exhaustive]
#[allow(
    clippy::large_enum_variant,
    reason = "one device per run; neither variant is boxed so the ZNS SSD stays as it was"
)]
pub enum SimDevice<E: Env> {
    /// A ZNS SSD (flash media).
    Zns(ZnsSsd<E>),
    /// A SplitZNS SSD (flash media with split zones).
    SplitZns(SplitZnsSsd<E>),
}

/// One of two futures created (so admitted) already; awaits whichever it is.
enum Either<A, B> {
    A(A),
    B(B),
}

impl<T, A: Future<Output = T>, B: Future<Output = T>> Either<A, B> {
    async fn run(self) -> T {
        match self {
            Self::A(f) => f.await,
            Self::B(f) => f.await,
        }
    }
}

/// Runs `$call` on the device inside a [`SimDevice`] (a plain value).
macro_rules! each {
    ($self:ident, $d:ident => $call:expr) => {
        match $self {
            Self::Zns($d) => $call,
            Self::SplitZns($d) => $call,
        }
    };
}

/// Runs `$call` (creating a future, so admitting the request) on the device inside a
/// [`SimDevice`] and awaits it.
macro_rules! each_fut {
    ($self:ident, $d:ident => $call:expr) => {
        match $self {
            Self::Zns($d) => Either::A($call),
            Self::SplitZns($d) => Either::B($call),
        }
        .run()
    };
}

impl<E: Env> SimDevice<E> {
    /// A new, empty device of an already resolved `profile` (its media says which variant).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent; payload file errors.
    pub fn new(env: E, profile: Profile, payload: &SimPayload) -> Result<Self, DeviceError> {
        let payload = payload.open(&profile.zones, profile.zones.zone_count)?;
        match profile.media {
            MediaKind::Flash => Ok(Self::Zns(ZnsSsd::new(env, profile, payload)?)),
        }
    }

    /// The profile the device was built from.
    pub fn profile(&self) -> Profile {
        each!(self, d => d.profile())
    }

    /// Turns the write-pointer checker on or off (on by default in debug builds).
    pub fn set_checking(&self, enabled: bool) {
        each!(self, d => d.set_checking(enabled));
    }

    /// Sets the injected faults; replaces the last plan.
    pub fn set_faults(&self, faults: Faults) {
        each!(self, d => d.set_faults(faults));
    }

    /// The injected faults in force.
    pub fn faults(&self) -> Faults {
        each!(self, d => d.faults())
    }

    /// Media failure injection: the zone turns read-only (then may be taken offline).
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`] or [`DeviceError::OutOfRange`].
    pub fn fail_zone(&self, zone: u32, offline: bool) -> Result<(), DeviceError> {
        each!(self, d => d.fail_zone(zone, offline))
    }

    /// A simulated power loss at the current virtual time (see
    /// [`super::SimZonedDevice::power_cycle`]).
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] on a model bug.
    pub fn power_cycle(&self) -> Result<(), DeviceError> {
        each!(self, d => d.power_cycle())
    }

    /// SplitZNS counters (`None` for a ZNS SSD).
    pub fn split_stats(&self) -> Option<SplitZnsStats> {
        each!(self, d => d.split_stats())
    }

    /// Bytes of payload held in memory.
    pub fn resident_bytes(&self) -> u64 {
        each!(self, d => d.resident_bytes())
    }
}

impl<E: Env> ZonedDevice for SimDevice<E> {
    fn geometry(&self) -> &ZoneGeometry {
        each!(self, d => d.geometry())
    }

    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        each!(self, d => d.report_zones(first, count))
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        each_fut!(self, d => d.read(offset, len, class))
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.write(offset, data))
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        each_fut!(self, d => d.append(zone, data))
    }

    fn write_elided(
        &self,
        offset: u64,
        data: &ElidedBytes,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.write_elided(offset, data))
    }

    fn write_elided_range(
        &self,
        offset: u64,
        data: &ElidedBytes,
        at: u64,
        len: u64,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.write_elided_range(offset, data, at, len))
    }

    fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<ElidedBytes, DeviceError>> + Send {
        each_fut!(self, d => d.read_elided(offset, len, class))
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.manage(zone, op))
    }

    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.sync())
    }

    fn volatile_write_cache(&self) -> bool {
        each!(self, d => d.volatile_write_cache())
    }

    fn capabilities(&self) -> DeviceCapabilities {
        each!(self, d => d.capabilities())
    }

    fn stats(&self) -> DeviceStats {
        each!(self, d => d.stats())
    }

    fn split_zone(
        &self,
        zone: u32,
        parts: u32,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.split_zone(zone, parts))
    }

    fn split_geometry(&self) -> Option<SplitZnsGeometry> {
        each!(self, d => d.split_geometry())
    }

    fn report_subzones(&self, zone: u32) -> Result<Vec<SubzoneInfo>, DeviceError> {
        each!(self, d => d.report_subzones(zone))
    }

    fn append_subzone(
        &self,
        subzone: SubzoneId,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        each_fut!(self, d => d.append_subzone(subzone, data))
    }

    fn finish_subzone(
        &self,
        subzone: SubzoneId,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.finish_subzone(subzone))
    }

    fn merge_subzone(
        &self,
        subzone: SubzoneId,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.merge_subzone(subzone))
    }

    fn memory_payload_bytes(&self) -> Option<u64> {
        each!(self, d => d.memory_payload_bytes())
    }

    fn peak_memory_payload_bytes(&self) -> Option<u64> {
        each!(self, d => d.peak_memory_payload_bytes())
    }

    fn read_discard(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        each_fut!(self, d => d.read_discard(offset, len, class))
    }

    fn peek_elided(&self, offset: u64, len: u64) -> Option<ElidedBytes> {
        each!(self, d => d.peek_elided(offset, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_resolves_the_profile_as_the_cli_did() {
        let spec = SimDeviceSpec::new("splitzns-paper", "1/8").chips_per_zone(Some(1));
        let p = spec.profile().unwrap();
        let q = Profile::by_name("splitzns-paper")
            .unwrap()
            .scaled(8)
            .unwrap()
            .with_chips_per_zone(1)
            .unwrap();
        assert_eq!(p, q);
        let limited = SimDeviceSpec::new("tiny", "1")
            .zone_limits(Some(2), None)
            .profile()
            .unwrap();
        assert_eq!(
            (limited.zones.max_open_zones, limited.zones.max_active_zones),
            (2, 4)
        );
        assert!(SimDeviceSpec::new("nope", "1").profile().is_err());
        assert!(SimDeviceSpec::new("tiny", "1/0").profile().is_err());
    }
}
