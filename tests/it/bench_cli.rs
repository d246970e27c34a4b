//! `zonedb bench`: db_bench's result lines; a simulated run is deterministic in its seed
//! (identical JSON outside `host`); real mode keeps the database in `--db DIR` and a second
//! run with `--use_existing_db` reopens it and finds the keys; bad flags exit 2 with an error.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use serde_json::Value;

use crate::common::zonedb_output as zonedb;

const SMALL: &[&str] = &[
    "--num",
    "30000",
    "--reads",
    "5000",
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
    let mut args = vec!["bench", "--json"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    let out = zonedb(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn simulated_bench_prints_db_bench_lines_and_is_deterministic() {
    let mut args = vec![
        "bench",
        "--benchmarks",
        "fillseq,fillrandom,overwrite,readrandom,readseq,seekrandom,deleterandom",
    ];
    args.extend_from_slice(SMALL);
    let out = zonedb(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "fillseq ",
        "fillrandom ",
        "overwrite ",
        "readrandom ",
        "readseq ",
        "seekrandom ",
        "deleterandom ",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} line in\n{text}"));
        assert!(
            line.contains(" micros/op ")
                && line.contains(" ops/sec ")
                && line.contains(" operations;"),
            "{line}"
        );
    }
    let rr = text.lines().find(|l| l.starts_with("readrandom")).unwrap();
    assert!(rr.contains(" of 5000 found)"), "{rr}");

    let mut a = json_run(&[
        "--benchmarks",
        "fillrandom,readrandom",
        "--seed",
        "3",
        "--threads",
        "2",
    ]);
    let mut b = json_run(&[
        "--benchmarks",
        "fillrandom,readrandom",
        "--seed",
        "3",
        "--threads",
        "2",
    ]);
    a.as_object_mut().unwrap().remove("host");
    b.as_object_mut().unwrap().remove("host");
    assert_eq!(a, b, "same seed, different results");
    assert!(a["db"]["flushes"].as_u64().unwrap() > 0);
    let found = a["benchmarks"][1]["found"].as_u64().unwrap();
    // 2 threads × 30000 random writes over 30000 keys: about 1 - e^-2 = 86 % exist.
    assert!((8000..9500).contains(&found), "found {found} of 10000");
}

#[test]
fn mixed_benchmarks_and_histograms_print_as_db_bench_does() {
    let mut args = vec![
        "bench",
        "--benchmarks",
        "fillrandom,readwhilewriting,readrandomwriterandom",
        "--histogram",
    ];
    args.extend_from_slice(SMALL);
    let out = zonedb(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rww = text
        .lines()
        .find(|l| l.starts_with("readwhilewriting :"))
        .unwrap();
    assert!(rww.ends_with(" of 5000 found)"), "{rww}");
    let rwr = text
        .lines()
        .find(|l| l.starts_with("readrandomwriterandom :"))
        .unwrap();
    assert!(
        rwr.contains("( reads:4500 writes:500 total:5000 found:"),
        "{rwr}"
    );
    for h in [
        "Microseconds per write:",
        "Microseconds per read:",
        "Percentiles: P50: ",
    ] {
        assert!(text.contains(h), "no {h} in\n{text}");
    }
    assert!(
        text.contains(
            "------------------------------------------------------\n[       0,       1 ]"
        )
    );
}

#[test]
fn real_mode_keeps_the_database_for_use_existing_db() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let d = dir.to_str().unwrap();
    let first = json_run(&["--mode", "real", "--db", d, "--benchmarks", "fillseq"]);
    assert_eq!(first["benchmarks"][0]["ops"].as_u64(), Some(30000));
    let second = json_run(&[
        "--mode",
        "real",
        "--db",
        d,
        "--use_existing_db",
        "--benchmarks",
        "fillseq,readrandom",
    ]);
    assert_eq!(second["benchmarks"][0]["skipped"].as_bool(), Some(true));
    assert_eq!(
        second["benchmarks"][1]["found"].as_u64(),
        Some(5000),
        "fillseq wrote every key"
    );
    // Without --use_existing_db the database starts fresh.
    let third = json_run(&["--mode", "real", "--db", d, "--benchmarks", "readrandom"]);
    assert_eq!(third["benchmarks"][0]["found"].as_u64(), Some(0));
}

#[test]
fn bad_flags_exit_2_with_an_error() {
    for args in [
        vec!["bench", "--benchmarks", "nosuch"],
        vec!["bench", "--mode", "warp"],
        vec!["bench", "--mode", "real"],
        vec!["bench", "--use_existing_db"],
        vec!["bench", "--write_buffer_size", "5"],
        vec!["bench", "--compaction_pri", "kNope"],
        vec!["bench", "--key_size", "4", "--num", "10"],
        vec!["bench", "--engine", "nosuch"],
        vec!["bench", "--engine", "fjall"],
        vec!["bench", "--device", "/dev/null"],
        vec!["bench", "--zone_append"],
    ] {
        let out = zonedb(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn readwhilewriting_reports_its_background_writer() {
    let v = json_run(&["--benchmarks", "fillrandom,readwhilewriting"]);
    let b = &v["benchmarks"];
    assert!(b[0].get("background_writes").is_none(), "{}", b[0]);
    let w = b[1]["background_writes"].as_u64().unwrap();
    assert!(w > 0, "the writer ran: {}", b[1]);
}

#[test]
fn latency_is_reported_by_operation_type() {
    let v = json_run(&["--benchmarks", "fillrandom,readrandomwriterandom"]);
    let b = &v["benchmarks"];
    assert_eq!(
        b[0]["latency_by_op"]["write"]["count"], b[0]["ops"],
        "{}",
        b[0]
    );
    let by_op = &b[1]["latency_by_op"];
    let count = |op: &str| by_op[op]["count"].as_u64().unwrap();
    assert_eq!(
        count("read") + count("write"),
        b[1]["ops"].as_u64().unwrap(),
        "{by_op}"
    );
    // db_bench's readwritepercent is 90 by default.
    assert!(count("read") > 4 * count("write"), "{by_op}");
}

#[test]
fn waitforcompaction_settles_the_tree_and_close_does_not() {
    // As db_bench: the run ends when the last benchmark does, with compaction debt left.
    let open = json_run(&["--benchmarks", "fillrandom"]);
    assert!(
        open["db"]["pending_compaction_bytes"].as_u64().unwrap() > 0
            || open["db"]["level_files"][0].as_u64().unwrap() >= 4,
        "the fill left no compaction work: {}",
        open["db"]
    );
    let settled = json_run(&["--benchmarks", "fillrandom,waitforcompaction"]);
    let b = &settled["benchmarks"][1];
    assert_eq!(
        (b["name"].as_str(), b["ops"].as_u64()),
        (Some("waitforcompaction"), Some(0))
    );
    assert!(b["wall_ns"].as_u64().unwrap() > 0, "{b}");
    assert_eq!(
        settled["db"]["pending_compaction_bytes"], 0,
        "{}",
        settled["db"]
    );
    assert!(settled["db"]["level_files"][0].as_u64().unwrap() < 4);
    assert!(settled["virtual_end_ns"].as_u64().unwrap() > open["virtual_end_ns"].as_u64().unwrap());
}

#[test]
fn filluniquerandom_writes_every_key_once_where_fillrandom_repeats_some() {
    let unique = json_run(&["--benchmarks", "filluniquerandom,readrandom"]);
    assert_eq!(unique["benchmarks"][0]["ops"].as_u64(), Some(30000));
    assert_eq!(
        unique["benchmarks"][1]["found"].as_u64(),
        Some(5000),
        "every key was written"
    );
    let random = json_run(&["--benchmarks", "fillrandom,readrandom"]);
    let found = random["benchmarks"][1]["found"].as_u64().unwrap();
    assert!(
        found < 4600,
        "fillrandom draws with replacement: {found} of 5000 found"
    );
}
