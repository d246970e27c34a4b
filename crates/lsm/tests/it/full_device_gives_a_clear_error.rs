//! Filling the device: writes eventually fail with a clear error naming the lack of space
//! (never a panic), later writes keep failing the same way, and everything acknowledged before
//! stays readable.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::{Db, LsmErrorKind};

#[test]
fn writes_fail_cleanly_when_the_device_is_full() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 24);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs, common::small_options()).await.unwrap();
        let mut acked = 0u64;
        let err = loop {
            let v = common::value(acked, 0).repeat(8);
            match db.put(&common::key(acked), &v).await {
                Ok(()) => acked += 1,
                Err(e) => break e,
            }
            assert!(acked < 1_000_000, "a 24-zone device never filled up");
        };
        assert_eq!(err.kind(), LsmErrorKind::NoSpace, "{err}");
        assert!(err.to_string().contains("no space"), "{err}");
        assert!(db.put(b"more", b"data").await.is_err());
        // What was acknowledged and flushed or still in memory reads back.
        for i in (0..acked).step_by(11) {
            let got = db.get(&common::key(i)).await.unwrap();
            assert_eq!(
                got,
                Some(common::value(i, 0).repeat(8)),
                "key {i} of {acked}"
            );
        }
    })
    .unwrap();
}
