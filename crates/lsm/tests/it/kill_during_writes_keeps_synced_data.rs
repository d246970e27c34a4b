//! Real mode: a child process writes to a database on a file-backed zoned device, syncing
//! each write and printing `ACK <i>` after it; the parent SIGKILLs it mid-run (flushes and
//! compactions in flight), reopens the database and checks that every acknowledged write is
//! there, that nothing unwritten appears, and that the tree reads consistently. Two rounds: the
//! second child continues on the recovered database.
//!
//! The same without syncs (issue 46's durability contract): by default
//! (`manual_wal_flush = false`) each write group reaches the host's page cache before the
//! write returns, so a SIGKILL, which the kernel outlives, loses no acknowledged write.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use zonedb_device::ZoneFileDevice;
use zonedb_env::RealEnv;
use zonedb_lsm::Db;

const CHILD_DIR_ENV: &str = "ZONEDB_LSM_KILL_CHILD_DIR";
const CHILD_FIRST_ENV: &str = "ZONEDB_LSM_KILL_CHILD_FIRST";
/// "0": the child writes without syncing.
const CHILD_SYNC_ENV: &str = "ZONEDB_LSM_KILL_CHILD_SYNC";
const ACKS_PER_ROUND: u64 = 5000;

fn open_device(dir: &Path) -> Arc<ZoneFileDevice> {
    Arc::new(ZoneFileDevice::open_or_create(dir, common::profile(400).zones).unwrap())
}

/// The child: writes key i = value(i, i) from `first` on, syncing each (unless
/// `CHILD_SYNC_ENV` is "0"), until killed.
#[test]
fn kill_child_writer() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return; // only runs as the child
    };
    let first: u64 = std::env::var(CHILD_FIRST_ENV).unwrap().parse().unwrap();
    let sync = std::env::var(CHILD_SYNC_ENV).map_or(true, |v| v != "0");
    let env = RealEnv::new(1);
    let dev = open_device(Path::new(&dir));
    env.block_on(async {
        let fresh = first == 0;
        let fs = common::mount(&env, &dev, fresh).await;
        let db = Db::open(fs, common::small_options()).await.unwrap();
        for i in first.. {
            let mut b = zonedb_lsm::batch::WriteBatch::new();
            b.put(&common::key(i), &common::value(i, i));
            if i.is_multiple_of(5) && i > 0 {
                b.delete(&common::key(i - 3));
            }
            if sync {
                db.write_sync(b).await.unwrap();
            } else {
                db.write(b).await.unwrap();
            }
            println!("ACK {i}");
        }
    });
}

fn expected(i: u64, acked_until: u64) -> Option<Vec<u8>> {
    // Key i is deleted by write i + 3 when i + 3 is a multiple of 5.
    let deleted_by = i + 3;
    if deleted_by.is_multiple_of(5) && deleted_by <= acked_until {
        None
    } else {
        Some(common::value(i, i))
    }
}

#[test]
fn synced_writes_survive_sigkill() {
    if std::env::var(CHILD_DIR_ENV).is_ok() {
        return;
    }
    kill_rounds(true);
}

#[test]
fn unsynced_writes_survive_sigkill() {
    if std::env::var(CHILD_DIR_ENV).is_ok() {
        return;
    }
    kill_rounds(false);
}

/// Two rounds of a child writer (synced or not) killed after `ACKS_PER_ROUND`
/// acknowledgements, each followed by a reopen that finds every acknowledged write.
fn kill_rounds(sync: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut next = 0u64;
    for round in 0..2 {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "kill_during_writes_keeps_synced_data::kill_child_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR_ENV, tmp.path())
            .env(CHILD_FIRST_ENV, next.to_string())
            .env(CHILD_SYNC_ENV, if sync { "1" } else { "0" })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        // Every acknowledgement the child printed counts, also those printed between the
        // one that triggers the kill and the kill itself: read the pipe to its end.
        let mut last: Option<u64> = None;
        let mut killed = false;
        for line in out.lines() {
            let Ok(line) = line else { break };
            if let Some(i) = line.strip_prefix("ACK ") {
                let i: u64 = i.trim().parse().unwrap();
                last = Some(i);
                if !killed && i + 1 >= next + ACKS_PER_ROUND {
                    child.kill().unwrap();
                    killed = true;
                }
            }
        }
        if !killed {
            child.kill().unwrap();
        }
        let _ = child.wait();
        let last = last.unwrap_or_else(|| panic!("round {round}: child acknowledged nothing"));
        // Reopen and verify.
        let env = RealEnv::new(2);
        let dev = open_device(tmp.path());
        let max_written = env.block_on(async {
            let fs = common::mount(&env, &dev, false).await;
            let db = Db::open(fs, common::small_options()).await.unwrap();
            for i in 0..=last {
                let got = db.get(&common::key(i)).await.unwrap();
                // A delete issued after the last acknowledgement may or may not have landed.
                let unacked_delete = (i + 3).is_multiple_of(5) && i + 3 > last;
                if !(unacked_delete && got.is_none()) {
                    assert_eq!(
                        got,
                        expected(i, last),
                        "round {round}: key {i} (acked up to {last})"
                    );
                }
            }
            let all = db.scan(&[], &[], usize::MAX).await.unwrap();
            let mut max = last;
            for (k, v) in &all {
                let i: u64 = std::str::from_utf8(k).unwrap().parse().unwrap();
                assert_eq!(
                    v,
                    &common::value(i, i),
                    "round {round}: key {i} holds a foreign value"
                );
                max = max.max(i);
            }
            db.close().await.unwrap();
            max
        });
        drop(dev);
        next = max_written + 1;
    }
}
