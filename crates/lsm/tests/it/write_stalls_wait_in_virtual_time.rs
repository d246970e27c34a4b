//! Write stalls as RocksDB does them: with tight L0 triggers and a slow device, writers are
//! delayed past `level0_slowdown_writes_trigger` and stopped at `level0_stop_writes_trigger`
//! or when the immutable memtables reach `max_write_buffer_number`; stalled writers wait on
//! background work in virtual time (a spin would be reported as a livelock, a lost wake-up as a
//! deadlock) and every write lands.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_lsm::Db;
use zonedb_lsm::options::WriteDelay;

fn stalled_writers_wait_and_all_writes_land(write_delay: WriteDelay) -> zonedb_lsm::DbStats {
    let env = SimEnv::new(SimConfig {
        seed: 5,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    let stats = env
        .run(async move {
            let fs = common::mount(&e2, &dev, true).await;
            let opts = zonedb_lsm::options::DbOptions {
                level0_file_num_compaction_trigger: 2,
                level0_slowdown_writes_trigger: 3,
                level0_stop_writes_trigger: 4,
                max_write_buffer_number: 2,
                max_background_jobs: 2,
                delayed_write_rate: 1 << 20,
                write_delay,
                ..common::small_options()
            };
            let db = Db::open(fs, opts).await.unwrap();
            let mut hs = Vec::new();
            for t in 0..4u64 {
                let db = db.clone();
                hs.push(e2.spawn(&format!("w{t}"), async move {
                    for i in 0..2500u64 {
                        // A permutation of 0..10000, so L0 files overlap (no trivial moves).
                        let k = ((i * 4 + t) * 7919) % 10_000;
                        db.put(&common::key(k), &common::value(k, 0)).await.unwrap();
                    }
                }));
            }
            for h in hs {
                h.await.unwrap();
            }
            db.wait_for_compactions().await.unwrap();
            for k in (0..10_000u64).step_by(97) {
                assert_eq!(
                    db.get(&common::key(k)).await.unwrap(),
                    Some(common::value(k, 0))
                );
            }
            let s = db.stats();
            assert!(
                s.level_files[0] < 4,
                "L0 above the stop trigger at rest: {s:?}"
            );
            db.close().await.unwrap();
            s
        })
        .unwrap();
    assert!(stats.stall_delays > 0, "no slowdown: {stats:?}");
    assert!(stats.stall_stops > 0, "no stop: {stats:?}");
    assert!(stats.stall_stop_ns > 0 && stats.stall_delay_ns > 0);
    stats
}

#[test]
fn stalled_writers_wait_and_all_writes_land_with_per_write_delays() {
    stalled_writers_wait_and_all_writes_land(WriteDelay::PerWrite);
}

/// RocksDB's token bucket: a delayed write that waits waits at least the 1 ms refill step.
#[test]
fn stalled_writers_wait_and_all_writes_land_with_rocksdbs_token_bucket() {
    let s = stalled_writers_wait_and_all_writes_land(WriteDelay::TokenBucket);
    assert!(
        s.stall_delay_ns >= s.stall_delays * 1_000_000,
        "a wait under 1 ms: {s:?}"
    );
}
