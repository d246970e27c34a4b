//! A toy command family, to show what adding one takes: this file (the trait, a device that has
//! it, the code that finds it) plus one field of [`super::Capabilities`]. Nothing else in the
//! crate names it: the core trait, the simulated devices and `SimDevice` stay as they are.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::atomic::{AtomicU64, Ordering};

use zonedb_env::{Env, SimConfig, SimEnv};

use super::{Capabilities, DeviceFuture};
use crate::sim::spec::SimPayload;
use crate::{
    DeviceError, DeviceStats, IoClass, Profile, SimDevice, ZoneGeometry, ZoneInfo, ZoneOp,
    ZoneState, ZonedDevice,
};

/// The toy family: a deallocate-zone command ("trim": the zone's data is dropped, as a reset
/// does) with a counter of its own.
pub trait Trim: Send + Sync {
    /// Drops the data of `zone`.
    fn trim(&self, zone: u32) -> DeviceFuture<'_, ()>;

    /// Trims carried out.
    fn trims(&self) -> u64;
}

/// A device with the toy family: a simulated device underneath, whose families it keeps.
struct Trimming {
    inner: SimDevice<SimEnv>,
    trims: AtomicU64,
}

impl Trim for Trimming {
    fn trim(&self, zone: u32) -> DeviceFuture<'_, ()> {
        self.trims.fetch_add(1, Ordering::Relaxed);
        Box::pin(self.inner.manage(zone, ZoneOp::Reset))
    }

    fn trims(&self) -> u64 {
        self.trims.load(Ordering::Relaxed)
    }
}

impl ZonedDevice for Trimming {
    fn geometry(&self) -> &ZoneGeometry {
        self.inner.geometry()
    }

    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.inner.report_zones(first, count)
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        self.inner.read(offset, len, class)
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.inner.write(offset, data)
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        self.inner.append(zone, data)
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.inner.manage(zone, op)
    }

    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.inner.sync()
    }

    fn stats(&self) -> DeviceStats {
        self.inner.stats()
    }

    /// The toy family on top of whatever the device underneath has.
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            toy: Some(self),
            ..self.inner.capabilities()
        }
    }
}

/// What a layer above does: finds the family through `capabilities()`, generic over the device.
async fn trim_if_possible<D: ZonedDevice>(dev: &D, zone: u32) -> Result<bool, DeviceError> {
    match dev.capabilities().toy {
        Some(t) => t.trim(zone).await.map(|()| true),
        None => Ok(false),
    }
}

fn sim(env: &SimEnv, profile: &str) -> SimDevice<SimEnv> {
    SimDevice::new(
        env.clone(),
        Profile::by_name(profile).unwrap(),
        &SimPayload::Memory,
    )
    .unwrap()
}

#[test]
fn a_toy_family_is_found_through_capabilities() {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let dev = Trimming {
        inner: sim(&env, "tiny"),
        trims: AtomicU64::new(0),
    };
    let plain = sim(&env, "tiny");
    let e = env.clone();
    env.run(async move {
        let start = dev.report_zones(1, 1)[0].start;
        dev.write(start, &[7u8; 4096]).await.unwrap();
        assert!(trim_if_possible(&dev, 1).await.unwrap());
        assert_eq!(dev.report_zones(1, 1)[0].state, ZoneState::Empty);
        assert_eq!(dev.capabilities().toy.unwrap().trims(), 1);
        // The device underneath keeps its own families (a plain ZNS SSD: none of the
        // others), and a device without the toy one reports none of it.
        assert!(dev.capabilities().in_device_copy.is_none());
        assert!(dev.capabilities().split_zones.is_none());
        assert!(plain.capabilities().toy.is_none());
        assert!(!trim_if_possible(&plain, 1).await.unwrap());
        assert!(e.now() > 0);
    })
    .unwrap();
}
