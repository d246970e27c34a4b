//! The typed hints tell the zone layer what the engine does: every SST is announced before it
//! is written with its level, key range and the lifetime of RocksDB's `CalculateSSTWriteHint`
//! (L0 and the base level medium, base+1 long, deeper extreme); flushes and compactions are
//! bracketed by start/finish hints naming inputs and outputs; deleted files are reported; and
//! the lifetime reaches the file layer.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_lsm::hints::{FileKindHint, Hint, RecordingHints};
use zonedb_lsm::{Db, DbConfig};

#[test]
fn hints_follow_files_through_flush_and_compaction() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let hints = Arc::new(RecordingHints::default());
        let mut cfg = DbConfig::new(zonedb_lsm::options::DbOptions {
            level_compaction_dynamic_level_bytes: false,
            ..common::small_options()
        });
        cfg.hints = hints.clone();
        let db = Db::open_with(fs.clone(), cfg).await.unwrap();
        for i in 0..12_000u64 {
            let k = (i * 7919) % 6000;
            db.put(&common::key(k), &common::value(k, i)).await.unwrap();
        }
        db.wait_for_compactions().await.unwrap();
        let hs = hints.hints();
        let mut created: BTreeMap<u64, (u32, Lifetime)> = BTreeMap::new();
        let mut deleted = Vec::new();
        let (mut flushes, mut compactions, mut finished) = (0, 0, 0);
        for h in &hs {
            match h {
                Hint::FileCreated {
                    number,
                    kind: FileKindHint::Sst,
                    level,
                    lifetime,
                    smallest,
                    largest,
                    size,
                    ..
                } => {
                    let level = level.unwrap();
                    let want = match level {
                        0 | 1 => Lifetime::Medium,
                        2 => Lifetime::Long,
                        _ => Lifetime::Extreme,
                    };
                    assert_eq!(*lifetime, want, "file {number} at L{level}");
                    assert!(smallest <= largest && *size > 0);
                    created.insert(*number, (level, *lifetime));
                }
                Hint::FlushFinished { outputs, .. } => {
                    flushes += 1;
                    assert!(
                        outputs
                            .iter()
                            .all(|n| created.get(n).is_some_and(|c| c.0 == 0))
                    );
                }
                Hint::CompactionStarted {
                    inputs,
                    start_level,
                    output_level,
                    ..
                } => {
                    compactions += 1;
                    // Down one level, or L0 → L0 (intra-L0).
                    assert!(output_level > start_level || *output_level == 0);
                    assert!(
                        inputs
                            .iter()
                            .flat_map(|l| &l.files)
                            .all(|n| created.contains_key(n))
                    );
                }
                Hint::CompactionFinished { outputs, .. } => {
                    finished += 1;
                    for l in outputs {
                        for n in &l.files {
                            assert!(created.contains_key(n), "output {n} never announced");
                        }
                    }
                }
                Hint::FileDeleted { number } => deleted.push(*number),
                _ => {}
            }
        }
        assert!(
            flushes > 5 && compactions > 2 && finished == compactions,
            "{flushes} {compactions} {finished}"
        );
        assert!(
            created.values().any(|c| c.1 == Lifetime::Long),
            "nothing reached L2"
        );
        // Deleted files are gone from the layer; live ones carry their lifetime there.
        for n in &deleted {
            assert!(!fs.exists(&format!("{n:06}.sst")));
        }
        for (_, f) in db.files() {
            let meta = fs.stat(&format!("{:06}.sst", f.number)).unwrap();
            assert_eq!(meta.lifetime, created[&f.number].1);
        }
        assert!(hs.iter().any(|h| matches!(h, Hint::LevelScores { .. })));
        db.close().await.unwrap();
    })
    .unwrap();
}
