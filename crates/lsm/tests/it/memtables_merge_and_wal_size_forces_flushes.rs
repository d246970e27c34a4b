//! `min_write_buffer_number_to_merge` and `max_total_wal_size`, as RocksDB: a flush waits for
//! that many immutable memtables and writes them as one L0 SST (so L0 files are about twice
//! the memtable with 2), an explicit flush still flushes a lone immutable memtable, and past
//! the WAL limit the memtable is switched early and everything flushed, keeping the live WAL
//! bytes near the limit. Every write stays readable, and across a reopen.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

fn run(opts: DbOptions, keys: u64) -> (zonedb_lsm::DbStats, u64) {
    let env = SimEnv::new(SimConfig {
        seed: 3,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), opts.clone()).await.unwrap();
        let mut max_wal = 0u64;
        for i in 0..keys {
            let k = (i * 7919) % keys;
            db.put(&common::key(k), &common::value(k, 0)).await.unwrap();
            let wal: u64 = fs
                .list()
                .iter()
                .filter(|n| n.ends_with(".log"))
                .map(|n| fs.stat(n).map_or(0, |s| s.size))
                .sum();
            max_wal = max_wal.max(wal);
        }
        db.flush().await.unwrap();
        let s = db.stats();
        db.close().await.unwrap();
        let db = Db::open(fs, opts).await.unwrap();
        for k in (0..keys).step_by(13) {
            assert_eq!(
                db.get(&common::key(k)).await.unwrap(),
                Some(common::value(k, 0))
            );
        }
        db.close().await.unwrap();
        (s, max_wal)
    })
    .unwrap()
}

#[test]
fn two_memtables_merge_into_one_l0_sst() {
    let base = DbOptions {
        max_write_buffer_number: 4,
        level0_file_num_compaction_trigger: 100,
        level0_slowdown_writes_trigger: 200,
        level0_stop_writes_trigger: 300,
        ..common::small_options()
    };
    let (one, _) = run(base.clone(), 6000);
    let (two, _) = run(
        DbOptions {
            min_write_buffer_number_to_merge: 2,
            ..base
        },
        6000,
    );
    assert!(one.flushes >= 8, "{one:?}");
    // Merging two per flush halves the flushes (the last, explicit one may be a lone memtable).
    assert!(
        two.flushes * 2 <= one.flushes + 2,
        "merged {} vs {} flushes",
        two.flushes,
        one.flushes
    );
    let per_flush = |s: &zonedb_lsm::DbStats| s.flush_bytes_written / s.flushes.max(1);
    assert!(
        per_flush(&two) * 2 > per_flush(&one) * 3,
        "merged flushes write {} B each vs {} B",
        per_flush(&two),
        per_flush(&one)
    );
}

#[test]
fn wal_limit_switches_and_flushes_early() {
    let base = DbOptions {
        write_buffer_size: 256 << 10,
        max_write_buffer_number: 4,
        ..common::small_options()
    };
    let (_, unlimited) = run(base.clone(), 5000);
    let (s, limited) = run(
        DbOptions {
            max_total_wal_size: 128 << 10,
            ..base
        },
        5000,
    );
    assert!(unlimited > 240 << 10, "unlimited WAL peak {unlimited}");
    assert!(
        limited < 200 << 10,
        "WAL peak {limited} with a 128 KiB limit"
    );
    assert!(s.flushes > 0);
}

#[test]
fn merge_at_or_above_the_memtable_count_is_refused() {
    let o = DbOptions {
        max_write_buffer_number: 2,
        min_write_buffer_number_to_merge: 2,
        ..DbOptions::default()
    };
    let e = o.validate().unwrap_err().to_string();
    assert!(e.contains("min_write_buffer_number_to_merge"), "{e}");
}
