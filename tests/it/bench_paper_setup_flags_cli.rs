//! `zonedb bench` with the Same-Zone Compaction paper's db_bench setup flags
//! (`script/benchmark.sh` at the run commit): `--compression_type snappy` with values from
//! `--compression_ratio`, `--disable_wal true`, `--enable_intraL0_compaction=false`,
//! `--subcompactions`; each flag reaches the engine and changes what it should, and a run
//! with all of them verifies every read.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

use serde_json::Value;

const SMALL: &[&str] = &[
    "--num",
    "20000",
    "--reads",
    "3000",
    "--value_size",
    "400",
    "--write_buffer_size",
    "262144",
    "--target_file_size_base",
    "262144",
    "--max_bytes_for_level_base",
    "1048576",
    "--profile",
    "splitzns-paper",
    "--scale",
    "1/64",
];

fn json_run(extra: &[&str]) -> Value {
    let mut args = vec!["bench", "--json", "--benchmarks", "fillrandom,readrandom"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn flushed_bytes(v: &Value) -> u64 {
    v["db"]["flush_bytes_written"].as_u64().unwrap()
}

#[test]
fn snappy_shrinks_tables_by_the_values_compression_ratio() {
    let none = json_run(&["--compression_type", "none"]);
    let half = json_run(&["--compression_type", "snappy"]);
    let fifth = json_run(&["--compression_type", "snappy", "--compression_ratio", "0.2"]);
    let random = json_run(&["--compression_type", "snappy", "--compression_ratio", "1"]);
    assert_eq!(half["options"]["compression"], "snappy");
    assert_eq!(half["bench"]["compression_ratio"], 0.5);
    let (n, h, f, r) = (
        flushed_bytes(&none),
        flushed_bytes(&half),
        flushed_bytes(&fifth),
        flushed_bytes(&random),
    );
    // Values are 400 of ~420 bytes per entry: tables shrink about as the ratio says.
    assert!(h * 10 < n * 7, "ratio 0.5: {h} of {n}");
    assert!(f * 10 < h * 7, "ratio 0.2: {f} vs 0.5: {h}");
    // Random values do not compress by 1/8: blocks are stored raw (RocksDB's rule).
    assert!(r * 100 > n * 95, "ratio 1: {r} of {n}");
}

#[test]
fn disable_wal_true_writes_no_wal() {
    let on = json_run(&[]);
    let off = json_run(&["--disable_wal", "true"]);
    assert!(on["db"]["wal_bytes"].as_u64().unwrap() > 0);
    assert_eq!(off["db"]["wal_bytes"].as_u64().unwrap(), 0);
    assert_eq!(off["options"]["disable_wal"], true);
}

#[test]
fn the_papers_flags_together_verify_every_read() {
    let v = json_run(&[
        "--compression_type",
        "snappy",
        "--compression_ratio",
        "0.5",
        "--disable_wal",
        "true",
        "--enable_intraL0_compaction=false",
        "--subcompactions",
        "4",
        "--max_background_jobs",
        "4",
        "--verify",
    ]);
    assert_eq!(v["options"]["enable_intra_l0_compaction"], false);
    assert_eq!(v["options"]["max_subcompactions"], 4);
    let read = &v["benchmarks"][1];
    assert!(read["verified_reads"].as_u64().unwrap() >= 3000, "{read}");
    assert!(v["db"]["compactions"].as_u64().unwrap() > 0);
}

#[test]
fn bad_setup_flags_exit_2() {
    for args in [
        &["bench", "--compression_type", "zstd"][..],
        &["bench", "--compression_ratio", "-1"],
        &["bench", "--subcompactions", "0"],
        &["bench", "--enable_intra_l0_compaction", "maybe"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
