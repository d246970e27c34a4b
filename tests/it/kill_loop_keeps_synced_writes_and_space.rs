//! A short run of `scripts/kill-loop.sh` (5 cycles): a synced writer (and an unsynced one) on a file-backed device
//! SIGKILLed at random instants loses no acknowledged write, fsck stays clean, and the device
//! directory's disk usage stays within 5 % of what its zones hold (resets give space back).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

#[test]
fn kill_loop_keeps_synced_writes_and_space() {
    kill_loop(&[]);
}

/// The same with a writer that does not sync: every acknowledged op reached the OS first.
#[test]
fn kill_loop_keeps_unsynced_acknowledged_writes() {
    kill_loop(&["--unsynced"]);
}

fn kill_loop(extra: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/kill-loop.sh");
    let out = Command::new("bash")
        .args([
            script,
            "-n",
            "5",
            "-s",
            "7",
            "--min-ms",
            "200",
            "--max-ms",
            "900",
            "--check-every",
            "5",
            "-d",
            tmp.path().join("loop").to_str().unwrap(),
        ])
        .args(extra)
        .env("ZONEDB", env!("CARGO_BIN_EXE_zonedb"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("5 cycles"), "{text}");
    assert!(text.contains(" 0 failures; fsck clean 5/5"), "{text}");
}
