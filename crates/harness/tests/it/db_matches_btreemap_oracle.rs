//! The engine's oracle suite (`conformance::db_oracle`): random puts, deletes, batches, gets,
//! scans, snapshots, flushes and reopens checked against a `BTreeMap` after every read, in
//! simulation and in real mode on a file-backed device. `ZONEDB_ORACLE_OPS` sets the length
//! (the CI default is a fast subset; the long run uses millions). The same suite runs on a
//! Linux zoned block device through `zonedb selftest` (tests/qemu-zns).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv};
use zonedb_fs::ZoneFs;
use zonedb_harness::conformance::{db_oracle, fs_model};

fn ops_from_env(default: u64) -> u64 {
    std::env::var("ZONEDB_ORACLE_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `tiny` profile with `zones` zones and roomy open/active limits.
fn profile(zones: u32) -> Profile {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = zones;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    p
}

async fn fresh_fs<E: Env, D: ZonedDevice>(env: &E, dev: &Arc<D>) -> Arc<ZoneFs<E, D>> {
    ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await.unwrap();
    ZoneFs::mount(env.clone(), dev.clone(), fs_model::options())
        .await
        .unwrap()
}

#[test]
fn simulated_db_matches_oracle() {
    let ops = ops_from_env(40_000);
    for seed in 0..2 {
        let env = SimEnv::new(SimConfig {
            seed,
            ..SimConfig::default()
        });
        let p = profile(400);
        let dev = Arc::new(
            ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap(),
        );
        let e2 = env.clone();
        let stats = env
            .run(async move {
                let fs = fresh_fs(&e2, &dev).await;
                db_oracle::run_and_reopen(fs, seed, ops).await
            })
            .unwrap()
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            stats.level_files.iter().skip(1).any(|&n| n > 0),
            "seed {seed}: nothing below L0"
        );
    }
}

#[test]
fn real_db_matches_oracle() {
    let ops = ops_from_env(40_000) / 4;
    let dir = tempfile::tempdir().unwrap();
    let env = RealEnv::new(7);
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), profile(400).zones).unwrap());
    env.block_on(async {
        let fs = fresh_fs(&env, &dev).await;
        db_oracle::run_and_reopen(fs, 7, ops).await
    })
    .unwrap_or_else(|e| panic!("{e}"));
}
