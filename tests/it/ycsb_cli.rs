//! `zonedb ycsb load|run`: YCSB's output lines per operation for workloads A-F; a simulated
//! run is deterministic in its seed; real mode loads into `--db DIR` and a later `run` reopens
//! it and finds every record; bad input (an unknown `--engine` too) exits 2 with an error.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::process::Command;

use serde_json::Value;

fn zonedb(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

const SMALL: &[&str] = &[
    "-p",
    "recordcount=3000",
    "-p",
    "operationcount=3000",
    "-p",
    "threadcount=2",
    "--write_buffer_size",
    "262144",
    "--target_file_size_base",
    "262144",
    "--max_bytes_for_level_base",
    "1048576",
    "--scale",
    "1/64",
];

fn ycsb(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["ycsb"];
    args.extend_from_slice(extra);
    args.extend_from_slice(SMALL);
    let out = zonedb(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn workloads_a_to_f_print_ycsb_lines_per_operation() {
    for (w, ops) in [
        ("a", vec!["READ", "UPDATE"]),
        ("b", vec!["READ", "UPDATE"]),
        ("c", vec!["READ"]),
        ("d", vec!["READ", "INSERT"]),
        ("e", vec!["SCAN", "INSERT"]),
        ("f", vec!["READ", "READ-MODIFY-WRITE"]),
    ] {
        let file = format!("workloads/workload{w}");
        let text = String::from_utf8(ycsb(&["run", "--workload", &file]).stdout).unwrap();
        assert!(text.contains("[OVERALL], RunTime(ms), "), "{text}");
        assert!(text.contains("[OVERALL], Throughput(ops/sec), "));
        for op in ops {
            for field in [
                "Operations",
                "AverageLatency(us)",
                "95thPercentileLatency(us)",
                "99thPercentileLatency(us)",
                "Return=OK",
            ] {
                assert!(
                    text.contains(&format!("[{op}], {field}, ")),
                    "workload {w}: no [{op}], {field} in\n{text}"
                );
            }
        }
    }
}

#[test]
fn simulated_ycsb_is_deterministic_in_its_seed() {
    let run = || {
        let mut v: Value = serde_json::from_slice(
            &ycsb(&[
                "run",
                "--workload",
                "workloads/workloada",
                "--json",
                "--seed",
                "4",
            ])
            .stdout,
        )
        .unwrap();
        v.as_object_mut().unwrap().remove("host");
        v
    };
    let a = run();
    assert_eq!(a, run());
    assert_eq!(a["phases"][0]["operations"].as_u64(), Some(3000));
    assert_eq!(a["phases"][1]["operations"].as_u64(), Some(3000));
}

#[test]
fn real_mode_run_reopens_what_load_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("db");
    let d = d.to_str().unwrap();
    ycsb(&[
        "load",
        "--workload",
        "workloads/workloadc",
        "--mode",
        "real",
        "--db",
        d,
    ]);
    let v: Value = serde_json::from_slice(
        &ycsb(&[
            "run",
            "--workload",
            "workloads/workloadc",
            "--mode",
            "real",
            "--db",
            d,
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    let reads = &v["phases"][0]["ops"]["READ"];
    assert_eq!(reads["operations"].as_u64(), Some(3000));
    assert_eq!(
        reads["ok"].as_u64(),
        Some(3000),
        "every record loaded is found: {reads}"
    );
}

#[test]
fn bad_ycsb_input_exits_2() {
    for args in [
        vec!["ycsb", "walk", "--workload", "workloads/workloada"],
        vec!["ycsb", "run", "--workload", "no/such/file"],
        vec![
            "ycsb",
            "run",
            "--workload",
            "workloads/workloada",
            "-p",
            "readproportion=x",
        ],
        vec![
            "ycsb",
            "run",
            "--workload",
            "workloads/workloada",
            "-p",
            "nokeyvalue",
        ],
        vec![
            "ycsb",
            "run",
            "--workload",
            "workloads/workloada",
            "--mode",
            "real",
        ],
        vec![
            "ycsb",
            "load",
            "--workload",
            "workloads/workloada",
            "--engine",
            "nosuch",
        ],
        // A peer runs in real mode on a directory (or this build has no fjall at all).
        vec![
            "ycsb",
            "load",
            "--workload",
            "workloads/workloada",
            "--engine",
            "fjall",
        ],
    ] {
        let out = zonedb(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    }
}
