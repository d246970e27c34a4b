//! The SplitZNS study's LDP overwrite (`max_background_jobs = 21`) ran out of space at the
//! paper's size: sixteen compactions ran at once whenever sixteen were due, each holding the
//! version it started from and with it every file compacted away since, so a quarter of the
//! device was obsolete SSTs no purge could delete yet. RocksDB runs one compaction at a time
//! until the write controller needs compactions sped up (`GetBGJobLimits`,
//! `NeedSpeedupCompaction`: writes delayed or stopped, L0 at
//! `GetL0ThresholdSpeedupCompaction`, or pending compaction bytes at a quarter of the soft
//! limit). Measured from the engine's running compactions and the tree, in virtual time.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

use crate::common;

/// What a run saw, sampled between writes.
#[derive(Debug, Default)]
struct Seen {
    /// The most compactions running at once.
    max_running: usize,
    /// The most L0 files.
    max_l0: usize,
    /// Samples with a compaction running.
    busy_samples: u64,
}

fn sample<E: Env, D: zonedb_device::ZonedDevice>(db: &Db<E, D>, out: &mut Seen) {
    let running = db.running_compactions().len();
    let l0 = db.files().iter().filter(|(l, _)| *l == 0).count();
    out.max_running = out.max_running.max(running);
    out.max_l0 = out.max_l0.max(l0);
    out.busy_samples += u64::from(running > 0);
}

/// Overwrites `keys` keys `rounds` times, pausing `pause_ns` of virtual time every 100
/// writes, and samples the compactions running and L0 every 10 writes.
fn run(opts: DbOptions, keys: u64, rounds: u64, pause_ns: u64) -> Seen {
    let env = SimEnv::new(SimConfig {
        seed: 7,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    let mut seen = Seen::default();
    let out = &mut seen;
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs, opts).await.unwrap();
        let mut n = 0u64;
        for round in 0..rounds {
            for i in 0..keys {
                let k = (i * 7919) % keys;
                db.put(&common::key(k), &common::value(k, round))
                    .await
                    .unwrap();
                n += 1;
                if n.is_multiple_of(10) {
                    sample(&db, out);
                }
                if pause_ns > 0 && n.is_multiple_of(100) {
                    // Sampled through the pause too: that is when compactions run.
                    for _ in 0..pause_ns / 1_000_000 {
                        e2.sleep(1_000_000).await;
                        sample(&db, out);
                    }
                }
            }
        }
        db.wait_for_compactions().await.unwrap();
        db.close().await.unwrap();
    })
    .unwrap();
    seen
}

/// The study's job budget (16 compaction slots) on a small tree, with RocksDB's L0
/// triggers: speed-up at 8 L0 files, writes delayed at 20.
fn options() -> DbOptions {
    DbOptions {
        max_background_jobs: 21,
        level0_slowdown_writes_trigger: 20,
        level0_stop_writes_trigger: 36,
        ..common::small_options()
    }
}

#[test]
fn one_compaction_at_a_time_while_the_tree_keeps_up() {
    // Paced writes: compactions keep up, L0 never reaches the speed-up threshold, and
    // pending compaction bytes stay far below a quarter of the soft limit (64 GiB).
    let seen = run(options(), 3_000, 4, 20_000_000);
    assert!(seen.busy_samples > 0, "no compaction ran: {seen:?}");
    assert!(
        seen.max_l0 < 8,
        "L0 reached the speed-up threshold: {seen:?}"
    );
    assert_eq!(
        seen.max_running, 1,
        "compactions ran in parallel with no need for speed: {seen:?}"
    );
}

#[test]
fn compactions_run_in_parallel_once_l0_reaches_the_speed_up_threshold() {
    // Speed-up at 2 L0 files (min(2 x 2, 2 + (4 - 2) / 4)): unpaced writes keep L0 there.
    let opts = DbOptions {
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 4,
        level0_stop_writes_trigger: 36,
        max_background_jobs: 21,
        ..common::small_options()
    };
    let seen = run(opts, 3_000, 4, 0);
    assert!(
        seen.max_running > 1,
        "no parallel compaction under pressure: {seen:?}"
    );
}
