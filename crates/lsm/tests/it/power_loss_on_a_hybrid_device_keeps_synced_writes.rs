//! Power loss on a hybrid ZNS SSD + HM-SMR HDD under HHZS (placement, migration and caching on)
//! and under a basic scheme: at random virtual times while a writer writes (some writes synced)
//! and flushes, compactions and migrations run, the device loses power (both parts); after
//! remount and reopen the database equals the state after a prefix of the writes that keeps
//! every synced one, fsck finds nothing, and the store takes writes again.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::{Arc, Mutex};

use crate::common::{Op, WriteLog};
use zonedb_device::disk::{DiskProfile, SmrHdd};
use zonedb_device::payload::Payload;
use zonedb_device::{HybridDevice, Profile, ZnsSsd, ZonedDevice};
use zonedb_env::{SimEnv, SimRng};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, DbConfig};

type Dev = HybridDevice<SimEnv>;

/// A hybrid of 11 `tiny` SSD zones (8 for data after the metadata zones) and 300 HDD zones
/// (`st14000nm0007` at 1/1024: 256 KiB).
fn device(env: &SimEnv) -> Arc<Dev> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 11;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    let ssd = ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap();
    let d = DiskProfile::by_name("st14000nm0007")
        .unwrap()
        .scaled(1024)
        .unwrap()
        .with_zone_count(300)
        .unwrap();
    let hdd =
        SmrHdd::new_disk(env.clone(), d.clone(), Payload::memory(d.zones.zone_count)).unwrap();
    Arc::new(HybridDevice::new(ssd, hdd).unwrap())
}

fn fs_options(placement: &str) -> FsOptions {
    FsOptions {
        placement: zonedb_fs::placement::by_name(placement).unwrap(),
        cleaner: zonedb_fs::cleaning::by_name("none", 0).unwrap(),
        ..common::fs_options()
    }
}

async fn writer(db: Db<SimEnv, Dev>, log: Arc<Mutex<WriteLog>>, seed: u64) {
    let mut rng = SimRng::seed_from_u64(seed ^ 0x5eed);
    for i in 0..2500u64 {
        let mut op: Op = Vec::new();
        let mut b = WriteBatch::new();
        for j in 0..rng.gen_range(1..4) {
            let k = rng.gen_range(0..400);
            if rng.gen_range(0..6) == 0 {
                b.delete(&common::key(k));
                op.push((k, None));
            } else {
                let v = common::value(k, i * 4 + j);
                b.put(&common::key(k), &v);
                op.push((k, Some(v)));
            }
        }
        // Reads too, so evicted blocks reach HHZS's cache.
        if rng.gen_range(0..3) == 0 {
            let _ = db.get(&common::key(rng.gen_range(0..400))).await;
        }
        let sync = rng.gen_range(0..10) == 0;
        if !common::logged_write(&db, &log, (i, op), b, sync).await {
            return;
        }
    }
}

fn crash_once(placement: &'static str, seed: u64, crash_at: u64) -> u64 {
    let env = common::crash_env(seed);
    let dev = device(&env);
    let opts = common::small_options();
    let (end, log) = common::run_on_until_power_loss(
        &env,
        &dev,
        fs_options(placement),
        crash_at,
        DbConfig::new(opts.clone()),
        move |db, log| writer(db, log, seed),
    );
    dev.power_cycle().unwrap();
    let h = dev.capabilities().tiers.map(|c| c.hybrid_stats()).unwrap();
    if crash_at == u64::MAX {
        assert!(
            h.ssd.bytes_written > 0 && h.hdd.bytes_written > 0,
            "{placement} seed {seed}: both devices take writes: {h:?}"
        );
    }
    let e2 = env.clone();
    env.run(async move {
        let fs = ZoneFs::mount(e2.clone(), dev.clone(), fs_options(placement))
            .await
            .unwrap();
        let run = (seed, crash_at);
        common::reopen_and_verify(fs.clone(), opts, &log, run, 400, placement).await;
        let problems = fs.fsck();
        assert!(
            problems.is_empty(),
            "{placement} seed {seed}: fsck: {problems:?}"
        );
    })
    .unwrap();
    end
}

#[test]
fn synced_writes_survive_power_loss_on_a_hybrid_device() {
    let seeds: u64 = std::env::var("ZONEDB_LSM_CRASH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for placement in ["hhzs", "hybrid-b3"] {
        for seed in 0..seeds {
            let full = crash_once(placement, seed, u64::MAX);
            let mut rng = SimRng::seed_from_u64(seed);
            crash_once(placement, seed, rng.gen_range(0..full.max(1)));
        }
    }
}
