//! A MANIFEST whose last complete record has a flipped byte must fail the open with a
//! corruption error naming the MANIFEST and the record's offset (as RocksDB does), never open
//! a silently rolled-back tree; a MANIFEST whose last record was cut short by a crash opens
//! without that record. Before the fix, both opened, the damaged one with the keys of the
//! last edit missing.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use zonedb_device::ZnsSsd;
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::Lifetime;
use zonedb_lsm::log_format::{RecoveryMode, read_log};
use zonedb_lsm::version::manifest::{CURRENT, manifest_name};
use zonedb_lsm::{Db, LsmError, LsmErrorKind};

type Fs = Arc<ZoneFs<SimEnv, ZnsSsd<SimEnv>>>;

/// Replaces the live MANIFEST by `MANIFEST-900000` holding `edit(bytes, last record offset)`.
async fn rewrite_manifest(fs: &Fs, edit: impl Fn(&mut Vec<u8>, usize)) -> String {
    let current = fs.read_all(CURRENT).await.unwrap();
    let name = String::from_utf8(current).unwrap().trim_end().to_owned();
    let mut bytes = fs.read_all(&name).await.unwrap();
    let log = read_log(&name, &bytes, RecoveryMode::AbsoluteConsistency).unwrap();
    assert!(log.records.len() >= 3, "want a MANIFEST of several edits");
    let last = usize::try_from(log.records.last().unwrap().0).unwrap();
    edit(&mut bytes, last);
    let new = manifest_name(900_000);
    let mut w = fs.create(&new, Lifetime::NotSet).await.unwrap();
    w.append(&bytes).await.unwrap();
    w.close().await.unwrap();
    let mut c = fs.create("900000.dbtmp", Lifetime::NotSet).await.unwrap();
    c.append(format!("{new}\n").as_bytes()).await.unwrap();
    c.close().await.unwrap();
    fs.rename("900000.dbtmp", CURRENT).await.unwrap();
    new
}

/// A database of a few flushes, closed; then `damage` applied to its MANIFEST; then opened.
fn open_after(damage: fn(&mut Vec<u8>, usize)) -> (String, Result<usize, LsmError>) {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 40);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let db = Db::open(fs.clone(), common::small_options()).await.unwrap();
        for round in 0..4u64 {
            for i in 0..300 {
                db.put(&common::key(round * 1000 + i), &common::value(i, round))
                    .await
                    .unwrap();
            }
            db.flush().await.unwrap();
        }
        db.wait_for_compactions().await.unwrap();
        db.close().await.unwrap();
        let name = rewrite_manifest(&fs, damage).await;
        let opened = match Db::open(fs.clone(), common::small_options()).await {
            Ok(db) => {
                let n = db.scan(b"", b"\xff", usize::MAX).await.unwrap().len();
                db.close().await.unwrap();
                Ok(n)
            }
            Err(e) => Err(e),
        };
        (name, opened)
    })
    .unwrap()
}

#[test]
fn a_flipped_byte_in_the_last_manifest_record_fails_the_open() {
    for at in [3, 7, 12] {
        let (name, opened) = open_after(match at {
            3 => |b: &mut Vec<u8>, last: usize| b[last + 3] ^= 0x10,
            7 => |b: &mut Vec<u8>, last: usize| b[last + 7] ^= 0x10,
            _ => |b: &mut Vec<u8>, last: usize| {
                let end = b.len() - 1;
                b[end.min(last + 12)] ^= 0x10;
            },
        });
        match opened {
            Err(e @ LsmError::Corruption { .. }) => {
                assert_eq!(e.kind(), LsmErrorKind::Corruption);
                assert!(e.to_string().contains(&name), "{e}");
            }
            other => panic!("flip at +{at}: the open must fail with corruption, got {other:?}"),
        }
    }
}

#[test]
fn a_torn_last_manifest_record_is_dropped() {
    let (_, whole) = open_after(|_, _| {});
    let whole = whole.unwrap();
    assert_eq!(whole, 1200);
    let (_, torn) = open_after(|b, last| b.truncate(last + 9));
    assert!(torn.is_ok(), "{torn:?}");
}
