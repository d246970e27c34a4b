//! The one way to build a simulated device: a [`SimDeviceSpec`] (profile name, scale, chips per
//! zone, zone count, zone limits, queueing and scheduler, payload) resolves to a [`Profile`]
//! (flash) or a [`DiskProfile`] (HM-SMR disk) and builds a [`SimDevice`]; a [`HybridSpec`] (two
//! specs, an SSD's and an HDD's) builds the hybrid of both.

use std::path::PathBuf;

use zonedb_env::Env;

use super::Faults;
use crate::disk::{DiskProfile, SmrHdd};
use crate::flash::{Queueing, Scheduler};
use crate::hybrid::HybridDevice;
use crate::payload::Payload;
use crate::profile::{Profile, parse_scale};
use crate::sim::MediaKind;
use crate::splitzns::{SplitZnsConfig, SplitZnsSsd, SplitZnsStats};
use crate::zone::{ZoneGeometry, ZoneInfo};
use crate::{
    Capabilities, DeviceError, DeviceStats, ElidedBytes, IoClass, ZnsSsd, ZoneOp, ZonedDevice,
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
    /// Profile name ([`crate::profile::PROFILE_NAMES`], or a disk profile of
    /// [`crate::disk::DISK_PROFILE_NAMES`]).
    pub profile: String,
    /// Scale `1/N` (or `N`).
    pub scale: String,
    /// Flash chips in all, every zone striped over them ([`Profile::with_chips`]; the
    /// profile's own if `None`; flash only). Applied before `chips_per_zone`.
    pub chips: Option<u32>,
    /// Chips each zone is striped over (the profile's own if `None`; flash only).
    pub chips_per_zone: Option<u32>,
    /// Zone size in MiB at full scale, capacity fixed ([`Profile::with_zone_size`], applied
    /// before the scale; the profile's own if `None`; flash only).
    pub zone_size_mib: Option<u32>,
    /// Erase block size in KiB at full scale ([`Profile::with_block_bytes`], applied first,
    /// before the zone size and the scale; the profile's own if `None`; flash only).
    pub block_kib: Option<u32>,
    /// Block erase latency in µs (tBERS; the profile's own if `None`; flash only). Applied
    /// with `block_kib`, before the scale (which keeps latencies).
    pub block_erase_us: Option<u32>,
    /// Only the first this many zones of the profile (all if `None`); open / active limits
    /// above it are clipped to it.
    pub zone_count: Option<u32>,
    /// Open zone limit (the profile's own if `None`; 0 = none).
    pub max_open_zones: Option<u32>,
    /// Active zone limit (the profile's own if `None`; 0 = none).
    pub max_active_zones: Option<u32>,
    /// How the media orders queued work (the profile's own, FIFO, if `None`); `queueing`, when
    /// given, replaces the discipline its name implies and keeps its order.
    pub scheduler: Option<Scheduler>,
    /// How die work waits for its die, whatever the order within it (the scheduler's own if
    /// `None`): the discipline a study gives every scheme alike.
    pub queueing: Option<Queueing>,
    /// When resets and MERGEs complete (the profile's own, after the erase, if `None`).
    pub reset_ack: Option<crate::flash::ResetAck>,
    /// Where written bytes live.
    pub payload: SimPayload,
    /// A SplitZNS device with these accelerations (`None`: a ZNS SSD). With the Read
    /// Scheduler on, query reads go first within the queueing in force
    /// ([`SimDeviceSpec::scheduler_in_force`]).
    pub splitzns: Option<SplitZnsConfig>,
    /// A ZNS+ SSD (IZC and threaded logging) with these parameters (`None`: a ZNS SSD).
    pub znsplus: Option<crate::flash::ZnsPlusConfig>,
}

impl SimDeviceSpec {
    /// The profile `profile` at scale `scale`, everything else as the profile says, payload in
    /// memory.
    pub fn new(profile: &str, scale: &str) -> Self {
        Self {
            profile: profile.into(),
            scale: scale.into(),
            chips: None,
            chips_per_zone: None,
            zone_size_mib: None,
            block_kib: None,
            block_erase_us: None,
            zone_count: None,
            max_open_zones: None,
            max_active_zones: None,
            scheduler: None,
            queueing: None,
            reset_ack: None,
            payload: SimPayload::Memory,
            splitzns: None,
            znsplus: None,
        }
    }

    /// A ZNS+ SSD with `config` (`None`: a ZNS SSD).
    #[must_use]
    pub fn znsplus(mut self, config: Option<crate::flash::ZnsPlusConfig>) -> Self {
        self.znsplus = config;
        self
    }

    /// A SplitZNS device with the accelerations of `config` (`None`: a ZNS SSD).
    #[must_use]
    pub fn splitzns(mut self, config: Option<SplitZnsConfig>) -> Self {
        self.splitzns = config;
        self
    }

    /// With `chips` flash chips in all, every zone striped over them (`None`: the profile's
    /// own array).
    #[must_use]
    pub fn chips(mut self, chips: Option<u32>) -> Self {
        self.chips = chips;
        self
    }

    /// With zones striped over `chips` chips (`None`: the profile's own).
    #[must_use]
    pub fn chips_per_zone(mut self, chips: Option<u32>) -> Self {
        self.chips_per_zone = chips;
        self
    }

    /// With zones of `mib` MiB at full scale, capacity fixed (`None`: the profile's own).
    #[must_use]
    pub fn zone_size_mib(mut self, mib: Option<u32>) -> Self {
        self.zone_size_mib = mib;
        self
    }

    /// With erase blocks of `kib` KiB at full scale (`None`: the profile's own).
    #[must_use]
    pub fn block_kib(mut self, kib: Option<u32>) -> Self {
        self.block_kib = kib;
        self
    }

    /// With a block erase latency of `us` µs (`None`: the profile's own).
    #[must_use]
    pub fn block_erase_us(mut self, us: Option<u32>) -> Self {
        self.block_erase_us = us;
        self
    }

    /// With only the first `zones` zones (`None`: all of the profile's).
    #[must_use]
    pub fn zone_count(mut self, zones: Option<u32>) -> Self {
        self.zone_count = zones;
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

    /// With die work queued as `queueing` says, the scheduler's order kept (`None`: the
    /// scheduler's own discipline).
    #[must_use]
    pub fn queueing(mut self, queueing: Option<Queueing>) -> Self {
        self.queueing = queueing;
        self
    }

    /// With resets and MERGEs acknowledged as `ack` says (`None`: the profile's own).
    #[must_use]
    pub fn reset_ack(mut self, ack: Option<crate::flash::ResetAck>) -> Self {
        self.reset_ack = ack;
        self
    }

    /// With the payload store `payload`.
    #[must_use]
    pub fn payload(mut self, payload: SimPayload) -> Self {
        self.payload = payload;
        self
    }

    /// Whether the profile named is an HM-SMR disk's.
    pub fn is_disk(&self) -> bool {
        DiskProfile::is_disk_profile(&self.profile)
    }

    /// The flash profile this spec names: looked up, scaled, re-mapped, limited.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for an unknown profile (or a disk's: see
    /// [`SimDeviceSpec::disk_profile`]), a bad scale, chips per zone, zone count or limits.
    pub fn profile(&self) -> Result<Profile, DeviceError> {
        if self.is_disk() {
            return Err(DeviceError::InvalidConfig(format!(
                "profile '{}' is an HM-SMR disk, not a flash profile",
                self.profile
            )));
        }
        let mut p = Profile::by_name(&self.profile)?;
        if let Some(kib) = self.block_kib {
            p = p.with_block_bytes(u64::from(kib) << 10)?;
        }
        if let Some(us) = self.block_erase_us {
            p = p.with_block_erase_ns(u64::from(us) * 1_000)?;
        }
        if let Some(mib) = self.zone_size_mib {
            p = p.with_zone_size(u64::from(mib) << 20)?;
        }
        let mut p = p.scaled(parse_scale(&self.scale)?)?;
        if let Some(n) = self.chips {
            p = p.with_chips(n)?;
        }
        if let Some(c) = self.chips_per_zone {
            p = p.with_chips_per_zone(c)?;
        }
        if let Some(n) = self.zone_count {
            p = p.with_zone_count(n)?;
        }
        if self.max_open_zones.is_some() || self.max_active_zones.is_some() {
            let open = self.max_open_zones.unwrap_or(p.zones.max_open_zones);
            let active = self.max_active_zones.unwrap_or(p.zones.max_active_zones);
            p = p.with_zone_limits(open, active)?;
        }
        if let Some(s) = self.scheduler {
            p = p.with_scheduler(s)?;
        }
        if let Some(q) = self.queueing {
            let s = p.scheduler.with_queueing(q);
            p = p.with_scheduler(s)?;
        }
        if let Some(a) = self.reset_ack {
            p = p.with_reset_ack(a)?;
        }
        Ok(p)
    }

    /// The scheduler a device of this spec runs: the profile's (with `scheduler` and
    /// `queueing` applied), with query reads first when a SplitZNS Read Scheduler is on
    /// ([`Scheduler::query_first`]: its queueing is kept).
    ///
    /// # Errors
    /// As [`SimDeviceSpec::profile`].
    pub fn scheduler_in_force(&self) -> Result<Scheduler, DeviceError> {
        let s = self.profile()?.scheduler;
        Ok(match self.splitzns {
            Some(c) if c.read_scheduler => s.query_first(),
            _ => s,
        })
    }

    /// The disk profile this spec names: looked up, scaled, limited.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for a name that is not a disk profile, a bad scale, zone
    /// count or limits, or a flash-only setting (chips per zone, queueing, scheduler,
    /// SplitZNS).
    pub fn disk_profile(&self) -> Result<DiskProfile, DeviceError> {
        let flash_only = [
            (self.chips.is_some(), "chips"),
            (self.chips_per_zone.is_some(), "chips_per_zone"),
            (self.zone_size_mib.is_some(), "zone_size_mib"),
            (self.block_kib.is_some(), "block_kib"),
            (self.block_erase_us.is_some(), "block_erase_us"),
            (self.scheduler.is_some(), "scheduler"),
            (self.queueing.is_some(), "queueing"),
            (self.reset_ack.is_some(), "reset_ack"),
            (self.splitzns.is_some(), "splitzns"),
        ];
        if let Some((_, what)) = flash_only.iter().find(|(set, _)| *set) {
            return Err(DeviceError::InvalidConfig(format!(
                "{what} is a flash setting; profile '{}' is an HM-SMR disk",
                self.profile
            )));
        }
        let mut p = DiskProfile::by_name(&self.profile)?.scaled(parse_scale(&self.scale)?)?;
        if let Some(n) = self.zone_count {
            p = p.with_zone_count(n)?;
        }
        if self.max_open_zones.is_some() || self.max_active_zones.is_some() {
            let open = self.max_open_zones.unwrap_or(p.zones.max_open_zones);
            let active = self.max_active_zones.unwrap_or(p.zones.max_active_zones);
            p = p.with_zone_limits(open, active)?;
        }
        Ok(p)
    }

    /// The name of the resolved profile (flash or disk), e.g. `zn540@1/64`.
    ///
    /// # Errors
    /// As [`SimDeviceSpec::profile`] or [`SimDeviceSpec::disk_profile`].
    pub fn profile_name(&self) -> Result<String, DeviceError> {
        if self.is_disk() {
            Ok(self.disk_profile()?.name)
        } else {
            Ok(self.profile()?.name)
        }
    }

    /// A new, empty device of this spec: a ZNS or SplitZNS SSD for a flash profile, an HM-SMR
    /// HDD for a disk profile.
    ///
    /// # Errors
    /// As [`SimDeviceSpec::profile`] (or [`SimDeviceSpec::disk_profile`]), and payload file
    /// errors.
    pub fn build<E: Env>(&self, env: E) -> Result<SimDevice<E>, DeviceError> {
        if self.is_disk() {
            let p = self.disk_profile()?;
            let payload = self.payload.open(&p.zones, p.zones.zone_count)?;
            return Ok(SimDevice::Hdd(SmrHdd::new_disk(env, p, payload)?));
        }
        let profile = self.profile()?;
        if let Some(config) = self.znsplus {
            if self.splitzns.is_some() {
                return Err(DeviceError::InvalidConfig(
                    "a device is ZNS+ or SplitZNS, not both".into(),
                ));
            }
            let payload = self
                .payload
                .open(&profile.zones, profile.zones.zone_count)?;
            return Ok(SimDevice::Zns(ZnsSsd::new_znsplus(
                env, profile, config, payload,
            )?));
        }
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

/// A hybrid device as scenarios name it: an SSD's spec (a flash profile, a plain ZNS SSD) and an
/// HDD's (a disk profile); each part keeps its own payload store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HybridSpec {
    /// The SSD (zones first).
    pub ssd: SimDeviceSpec,
    /// The HDD.
    pub hdd: SimDeviceSpec,
}

impl HybridSpec {
    /// The two profiles, checked: a flash SSD that is not SplitZNS, a disk HDD, equal block
    /// sizes.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] naming the part at fault.
    pub fn profiles(&self) -> Result<(Profile, DiskProfile), DeviceError> {
        let part = |which: &str, e: DeviceError| {
            DeviceError::InvalidConfig(format!("hybrid {which}: {}", config_message(e)))
        };
        if self.ssd.is_disk() {
            return Err(DeviceError::InvalidConfig(format!(
                "hybrid ssd: profile '{}' is an HM-SMR disk; the SSD needs a flash profile",
                self.ssd.profile
            )));
        }
        if self.ssd.splitzns.is_some() {
            return Err(DeviceError::InvalidConfig(
                "hybrid ssd: a SplitZNS SSD is not supported in a hybrid".into(),
            ));
        }
        if !self.hdd.is_disk() {
            return Err(DeviceError::InvalidConfig(format!(
                "hybrid hdd: profile '{}' is not an HM-SMR disk profile (known: {})",
                self.hdd.profile,
                crate::disk::DISK_PROFILE_NAMES.join(", ")
            )));
        }
        let ssd = self.ssd.profile().map_err(|e| part("ssd", e))?;
        let hdd = self.hdd.disk_profile().map_err(|e| part("hdd", e))?;
        if ssd.zones.block_size_bytes != hdd.zones.block_size_bytes {
            return Err(DeviceError::InvalidConfig(format!(
                "hybrid: the SSD's block size {} differs from the HDD's {}",
                ssd.zones.block_size_bytes, hdd.zones.block_size_bytes
            )));
        }
        Ok((ssd, hdd))
    }

    /// The name of the pair, `ssd+hdd` (e.g. `zn540@1/64+st14000nm0007@1/64`).
    ///
    /// # Errors
    /// As [`HybridSpec::profiles`].
    pub fn profile_name(&self) -> Result<String, DeviceError> {
        let (s, h) = self.profiles()?;
        Ok(format!("{}+{}", s.name, h.name))
    }

    /// A new, empty hybrid device.
    ///
    /// # Errors
    /// As [`HybridSpec::profiles`]; payload file errors.
    pub fn build<E: Env>(&self, env: E) -> Result<SimDevice<E>, DeviceError> {
        let (ssd, hdd) = self.profiles()?;
        let ssd_payload = self.ssd.payload.open(&ssd.zones, ssd.zones.zone_count)?;
        let hdd_payload = self.hdd.payload.open(&hdd.zones, hdd.zones.zone_count)?;
        let ssd = ZnsSsd::new(env.clone(), ssd, ssd_payload)?;
        let hdd = SmrHdd::new_disk(env, hdd, hdd_payload)?;
        Ok(SimDevice::Hybrid(HybridDevice::new(ssd, hdd)?))
    }
}

/// The message of a configuration error (without its "invalid device configuration" prefix).
fn config_message(e: DeviceError) -> String {
    match e {
        DeviceError::InvalidConfig(m) => m,
        other => other.to_string(),
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
    /// A host-managed SMR HDD (disk media).
    Hdd(SmrHdd<E>),
    /// A ZNS SSD and an HM-SMR HDD under one zone index space.
    Hybrid(HybridDevice<E>),
}

/// One of four futures created (so admitted) already; awaits whichever it is.
enum OneOf<A, B, C, D> {
    A(A),
    B(B),
    C(C),
    D(D),
}

impl<T, A, B, C, D> OneOf<A, B, C, D>
where
    A: Future<Output = T>,
    B: Future<Output = T>,
    C: Future<Output = T>,
    D: Future<Output = T>,
{
    async fn run(self) -> T {
        match self {
            Self::A(f) => f.await,
            Self::B(f) => f.await,
            Self::C(f) => f.await,
            Self::D(f) => f.await,
        }
    }
}

/// Runs `$call` on the device inside a [`SimDevice`] (a plain value).
macro_rules! each {
    ($self:ident, $d:ident => $call:expr) => {
        match $self {
            Self::Zns($d) => $call,
            Self::SplitZns($d) => $call,
            Self::Hdd($d) => $call,
            Self::Hybrid($d) => $call,
        }
    };
}

/// Runs `$call` (creating a future, so admitting the request) on the device inside a
/// [`SimDevice`] and awaits it.
macro_rules! each_fut {
    ($self:ident, $d:ident => $call:expr) => {
        match $self {
            Self::Zns($d) => OneOf::A($call),
            Self::SplitZns($d) => OneOf::B($call),
            Self::Hdd($d) => OneOf::C($call),
            Self::Hybrid($d) => OneOf::D($call),
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
            MediaKind::Disk => Err(DeviceError::InvalidConfig(format!(
                "profile {}: a disk is built from a DiskProfile (SimDeviceSpec::build)",
                profile.name
            ))),
        }
    }

    /// The flash profile the device was built from (`None` for an HDD or a hybrid).
    pub fn profile(&self) -> Option<Profile> {
        match self {
            Self::Zns(d) => Some(d.profile()),
            Self::SplitZns(d) => Some(d.profile()),
            Self::Hdd(_) | Self::Hybrid(_) => None,
        }
    }

    /// The disk profile of an HDD (`None` otherwise).
    pub fn disk_profile(&self) -> Option<DiskProfile> {
        match self {
            Self::Hdd(d) => Some(d.disk_profile()),
            _ => None,
        }
    }

    /// The name of the device's profile (`ssd+hdd` for a hybrid).
    pub fn profile_name(&self) -> String {
        match self {
            Self::Zns(d) => d.profile().name,
            Self::SplitZns(d) => d.profile().name,
            Self::Hdd(d) => d.disk_profile().name,
            Self::Hybrid(d) => {
                format!("{}+{}", d.ssd().profile().name, d.hdd().disk_profile().name)
            }
        }
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

    /// SplitZNS counters (`None` for any other device).
    pub fn split_stats(&self) -> Option<SplitZnsStats> {
        match self {
            Self::SplitZns(d) => Some(d.split_stats()),
            _ => None,
        }
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

    fn capabilities(&self) -> Capabilities<'_> {
        each!(self, d => d.capabilities())
    }

    fn stats(&self) -> DeviceStats {
        each!(self, d => d.stats())
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
        let eight = SimDeviceSpec::new("splitzns-paper", "1/8")
            .chips(Some(8))
            .profile()
            .unwrap();
        assert_eq!((eight.flash.chips(), eight.chips_per_zone), (8, 8));
        let split = SimDeviceSpec::new("splitzns-paper", "1/8")
            .chips(Some(8))
            .chips_per_zone(Some(2))
            .profile()
            .unwrap();
        assert_eq!((split.flash.chips(), split.chips_per_zone), (8, 2));
        assert!(
            SimDeviceSpec::new("splitzns-paper", "1/8")
                .chips(Some(12))
                .profile()
                .is_err()
        );
        assert!(SimDeviceSpec::new("nope", "1").profile().is_err());
        assert!(SimDeviceSpec::new("tiny", "1/0").profile().is_err());
    }
}
