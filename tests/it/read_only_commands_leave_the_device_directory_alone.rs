//! Inspection and verification never create, format or rewrite a device: `crashtest verify`,
//! `fs ls|df|dump|fsck` and `bench --use_existing_db` on a missing or damaged file-backed
//! device fail with a clear message and leave the directory byte-identical (a missing one is
//! not created), and `fs ls|df|dump|fsck` on a healthy device (open zones included, as a
//! killed writer leaves them) do not change a byte either.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "the test waits for a child process in wall time"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn zonedb(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every file of `dir` (name → bytes); `None` when `dir` does not exist.
fn snapshot(dir: &Path) -> Option<BTreeMap<PathBuf, Vec<u8>>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .map(|e| {
                let p = e.unwrap().path();
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect(),
    )
}

/// A device with data and open zones: a synced writer killed mid-run.
fn killed_writer_device(dir: &Path, ack: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args([
            "crashtest",
            "write",
            "--dir",
            dir.to_str().unwrap(),
            "--ack",
            ack.to_str().unwrap(),
            "--fresh",
            "--scale",
            "1/512",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until some writes are acknowledged (at most 20 s).
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(100));
        if std::fs::read_to_string(ack).is_ok_and(|t| t.lines().count() > 50) {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The read-only commands on `dir`; each must fail (`expect_ok` false) or succeed, and leave
/// the directory exactly as it was.
fn check_commands(dir: &Path, ack: &Path, expect_ok: bool) {
    let d = dir.to_str().unwrap();
    let a = ack.to_str().unwrap();
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["fs", "ls", "--dir", d],
        vec!["fs", "df", "--dir", d],
        vec!["fs", "dump", "--dir", d],
        vec!["fs", "fsck", "--dir", d],
    ];
    if !expect_ok {
        commands.push(vec!["crashtest", "verify", "--dir", d, "--ack", a]);
        commands.push(vec![
            "bench",
            "--mode",
            "real",
            "--db",
            d,
            "--use_existing_db",
            "--benchmarks",
            "readrandom",
            "--num",
            "10",
        ]);
    }
    for args in commands {
        let before = snapshot(dir);
        let out = zonedb(&args);
        let t = text(&out);
        assert_eq!(out.status.success(), expect_ok, "{args:?}: {t}");
        if !expect_ok {
            assert!(!t.contains("panicked"), "{args:?}: {t}");
            assert!(
                t.contains("no zone file device") || t.contains("header"),
                "{args:?} should say what is wrong: {t}"
            );
        }
        assert!(
            before == snapshot(dir),
            "{args:?} changed {}",
            dir.display()
        );
    }
}

#[test]
fn read_only_commands_leave_the_device_directory_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let ack = tmp.path().join("ack");
    killed_writer_device(&dir, &ack);

    // Healthy device with open zones: inspection succeeds and writes nothing.
    check_commands(&dir, &ack, true);

    // Damaged header.
    let header = dir.join("HEADER");
    let good = std::fs::read(&header).unwrap();
    let mut bad = good.clone();
    bad[20] ^= 0x40;
    std::fs::write(&header, &bad).unwrap();
    check_commands(&dir, &ack, false);

    // Missing header (the device used to be rebuilt over its data).
    std::fs::remove_file(&header).unwrap();
    check_commands(&dir, &ack, false);

    // Missing directory: not created.
    let missing = tmp.path().join("missing");
    check_commands(&missing, &ack, false);
    assert!(!missing.exists());

    // The header back: the acknowledged writes are all there.
    std::fs::write(&header, &good).unwrap();
    let out = zonedb(&[
        "crashtest",
        "verify",
        "--dir",
        dir.to_str().unwrap(),
        "--ack",
        ack.to_str().unwrap(),
        "--partial_log",
    ]);
    assert!(out.status.success(), "{}", text(&out));
}
