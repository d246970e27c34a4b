//! A hybrid zoned device: a ZNS SSD and an HM-SMR HDD under one zone index space, as HHZS
//! (`shared/papers/002_…`) runs RocksDB over a ZN540 and an ST14000NM0007.
//!
//! Zones `[0, ssd zones)` are the SSD's, zones `[ssd zones, ssd zones + hdd zones)` the HDD's
//! ([`HybridLayout`]). Every zone starts at `index × stride`, the stride being the larger of the
//! two zone sizes (the geometry's `zone_size_bytes`); a zone's own writable bytes are its
//! [`ZoneInfo::capacity_bytes`] in [`ZonedDevice::report_zones`] (the geometry's
//! `zone_capacity_bytes` is the larger capacity). A request goes to the device owning its zone,
//! offsets translated; a request reaching past its zone's own size (into the gap before the
//! next stride, or into a zone of the other device) is refused with
//! [`DeviceError::CrossesZoneEnd`]. Errors of the parts come back in the hybrid's zone indexes
//! and offsets. Each part keeps its own open / active limits: the geometry's limits are their
//! sums (0, no limit, where a part has none), so a zone layer that is not hybrid-aware can
//! still be refused by one part; [`crate::Tiers::hybrid_layout`] tells the parts' own limits.

use std::future::Future;

use zonedb_env::Env;

use crate::sim::Faults;
use crate::zone::{ZoneGeometry, ZoneInfo};
use crate::{
    Capabilities, DeviceError, DeviceStats, ElidedBytes, HybridLayout, HybridStats, IoClass,
    SmrHdd, Tier, TierLimits, Tiers, ZnsSsd, ZoneOp, ZonedDevice,
};

/// One of two futures created (so admitted) already.
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

/// A ZNS SSD and an HM-SMR HDD as one zoned device (see the module doc).
#[derive(Debug)]
pub struct HybridDevice<E: Env> {
    ssd: ZnsSsd<E>,
    hdd: SmrHdd<E>,
    geometry: ZoneGeometry,
    layout: HybridLayout,
}

/// Runs `$call` on the part owning `$tier` and lifts its error into the hybrid's coordinates.
macro_rules! routed {
    ($self:ident, $tier:expr, $d:ident => $call:expr) => {{
        let tier = $tier;
        let fut = match tier {
            Tier::Ssd => {
                let $d = &$self.ssd;
                Either::A($call)
            }
            Tier::Hdd => {
                let $d = &$self.hdd;
                Either::B($call)
            }
        };
        (tier, fut)
    }};
}

fn limits(g: &ZoneGeometry) -> TierLimits {
    TierLimits {
        zones: g.zone_count,
        zone_capacity_bytes: g.zone_capacity_bytes,
        max_open_zones: g.max_open_zones,
        max_active_zones: g.max_active_zones,
    }
}

/// The sum of two zone limits, 0 (none) when either part has none.
fn sum_limit(a: u32, b: u32) -> u32 {
    if a == 0 || b == 0 { 0 } else { a + b }
}

/// Counters of both parts added up.
fn add(a: DeviceStats, b: DeviceStats) -> DeviceStats {
    DeviceStats {
        bytes_written: a.bytes_written + b.bytes_written,
        bytes_read: a.bytes_read + b.bytes_read,
        writes: a.writes + b.writes,
        reads: a.reads + b.reads,
        zone_resets: a.zone_resets + b.zone_resets,
        zone_finishes: a.zone_finishes + b.zone_finishes,
        block_erases: a.block_erases + b.block_erases,
        page_ops: a.page_ops + b.page_ops,
        syncs: a.syncs + b.syncs,
    }
}

impl<E: Env> HybridDevice<E> {
    /// The hybrid of `ssd` (zones first) and `hdd`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the block sizes differ or the zone count overflows.
    pub fn new(ssd: ZnsSsd<E>, hdd: SmrHdd<E>) -> Result<Self, DeviceError> {
        let (s, h) = (ssd.geometry().clone(), hdd.geometry().clone());
        if s.block_size_bytes != h.block_size_bytes {
            return Err(DeviceError::InvalidConfig(format!(
                "hybrid: the SSD's block size {} differs from the HDD's {}",
                s.block_size_bytes, h.block_size_bytes
            )));
        }
        let zone_count = s.zone_count.checked_add(h.zone_count).ok_or_else(|| {
            DeviceError::InvalidConfig("hybrid: too many zones for a u32 index".into())
        })?;
        let geometry = ZoneGeometry {
            zone_count,
            zone_size_bytes: s.zone_size_bytes.max(h.zone_size_bytes),
            zone_capacity_bytes: s.zone_capacity_bytes.max(h.zone_capacity_bytes),
            block_size_bytes: s.block_size_bytes,
            max_open_zones: sum_limit(s.max_open_zones, h.max_open_zones),
            max_active_zones: sum_limit(s.max_active_zones, h.max_active_zones),
            zone_append_max_bytes: s.zone_append_max_bytes.min(h.zone_append_max_bytes),
        };
        geometry.validate()?;
        let layout = HybridLayout {
            ssd: limits(&s),
            hdd: limits(&h),
        };
        Ok(Self {
            ssd,
            hdd,
            geometry,
            layout,
        })
    }

    /// The SSD part.
    pub fn ssd(&self) -> &ZnsSsd<E> {
        &self.ssd
    }

    /// The HDD part.
    pub fn hdd(&self) -> &SmrHdd<E> {
        &self.hdd
    }

    /// The first hybrid zone of `tier`.
    fn base(&self, tier: Tier) -> u32 {
        match tier {
            Tier::Ssd => 0,
            Tier::Hdd => self.layout.ssd.zones,
        }
    }

    /// The geometry of the part `tier`.
    fn part(&self, tier: Tier) -> &ZoneGeometry {
        match tier {
            Tier::Ssd => self.ssd.geometry(),
            Tier::Hdd => self.hdd.geometry(),
        }
    }

    /// The part owning hybrid zone `zone` and the zone's index there.
    fn route_zone(&self, zone: u32) -> Result<(Tier, u32), DeviceError> {
        let tier = self.layout.tier_of(zone).ok_or(DeviceError::OutOfRange {
            what: "zone",
            value: u64::from(zone),
            limit: u64::from(self.geometry.zone_count),
        })?;
        Ok((tier, zone - self.base(tier)))
    }

    /// The part owning `[offset, offset + len)` and the offset there.
    fn route(&self, offset: u64, len: u64) -> Result<(Tier, u64), DeviceError> {
        let stride = self.geometry.zone_size_bytes;
        let zone = self
            .geometry
            .zone_of(offset)
            .ok_or(DeviceError::OutOfRange {
                what: "offset",
                value: offset,
                limit: self.geometry.device_size_bytes(),
            })?;
        let (tier, inner) = self.route_zone(zone)?;
        let rel = offset - u64::from(zone) * stride;
        let size = self.part(tier).zone_size_bytes;
        if rel.saturating_add(len) > size {
            return Err(DeviceError::CrossesZoneEnd { zone, offset, len });
        }
        Ok((tier, u64::from(inner) * size + rel))
    }

    /// Offset `inner` of part `tier` as a hybrid offset.
    fn lift_offset(&self, tier: Tier, inner: u64) -> u64 {
        let size = self.part(tier).zone_size_bytes;
        (inner / size + u64::from(self.base(tier))) * self.geometry.zone_size_bytes + inner % size
    }

    /// The end offset `inner` of part `tier` (a write pointer, a capacity end) as a hybrid
    /// offset: the end of a zone stays in that zone.
    fn lift_end(&self, tier: Tier, inner: u64) -> u64 {
        match inner.checked_sub(1) {
            Some(last) => self.lift_offset(tier, last) + 1,
            None => 0,
        }
    }

    /// An error of part `tier` in the hybrid's zone indexes and offsets.
    fn lift(&self, tier: Tier, e: DeviceError) -> DeviceError {
        let z = |zone: u32| zone + self.base(tier);
        let o = |off: u64| self.lift_offset(tier, off);
        let end = |off: u64| self.lift_end(tier, off);
        match e {
            DeviceError::NotAtWritePointer {
                zone,
                offset,
                write_pointer,
            } => DeviceError::NotAtWritePointer {
                zone: z(zone),
                offset: o(offset),
                write_pointer: end(write_pointer),
            },
            DeviceError::BeyondCapacity {
                zone,
                offset,
                len,
                capacity_end,
            } => DeviceError::BeyondCapacity {
                zone: z(zone),
                offset: o(offset),
                len,
                capacity_end: end(capacity_end),
            },
            DeviceError::CrossesZoneEnd { zone, offset, len } => DeviceError::CrossesZoneEnd {
                zone: z(zone),
                offset: o(offset),
                len,
            },
            DeviceError::Unaligned {
                offset,
                len,
                block_size,
            } => DeviceError::Unaligned {
                offset: o(offset),
                len,
                block_size,
            },
            DeviceError::TooManyActive { zone, limit } => DeviceError::TooManyActive {
                zone: z(zone),
                limit,
            },
            DeviceError::TooManyOpen { zone, limit } => DeviceError::TooManyOpen {
                zone: z(zone),
                limit,
            },
            DeviceError::InvalidTransition { zone, op, from } => DeviceError::InvalidTransition {
                zone: z(zone),
                op,
                from,
            },
            DeviceError::ZoneFull { zone } => DeviceError::ZoneFull { zone: z(zone) },
            DeviceError::ZoneReadOnly { zone } => DeviceError::ZoneReadOnly { zone: z(zone) },
            DeviceError::ZoneOffline { zone } => DeviceError::ZoneOffline { zone: z(zone) },
            DeviceError::ReadBeyondWritePointer {
                zone,
                offset,
                len,
                write_pointer,
            } => DeviceError::ReadBeyondWritePointer {
                zone: z(zone),
                offset: o(offset),
                len,
                write_pointer: end(write_pointer),
            },
            DeviceError::UnrecoveredRead { offset, len } => DeviceError::UnrecoveredRead {
                offset: o(offset),
                len,
            },
            other => other,
        }
    }

    /// A zone descriptor of part `tier` in the hybrid's indexes and offsets.
    fn lift_info(&self, tier: Tier, info: ZoneInfo) -> ZoneInfo {
        let index = info.index + self.base(tier);
        let start = self.geometry.zone_start(index);
        ZoneInfo {
            index,
            start,
            write_pointer: start + info.written_bytes(),
            ..info
        }
    }

    /// Turns the write-pointer checker of both parts on or off.
    pub fn set_checking(&self, enabled: bool) {
        self.ssd.set_checking(enabled);
        self.hdd.set_checking(enabled);
    }

    /// Sets the injected faults of both parts (each draws its own).
    pub fn set_faults(&self, faults: Faults) {
        self.ssd.set_faults(faults);
        self.hdd.set_faults(faults);
    }

    /// The injected faults in force (both parts have the same).
    pub fn faults(&self) -> Faults {
        self.ssd.faults()
    }

    /// Media failure injection on the part owning `zone`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`] or [`DeviceError::OutOfRange`].
    pub fn fail_zone(&self, zone: u32, offline: bool) -> Result<(), DeviceError> {
        let (tier, inner) = self.route_zone(zone)?;
        let r = match tier {
            Tier::Ssd => self.ssd.fail_zone(inner, offline),
            Tier::Hdd => self.hdd.fail_zone(inner, offline),
        };
        r.map_err(|e| self.lift(tier, e))
    }

    /// A simulated power loss of both parts at the current virtual time.
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] on a model bug.
    pub fn power_cycle(&self) -> Result<(), DeviceError> {
        self.ssd.power_cycle()?;
        self.hdd.power_cycle()
    }

    /// SplitZNS counters: none (the SSD part is a plain ZNS SSD).
    pub fn split_stats(&self) -> Option<crate::splitzns::SplitZnsStats> {
        None
    }

    /// Bytes of payload held in memory by both parts.
    pub fn resident_bytes(&self) -> u64 {
        self.ssd.resident_bytes() + self.hdd.resident_bytes()
    }

    /// A routed call's future, awaited, its error lifted; a routing error as is.
    async fn lifted<T, A, B>(
        &self,
        routed: Result<(Tier, Either<A, B>), DeviceError>,
    ) -> Result<T, DeviceError>
    where
        A: Future<Output = Result<T, DeviceError>>,
        B: Future<Output = Result<T, DeviceError>>,
    {
        let (tier, fut) = routed?;
        fut.run().await.map_err(|e| self.lift(tier, e))
    }
}

impl<E: Env> ZonedDevice for HybridDevice<E> {
    fn geometry(&self) -> &ZoneGeometry {
        &self.geometry
    }

    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        let end = first.saturating_add(count).min(self.geometry.zone_count);
        let split = self.layout.ssd.zones;
        let mut out = Vec::new();
        if first < split {
            let n = end.min(split).saturating_sub(first);
            out.extend(
                self.ssd
                    .report_zones(first, n)
                    .into_iter()
                    .map(|i| self.lift_info(Tier::Ssd, i)),
            );
        }
        if end > split {
            let from = first.max(split);
            out.extend(
                self.hdd
                    .report_zones(from - split, end - from)
                    .into_iter()
                    .map(|i| self.lift_info(Tier::Hdd, i)),
            );
        }
        out
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        let r = self
            .route(offset, len)
            .map(|(t, at)| routed!(self, t, d => d.read(at, len, class)));
        self.lifted(r)
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let r = self
            .route(offset, data.len() as u64)
            .map(|(t, at)| routed!(self, t, d => d.write(at, data)));
        self.lifted(r)
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        let r = self
            .route_zone(zone)
            .map(|(t, z)| routed!(self, t, d => d.append(z, data)));
        async move {
            let tier = r.as_ref().map_or(Tier::Ssd, |(t, _)| *t);
            let at = self.lifted(r).await?;
            Ok(self.lift_offset(tier, at))
        }
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let r = self
            .route_zone(zone)
            .map(|(t, z)| routed!(self, t, d => d.manage(z, op)));
        self.lifted(r)
    }

    /// Flushes both parts.
    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let (a, b) = (self.ssd.sync(), self.hdd.sync());
        async move {
            a.await?;
            b.await
        }
    }

    /// No: neither simulated part has a volatile write cache.
    fn volatile_write_cache(&self) -> bool {
        false
    }

    /// Both parts' counters added up ([`crate::Tiers::hybrid_stats`] has them apart).
    fn stats(&self) -> DeviceStats {
        add(self.ssd.stats(), self.hdd.stats())
    }

    fn write_elided(
        &self,
        offset: u64,
        data: &ElidedBytes,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let r = self
            .route(offset, data.len())
            .map(|(t, at)| routed!(self, t, d => d.write_elided(at, data)));
        self.lifted(r)
    }

    fn write_elided_range(
        &self,
        offset: u64,
        data: &ElidedBytes,
        at: u64,
        len: u64,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let n = len.min(data.len().saturating_sub(at));
        let r = self
            .route(offset, n)
            .map(|(t, o)| routed!(self, t, d => d.write_elided_range(o, data, at, len)));
        self.lifted(r)
    }

    fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<ElidedBytes, DeviceError>> + Send {
        let r = self
            .route(offset, len)
            .map(|(t, at)| routed!(self, t, d => d.read_elided(at, len, class)));
        self.lifted(r)
    }

    fn read_discard(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let r = self
            .route(offset, len)
            .map(|(t, at)| routed!(self, t, d => d.read_discard(at, len, class)));
        self.lifted(r)
    }

    fn peek_elided(&self, offset: u64, len: u64) -> Option<ElidedBytes> {
        match self.route(offset, len).ok()? {
            (Tier::Ssd, at) => self.ssd.peek_elided(at, len),
            (Tier::Hdd, at) => self.hdd.peek_elided(at, len),
        }
    }

    fn memory_payload_bytes(&self) -> Option<u64> {
        match (
            self.ssd.memory_payload_bytes(),
            self.hdd.memory_payload_bytes(),
        ) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        }
    }

    /// The sum of the parts' peaks (an upper bound of the peak of the sum).
    fn peak_memory_payload_bytes(&self) -> Option<u64> {
        match (
            self.ssd.peak_memory_payload_bytes(),
            self.hdd.peak_memory_payload_bytes(),
        ) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        }
    }

    /// The [`Tiers`] family.
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            tiers: Some(self),
            ..Capabilities::none()
        }
    }
}

impl<E: Env> Tiers for HybridDevice<E> {
    fn hybrid_layout(&self) -> HybridLayout {
        self.layout
    }

    fn hybrid_stats(&self) -> HybridStats {
        HybridStats {
            ssd: self.ssd.stats(),
            hdd: self.hdd.stats(),
        }
    }
}
