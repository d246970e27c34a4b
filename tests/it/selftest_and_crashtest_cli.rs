//! `zonedb selftest` and `zonedb crashtest` on a file-backed device (the QEMU ZNS test runs
//! the same commands on a Linux zoned block device): the suites pass, a killed synced writer
//! loses nothing it acknowledged, a log claiming more than survived fails the check, and a
//! path that is not a zoned block device is refused with a message that says what to do.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "the test waits for a child process in wall time"
)]

use std::io::Write;
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

#[test]
fn selftest_passes_on_a_file_backed_device() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let out = zonedb(&[
        "selftest",
        "--dir",
        dir.to_str().unwrap(),
        "--fs_steps",
        "150",
        "--db_ops",
        "3000",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("5 passed, 0 failed"), "{t}");
    assert!(
        t.contains("engine: db matches a BTreeMap oracle ... ok"),
        "{t}"
    );
}

#[test]
fn paths_that_are_not_zoned_block_devices_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::write(&plain, b"not a device").unwrap();
    for args in [
        vec!["selftest", "--device", plain.to_str().unwrap()],
        vec!["fs", "mkfs", "--device", plain.to_str().unwrap()],
        vec!["fs", "fsck", "--device", "/dev/null"],
        vec![
            "bench",
            "--mode",
            "real",
            "--device",
            "/dev/null",
            "--benchmarks",
            "fillrandom",
        ],
    ] {
        let out = zonedb(&args);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains("not a block device"), "{args:?}: {t}");
    }
}

#[test]
fn a_killed_synced_writer_loses_nothing_it_acknowledged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let ack = tmp.path().join("ack");
    let (d, a) = (dir.to_str().unwrap(), ack.to_str().unwrap());
    let mut child = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(["crashtest", "write", "--dir", d, "--fresh", "--ack", a])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a few thousand ops are acknowledged, then SIGKILL.
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(25));
        let n = std::fs::read_to_string(&ack).map_or(0, |s| s.lines().count());
        if n > 3000 {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let acked = std::fs::read_to_string(&ack).unwrap().lines().count();
    assert!(acked > 100, "the writer made progress ({acked})");
    let out = zonedb(&["crashtest", "verify", "--dir", d, "--ack", a]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains(": ok"), "{t}");
    let out = zonedb(&["fs", "fsck", "--dir", d]);
    assert!(out.status.success(), "{}", text(&out));

    // A log that claims far more than was written must fail the check.
    let mut f = std::fs::OpenOptions::new().append(true).open(&ack).unwrap();
    writeln!(f, "\n{}", acked + 5000).unwrap();
    let out = zonedb(&["crashtest", "verify", "--dir", d, "--ack", a]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("were acknowledged but only"), "{t}");
}
