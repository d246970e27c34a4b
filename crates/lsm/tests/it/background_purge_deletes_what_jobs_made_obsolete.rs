//! `avoid_unnecessary_blocking_io` (RocksDB's option): the obsolete WALs and SSTs a flush or a
//! compaction leaves are deleted by a purge job of their own, so the job gives its slot back
//! first. Every write stays readable (a `BTreeMap` oracle, before and after a reopen), no
//! obsolete file outlives `wait_for_compactions`, flushes spend no time deleting, and the run
//! is a function of its seed. Inline (the default), a flush's time is split into its phases.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;

use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbStats};

/// What a run ends with: its counters, the SST and WAL files left, and the virtual time.
#[derive(Debug, PartialEq)]
struct Outcome {
    stats: DbStats,
    ssts: usize,
    wals: usize,
    end_ns: u64,
}

/// Puts, overwrites and deletes `ops` keys, checks them against an oracle after
/// `wait_for_compactions` and after a reopen.
fn run(background_purge: bool, seed: u64, ops: u64) -> Outcome {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    let opts = DbOptions {
        avoid_unnecessary_blocking_io: background_purge,
        ..common::small_options()
    };
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), opts.clone()).await.unwrap();
        let mut oracle: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let keys = ops / 3;
        for i in 0..ops {
            let k = (i * 7919 + seed) % keys;
            if i % 11 == 5 {
                db.delete(&common::key(k)).await.unwrap();
                oracle.remove(&common::key(k));
            } else {
                let v = common::value(k, i);
                db.put(&common::key(k), &v).await.unwrap();
                oracle.insert(common::key(k), v);
            }
        }
        let check = |db: &Db<SimEnv, _>| {
            let db = db.clone();
            let oracle = oracle.clone();
            async move {
                for k in 0..keys {
                    let key = common::key(k);
                    let got = db.get(&key).await.unwrap();
                    assert_eq!(got, oracle.get(&key).cloned(), "key {k}");
                }
            }
        };
        db.wait_for_compactions().await.unwrap();
        let stats = db.stats();
        check(&db).await;
        db.close().await.unwrap();
        // After close (which deletes what the last jobs' versions still held when they
        // ended) only the tree's SSTs are left.
        let names = fs.list();
        let ssts = names.iter().filter(|n| n.ends_with(".sst")).count();
        let wals = names.iter().filter(|n| n.ends_with(".log")).count();
        let live: u64 = stats.level_files.iter().sum();
        assert_eq!(
            ssts as u64, live,
            "SSTs on the device vs in the tree: {names:?}"
        );
        let db = Db::open(fs, opts).await.unwrap();
        check(&db).await;
        db.close().await.unwrap();
        Outcome {
            stats,
            ssts,
            wals,
            end_ns: e2.now(),
        }
    })
    .unwrap()
}

#[test]
fn inline_deletes_are_a_phase_of_the_flush() {
    let o = run(false, 1, 30_000);
    let s = &o.stats;
    let p = s.flush_phases;
    assert!(s.flushes >= 10 && s.compactions >= 3, "{s:?}");
    assert!(
        p.build_ns > 0 && p.write_ns > 0 && p.install_ns > 0,
        "{p:?}"
    );
    // Every flush deletes the WAL it made obsolete: a metadata record and a zone reset.
    assert!(p.delete_ns > 0, "{p:?}");
    assert!(
        p.build_ns + p.write_ns + p.install_ns + p.delete_ns <= s.flush_ns,
        "{p:?} vs {} ns",
        s.flush_ns
    );
    assert!(o.wals <= 2, "{o:?}");
}

#[test]
fn a_purge_job_deletes_what_flushes_and_compactions_left() {
    let inline = run(false, 1, 30_000);
    let purged = run(true, 1, 30_000);
    let (s, p) = (&purged.stats, purged.stats.flush_phases);
    assert!(s.flushes >= 10 && s.compactions >= 3, "{s:?}");
    assert_eq!(p.delete_ns, 0, "a flush deleted inline: {p:?}");
    assert!(
        p.build_ns > 0 && p.write_ns > 0 && p.install_ns > 0,
        "{p:?}"
    );
    assert!(purged.wals <= 2, "{purged:?}");
    // Flushes end sooner without their deletes.
    assert!(
        s.flush_ns * inline.stats.flushes < inline.stats.flush_ns * s.flushes,
        "per flush: purged {} / {} ns, inline {} / {} ns",
        s.flush_ns,
        s.flushes,
        inline.stats.flush_ns,
        inline.stats.flushes
    );
    assert_eq!(s.user_bytes_written, inline.stats.user_bytes_written);
}

#[test]
fn a_run_with_purge_jobs_is_a_function_of_its_seed() {
    let a = run(true, 7, 12_000);
    let b = run(true, 7, 12_000);
    assert_eq!(a, b);
}
