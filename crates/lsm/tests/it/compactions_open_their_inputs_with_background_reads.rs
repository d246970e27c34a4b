//! A table a flush or compaction opens is read (footer, properties, filter, index) on the
//! compaction's behalf, not a query's: a fillrandom with no `get` makes no query read at the
//! zone layer, so a device scheduler that serves queries first (SplitZNS's Read Scheduler)
//! and the per-SST read counts that hot-data placement ranks by see only queries. Then a
//! `get` of every key counts query reads.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::Db;

const KEYS: u64 = 4000;

#[test]
fn compactions_open_their_inputs_with_background_reads() {
    let env = SimEnv::new(SimConfig::with_seed(11));
    let dev = common::sim_device(&env, 200);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        let oracle = common::fill_random(&db, KEYS, 20_000, 11).await;
        db.wait_for_compactions().await.unwrap();
        let stats = db.stats();
        assert!(
            stats.compactions > 5,
            "too few compactions: {}",
            stats.compactions
        );
        let before: u64 = fs.sst_read_counts().values().sum();
        assert_eq!(
            before,
            0,
            "query reads with no query: {:?}",
            fs.sst_read_counts()
        );
        for k in 0..KEYS {
            let got = db.get(&common::key(k)).await.unwrap();
            assert_eq!(got.as_ref(), oracle.get(&common::key(k)), "key {k}");
        }
        let after: u64 = fs.sst_read_counts().values().sum();
        assert!(after > 0, "gets made no query read");
        db.close().await.unwrap();
    })
    .unwrap();
}
