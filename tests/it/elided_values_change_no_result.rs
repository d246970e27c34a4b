//! Issue 17's exactness check: in simulation, eliding regenerable values (`--elide_values`,
//! on by default) changes nothing a run reports. The JSON outside `"host"` is byte-identical
//! with `--elide_values=false` for db_bench fillrandom + overwrite + readrandom (with
//! `--verify`: every read checked), YCSB workload A, and the same-zone study (at `tiny` scale,
//! its four schemes on fillrandom).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use crate::common::{without_host, zonedb};
use serde_json::Value;

/// `args` run with elision (the default) and with `--elide_values=false`: the same JSON
/// outside `"host"`, which has the run's peak RSS and simulated operations per wall second.
fn same_either_way(args: &[&str]) -> Value {
    let on = zonedb(args);
    let off = zonedb(&[args, &["--elide_values=false"]].concat());
    assert_eq!(without_host(&on), without_host(&off), "zonedb {args:?}");
    let v: Value = serde_json::from_str(&on).unwrap();
    assert!(
        v["host"]["peak_rss_bytes"].as_u64().unwrap() > 0,
        "{args:?}"
    );
    assert!(
        v["host"]["sim_ops_per_wall_s"].as_f64().unwrap() > 0.0,
        "{args:?}"
    );
    v
}

#[test]
fn db_bench_fill_overwrite_and_verified_reads() {
    let v = same_either_way(&[
        "bench",
        "--benchmarks",
        "fillrandom,overwrite,readrandom",
        "--num",
        "20000",
        "--value_size",
        "1024",
        "--verify",
        "--scale",
        "1/64",
        "--write_buffer_size",
        "1048576",
        "--target_file_size_base",
        "1048576",
        "--max_bytes_for_level_base",
        "4194304",
        "--json",
    ]);
    let b = &v["benchmarks"];
    assert_eq!(b[2]["verified_reads"], 20000);
    assert!(v["db"]["compactions"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn ycsb_workload_a() {
    let v = same_either_way(&[
        "ycsb",
        "run",
        "--workload",
        "workloads/workloada",
        "-p",
        "recordcount=5000",
        "-p",
        "operationcount=5000",
        "--scale",
        "1/64",
        "--write_buffer_size",
        "1048576",
        "--json",
    ]);
    assert_eq!(v["phases"][1]["ops"]["UPDATE"]["not_found"], 0);
    assert!(
        v["phases"][1]["ops"]["UPDATE"]["operations"]
            .as_u64()
            .unwrap()
            > 2000
    );
}

#[test]
fn the_same_zone_study_at_tiny_scale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    same_either_way(&[
        "reproduce",
        "same-zone",
        "--scale",
        "tiny",
        "--workloads",
        "fillrandom",
        "--no-text-forms",
        "--no-ablation",
        "--no-sweep",
        "--json",
        "--out",
        out,
    ]);
}

#[test]
fn device_bench_sequential_and_mixed() {
    for args in [
        &[
            "device",
            "bench",
            "--profile",
            "splitzns-paper",
            "--scale",
            "1/64",
            "--workload",
            "seq-write",
            "--qd",
            "4",
            "--zones",
            "4",
            "--json",
        ][..],
        &[
            "device",
            "bench",
            "--profile",
            "caza-paper",
            "--scale",
            "1/64",
            "--workload",
            "mixed",
            "--qd",
            "8",
            "--zones",
            "8",
            "--ops",
            "20000",
            "--json",
        ][..],
    ] {
        let v = same_either_way(args);
        assert!(v["device"]["writes"].as_u64().unwrap() > 0, "{v}");
    }
}
