//! The zone file layer's model suite (`conformance::fs_model`): files written and read back
//! through random operation sequences match an in-memory model across clean remounts and
//! crashes, on the simulated ZNS SSD and on the file-backed device. The same suite runs on a
//! Linux zoned block device through `zonedb selftest` (tests/qemu-zns).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZoneFileDevice, ZonedDevice};
use zonedb_env::{RealEnv, SimConfig, SimEnv};
use zonedb_harness::conformance::fs_model;

/// A small device the file layer accepts: 32 zones of 256 KiB (192 KiB capacity), 8 open / 8 active.
fn small_profile() -> Profile {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    p
}

#[test]
fn simulated_device_matches_the_model() {
    for seed in 0..12 {
        let env = SimEnv::new(SimConfig::with_seed(seed));
        let p = small_profile();
        let dev = Arc::new(
            ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap(),
        );
        let report = env
            .run(fs_model::run(env.clone(), dev, seed, 400))
            .unwrap()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            report.appended_bytes > 256 << 10,
            "seed {seed}: the suite moves real data"
        );
        assert!(
            report.remounts + report.crashes > 0,
            "seed {seed}: remounts happen"
        );
    }
}

#[test]
fn zone_append_writes_match_the_model() {
    for seed in 20..24 {
        let env = SimEnv::new(SimConfig::with_seed(seed));
        let p = small_profile();
        let dev = Arc::new(
            ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap(),
        );
        let opts = zonedb_fs::FsOptions {
            zone_append: true,
            ..fs_model::options()
        };
        let d2 = dev.clone();
        env.run(fs_model::run_with(env.clone(), dev, seed, 300, opts))
            .unwrap()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(d2.stats().bytes_written > 256 << 10);
    }
}

#[test]
fn file_backed_device_matches_the_model() {
    for seed in 100..103 {
        let dir = tempfile::tempdir().unwrap();
        let dev = Arc::new(ZoneFileDevice::create(dir.path(), small_profile().zones).unwrap());
        let env = RealEnv::new(seed);
        env.block_on(fs_model::run(env.clone(), dev, seed, 300))
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
