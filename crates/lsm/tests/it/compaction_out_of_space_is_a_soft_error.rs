//! A compaction that finds the device full does not stop the database (RocksDB's soft error
//! for `NoSpace` in a compaction): its outputs are deleted, writes go on, compactions only
//! start when they fit until free space comes back, and every acknowledged write reads back.
//! When the device really is full, writes end with a `NoSpace` error, never a panic.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::FsOptions;
use zonedb_lsm::{Db, LsmErrorKind};

/// What one seed's run saw.
struct Seen {
    soft_errors: u64,
    writes_after_first_soft_error: u64,
}

fn overwrite_until_full(seed: u64) -> Seen {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 24);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::format_and_mount_with(
            &e2,
            &dev,
            FsOptions {
                cleaner: zonedb_fs::cleaning::by_name("greedy", 20).unwrap(),
                ..common::fs_options()
            },
        )
        .await;
        let opts = zonedb_lsm::options::DbOptions {
            max_background_jobs: 8,
            // L1 four times the common options': an L0 -> L1 compaction rewrites about 1.3
            // MiB while a flush writes 64 KiB, so with one compaction at a time (RocksDB's
            // throttle) a compaction still finds the device full before a flush does.
            max_bytes_for_level_base: 1 << 20,
            ..common::small_options()
        };
        let db = Db::open(fs.clone(), opts).await.unwrap();
        let mut acked: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
        let mut first_soft = None;
        let mut after = 0;
        let keys = 3_500;
        for i in 0..400_000u64 {
            let k = (i * 7_919 + seed * 13) % keys;
            let v = common::value(k, i).repeat(8);
            match db.put(&common::key(k), &v).await {
                Ok(()) => {
                    acked.insert(k, v);
                    if first_soft.is_some() {
                        after += 1;
                    }
                }
                Err(e) => {
                    // The device really full: a flush or the WAL found no room, or
                    // compactions could not fit and nothing freed space (the soft error
                    // turned hard).
                    assert_eq!(e.kind(), LsmErrorKind::NoSpace, "seed {seed}: {e}");
                    break;
                }
            }
            if first_soft.is_none() && db.stats().compaction_no_space_errors > 0 {
                first_soft = Some(i);
            }
        }
        // Every acknowledged write reads back, by point reads and by a scan.
        for (k, v) in &acked {
            let got = db.get(&common::key(*k)).await.unwrap();
            assert_eq!(got.as_ref(), Some(v), "seed {seed}: key {k}");
        }
        let scanned = db.scan(b"", b"\xff", usize::MAX).await.unwrap();
        assert_eq!(scanned.len(), acked.len(), "seed {seed}: the scan");
        let stats = db.stats();
        let _ = db.close().await;
        // No output of a failed compaction is left behind, and the zone layer is consistent.
        let live: BTreeSet<String> = db
            .files()
            .iter()
            .map(|(_, f)| zonedb_lsm::version::manifest::sst_name(f.number))
            .collect();
        let stray: Vec<String> = fs
            .list()
            .into_iter()
            .filter(|f| f.ends_with(".sst") && !live.contains(f))
            .collect();
        if db.background_error().is_none() {
            assert!(stray.is_empty(), "seed {seed}: {stray:?}");
        }
        let problems = fs.fsck();
        assert!(problems.is_empty(), "seed {seed}: fsck: {problems:?}");
        Seen {
            soft_errors: stats.compaction_no_space_errors,
            writes_after_first_soft_error: after,
        }
    })
    .unwrap()
}

#[test]
fn a_compaction_that_finds_the_device_full_lets_writes_go_on() {
    let seen: Vec<Seen> = (0..3).map(overwrite_until_full).collect();
    assert!(
        seen.iter().all(|s| s.soft_errors > 0),
        "a run filled the device without a compaction ever finding it full"
    );
    assert!(
        seen.iter().any(|s| s.writes_after_first_soft_error > 0),
        "writes stopped at the first compaction that found no room in every run"
    );
}
