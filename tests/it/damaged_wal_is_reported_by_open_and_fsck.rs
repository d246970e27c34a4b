//! A WAL whose head is damaged: the open keeps RocksDB's recovery-mode semantics (point in
//! time: stop at the damage) but says on stderr what it dropped, and `zonedb fs fsck` reports
//! the damage before any open drops it.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::io::{Read, Seek, SeekFrom, Write};
use std::process::{Command, Output};

fn zonedb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_damaged_wal_head_is_reported_by_fsck_and_by_the_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let d = dir.to_str().unwrap();
    let ack = tmp.path().join("ack");
    let ack = ack.to_str().unwrap();
    let w = zonedb(&[
        "crashtest",
        "write",
        "--fresh",
        "--dir",
        d,
        "--ack",
        ack,
        "--count",
        "300",
    ]);
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    let clean = zonedb(&["fs", "fsck", "--dir", d]);
    assert!(clean.status.success());
    // The synced writes live in the WAL (a clean close does not flush): flip a byte of its
    // first record.
    let ls: serde_json::Value =
        serde_json::from_slice(&zonedb(&["fs", "ls", "--dir", d, "--json"]).stdout).unwrap();
    let wal = ls
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"].as_str().unwrap().ends_with(".log"))
        .unwrap();
    let name = wal["name"].as_str().unwrap().to_owned();
    let at = wal["extents"][0]["start"].as_u64().unwrap() + 20;
    let mut data = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("DATA"))
        .unwrap();
    let mut b = [0u8];
    data.seek(SeekFrom::Start(at)).unwrap();
    data.read_exact(&mut b).unwrap();
    data.seek(SeekFrom::Start(at)).unwrap();
    data.write_all(&[b[0] ^ 0xFF]).unwrap();
    drop(data);

    let fsck = zonedb(&["fs", "fsck", "--dir", d]);
    let out = String::from_utf8_lossy(&fsck.stdout);
    assert_eq!(fsck.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("{name}: offset 0")) && out.contains("damaged log"),
        "{out}"
    );

    // The open drops the whole WAL (point in time) and says so; the crash check then fails.
    let v = zonedb(&["crashtest", "verify", "--dir", d, "--ack", ack]);
    let err = String::from_utf8_lossy(&v.stderr);
    assert_eq!(v.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "WAL recovery (kPointInTimeRecovery): {name} at offset 0"
        )) && err.contains("bytes not replayed"),
        "{err}"
    );
}
