//! An SST that compactions removed from the tree stays on the device only while some version
//! holds it, as in RocksDB: a compaction lets go of its input version when it installs its
//! result and deletes what that left without a version before it ends, and a version an
//! iterator held is purged as soon as the iterator goes, with no flush or compaction after.
//! Measured from the file layer (the SSTs it lists against the tree's) and from the engine's
//! gauges (`obsolete_sst_*`: held by an old version; `deletable_sst_*`: held by none, not
//! deleted yet), never from timing.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::ZoneFs;
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::version::manifest::parse_name;

type SimDb = Db<SimEnv, zonedb_device::ZnsSsd<SimEnv>>;
type SimFs = Arc<ZoneFs<SimEnv, zonedb_device::ZnsSsd<SimEnv>>>;

/// The SSTs the file layer lists that the tree does not.
fn outside_tree(db: &SimDb, fs: &SimFs) -> BTreeSet<u64> {
    let tree: BTreeSet<u64> = db.files().iter().map(|(_, f)| f.number).collect();
    fs.list()
        .iter()
        .filter_map(|n| parse_name(n))
        .filter(|&(n, kind)| kind == "sst" && !tree.contains(&n))
        .map(|(n, _)| n)
        .collect()
}

/// Overwrites keys `0..keys` once (value version `round`).
async fn overwrite(db: &SimDb, keys: u64, round: u64) {
    for i in 0..keys {
        let k = (i * 7919) % keys;
        db.put(&common::key(k), &common::value(k, round))
            .await
            .unwrap();
    }
}

/// Asserts that nothing outside the tree is left on the device, by the file layer and by the
/// engine's gauges.
fn assert_nothing_obsolete_left(db: &SimDb, fs: &SimFs, when: &str) {
    let s = db.stats();
    assert_eq!(
        outside_tree(db, fs),
        BTreeSet::new(),
        "{when}: SSTs on the device that no version holds ({} deletable, {} bytes)",
        s.deletable_sst_files,
        s.deletable_sst_bytes
    );
    assert_eq!(
        (s.deletable_sst_files, s.deletable_sst_bytes),
        (0, 0),
        "{when}"
    );
    assert_eq!(
        (s.obsolete_sst_files, s.obsolete_sst_bytes),
        (0, 0),
        "{when}"
    );
}

#[test]
fn no_sst_outlives_the_compaction_that_replaced_it() {
    let env = SimEnv::new(SimConfig {
        seed: 3,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        // Several compactions at once, so that one often ends while another still holds
        // the version it started from.
        let opts = DbOptions {
            max_background_jobs: 8,
            ..common::small_options()
        };
        let db = Db::open(fs.clone(), opts).await.unwrap();
        let mut compactions = 0;
        for round in 0..4 {
            overwrite(&db, 4_000, round).await;
            db.wait_for_compactions().await.unwrap();
            let s = db.stats();
            assert!(s.compactions > compactions, "round {round}: {s:?}");
            compactions = s.compactions;
            // Every job has ended: each deleted what it left without a version, its own
            // inputs included.
            assert_nothing_obsolete_left(&db, &fs, &format!("after round {round}"));
        }
        let s = db.stats();
        assert!(
            s.peak_deletable_sst_files > 0 && s.peak_obsolete_sst_bytes > 0,
            "the gauges saw nothing: {s:?}"
        );
        db.close().await.unwrap();
    })
    .unwrap();
}

#[test]
fn dropping_an_iterator_deletes_what_only_its_version_held() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        overwrite(&db, 3_000, 0).await;
        db.wait_for_compactions().await.unwrap();
        assert_nothing_obsolete_left(&db, &fs, "before the iterator");

        let it = db.iter();
        overwrite(&db, 3_000, 1).await;
        db.wait_for_compactions().await.unwrap();
        let held = outside_tree(&db, &fs);
        assert!(!held.is_empty(), "the overwrite compacted nothing away");
        let s = db.stats();
        assert_eq!(s.obsolete_sst_files, held.len() as u64, "{s:?}");
        assert_eq!(s.deletable_sst_files, 0, "{s:?}");
        let jobs = (s.flushes, s.compactions);

        // The iterator was the last holder: its files go with it, with no job after it.
        drop(it);
        db.wait_for_compactions().await.unwrap();
        let s = db.stats();
        assert_eq!((s.flushes, s.compactions), jobs, "a job ran: {s:?}");
        assert_nothing_obsolete_left(&db, &fs, "after the iterator");
        assert!(s.peak_deletable_sst_files >= held.len() as u64, "{s:?}");
        db.close().await.unwrap();
    })
    .unwrap();
}
