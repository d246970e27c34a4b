//! Power loss at several virtual instants while a writer writes batches of elided values
//! (some synced) and flushes and compactions run: the reopen (point-in-time WAL recovery,
//! elided WAL records possibly torn in their hole) must succeed, equal the state after some
//! prefix of the writes that keeps every synced one, and read back every value regenerated.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::common::{Op, WriteLog};
use zonedb_device::ZnsSsd;
use zonedb_env::{SimEnv, SimRng};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, DbConfig};

fn config() -> DbConfig {
    DbConfig::new(common::small_options()).with_regenerator(Arc::new(common::TestRegen))
}

async fn writer(db: Db<SimEnv, ZnsSsd<SimEnv>>, log: Arc<Mutex<WriteLog>>, seed: u64) {
    let mut rng = SimRng::seed_from_u64(seed);
    for i in 0..1500u64 {
        let mut op: Op = Vec::new();
        let mut b = WriteBatch::new();
        for j in 0..rng.gen_range(1..4) {
            let k = rng.gen_range(0..200);
            if rng.gen_range(0..8) == 0 {
                b.delete(&common::key(k));
                op.push((k, None));
            } else {
                let (s, len) = (i * 4 + j, rng.gen_range(0..3000) as usize);
                b.put_elided(&common::key(k), len, &s.to_le_bytes());
                op.push((k, Some(common::regen_value(s, len))));
            }
        }
        let sync = rng.gen_range(0..10) == 0;
        if !common::logged_write(&db, &log, (i, op), b, sync).await {
            return;
        }
    }
}

/// Runs the writer until `crash_at` (ns), cuts the power, reopens and checks; returns the
/// virtual time the run ended.
fn crash_once(seed: u64, crash_at: u64) -> u64 {
    let (env, dev, end, log) =
        common::run_until_power_loss(seed, crash_at, config(), move |db, log| {
            writer(db, log, seed)
        });
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, false).await;
        let db = match Db::open_with(fs, config()).await {
            Ok(db) => db,
            Err(e) => panic!("seed {seed}: reopen after power loss at {crash_at} ns: {e}"),
        };
        let got: BTreeMap<Vec<u8>, Vec<u8>> = db
            .scan(&[], &[], usize::MAX)
            .await
            .unwrap()
            .into_iter()
            .collect();
        let mut state: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut matched = None;
        for p in 0..=log.ops.len() {
            if p >= log.synced_prefix && state == got {
                matched = Some(p);
                break;
            }
            if let Some(op) = log.ops.get(p) {
                for (k, v) in op {
                    match v {
                        Some(v) => state.insert(common::key(*k), v.clone()),
                        None => state.remove(&common::key(*k)),
                    };
                }
            }
        }
        assert!(
            matched.is_some(),
            "seed {seed}, crash at {crash_at} ns: recovered state is no prefix of the writes \
             keeping all {} synced ones ({} issued)",
            log.synced_prefix,
            log.ops.len()
        );
        for (k, v) in &got {
            assert_eq!(db.get(k).await.unwrap().as_ref(), Some(v));
        }
        db.put_elided(b"after", 500, &1u64.to_le_bytes())
            .await
            .unwrap();
        db.flush().await.unwrap();
        assert_eq!(
            db.get(b"after").await.unwrap(),
            Some(common::regen_value(1, 500))
        );
        db.close().await.unwrap();
    })
    .unwrap();
    end
}

#[test]
fn synced_elided_writes_survive_power_loss() {
    for seed in 0..3 {
        let full = crash_once(seed, u64::MAX);
        let mut rng = SimRng::seed_from_u64(seed ^ 0x5eed);
        for _ in 0..4 {
            crash_once(seed, rng.gen_range(0..full.max(1)));
        }
    }
}
