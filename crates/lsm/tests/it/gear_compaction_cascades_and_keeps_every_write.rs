//! Gear compaction (`compaction_scheme = "gear"`, GearDB's cascade) on per-level zones
//! (`level-zones`) keeps every write: reads during the run, reads at a snapshot taken midway
//! and held through the cascades, a full scan after the run and again after a reopen all match
//! a `BTreeMap`; compactions did cascade into deeper levels; and a run is a pure function of
//! its seed.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::{Env, SimConfig, SimEnv, SimRng};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::options::{CompactionPri, CompactionScheme, DbOptions};
use zonedb_lsm::{Db, DbStats};

const KEYS: u64 = 5000;

fn value(k: u64, version: u64) -> Vec<u8> {
    let mut v = format!("{k}:{version}:").into_bytes();
    v.resize(150 + (k % 5) as usize * 30, b'a' + (version % 26) as u8);
    v
}

fn options() -> DbOptions {
    DbOptions {
        compaction_scheme: CompactionScheme::Gear,
        compaction_pri: CompactionPri::RoundRobin,
        level_compaction_dynamic_level_bytes: false,
        // L1 128 KiB, x4 per level: four levels fill, so cascades reach two levels down.
        max_bytes_for_level_base: 128 << 10,
        max_bytes_for_level_multiplier: 4.0,
        ..common::small_options()
    }
}

async fn mount<E: Env, D: ZonedDevice>(env: &E, dev: &Arc<D>, format: bool) -> Arc<ZoneFs<E, D>> {
    if format {
        ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await.unwrap();
    }
    ZoneFs::mount(
        env.clone(),
        dev.clone(),
        FsOptions {
            placement: zonedb_fs::placement::by_name("level-zones").unwrap(),
            ..common::fs_options()
        },
    )
    .await
    .unwrap()
}

type Scan = Vec<(Vec<u8>, Vec<u8>)>;

/// Runs the workload; returns the engine counters, the scan after the reopen and the virtual
/// end time.
fn run(seed: u64) -> (DbStats, Scan, u64) {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 300);
    let e2 = env.clone();
    env.run(async move {
        let fs = mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), options()).await.unwrap();
        let mut oracle: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut at_snapshot = None;
        let mut rng = SimRng::seed_from_u64(seed);
        for op in 0..40_000u64 {
            if op == 15_000 {
                at_snapshot = Some((db.snapshot(), oracle.clone()));
            }
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
        let (snap, then) = at_snapshot.unwrap();
        for k in 0..KEYS {
            let got = db.get_at(&common::key(k), &snap).await.unwrap();
            assert_eq!(got.as_ref(), then.get(&common::key(k)), "snapshot key {k}");
        }
        drop(snap);
        let want: Scan = oracle.into_iter().collect();
        assert!(
            db.scan(&[], &[], usize::MAX).await.unwrap() == want,
            "scan after the run"
        );
        let stats = db.stats();
        db.close().await.unwrap();
        drop(db);
        drop(fs);
        let fs = mount(&e2, &dev, false).await;
        let db = Db::open(fs.clone(), options()).await.unwrap();
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
fn gear_compactions_cascade_and_keep_every_write_across_a_reopen() {
    // Some seed among the first 16 cascades two levels down (which one depends on the
    // engine's timing, so the test looks for it rather than naming it).
    let mut cascaded = Vec::new();
    let deep = (1..=16).find(|&seed| {
        let (stats, _, _) = run(seed);
        assert!(
            stats.gear_cascades > 0,
            "seed {seed}: no compaction cascaded: {stats:?}"
        );
        assert!(stats.gear_cascade_bytes_written > 0);
        cascaded.push((seed, stats.gear_cascades, stats.gear_cascade_levels));
        stats.gear_cascade_levels > stats.gear_cascades
    });
    assert!(
        deep.is_some(),
        "no cascade reached two levels down; (seed, cascades, levels): {cascaded:?}"
    );
}

#[test]
fn gear_compactions_keep_every_write_over_seeds() {
    for seed in 1..=4 {
        let (stats, _, _) = run(seed);
        assert!(stats.gear_cascades > 0, "seed {seed}: no cascade");
    }
}

#[test]
fn gear_runs_are_deterministic() {
    let a = run(5);
    let b = run(5);
    assert!(a == b, "same seed, different runs");
    assert!(a.0.gear_cascades > 0);
}
