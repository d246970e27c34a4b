//! A device filled until writes fail, then power lost, again and again: every reopen must
//! succeed, read back every acknowledged synced write, and either take new writes or refuse
//! them with a `NoSpace` error (never a panic) once recovery itself finds no room; the zone
//! layer stays consistent and a read-only reopen adds no files (outputs of a compaction whose
//! install found no room are left outside the tree, as RocksDB leaves them, and the next open
//! sweeps them: they are counted apart and must not outlive that open). Before the fix, recovery
//! asked for zones (a new L0 table, WAL and MANIFEST) before deleting anything, so a full
//! device failed to open, and every failed open left files behind.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zonedb_device::ZnsSsd;
use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, LsmErrorKind};

type Acked = BTreeMap<u64, Vec<u8>>;

/// What one round saw: files after close, and whether the open was read-only.
struct Round {
    /// Files after close, less the orphans.
    files: usize,
    read_only: bool,
    /// SSTs left outside the tree (outputs of a compaction whose install found no room; the
    /// next open sweeps them).
    orphans: BTreeSet<String>,
    /// Every file after close.
    names: BTreeSet<String>,
}

/// Mounts (formatting in round 0), opens, checks every acknowledged write, then (if the
/// database takes writes) writes synced values until the device is full. Returns without
/// closing when writes fail, as a crash would.
fn round(env: &SimEnv, dev: &Arc<ZnsSsd<SimEnv>>, n: u64, acked: &mut Acked) -> Round {
    let (e2, d2, mut a2) = (env.clone(), dev.clone(), acked.clone());
    let (r, a2) = env
        .run(async move {
            let fs = common::mount(&e2, &d2, n == 0).await;
            let db = match Db::open(fs.clone(), common::small_options()).await {
                Ok(db) => db,
                Err(e) => panic!("round {n}: a full device must open for reading: {e}"),
            };
            for (k, v) in &a2 {
                let got = db.get(&common::key(*k)).await.unwrap();
                assert_eq!(got.as_ref(), Some(v), "round {n}: key {k}");
            }
            let scanned = db.scan(b"", b"\xff", usize::MAX).await.unwrap();
            assert_eq!(
                scanned.len(),
                a2.len(),
                "round {n}: a scan sees every key once"
            );
            if let Some(e) = db.background_error() {
                assert_eq!(e.kind, LsmErrorKind::NoSpace, "{e}");
                let err = db.put(b"more", b"data").await.unwrap_err();
                assert_eq!(err.kind(), LsmErrorKind::NoSpace, "{err}");
                assert!(err.to_string().contains("no space"), "{err}");
                db.close().await.unwrap();
                let problems = fs.fsck();
                assert!(problems.is_empty(), "round {n}: fsck: {problems:?}");
                let live: BTreeSet<String> = db
                    .files()
                    .iter()
                    .map(|(_, f)| zonedb_lsm::version::manifest::sst_name(f.number))
                    .collect();
                let names: BTreeSet<String> = fs.list().into_iter().collect();
                let orphans: BTreeSet<String> = names
                    .iter()
                    .filter(|f| f.ends_with(".sst") && !live.contains(*f))
                    .cloned()
                    .collect();
                return (
                    Round {
                        files: names.len() - orphans.len(),
                        read_only: true,
                        orphans,
                        names,
                    },
                    a2,
                );
            }
            let problems = fs.fsck();
            assert!(problems.is_empty(), "round {n}: fsck: {problems:?}");
            for i in 0..1_000_000u64 {
                let k = (i * 7919 + n * 31) % 5000;
                let v = common::value(k, i + n * 1_000_000).repeat(6);
                let mut b = WriteBatch::new();
                b.put(&common::key(k), &v);
                match db.write_sync(b).await {
                    Ok(()) => {
                        a2.insert(k, v);
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), LsmErrorKind::NoSpace, "{e}");
                        let names: BTreeSet<String> = fs.list().into_iter().collect();
                        return (
                            Round {
                                files: names.len(),
                                read_only: false,
                                orphans: BTreeSet::new(),
                                names,
                            },
                            a2,
                        );
                    }
                }
            }
            panic!("the device never filled up");
        })
        .unwrap();
    *acked = a2;
    // Power loss.
    env.kill_all_tasks();
    dev.power_cycle().unwrap();
    r
}

#[test]
fn a_full_device_reopens_after_crashes_and_reads_back_every_synced_write() {
    for seed in 0..3 {
        let env = SimEnv::new(SimConfig {
            seed,
            ..SimConfig::default()
        });
        let dev = common::sim_device(&env, 20);
        let mut acked = Acked::new();
        let mut read_only_files = Vec::new();
        let mut orphans = BTreeSet::new();
        for n in 0..12 {
            let r = round(&env, &dev, n, &mut acked);
            // A failed install's outputs are swept by the next open: none outlives it.
            assert!(
                orphans.is_disjoint(&r.names),
                "seed {seed} round {n}: files left behind: {orphans:?}"
            );
            assert!(
                r.orphans.len() <= 8,
                "seed {seed} round {n}: {:?}",
                r.orphans
            );
            orphans = r.orphans;
            if r.read_only {
                read_only_files.push(r.files);
                if read_only_files.len() == 3 {
                    break;
                }
            }
        }
        assert!(acked.len() > 100, "only {} writes fit", acked.len());
        assert_eq!(
            read_only_files.len(),
            3,
            "seed {seed}: the rounds never filled the device so far that recovery had no room"
        );
        assert!(
            read_only_files.windows(2).all(|w| w[1] <= w[0]),
            "seed {seed}: reopening a full device added files: {read_only_files:?}"
        );
    }
}
