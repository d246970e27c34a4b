//! Random puts, deletes, batches, gets, scans, snapshots, flushes and reopens, checked against
//! a `BTreeMap` after every read, in simulation and in real mode on a file-backed device.
//! `ZONEDB_ORACLE_OPS` sets the length (the CI default is a fast subset; the long run uses
//! millions).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::{ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv, SimRng};
use zonedb_fs::ZoneFs;
use zonedb_lsm::Db;
use zonedb_lsm::batch::WriteBatch;

type Oracle = BTreeMap<Vec<u8>, Vec<u8>>;

fn ops_from_env(default: u64) -> u64 {
    std::env::var("ZONEDB_ORACLE_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn check_scan<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    oracle: &Oracle,
    rng: &mut SimRng,
    keys: u64,
    op: u64,
) {
    let start = common::key(rng.gen_range(0..keys));
    let limit = rng.gen_range(1..40) as usize;
    let got = db.scan(&start, &[], limit).await.unwrap();
    let want: Vec<(Vec<u8>, Vec<u8>)> = oracle
        .range(start.clone()..)
        .take(limit)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(
        got,
        want,
        "op {op}: scan from {:?}",
        String::from_utf8_lossy(&start)
    );
}

/// Runs `ops` random operations against `db`, reopening through `reopen`.
async fn run<E: Env, D: ZonedDevice>(fs: Arc<ZoneFs<E, D>>, seed: u64, ops: u64) -> Db<E, D> {
    let opts = common::small_options();
    let mut db = Db::open(fs.clone(), opts.clone()).await.unwrap();
    let mut oracle = Oracle::new();
    let mut rng = SimRng::seed_from_u64(seed);
    let keys = 3000;
    let mut snaps: Vec<(zonedb_lsm::Snapshot<E, D>, Oracle)> = Vec::new();
    for op in 0..ops {
        let r = rng.gen_range(0..1000);
        let k = rng.gen_range(0..keys);
        match r {
            0..=449 => {
                let v = common::value(k, op);
                db.put(&common::key(k), &v).await.unwrap();
                oracle.insert(common::key(k), v);
            }
            450..=549 => {
                db.delete(&common::key(k)).await.unwrap();
                oracle.remove(&common::key(k));
            }
            550..=599 => {
                let mut b = WriteBatch::new();
                for j in 0..rng.gen_range(1..8) {
                    let kk = (k + j * 17) % keys;
                    if rng.gen_range(0..4) == 0 {
                        b.delete(&common::key(kk));
                        oracle.remove(&common::key(kk));
                    } else {
                        let v = common::value(kk, op * 10 + j);
                        b.put(&common::key(kk), &v);
                        oracle.insert(common::key(kk), v);
                    }
                }
                db.write(b).await.unwrap();
            }
            600..=899 => {
                let got = db.get(&common::key(k)).await.unwrap();
                assert_eq!(
                    got.as_ref(),
                    oracle.get(&common::key(k)),
                    "op {op}: get {k}"
                );
            }
            900..=969 => check_scan(&db, &oracle, &mut rng, keys, op).await,
            970..=984 => {
                if snaps.len() >= 3 {
                    snaps.remove(0);
                }
                snaps.push((db.snapshot(), oracle.clone()));
            }
            985..=989 => {
                if let Some((s, o)) = snaps.first() {
                    let kk = common::key(k);
                    assert_eq!(
                        db.get_at(&kk, s).await.unwrap().as_ref(),
                        o.get(&kk),
                        "op {op}: snapshot get"
                    );
                    let mut it = db.iter_at(s);
                    it.seek(&kk).await.unwrap();
                    for (wk, wv) in o.range(kk.clone()..).take(10) {
                        assert!(it.valid(), "op {op}: snapshot iterator ended early");
                        assert_eq!(
                            (it.key(), it.value()),
                            (&wk[..], &wv[..]),
                            "op {op}: snapshot scan"
                        );
                        it.next().await.unwrap();
                    }
                }
            }
            990..=994 => db.flush().await.unwrap(),
            _ => {
                // Reopen: snapshots do not survive it.
                snaps.clear();
                db.close().await.unwrap();
                db = Db::open(fs.clone(), opts.clone()).await.unwrap();
            }
        }
    }
    // Full comparison at the end, after compactions settle.
    db.wait_for_compactions().await.unwrap();
    let all = db.scan(&[], &[], usize::MAX).await.unwrap();
    let want: Vec<(Vec<u8>, Vec<u8>)> =
        oracle.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(all.len(), want.len());
    assert!(all == want, "full scan differs");
    for (k, v) in &oracle {
        assert_eq!(db.get(k).await.unwrap().as_ref(), Some(v));
    }
    // Exactly one MANIFEST is left however often it rolled.
    let manifests = fs
        .list()
        .into_iter()
        .filter(|n| n.starts_with("MANIFEST-"))
        .count();
    assert_eq!(manifests, 1);
    if std::env::var("ZONEDB_ORACLE_DEBUG").is_ok() {
        eprintln!("files: {:?}", fs.list());
    }
    db
}

#[test]
fn simulated_db_matches_oracle() {
    let ops = ops_from_env(40_000);
    for seed in 0..2 {
        let env = SimEnv::new(SimConfig {
            seed,
            ..SimConfig::default()
        });
        let dev = common::sim_device(&env, 400);
        let e2 = env.clone();
        let stats = env
            .run(async move {
                let fs = common::mount(&e2, &dev, true).await;
                let db = run(fs, seed, ops).await;
                let s = db.stats();
                db.close().await.unwrap();
                s
            })
            .unwrap();
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
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), common::profile(400).zones).unwrap());
    env.block_on(async {
        let fs = common::mount(&env, &dev, true).await;
        let db = run(fs, 7, ops).await;
        db.close().await.unwrap();
    });
}
