//! The end-of-run checks every study runs must fail, not pass, when the data is not what was
//! acknowledged: an intact run passes with every sampled key checked; a database that lost or
//! changed a followed key's last write fails with `HarnessError::Invariant` naming the key.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_harness::db_bench::HarnessError;
use zonedb_harness::invariants::{WriteSample, check};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

fn key(i: u64) -> Vec<u8> {
    format!("{i:016}").into_bytes()
}

/// Writes 5,000 keys (recorded in a ledger), then applies `tamper` behind the ledger's back
/// and runs the checks.
fn checked_after(tamper: fn(u64) -> Option<Option<Vec<u8>>>) -> Result<u64, HarnessError> {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 200;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    let dev = Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(200)).unwrap());
    let e2 = env.clone();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let fs = ZoneFs::mount(e2, dev, FsOptions::default()).await.unwrap();
        let opts = DbOptions {
            write_buffer_size: 64 << 10,
            target_file_size_base: 64 << 10,
            max_bytes_for_level_base: 256 << 10,
            ..DbOptions::default()
        };
        let db = Db::open(fs.clone(), opts).await.unwrap();
        let ledger = WriteSample::new();
        for i in 0..5000 {
            let v = format!("value {i}").repeat(5).into_bytes();
            db.put(&key(i), &v).await.unwrap();
            ledger.put(&key(i), &v);
        }
        for i in 0..5000 {
            if WriteSample::follows(&key(i)) {
                match tamper(i) {
                    Some(Some(v)) => db.put(&key(i), &v).await.unwrap(),
                    Some(None) => db.delete(&key(i)).await.unwrap(),
                    None => {}
                }
            }
        }
        db.flush().await.unwrap();
        let r = check(&db, &fs, Some(&ledger), 97).await;
        db.close().await.unwrap();
        r.map(|r| {
            assert_eq!(r.keys_scanned, 5000);
            assert!(r.sampled_reads >= 2 * (5000 / 97));
            r.ledger_keys_checked
        })
    })
    .unwrap()
}

#[test]
fn an_intact_database_passes_with_every_followed_key_checked() {
    let checked = checked_after(|_| None).unwrap();
    assert!(
        (40..130).contains(&checked),
        "{checked} keys followed of 5000"
    );
}

#[test]
fn a_changed_value_fails_the_check() {
    let err = checked_after(|i| (i % 2 == 0).then(|| Some(b"not what was written".to_vec())));
    assert!(
        matches!(&err, Err(HarnessError::Invariant(m)) if m.contains("last acknowledged write")),
        "{err:?}"
    );
}

#[test]
fn a_lost_write_fails_the_check() {
    let err = checked_after(|_| Some(None));
    assert!(
        matches!(&err, Err(HarnessError::Invariant(m)) if m.contains("the database holds nothing")),
        "{err:?}"
    );
}
