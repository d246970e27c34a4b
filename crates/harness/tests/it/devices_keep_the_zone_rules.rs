//! The device suite (`conformance::device`): zone states, write-pointer rules, typed errors,
//! the active limit and concurrent appends, on the simulated ZNS SSD and the file-backed
//! device. The same suite runs on a Linux zoned block device through `zonedb selftest`.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZoneFileDevice};
use zonedb_env::{RealEnv, SimConfig, SimEnv};
use zonedb_harness::conformance::device;

fn profile() -> Profile {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 24;
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    p
}

#[test]
fn simulated_zns_ssd_keeps_the_zone_rules() {
    let env = SimEnv::new(SimConfig::with_seed(3));
    let p = profile();
    let dev =
        Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap());
    let e2 = env.clone();
    env.run(async move {
        device::zone_rules(dev.as_ref()).await?;
        device::resource_limits(dev.as_ref()).await?;
        device::concurrent_appends(&e2, &dev).await
    })
    .unwrap()
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn file_backed_device_keeps_the_zone_rules() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), profile().zones).unwrap());
    let env = RealEnv::new(3);
    env.block_on(async {
        device::zone_rules(dev.as_ref()).await?;
        device::resource_limits(dev.as_ref()).await?;
        device::concurrent_appends(&env, &dev).await
    })
    .unwrap_or_else(|e| panic!("{e}"));
}
