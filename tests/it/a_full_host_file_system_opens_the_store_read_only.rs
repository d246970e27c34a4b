//! A file-backed device on a host file system that fills up (a 8 MiB tmpfs): the benchmark
//! stops with the device full, fsck is clean at once (the layer counted nothing the host
//! refused), and reopening the store opens it for reading only, as a full zoned device opens,
//! where the open once failed on the mount's 16 KiB metadata write.
//!
//! Needs a tmpfs mount (root); without one the test says so and passes.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn zonedb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .unwrap()
}

/// A tmpfs mounted for the test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Self(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn fsck_is_clean(d: &str) {
    let out = zonedb(&["fs", "fsck", "--dir", d]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_full_host_file_system_opens_the_store_read_only() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(host) = Tmpfs::mount(&tmp.path().join("host"), "8m") else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    let dir = host.0.join("dev");
    let d = dir.to_str().unwrap();
    let fill = zonedb(&[
        "bench",
        "--mode",
        "real",
        "--db",
        d,
        "--benchmarks",
        "fillrandom",
        "--num",
        "200000",
        "--scale",
        "1/64",
        "--write_buffer_size",
        "1048576",
    ]);
    let out = String::from_utf8_lossy(&fill.stdout);
    // 3: the device ran out of space (the figures are printed).
    assert_eq!(
        fill.status.code(),
        Some(3),
        "{out}{}",
        String::from_utf8_lossy(&fill.stderr)
    );
    assert!(
        out.contains("stopped: the device is full")
            && out.contains("no space on the host file system"),
        "{out}"
    );
    fsck_is_clean(d);

    let reopen = zonedb(&[
        "bench",
        "--mode",
        "real",
        "--db",
        d,
        "--use_existing_db",
        "--benchmarks",
        "readseq,overwrite",
        "--num",
        "1000",
        "--scale",
        "1/64",
    ]);
    let out = String::from_utf8_lossy(&reopen.stdout);
    // The reads run; the overwrite finds the store read-only, a full device (exit 3).
    assert_eq!(
        reopen.status.code(),
        Some(3),
        "{out}{}",
        String::from_utf8_lossy(&reopen.stderr)
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("readseq") && l.contains(" 1000 operations")),
        "{out}"
    );
    assert!(out.contains("opened read-only"), "{out}");
    fsck_is_clean(d);
}
