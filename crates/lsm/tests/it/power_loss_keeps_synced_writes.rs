//! Simulated power loss at random virtual times while one writer writes (some writes synced)
//! and flushes and compactions run in the background. After reopen the database must equal
//! the state after some prefix of the writes that includes every synced write (point-in-time
//! recovery), and stay writable. `ZONEDB_LSM_CRASH_SEEDS` sets the number of seeds.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::{Arc, Mutex};

use crate::common::{Op, WriteLog};
use zonedb_device::ZnsSsd;
use zonedb_env::{SimEnv, SimRng};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, DbConfig};

async fn writer(db: Db<SimEnv, ZnsSsd<SimEnv>>, log: Arc<Mutex<WriteLog>>, seed: u64) {
    let mut rng = SimRng::seed_from_u64(seed ^ 0xabc);
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
        let sync = rng.gen_range(0..10) == 0;
        if !common::logged_write(&db, &log, (i, op), b, sync).await {
            return;
        }
    }
}

fn crash_once(seed: u64, crash_at: u64) -> u64 {
    let (env, dev, end, log) = common::run_until_power_loss(
        seed,
        crash_at,
        DbConfig::new(common::small_options()),
        move |db, log| writer(db, log, seed),
    );
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, false).await;
        let opts = common::small_options();
        common::reopen_and_verify(fs, opts, &log, (seed, crash_at), 400, "plain").await;
    })
    .unwrap();
    end
}

#[test]
fn synced_writes_survive_power_loss_at_random_times() {
    let seeds: u64 = std::env::var("ZONEDB_LSM_CRASH_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    for seed in 0..seeds {
        let full = crash_once(seed, u64::MAX);
        let mut rng = SimRng::seed_from_u64(seed);
        crash_once(seed, rng.gen_range(0..full.max(1)));
    }
}
