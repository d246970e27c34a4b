//! Closing the database while a compaction runs, as RocksDB does: the compaction stops, the
//! outputs it had finished are deleted (they were never in a version), its inputs stay, and a
//! reopened database reads every write back and leaves no orphan SST in the zone layer.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::hints::{FileKindHint, Hint, RecordingHints};
use zonedb_lsm::{Db, DbConfig};

/// (merging compactions started, compactions finished, SSTs the newest running merge has
/// announced) so far. An output is announced before it is written, so two announced outputs
/// mean the first is complete.
fn progress(hints: &RecordingHints) -> (usize, usize, usize) {
    let (mut started, mut finished, mut outputs) = (0, 0, 0);
    for h in hints.hints() {
        match h {
            Hint::CompactionStarted {
                trivial_move: false,
                ..
            } => {
                started += 1;
                outputs = 0;
            }
            Hint::CompactionStarted { .. } => started += 1,
            Hint::CompactionFinished { .. } => finished += 1,
            Hint::FileCreated {
                kind: FileKindHint::Sst,
                level: Some(l),
                ..
            } if l > 0 => outputs += 1,
            _ => {}
        }
    }
    (started, finished, outputs)
}

#[test]
fn close_mid_compaction_keeps_every_write_and_leaves_no_orphans() {
    let env = SimEnv::new(SimConfig {
        seed: 11,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let hints = Arc::new(RecordingHints::default());
        let opts = zonedb_lsm::options::DbOptions {
            level_compaction_dynamic_level_bytes: false,
            // Compactions in parallel from 2 L0 files (RocksDB's speed-up threshold, the
            // lesser of 2 x 1 and 1 + (8 - 1) / 4), as the test was built for.
            level0_file_num_compaction_trigger: 1,
            ..common::small_options()
        };
        let mut cfg = DbConfig::new(opts.clone());
        cfg.hints = hints.clone();
        let db = Db::open_with(fs.clone(), cfg).await.unwrap();
        let mut oracle = BTreeMap::new();
        let mut i = 0u64;
        // Write until a merging compaction is running and has finished an output, then close.
        loop {
            let k = (i * 7919) % 8000;
            let v = common::value(k, i);
            db.put(&common::key(k), &v).await.unwrap();
            oracle.insert(k, v);
            i += 1;
            let (started, finished, outputs) = progress(&hints);
            if i > 20_000 && started > finished && outputs >= 2 {
                break;
            }
            assert!(i < 200_000, "no compaction was ever running");
        }
        db.close().await.unwrap();
        let (started, finished, _) = progress(&hints);
        assert!(
            started > finished,
            "the running compaction finished instead of stopping ({started} {finished})"
        );
        // Nothing but the version's SSTs is left in the zone layer.
        let live: u64 = db.stats().level_files.iter().sum();
        let ssts = fs.list().iter().filter(|n| n.ends_with(".sst")).count() as u64;
        assert_eq!(ssts, live, "SSTs in the zone layer but not in the version");
        drop(db);

        let fs = common::mount(&e2, &dev, false).await;
        let db = Db::open(fs.clone(), opts).await.unwrap();
        for (k, v) in &oracle {
            assert_eq!(db.get(&common::key(*k)).await.unwrap().as_ref(), Some(v));
        }
        // And the stopped work is picked up again.
        db.wait_for_compactions().await.unwrap();
        for (k, v) in oracle.iter().step_by(13) {
            assert_eq!(db.get(&common::key(*k)).await.unwrap().as_ref(), Some(v));
        }
        db.close().await.unwrap();
    })
    .unwrap();
}
