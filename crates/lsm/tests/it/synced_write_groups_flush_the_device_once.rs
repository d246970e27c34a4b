//! Durability of synced writes on a device with a volatile write cache: every synced write
//! group (`write_sync`, `WriteOptions.sync`, db_bench `--sync 1`) flushes the device exactly
//! once (the file-backed device then `fdatasync`s its files), unsynced writes never flush it,
//! and the simulated SSD (no volatile cache) is never flushed, so simulations keep their
//! timing.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use zonedb_device::{ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv};
use zonedb_lsm::Db;
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::options::DbOptions;

const SYNCED: u64 = 300;
const UNSYNCED: u64 = 300;

/// Memtables large enough that no flush (and so no MANIFEST write) happens during the test.
fn options() -> DbOptions {
    DbOptions {
        write_buffer_size: 8 << 20,
        ..common::small_options()
    }
}

fn batch(i: u64) -> WriteBatch {
    let mut b = WriteBatch::new();
    b.put(&common::key(i), &common::value(i, 1));
    b
}

/// Writes `SYNCED` synced then `UNSYNCED` unsynced batches one after another (each its own
/// group); returns the device flushes each synced group caused, those of the unsynced phase,
/// and the engine's WAL sync count.
async fn run<E: Env, D: ZonedDevice>(env: &E, dev: &Arc<D>) -> (Vec<u64>, u64, u64) {
    let fs = common::mount(env, dev, true).await;
    let db = Db::open(fs, options()).await.unwrap();
    let before = dev.stats().syncs;
    let wal_before = db.stats().wal_syncs;
    let mut per_group = Vec::new();
    for i in 0..SYNCED {
        let b0 = dev.stats().syncs;
        db.write_sync(batch(i)).await.unwrap();
        per_group.push(dev.stats().syncs - b0);
    }
    let synced = dev.stats().syncs - before;
    assert_eq!(per_group.iter().sum::<u64>(), synced);
    let wal_syncs = db.stats().wal_syncs - wal_before;
    let before = dev.stats().syncs;
    for i in SYNCED..SYNCED + UNSYNCED {
        db.write(batch(i)).await.unwrap();
    }
    let unsynced = dev.stats().syncs - before;
    for i in 0..SYNCED + UNSYNCED {
        assert_eq!(
            db.get(&common::key(i)).await.unwrap(),
            Some(common::value(i, 1))
        );
    }
    db.close().await.unwrap();
    (per_group, unsynced, wal_syncs)
}

#[test]
fn each_synced_group_flushes_the_file_backed_device_once() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), common::profile(64).zones).unwrap());
    let env = RealEnv::new(1);
    let (per_group, unsynced, wal_syncs) = env.block_on(run(&env, &dev));
    assert_eq!(wal_syncs, SYNCED, "one WAL sync per synced group");
    // Each synced group flushes the device exactly once, also a group whose WAL write moved
    // the log to a new zone (its extent record is covered by the same flush).
    assert!(
        per_group.iter().all(|&n| n == 1),
        "synced groups must flush the device exactly once: {per_group:?}"
    );
    assert_eq!(unsynced, 0, "unsynced writes never flush the device");
}

#[test]
fn the_simulated_ssd_is_never_flushed() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 64);
    let (e2, d2) = (env.clone(), dev.clone());
    let (per_group, unsynced, wal_syncs) = env.run(async move { run(&e2, &d2).await }).unwrap();
    assert_eq!(wal_syncs, SYNCED);
    assert!(per_group.iter().all(|&n| n == 0));
    assert_eq!(unsynced, 0);
    assert_eq!(dev.stats().syncs, 0);
}

#[test]
fn a_memtable_flush_makes_its_manifest_edit_durable() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), common::profile(64).zones).unwrap());
    let env = RealEnv::new(1);
    env.block_on(async {
        let fs = common::mount(&env, &dev, true).await;
        let db = Db::open(fs, options()).await.unwrap();
        for i in 0..100 {
            db.write(batch(i)).await.unwrap();
        }
        let before = dev.stats().syncs;
        db.flush().await.unwrap();
        // The MANIFEST edit naming the new SST: one flush before its metadata record (the SST
        // and the edit's bytes) and one after (the record).
        assert!(
            dev.stats().syncs - before >= 2,
            "flush made {} device flushes",
            dev.stats().syncs - before
        );
        db.close().await.unwrap();
    });
}

#[test]
fn a_clean_close_flushes_unsynced_writes() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Arc::new(ZoneFileDevice::create(dir.path(), common::profile(64).zones).unwrap());
    let env = RealEnv::new(1);
    env.block_on(async {
        let fs = common::mount(&env, &dev, true).await;
        let db = Db::open(fs, options()).await.unwrap();
        for i in 0..10 {
            db.write(batch(i)).await.unwrap();
        }
        let before = dev.stats().syncs;
        db.close().await.unwrap();
        assert!(dev.stats().syncs > before, "close did not flush the device");
    });
}
