//! Compactions split into subcompactions (`max_subcompactions = 4`, with the paper's other
//! engine settings: Snappy, no intra-L0) keep every write: reads during the run, a full scan
//! after it and again after a reopen all match a `BTreeMap`; compactions were in fact split;
//! and a run is a pure function of its seed.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;

use zonedb_env::{Env, SimConfig, SimEnv, SimRng};
use zonedb_lsm::options::{Compression, DbOptions};
use zonedb_lsm::{Db, DbStats};

const KEYS: u64 = 5000;

fn value(k: u64, version: u64) -> Vec<u8> {
    let mut v = format!("{k}:{version}:").into_bytes();
    v.resize(150 + (k % 5) as usize * 30, b'a' + (version % 26) as u8);
    v
}

fn options(max_subcompactions: u32) -> DbOptions {
    DbOptions {
        max_subcompactions,
        compression: Compression::Snappy,
        enable_intra_l0_compaction: false,
        ..common::small_options()
    }
}

type Scan = Vec<(Vec<u8>, Vec<u8>)>;

/// Runs the workload; returns the engine counters, the scan after the reopen, and the
/// virtual end time.
fn run(seed: u64, max_subcompactions: u32) -> (DbStats, Scan, u64) {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 300);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), options(max_subcompactions))
            .await
            .unwrap();
        let mut oracle: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut rng = SimRng::seed_from_u64(seed);
        for op in 0..30_000u64 {
            let k = rng.gen_range(0..KEYS);
            match rng.gen_range(0..10) {
                0..=6 => {
                    let v = value(k, op);
                    db.put(&common::key(k), &v).await.unwrap();
                    oracle.insert(common::key(k), v);
                }
                7 => {
                    db.delete(&common::key(k)).await.unwrap();
                    oracle.remove(&common::key(k));
                }
                _ => {
                    let got = db.get(&common::key(k)).await.unwrap();
                    assert_eq!(got.as_ref(), oracle.get(&common::key(k)), "op {op} key {k}");
                }
            }
        }
        db.wait_for_compactions().await.unwrap();
        let want: Scan = oracle.into_iter().collect();
        assert!(
            db.scan(&[], &[], usize::MAX).await.unwrap() == want,
            "scan after the run"
        );
        let stats = db.stats();
        db.close().await.unwrap();
        drop(db);
        drop(fs);
        let fs = common::mount(&e2, &dev, false).await;
        let db = Db::open(fs.clone(), options(max_subcompactions))
            .await
            .unwrap();
        let scan = db.scan(&[], &[], usize::MAX).await.unwrap();
        assert!(scan == want, "scan after the reopen");
        for (k, v) in want.iter().step_by(7) {
            assert_eq!(db.get(k).await.unwrap().as_ref(), Some(v));
        }
        db.close().await.unwrap();
        (stats, scan, e2.now())
    })
    .unwrap()
}

#[test]
fn four_subcompactions_keep_every_write_across_a_reopen() {
    let (stats, _, _) = run(1, 4);
    assert!(
        stats.subcompactions > 0,
        "no compaction was split: {stats:?}"
    );
    assert!(stats.compactions > stats.trivial_moves);
    // One range per subcompaction, at most four per split compaction.
    let (plain, _, _) = run(1, 1);
    assert_eq!(plain.subcompactions, 0);
}

#[test]
fn subcompaction_runs_are_deterministic() {
    let a = run(7, 4);
    let b = run(7, 4);
    assert!(a == b, "same seed, different runs");
    assert!(a.0.subcompactions > 0);
}

#[test]
fn split_and_unsplit_runs_hold_the_same_data() {
    let (_, split, _) = run(3, 4);
    let (_, whole, _) = run(3, 1);
    assert!(split == whole);
}
