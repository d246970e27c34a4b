//! A file layer that takes no writes (mounted read-only here; left so by a mount that found
//! no room for its own metadata on a full host file system, in `crates/fs` and the CLI's
//! tests) opens the database for reading only, as a full device does: the recovered writes
//! (WAL included) read back, writes fail, and nothing is created, deleted or written. The open
//! once failed creating its new WAL.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::ZonedDevice;
use zonedb_env::SimEnv;
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::{Db, LsmErrorKind};

#[test]
fn a_read_only_file_layer_opens_the_database_for_reading() {
    let env = SimEnv::new(zonedb_env::SimConfig::default());
    let dev = common::sim_device(&env, 64);
    let (e2, d2) = (env.clone(), dev.clone());
    env.run(async move {
        let fs = common::mount(&e2, &d2, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        for i in 0..2000u64 {
            db.put(&common::key(i), &common::value(i, 1)).await.unwrap();
        }
        db.flush().await.unwrap();
        // These stay in the WAL only.
        for i in 2000..2100u64 {
            db.put(&common::key(i), &common::value(i, 1)).await.unwrap();
        }
        db.close().await.unwrap();
        drop(db);
        drop(fs);
        let before: Vec<_> = {
            let fs = ZoneFs::mount(
                e2.clone(),
                d2.clone(),
                FsOptions {
                    read_only: true,
                    ..common::fs_options()
                },
            )
            .await
            .unwrap();
            fs.files()
        };

        let fs = ZoneFs::mount(
            e2.clone(),
            d2.clone(),
            FsOptions {
                read_only: true,
                ..common::fs_options()
            },
        )
        .await
        .unwrap();
        let stats = d2.stats();
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        let e = db.background_error().unwrap();
        assert!(e.what.starts_with("opened read-only"), "{e}");
        for i in 0..2100u64 {
            let got = db.get(&common::key(i)).await.unwrap();
            assert_eq!(got, Some(common::value(i, 1)), "key {i}");
        }
        let err = db.put(b"more", b"data").await.unwrap_err();
        assert_eq!(err.kind(), LsmErrorKind::InvalidArgument, "{err}");
        db.close().await.unwrap();
        assert_eq!(fs.files(), before, "the read-only open changed no file");
        let after = d2.stats();
        assert_eq!(
            (after.writes, after.zone_resets, after.zone_finishes),
            (stats.writes, stats.zone_resets, stats.zone_finishes),
            "the read-only open wrote nothing"
        );
    })
    .unwrap();
}
