//! A simulated run is a pure function of its seed: the same seed twice gives byte-identical
//! results (final contents, engine and file-layer counters, every hint, virtual end time);
//! another seed gives a different run.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use zonedb_env::{Env, SimConfig, SimEnv, SimRng};
use zonedb_lsm::hints::RecordingHints;
use zonedb_lsm::{Db, DbConfig};

fn run(seed: u64) -> String {
    let env = SimEnv::new(SimConfig {
        seed,
        shuffle_same_instant: true,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 300);
    let e2 = env.clone();
    env.run(async move {
            let fs = common::mount(&e2, &dev, true).await;
            let hints = Arc::new(RecordingHints::default());
            let mut cfg = DbConfig::new(common::small_options());
            cfg.hints = hints.clone();
            let db = Db::open_with(fs.clone(), cfg).await.unwrap();
            // Four concurrent writers and a reader.
            let mut hs = Vec::new();
            for t in 0..4u64 {
                let db = db.clone();
                let mut rng = e2.rng();
                hs.push(e2.spawn(&format!("writer-{t}"), async move {
                    for i in 0..1500u64 {
                        let k = rng.gen_range(0..2000);
                        db.put(&common::key(k), &common::value(k, i * 4 + t))
                            .await
                            .unwrap();
                    }
                }));
            }
            let reader = {
                let db = db.clone();
                let mut rng = SimRng::seed_from_u64(seed);
                e2.spawn("reader", async move {
                    let mut found = 0u64;
                    for _ in 0..3000 {
                        if db.get(&common::key(rng.gen_range(0..2000))).await.unwrap().is_some() {
                            found += 1;
                        }
                    }
                    found
                })
            };
            for h in hs {
                h.await.unwrap();
            }
            let found = reader.await.unwrap();
            db.wait_for_compactions().await.unwrap();
            let all = db.scan(&[], &[], usize::MAX).await.unwrap();
            let stats = db.stats();
            db.close().await.unwrap();
            let fs_stats = fs.stats();
            serde_json::json!({
                "found": found,
                "contents": all.iter().map(|(k, v)| format!("{}={}", String::from_utf8_lossy(k), String::from_utf8_lossy(v))).collect::<Vec<_>>(),
                "stats": stats,
                "fs": fs_stats,
                "hints": hints.hints(),
                "end_ns": e2.now(),
            })
            .to_string()
    })
    .unwrap()
}

#[test]
fn same_seed_gives_byte_identical_runs() {
    let a = run(11);
    let b = run(11);
    assert!(a == b, "two runs of seed 11 differ");
    assert!(a.contains("compaction-started"), "the run must compact");
    let c = run(12);
    assert_ne!(a, c, "seeds 11 and 12 gave the same run");
}
