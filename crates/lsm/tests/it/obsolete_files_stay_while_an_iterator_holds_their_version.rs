//! An iterator keeps the version it started with, so the SSTs compactions remove from the tree
//! after it started stay on the device until it is dropped: the `obsolete_sst_*` gauge
//! (RocksDB's `rocksdb.obsolete-sst-files-size`) counts them, the file layer still holds them,
//! and both go back to zero once the iterator is gone, which deletes them.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::Db;
use zonedb_lsm::version::manifest::sst_name;

#[test]
fn an_iterator_pins_the_files_compactions_remove_and_dropping_it_frees_them() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 64);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        let write = |round: u64| {
            let db = db.clone();
            async move {
                for i in 0..3_000u64 {
                    db.put(&common::key(i), &common::value(i, round))
                        .await
                        .unwrap();
                }
                db.flush().await.unwrap();
                db.wait_for_compactions().await.unwrap();
            }
        };
        write(0).await;
        let s = db.stats();
        assert_eq!((s.obsolete_sst_files, s.obsolete_sst_bytes), (0, 0));
        let before: Vec<u64> = db.files().iter().map(|(_, f)| f.number).collect();
        assert!(!before.is_empty());

        let it = db.iter();
        // Overwrite every key: compactions replace the files the iterator's version holds.
        write(1).await;
        let s = db.stats();
        let now: Vec<u64> = db.files().iter().map(|(_, f)| f.number).collect();
        let gone: Vec<u64> = before
            .iter()
            .copied()
            .filter(|n| !now.contains(n))
            .collect();
        assert!(!gone.is_empty(), "the overwrite compacted nothing away");
        assert_eq!(s.obsolete_sst_files, gone.len() as u64, "{s:?}");
        let gone_bytes: u64 = gone
            .iter()
            .map(|n| fs.stat(&sst_name(*n)).unwrap().size)
            .sum();
        assert_eq!(s.obsolete_sst_bytes, gone_bytes);

        drop(it);
        let s = db.stats();
        assert_eq!((s.obsolete_sst_files, s.obsolete_sst_bytes), (0, 0));
        // The purge the drop started deletes them.
        write(2).await;
        for n in &gone {
            assert!(!fs.exists(&sst_name(*n)), "{n} was not deleted");
        }
        db.close().await.unwrap();
    })
    .unwrap();
}
