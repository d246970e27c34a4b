//! Symbolic links are never written through: `crashtest write --fresh` with `DATA` or
//! `ZONES` linked elsewhere, an existing device whose `DATA` became a link, `run` and
//! `compare` with a linked `compare.md` or a dangling `series-0.csv` in the report
//! directory, a sweep with a planted `scenarios/c00-s1.toml` and `crashtest write` with a linked `--ack`
//! log each exit 2 naming the link,
//! and the link's target is left as it was (a dangling link's is not created).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::zonedb_output as zonedb;

const VICTIM: &[u8] = b"precious\n";

const SCENARIO: &str = r#"
name = "tiny"
seed = 3
sample_interval_ms = 20
[device]
scale = "1/512"
[engine]
write_buffer_size = 1048576
target_file_size_base = 1048576
[workload]
benchmarks = "fillrandom"
num = 2000
value_size = 256
"#;

/// Runs `zonedb args`: it must exit 2 naming `link` as a symbolic link.
fn refused(args: &[&str], link: &Path) {
    let out = zonedb(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(&link.display().to_string()) && err.contains("symbolic link"),
        "{args:?}: want {} named as a symbolic link: {err}",
        link.display()
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `crashtest write --fresh` of 10 ops on a 1/512 device in `dir`, logging to `ack`.
fn fresh_write<'a>(dir: &'a Path, ack: &'a Path) -> [&'a str; 11] {
    [
        "crashtest",
        "write",
        "--fresh",
        "--dir",
        s(dir),
        "--scale",
        "1/512",
        "--ack",
        s(ack),
        "--count",
        "10",
    ]
}

#[test]
fn crashtest_write_fresh_refuses_linked_device_files() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    let ack = tmp.path().join("ack");
    for name in ["DATA", "ZONES"] {
        let dir = tmp.path().join(format!("dev-{name}"));
        std::fs::create_dir(&dir).unwrap();
        symlink(&victim, dir.join(name)).unwrap();
        refused(&fresh_write(&dir, &ack), &dir.join(name));
        assert_eq!(std::fs::read(&victim).unwrap(), VICTIM, "{name}");
    }
    // A dangling link: nothing is created at its target.
    let dir = tmp.path().join("dev-dangling");
    std::fs::create_dir(&dir).unwrap();
    let nowhere = tmp.path().join("nowhere");
    symlink(&nowhere, dir.join("DATA")).unwrap();
    refused(&fresh_write(&dir, &ack), &dir.join("DATA"));
    assert!(!nowhere.exists());
}

#[test]
fn crashtest_write_refuses_a_linked_acknowledgement_log() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    let ack = tmp.path().join("ack");
    symlink(&victim, &ack).unwrap();
    let dir = tmp.path().join("dev");
    refused(&fresh_write(&dir, &ack), &ack);
    assert_eq!(std::fs::read(&victim).unwrap(), VICTIM);
}

#[test]
fn an_existing_device_whose_data_became_a_link_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let out = zonedb(&["fs", "mkfs", "--dir", s(&dir), "--scale", "1/512"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let moved = tmp.path().join("DATA-elsewhere");
    std::fs::rename(dir.join("DATA"), &moved).unwrap();
    symlink(&moved, dir.join("DATA")).unwrap();
    let before = std::fs::metadata(&moved).unwrap();
    let ack = tmp.path().join("ack");
    refused(
        &[
            "crashtest",
            "write",
            "--dir",
            s(&dir),
            "--ack",
            s(&ack),
            "--count",
            "10",
        ],
        &dir.join("DATA"),
    );
    let after = std::fs::metadata(&moved).unwrap();
    assert_eq!(before.len(), after.len());
    assert_eq!(before.modified().unwrap(), after.modified().unwrap());
}

#[test]
fn run_and_compare_refuse_links_in_the_report_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let scen = tmp.path().join("s.toml");
    std::fs::write(&scen, SCENARIO).unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    for cmd in ["run", "compare"] {
        let out = tmp.path().join(format!("report-{cmd}"));
        std::fs::create_dir(&out).unwrap();
        symlink(&victim, out.join("compare.md")).unwrap();
        refused(&[cmd, s(&scen), "--out", s(&out)], &out.join("compare.md"));
        assert_eq!(std::fs::read(&victim).unwrap(), VICTIM, "{cmd}");
    }
    // A dangling series file.
    let out = tmp.path().join("report-dangling");
    std::fs::create_dir(&out).unwrap();
    let nowhere = tmp.path().join("nowhere.csv");
    symlink(&nowhere, out.join("series-0.csv")).unwrap();
    refused(
        &["run", s(&scen), "--out", s(&out)],
        &out.join("series-0.csv"),
    );
    assert!(!nowhere.exists());
}

#[test]
fn a_sweep_refuses_a_planted_scenario_file() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("sweep.toml");
    let body = SCENARIO
        .replace("\n[", "\n[scenario.")
        .replace("\nname = \"tiny\"", "")
        .replace("\nseed = 3", "");
    std::fs::write(
        &sweep,
        format!("name = \"t\"\nseeds = 1\nseed = 1\n[scenario]\nname = \"base\"{body}\n[grid]\n\"fs.cleaner\" = [\"zenfs\"]\n"),
    )
    .unwrap();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(out.join("scenarios")).unwrap();
    let link = out.join("scenarios").join("c00-s1.toml");
    symlink(&victim, &link).unwrap();
    refused(&["sweep", s(&sweep), "--out", s(&out)], &link);
    assert_eq!(std::fs::read(&victim).unwrap(), VICTIM);
}
