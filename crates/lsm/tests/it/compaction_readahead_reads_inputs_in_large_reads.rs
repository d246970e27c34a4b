//! `compaction_readahead_size`: a fillrandom in simulation reads its compaction inputs with far
//! fewer device read requests with readahead on than with it off (one read per data block),
//! compacts the same bytes, spends less time waiting for inputs, and every key reads back as
//! an oracle says.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::ZonedDevice;
use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbStats};

const KEYS: u64 = 8000;

/// Device reads and the engine's statistics of a fillrandom of 30,000 puts with
/// `readahead_bytes`, after every compaction settled and every key was checked.
fn fillrandom(readahead_bytes: u64) -> (u64, DbStats) {
    let env = SimEnv::new(SimConfig::with_seed(7));
    let dev = common::sim_device(&env, 200);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let opts = DbOptions {
            compaction_readahead_size: readahead_bytes,
            ..common::small_options()
        };
        let db = Db::open(fs.clone(), opts).await.unwrap();
        let oracle = common::fill_random(&db, KEYS, 30_000, 7).await;
        db.wait_for_compactions().await.unwrap();
        // Every read so far was a flush's or compaction's (no gets, no cleaning).
        let reads = dev.stats().reads;
        for k in 0..KEYS {
            let got = db.get(&common::key(k)).await.unwrap();
            assert_eq!(got.as_ref(), oracle.get(&common::key(k)), "key {k}");
        }
        let stats = db.stats();
        db.close().await.unwrap();
        drop(fs);
        (reads, stats)
    })
    .unwrap()
}

#[test]
fn compaction_readahead_reads_inputs_in_large_reads() {
    let (reads_off, off) = fillrandom(0);
    let (reads_on, on) = fillrandom(2 << 20);
    assert!(
        off.compactions > 5,
        "too few compactions: {}",
        off.compactions
    );
    assert!(
        on.compactions > 5,
        "too few compactions: {}",
        on.compactions
    );
    // 64 KiB inputs of 1 KiB blocks: 64 reads per input off, one (plus the table's open) on.
    assert!(
        reads_on * 5 < reads_off,
        "readahead on: {reads_on} device reads; off: {reads_off}"
    );
    let (z_on, z_off) = (&on.zone_compaction, &off.zone_compaction);
    assert!(z_on.read_ops * 5 < z_off.read_ops, "{z_on:?} vs {z_off:?}");
    assert!(z_on.read_ns < z_off.read_ns, "{z_on:?} vs {z_off:?}");
}
