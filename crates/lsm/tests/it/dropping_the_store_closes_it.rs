//! Real mode: a store dropped without `close()` is closed by the drop of its last handle, as
//! RocksDB's destructor closes the database (issue 46, defect 2). With the WAL left buffered
//! (`manual_wal_flush = true`, so the write-through default is not what keeps them), every
//! acknowledged write is there after a reopen in the same process, which also shows the drop
//! released the device's lock; a clone kept alive keeps the store open.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;
use std::sync::Arc;

use zonedb_device::ZoneFileDevice;
use zonedb_env::RealEnv;
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

use crate::common;

fn open(env: &RealEnv, dir: &Path, fresh: bool, opts: DbOptions) -> Db<RealEnv, ZoneFileDevice> {
    let dev = Arc::new(ZoneFileDevice::open_or_create(dir, common::profile(64).zones).unwrap());
    env.block_on(async {
        let fs = common::mount(env, &dev, fresh).await;
        Db::open(fs, opts).await.unwrap()
    })
}

#[test]
fn dropping_the_last_handle_closes_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let env = RealEnv::new(1);
    let opts = DbOptions {
        manual_wal_flush: true,
        ..common::small_options()
    };
    let db = open(&env, tmp.path(), true, opts.clone());
    let clone = db.clone();
    env.block_on(async {
        for i in 0..3_000u64 {
            db.put(&common::key(i), &common::value(i, 1)).await.unwrap();
        }
    });
    drop(db);
    // The clone still works: the store is open until its last handle goes.
    env.block_on(async {
        clone.put(b"last", b"write").await.unwrap();
        assert_eq!(
            clone.get(&common::key(7)).await.unwrap(),
            Some(common::value(7, 1))
        );
    });
    drop(clone);
    let db = open(&env, tmp.path(), false, opts);
    env.block_on(async {
        for i in 0..3_000u64 {
            assert_eq!(
                db.get(&common::key(i)).await.unwrap(),
                Some(common::value(i, 1)),
                "key {i}"
            );
        }
        assert_eq!(db.get(b"last").await.unwrap(), Some(b"write".to_vec()));
        db.close().await.unwrap();
    });
}
