//! `zonedb bench` filling the device: the run still prints its figures so far (the result
//! line, the space left, live and garbage bytes, space amplification; the same in `--json`
//! under `device_full`) and exits with status 3, in simulation and in real mode; the full
//! real-mode device then reopens and reads back what the fill wrote.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

use serde_json::Value;

use crate::common::zonedb_output as zonedb;

/// 160 zones of 1 MiB and no cleaning: 200,000 values of 1000 bytes do not fit.
const FILL: &[&str] = &[
    "bench",
    "--benchmarks",
    "fillrandom,readrandom",
    "--num",
    "200000",
    "--value_size",
    "1000",
    "--scale",
    "1/512",
    "--cleaner",
    "none",
];

#[test]
fn a_fill_that_runs_out_of_space_prints_its_figures_and_exits_3() {
    let out = zonedb(FILL);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text.lines().find(|l| l.starts_with("fillrandom")).unwrap();
    assert!(line.contains("(stopped: the device is full)"), "{line}");
    assert!(
        !text.contains("readrandom   :"),
        "benchmarks after a full device do not run"
    );
    let full = text
        .lines()
        .find(|l| l.starts_with("Device full:"))
        .unwrap();
    for what in ["operations done", "live", "garbage", "space amplification"] {
        assert!(full.contains(what), "{full}");
    }

    let out = zonedb(&[FILL, &["--json"]].concat());
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = &v["benchmarks"][0];
    let ops = b["ops"].as_u64().unwrap();
    assert!(ops > 100_000 && ops < 200_000, "{ops} fills");
    assert!(b["stopped_by"].as_str().unwrap().contains("no space"));
    let d = &v["device_full"];
    let live = d["live_bytes"].as_u64().unwrap();
    assert!(
        live > ops * 1000,
        "{live} live bytes hold {ops} values of 1000 bytes"
    );
    assert!(d["garbage_bytes"].is_u64() && d["free_bytes"].is_u64());
    assert!(d["space_amplification"].as_f64().unwrap() >= 1.0);
}

#[test]
fn a_full_real_mode_device_reopens_and_reads_back_the_fill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let out = zonedb(&[
        "bench",
        "--mode",
        "real",
        "--db",
        db,
        "--benchmarks",
        "fillseq",
        "--num",
        "200000",
        "--value_size",
        "1000",
        "--scale",
        "1/512",
        "--write_buffer_size",
        "1048576",
        "--target_file_size_base",
        "1048576",
        "--max_bytes_for_level_base",
        "4194304",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let filled: u64 = text
        .lines()
        .find(|l| l.starts_with("fillseq"))
        .and_then(|l| l.split(" operations;").next())
        .and_then(|l| l.rsplit(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    for _ in 0..2 {
        let out = zonedb(&[
            "bench",
            "--mode",
            "real",
            "--db",
            db,
            "--use_existing_db",
            "--benchmarks",
            "readseq",
            "--num",
            "200000",
            "--scale",
            "1/512",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let read = v["benchmarks"][1]["ops"]
            .as_u64()
            .unwrap_or(v["benchmarks"][0]["ops"].as_u64().unwrap());
        // fillseq writes keys 0..filled in order; unsynced writes at the failure may be lost,
        // but at most the last memtable's worth.
        assert!(
            read <= filled && read + 2000 >= filled,
            "read {read} of {filled} filled keys"
        );
        let fsck = Command::new(env!("CARGO_BIN_EXE_zonedb"))
            .args(["fs", "fsck", "--dir", db])
            .output()
            .unwrap();
        assert!(
            fsck.status.success(),
            "{}",
            String::from_utf8_lossy(&fsck.stdout)
        );
    }
}

#[test]
fn a_ycsb_load_that_runs_out_of_space_prints_its_figures_and_exits_3() {
    let args = [
        "ycsb",
        "-P",
        "workloads/workloada",
        "-p",
        "recordcount=200000",
        "-p",
        "operationcount=10000",
        "--scale",
        "1/512",
        "--cleaner",
        "none",
        "load",
    ];
    let out = zonedb(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("[INSERT], Return=OK,"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("Device full:")),
        "{text}"
    );
    let out = zonedb(&[&args[..], &["--json"]].concat());
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ops = v["phases"][0]["operations"].as_u64().unwrap();
    assert!(ops > 50_000 && ops < 200_000, "{ops} inserts");
    assert!(
        v["phases"][0]["stopped_by"]
            .as_str()
            .unwrap()
            .contains("no space")
    );
    assert!(v["device_full"]["live_bytes"].as_u64().unwrap() > ops * 1000);
}
