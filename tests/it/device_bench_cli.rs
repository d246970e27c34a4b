//! `zonedb device bench`: the JSON contract, determinism (same seed twice gives byte-identical
//! JSON outside `host`), and clear errors for bad arguments.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

use serde_json::Value;

fn zonedb(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .output()
        .expect("zonedb runs")
}

fn bench_json(args: &[&str]) -> Value {
    let mut all = vec!["device", "bench", "--json"];
    all.extend_from_slice(args);
    let out = zonedb(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn without_host(mut v: Value) -> String {
    v.as_object_mut().expect("object").remove("host");
    serde_json::to_string(&v).expect("serializes")
}

#[test]
fn json_has_the_contract_keys() {
    let v = bench_json(&[
        "--profile",
        "tiny",
        "--workload",
        "mixed",
        "--qd",
        "4",
        "--ops",
        "500",
    ]);
    for key in [
        "bandwidth_bytes_per_s",
        "iops",
        "latency_ns_p50",
        "latency_ns_p99",
        "virtual_time_ns",
    ] {
        assert!(v[key].is_number(), "missing {key}: {v}");
    }
    assert!(v["host"]["wall_time_ns"].is_u64());
    assert_eq!(v["ops"], 500);
}

#[test]
fn same_seed_gives_byte_identical_json_outside_host() {
    for workload in ["seq-write", "seq-read", "rand-read", "mixed"] {
        let args = [
            "--profile",
            "splitzns-paper",
            "--scale",
            "1/64",
            "--workload",
            workload,
            "--qd",
            "8",
            "--ops",
            "2000",
            "--seed",
            "42",
        ];
        let a = without_host(bench_json(&args));
        let b = without_host(bench_json(&args));
        assert_eq!(a, b, "{workload} differs between two runs");
    }
    let mut other = [
        "--profile",
        "splitzns-paper",
        "--scale",
        "1/64",
        "--workload",
        "rand-read",
        "--qd",
        "8",
        "--ops",
        "2000",
        "--seed",
        "42",
    ];
    let a = without_host(bench_json(&other));
    other[11] = "43";
    assert_ne!(
        a,
        without_host(bench_json(&other)),
        "the seed should matter for random reads"
    );
}

#[test]
fn every_profile_runs_scaled() {
    for (profile, scale) in [
        ("splitzns-paper", "1/64"),
        ("caza-paper", "1/64"),
        ("oaza-paper", "1/16"),
        ("zn540", "1/8"),
        ("zn540-hhzs", "1/8"),
        ("tiny", "1/1"),
        ("st14000nm0007", "1/256"),
    ] {
        let v = bench_json(&[
            "--profile",
            profile,
            "--scale",
            scale,
            "--workload",
            "rand-read",
            "--qd",
            "4",
            "--ops",
            "200",
        ]);
        assert!(v["iops"].as_f64().unwrap() > 0.0, "{profile}");
    }
}

#[test]
fn zn540_matches_its_measured_latencies() {
    // Measured on a real ZN540: 4 KiB QD1 random read 74 us, 16 KiB 105 us.
    let four = bench_json(&[
        "--profile",
        "zn540",
        "--scale",
        "1/8",
        "--workload",
        "rand-read",
        "--block-size",
        "4096",
        "--ops",
        "300",
    ]);
    let sixteen = bench_json(&[
        "--profile",
        "zn540",
        "--scale",
        "1/8",
        "--workload",
        "rand-read",
        "--block-size",
        "16384",
        "--ops",
        "300",
    ]);
    let us = |v: &Value| v["read"]["latency_ns_mean"].as_f64().unwrap() / 1e3;
    assert!((us(&four) - 74.0).abs() < 4.0, "{}", us(&four));
    assert!((us(&sixteen) - 105.0).abs() < 6.0, "{}", us(&sixteen));
    // Sequential write bandwidth caps near 1.2 GB/s (measured 1146 MiB/s), whatever the queue depth.
    let w = bench_json(&[
        "--profile",
        "zn540",
        "--scale",
        "1/8",
        "--workload",
        "seq-write",
        "--qd",
        "8",
    ]);
    let bw = w["bandwidth_bytes_per_s"].as_f64().unwrap();
    assert!(bw > 1.05e9 && bw < 1.3e9, "{bw}");
}

#[test]
fn bad_arguments_give_clear_errors_not_panics() {
    for args in [
        vec!["device", "bench", "--profile", "nope"],
        vec!["device", "bench", "--profile", "tiny", "--scale", "1/0"],
        vec!["device", "bench", "--profile", "tiny", "--scale", "1/3"],
        vec!["device", "bench", "--profile", "tiny", "--qd", "0"],
        vec![
            "device",
            "bench",
            "--profile",
            "tiny",
            "--workload",
            "sideways",
        ],
        vec![
            "device",
            "bench",
            "--profile",
            "tiny",
            "--block-size",
            "1000",
        ],
        vec!["device", "bench", "--profile", "tiny", "--zones", "999"],
        vec![
            "device",
            "bench",
            "--profile",
            "tiny",
            "--chips-per-zone",
            "3",
        ],
        vec!["device", "bench", "--profile", "tiny", "--payload", "cloud"],
    ] {
        let out = zonedb(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        // Range errors are refused by the argument parser ("error: invalid value ..."),
        // the rest by zonedb itself ("zonedb: error: ...").
        assert!(
            stderr.starts_with("zonedb: error:") || stderr.starts_with("error: invalid value"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn compare_writes_a_report_normalized_to_the_first_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let run = zonedb(&[
        "device",
        "compare",
        "--scale",
        "1/64",
        "--chips-per-zone",
        "16,1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("| 16 chips/zone |") && text.contains("(1.00x)"),
        "{text}"
    );
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("1 chips/zone"));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("compare.json")).unwrap()).unwrap();
    assert_eq!(v["configurations"].as_array().unwrap().len(), 2);
    // Narrow zones write slower than wide ones: the comparison measures something real.
    let bw = |i: usize| {
        v["configurations"][i]["results"]["seq-write 1MiB qd4"]["bandwidth_bytes_per_s"]
            .as_f64()
            .unwrap()
    };
    assert!(bw(1) < bw(0) / 8.0, "{} vs {}", bw(1), bw(0));
}

#[test]
fn payload_choice_does_not_change_timing() {
    let args = |payload: &'static str| {
        [
            "--profile",
            "splitzns-paper",
            "--scale",
            "1/64",
            "--workload",
            "mixed",
            "--qd",
            "4",
            "--ops",
            "1000",
            "--payload",
            payload,
        ]
    };
    let mut file = bench_json(&args("file"));
    let mut mem = bench_json(&args("memory"));
    let mut discard = bench_json(&args("discard"));
    for v in [&mut file, &mut mem, &mut discard] {
        let m = v.as_object_mut().unwrap();
        m.remove("host");
        m.remove("payload");
    }
    assert_eq!(file, mem);
    assert_eq!(mem, discard);
}

#[test]
fn profiles_are_listed_with_their_parameters() {
    let out = zonedb(&["device", "profiles", "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "splitzns-paper",
            "caza-paper",
            "oaza-paper",
            "zn540",
            "zn540-hhzs",
            "tiny",
            "st14000nm0007"
        ]
    );
    assert_eq!(v[0]["timing"]["page_program_ns"], 960_000);
    assert_eq!(v[6]["rpm"], 7200);
    let text = zonedb(&["device", "profiles"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("st14000nm0007"), "{text}");
    assert!(text.contains("zn540-hhzs"), "{text}");
}
