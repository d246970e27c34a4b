//! RocksDB's zero-is-off rule for `soft_pending_compaction_bytes_limit` and
//! `hard_pending_compaction_bytes_limit`: a limit of 0 never delays or stops a write (a soft
//! limit of 0 takes the hard one). The write path and the compaction scheduler read the same
//! stall conditions, so a run with both limits off stalls exactly as one whose limits are
//! never reached.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbStats};

fn run(soft: u64, hard: u64) -> DbStats {
    let env = SimEnv::new(SimConfig {
        seed: 11,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 200);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let opts = DbOptions {
            soft_pending_compaction_bytes_limit: soft,
            hard_pending_compaction_bytes_limit: hard,
            ..common::small_options()
        };
        let db = Db::open(fs, opts).await.unwrap();
        for i in 0..6000u64 {
            let k = (i * 7919) % 6000;
            db.put(&common::key(k), &common::value(k, 0)).await.unwrap();
        }
        db.wait_for_compactions().await.unwrap();
        for k in (0..6000u64).step_by(61) {
            assert_eq!(
                db.get(&common::key(k)).await.unwrap(),
                Some(common::value(k, 0))
            );
        }
        let s = db.stats();
        db.close().await.unwrap();
        s
    })
    .unwrap()
}

#[test]
fn zero_pending_compaction_limits_never_delay_or_stop_writes() {
    let never_reached = run(1 << 40, 1 << 41);
    assert!(never_reached.compactions > 0, "{never_reached:?}");
    for (soft, hard) in [(0, 0), (0, 1 << 41), (1 << 40, 0)] {
        let s = run(soft, hard);
        assert_eq!(
            (s.stall_delays, s.stall_stops, s.compactions),
            (
                never_reached.stall_delays,
                never_reached.stall_stops,
                never_reached.compactions
            ),
            "soft {soft}, hard {hard}"
        );
    }
}

#[test]
fn a_hard_limit_below_a_nonzero_soft_one_is_refused() {
    let o = DbOptions {
        soft_pending_compaction_bytes_limit: 2 << 30,
        hard_pending_compaction_bytes_limit: 1 << 30,
        ..DbOptions::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(e.contains("hard_pending_compaction_bytes_limit"), "{e}");
    let off = DbOptions {
        hard_pending_compaction_bytes_limit: 0,
        ..o
    };
    off.validate().unwrap();
}
