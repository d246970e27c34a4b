//! Damage to SSTs and WALs: every single-byte flip of a table gives either the right answer
//! or a `Corruption` error, never wrong data and never a panic; a flipped WAL byte either
//! fails the open with `Corruption` or recovers a prefix of the writes (point-in-time); the
//! decoders take arbitrary bytes without panicking.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use proptest::prelude::*;
use zonedb_env::{RealEnv, SimEnv, SimRng};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::key::{self, ValueType};
use zonedb_lsm::log_format::{LogWriter, RecoveryMode, read_log};
use zonedb_lsm::options::Compression;
use zonedb_lsm::sst::{MemSource, Table, TableBuilder, TableIter, TableOptions};
use zonedb_lsm::{Db, LsmErrorKind};

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn build_table(compression: Compression) -> (Vec<u8>, Entries) {
    let mut b = TableBuilder::new(TableOptions {
        block_size: 256,
        restart_interval: 4,
        bloom_bits_per_key: 10,
        compression,
    });
    let mut entries = Vec::new();
    for i in 0..120u64 {
        let k = key::internal_key(&common::key(i * 2), 1000 - i, ValueType::Value);
        let v = common::value(i, 1);
        b.add(&k, &v);
        entries.push((k, v));
    }
    (b.finish().0, entries)
}

/// Opens, point-reads and scans a (possibly damaged) table; returns whether any read failed.
fn exercise(bytes: Vec<u8>, entries: &[(Vec<u8>, Vec<u8>)]) -> bool {
    let env = RealEnv::new(0);
    env.block_on(async {
        let len = bytes.len() as u64;
        let t = match Table::open(MemSource(Arc::new(bytes), "t.sst".into()), 1, len, None).await {
            Ok(t) => Arc::new(t),
            Err(e) => {
                assert_eq!(e.kind(), LsmErrorKind::Corruption, "{e}");
                return true;
            }
        };
        let mut failed = false;
        for (i, (k, v)) in entries.iter().enumerate().step_by(7) {
            let uk = key::user_key(k);
            match t.get(&key::lookup_key(uk, u64::MAX >> 8)).await {
                Ok(Some((gk, gv))) => assert!(gk == *k && gv == *v, "entry {i}: wrong data"),
                Ok(None) => assert!(t.filter_excludes(uk) || failed, "entry {i}: lost"),
                Err(e) => {
                    assert_eq!(e.kind(), LsmErrorKind::Corruption, "{e}");
                    failed = true;
                }
            }
        }
        let mut it = TableIter::new(t);
        let mut n = 0;
        let r = async {
            it.seek_to_first().await?;
            while let Some((k, v)) = it.current() {
                assert!(
                    k == entries[n].0 && v == entries[n].1,
                    "scan entry {n}: wrong data"
                );
                n += 1;
                it.next().await?;
            }
            Ok::<_, zonedb_lsm::LsmError>(())
        };
        match r.await {
            Ok(()) => assert_eq!(n, entries.len(), "scan lost entries without an error"),
            Err(e) => {
                assert_eq!(e.kind(), LsmErrorKind::Corruption, "{e}");
                failed = true;
            }
        }
        failed
    })
}

#[test]
fn every_flipped_table_byte_is_detected_or_harmless() {
    let raw_len = build_table(Compression::None).0.len();
    for compression in [Compression::None, Compression::Lz4, Compression::Snappy] {
        let (bytes, entries) = build_table(compression);
        if compression != Compression::None {
            // The values repeat a letter: the blocks are stored compressed.
            assert!(
                bytes.len() * 4 < raw_len * 3,
                "{compression:?}: {}",
                bytes.len()
            );
        }
        assert!(!exercise(bytes.clone(), &entries));
        let mut detected = 0;
        for at in 0..bytes.len() {
            let mut d = bytes.clone();
            d[at] ^= 1 << (at % 8);
            if exercise(d, &entries) {
                detected += 1;
            }
        }
        // Bloom filter bits can turn a flip into a harmless false positive; everything else
        // is read by the scan and must be caught.
        assert!(
            detected * 10 >= bytes.len() * 8,
            "{detected} of {}",
            bytes.len()
        );
        for cut in (0..bytes.len()).step_by(13) {
            assert!(exercise(bytes[..cut].to_vec(), &entries));
        }
    }
}

#[test]
fn flipped_wal_bytes_fail_the_open_or_recover_a_prefix() {
    // Build a database whose data sits only in the WAL, then flip bytes of the WAL.
    let mut rng = SimRng::seed_from_u64(3);
    let shortened = Arc::new(std::sync::atomic::AtomicU64::new(0));
    for round in 0..40u64 {
        let short = shortened.clone();
        let env = SimEnv::new(zonedb_env::SimConfig {
            seed: round,
            ..Default::default()
        });
        let dev = common::sim_device(&env, 64);
        let e2 = env.clone();
        let flip: u64 = rng.next_u64();
        let d2 = dev.clone();
        env.run(async move {
            let fs = common::mount(&e2, &d2, true).await;
            let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
            for i in 0..300u64 {
                db.write_sync({
                    let mut b = WriteBatch::new();
                    b.put(&common::key(i), &common::value(i, 0));
                    b
                })
                .await
                .unwrap();
            }
        })
        .unwrap();
        // Power loss keeps the synced WAL; remount and damage it.
        env.kill_all_tasks();
        dev.power_cycle().unwrap();
        let e2 = env.clone();
        env.run(async move {
            let fs = common::mount(&e2, &dev, false).await;
            let wal = fs.list().into_iter().find(|n| n.ends_with(".log")).unwrap();
            let meta = fs.stat(&wal).unwrap();
            let at = flip % meta.size;
            // Damage one byte of the WAL through the device (rewrite the zone's copy).
            let data = fs.read_all(&wal).await.unwrap();
            let mut bad = data.clone();
            bad[at as usize] ^= 0x20;
            let mut w = fs
                .create(&wal, zonedb_fs::placement::Lifetime::Short)
                .await
                .unwrap();
            w.append(&bad).await.unwrap();
            w.close().await.unwrap();
            match Db::open(fs.clone(), common::small_options()).await {
                Err(e) => assert_eq!(e.kind(), LsmErrorKind::Corruption, "round {round}: {e}"),
                Ok(db) => {
                    let all = db.scan(&[], &[], usize::MAX).await.unwrap();
                    if all.len() < 300 {
                        short.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    for (i, (k, v)) in all.iter().enumerate() {
                        assert_eq!(k, &common::key(i as u64), "round {round}: not a prefix");
                        assert_eq!(v, &common::value(i as u64, 0), "round {round}: wrong value");
                    }
                    db.close().await.unwrap();
                }
            }
        })
        .unwrap();
    }
    // Most flips land in record payloads or headers and cut the log there.
    assert!(shortened.load(std::sync::atomic::Ordering::Relaxed) >= 20);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decoders_take_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = WriteBatch::from_data("fuzz", &bytes);
        for mode in [RecoveryMode::PointInTimeRecovery, RecoveryMode::SkipAnyCorruptedRecords, RecoveryMode::AbsoluteConsistency, RecoveryMode::TolerateCorruptedTailRecords] {
            let _ = read_log("fuzz", &bytes, mode);
        }
        let _ = zonedb_lsm::sst::Properties::decode(&bytes);
        if let Some(b) = zonedb_lsm::sst::block::Block::new(&bytes) {
            let _ = b.entries();
            let _ = b.seek(b"k", key::compare);
        }
        let _ = zonedb_lsm::version::VersionEdit::decode(&bytes);
        let env = RealEnv::new(0);
        let n = bytes.len() as u64;
        let _ = env.block_on(Table::open(MemSource(Arc::new(bytes), "f".into()), 1, n, None));
    }

    #[test]
    fn log_records_survive_round_trip(records in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..5000), 0..20)) {
        let mut w = LogWriter::new();
        let mut buf = Vec::new();
        for r in &records {
            w.add_record(r, &mut buf);
        }
        let got = read_log("l", &buf, RecoveryMode::AbsoluteConsistency).unwrap();
        let got: Vec<Vec<u8>> = got.records.into_iter().map(|r| r.1).collect();
        prop_assert_eq!(got, records);
    }
}
