//! Power loss on a ZNS+ SSD while the zone layer reclaims space with its commands: cleaning
//! through in-device zone compaction (copyback-aware, and the copyback-unaware order) and
//! hybrid recycling's threaded logging (SSTs written over the garbage of zones whose live
//! blocks stay put). At random virtual times while a writer overwrites a small key space (some
//! writes synced) the device loses power; after remount and reopen the database equals the
//! state after a prefix of the writes that keeps every synced one, fsck finds nothing, and the
//! store takes writes again. The uninterrupted runs check that both commands were used.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::{Arc, Mutex};

use crate::common::{Op, WriteLog};
use zonedb_device::flash::ZnsPlusConfig;
use zonedb_device::payload::Payload;
use zonedb_device::{ZnsSsd, ZonedDevice};
use zonedb_env::{SimEnv, SimRng};
use zonedb_fs::{FsOptions, ZoneCopy, ZoneFs};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, DbConfig};

type Dev = ZnsSsd<SimEnv>;

/// Keys overwritten (enough live data that zones fill with mixed lifetimes).
const KEYS: u64 = 3000;

/// `tiny` with 14 zones (11 for data), ZNS+'s commands on.
fn device(env: &SimEnv) -> Arc<Dev> {
    let p = common::profile(14);
    let payload = Payload::memory(p.zones.zone_count);
    Arc::new(ZnsSsd::new_znsplus(env.clone(), p, ZnsPlusConfig::reference(), payload).unwrap())
}

fn fs_options(copyback_aware: bool) -> FsOptions {
    FsOptions {
        cleaner: zonedb_fs::cleaning::by_name("greedy", 40).unwrap(),
        zone_copy: ZoneCopy::Izc { copyback_aware },
        znsplus: zonedb_fs::ZnsPlusOptions {
            threaded_logging: true,
            ..zonedb_fs::ZnsPlusOptions::default()
        },
        cleaning_interval_ns: 50_000_000,
        ..common::fs_options()
    }
}

async fn writer(db: Db<SimEnv, Dev>, log: Arc<Mutex<WriteLog>>, seed: u64) {
    let mut rng = SimRng::seed_from_u64(seed ^ 0x21a5);
    for i in 0..8000u64 {
        let mut op: Op = Vec::new();
        let mut b = WriteBatch::new();
        for j in 0..rng.gen_range(1..4) {
            let k = rng.gen_range(0..KEYS);
            if rng.gen_range(0..8) == 0 {
                b.delete(&common::key(k));
                op.push((k, None));
            } else {
                let v = common::value(k, i * 4 + j);
                b.put(&common::key(k), &v);
                op.push((k, Some(v)));
            }
        }
        let sync = rng.gen_range(0..10) == 0;
        if !common::logged_write(&db, &log, (i, op), b, sync).await {
            return;
        }
    }
}

fn crash_once(cab: bool, seed: u64, crash_at: u64) -> u64 {
    let env = common::crash_env(seed);
    let dev = device(&env);
    let opts = common::small_options();
    let (end, log) = common::run_on_until_power_loss(
        &env,
        &dev,
        fs_options(cab),
        crash_at,
        DbConfig::new(opts.clone()),
        move |db, log| writer(db, log, seed),
    );
    dev.power_cycle().unwrap();
    let e2 = env.clone();
    let dev2 = dev.clone();
    env.run(async move {
        let fs = ZoneFs::mount(e2.clone(), dev2.clone(), fs_options(cab))
            .await
            .unwrap();
        let what = if cab { "CAB" } else { "CUB" };
        common::reopen_and_verify(fs.clone(), opts, &log, (seed, crash_at), KEYS, what).await;
        let problems = fs.fsck_quiesced().await;
        assert!(
            problems.is_empty(),
            "cab {cab} seed {seed}: fsck: {problems:?}"
        );
    })
    .unwrap();
    if crash_at == u64::MAX {
        let z = dev
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        assert!(
            z.copy_commands > 0 && z.threaded_opens > 0,
            "cab {cab} seed {seed}: both commands used: {z:?}"
        );
    }
    end
}

#[test]
fn synced_writes_survive_power_loss_on_a_znsplus_device() {
    let seeds: u64 = std::env::var("ZONEDB_LSM_CRASH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    for cab in [true, false] {
        for seed in 0..seeds {
            let full = crash_once(cab, seed, u64::MAX);
            let mut rng = SimRng::seed_from_u64(seed);
            crash_once(cab, seed, rng.gen_range(0..full.max(1)));
        }
    }
}
