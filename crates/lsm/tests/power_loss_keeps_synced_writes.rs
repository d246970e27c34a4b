//! Simulated power loss at random virtual times while one writer writes (some writes synced)
//! and flushes and compactions run in the background. After reopen the database must equal
//! the state after some prefix of the writes that includes every synced write (point-in-time
//! recovery), and stay writable. `ZONEDB_LSM_CRASH_SEEDS` sets the number of seeds.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use common::{Op, WriteLog};
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
        let db = match Db::open(fs, common::small_options()).await {
            Ok(db) => db,
            Err(e) => panic!("seed {seed}: reopen after power loss at {crash_at} ns: {e}"),
        };
        let got: BTreeMap<u64, Vec<u8>> = db
            .scan(&[], &[], usize::MAX)
            .await
            .unwrap()
            .into_iter()
            .map(|(k, v)| (std::str::from_utf8(&k).unwrap().parse().unwrap(), v))
            .collect();
        let p = common::assert_recovered_prefix((seed, crash_at), &log, &got, 400);
        if std::env::var("ZONEDB_CRASH_DEBUG").is_ok() {
            eprintln!(
                "seed {seed} crash {crash_at}: ops {} synced {} recovered keys {} prefix {p}",
                log.ops.len(),
                log.synced_prefix,
                got.len()
            );
        }
        // Point reads agree with the scan, and the database takes writes again.
        for k in (0..400).step_by(7) {
            assert_eq!(db.get(&common::key(k)).await.unwrap(), got.get(&k).cloned());
        }
        db.put(b"after", b"crash").await.unwrap();
        db.flush().await.unwrap();
        assert_eq!(
            db.get(b"after").await.unwrap().as_deref(),
            Some(&b"crash"[..])
        );
        db.close().await.unwrap();
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
