//! `zonedb compare` and `zonedb run` on scenario files: a table normalized to the first
//! configuration; the report (Markdown, HTML, JSON, CSV time series, SVG plots); the same
//! scenario twice gives identical results; a failing configuration is reported without
//! sinking the others; bad scenarios exit 2.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use serde_json::Value;

use crate::common::zonedb_output as zonedb;

const SCENARIO: &str = r#"
name = "base"
seed = 3
sample_interval_ms = 20
[device]
profile = "splitzns-paper"
scale = "1/64"
[engine]
write_buffer_size = 1048576
target_file_size_base = 1048576
max_bytes_for_level_base = 4194304
[workload]
benchmarks = "fillrandom,readrandom"
num = 20000
reads = 2000
value_size = 512
[[compare]]
name = "narrow zones"
device = { chips_per_zone = 1 }
"#;

#[test]
fn compare_writes_a_normalized_table_and_a_full_report() {
    let tmp = tempfile::tempdir().unwrap();
    let scen = tmp.path().join("s.toml");
    std::fs::write(&scen, SCENARIO).unwrap();
    let out_dir = tmp.path().join("report");
    let run = |json: bool| {
        let mut args = vec![
            "compare",
            scen.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let o = zonedb(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let text = run(false);
    assert!(
        text.contains("| base | ") && text.contains("| narrow zones | "),
        "{text}"
    );
    let base_row = text.lines().find(|l| l.starts_with("| base |")).unwrap();
    assert!(base_row.matches("(1.00x)").count() >= 8, "{base_row}");
    for f in [
        "compare.md",
        "compare.html",
        "compare.json",
        "series-0.csv",
        "series-1.csv",
        "throughput.svg",
        "free-space.svg",
        "stalls.svg",
        "level-sizes.svg",
        "latency-cdf.svg",
        "sst-lifetimes.svg",
        "throughput.png",
        "level-sizes.png",
        "latency-cdf.png",
    ] {
        let p = out_dir.join(f);
        assert!(
            std::fs::metadata(&p)
                .map(|m| m.len() > 100)
                .unwrap_or(false),
            "{f} missing or empty"
        );
    }
    assert!(
        std::fs::read_to_string(out_dir.join("throughput.svg"))
            .unwrap()
            .contains("<svg")
    );
    let png = std::fs::read(out_dir.join("latency-cdf.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert!(
        std::fs::read_to_string(out_dir.join("series-0.csv"))
            .unwrap()
            .starts_with("t_s,ops,ops_per_s,")
    );
    // Same scenario, same results (outside "host").
    let strip = |s: String| {
        let mut v: Value = serde_json::from_str(&s).unwrap();
        v.as_object_mut().unwrap().remove("host");
        v
    };
    let a = strip(run(true));
    let b = strip(run(true));
    assert_eq!(a, b);
    let c = &a["configurations"];
    assert_eq!(c.as_array().unwrap().len(), 2);
    for key in [
        "write_amplification",
        "gc_copied_bytes",
        "zone_resets",
        "stall_ns",
    ] {
        assert!(c[0][key].is_number(), "{key}");
    }
    let rr = &c[0]["benchmarks"][1];
    assert!(rr["latency_ns_p99"].as_f64().unwrap() > 0.0 && rr["found"].as_u64().unwrap() > 0);
    // Narrow zones write more slowly.
    let fill = |i: usize| c[i]["benchmarks"][0]["ops_per_s"].as_f64().unwrap();
    assert!(fill(1) < fill(0), "{} vs {}", fill(1), fill(0));
}

#[test]
fn ycsb_scenarios_compare_too() {
    let tmp = tempfile::tempdir().unwrap();
    let scen = tmp.path().join("y.toml");
    let ycsb_a = concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/workloada");
    std::fs::write(
        &scen,
        format!(
            "name = \"a\"\n[device]\nscale = \"1/64\"\n[engine]\nwrite_buffer_size = 1048576\n\
             [workload]\nkind = \"ycsb\"\nycsb_file = \"{ycsb_a}\"\n\
             ycsb = {{ recordcount = 5000, operationcount = 5000, threadcount = 2 }}\n\
             [[compare]]\nname = \"b\"\nfs = {{ cleaner = \"greedy\" }}\n"
        ),
    )
    .unwrap();
    let out = zonedb(&[
        "compare",
        scen.to_str().unwrap(),
        "--out",
        tmp.path().join("r").to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = &v["configurations"][0]["benchmarks"];
    assert_eq!(b[0]["name"], "ycsb-load");
    assert_eq!(b[1]["name"], "ycsb-run");
    assert_eq!(b[1]["ops"].as_u64(), Some(5000));
    assert_eq!(
        b[1]["found"].as_u64(),
        Some(5000),
        "every read and update finds its record"
    );
    // YCSB's blocks by operation type: workload A's reads and updates, apart.
    let by_op = &b[1]["latency_by_op"];
    let count = |op: &str| by_op[op]["count"].as_u64().unwrap();
    assert_eq!(count("READ") + count("UPDATE"), 5000, "{by_op}");
    assert!(count("READ") > 2000 && count("UPDATE") > 2000, "{by_op}");
    for op in ["READ", "UPDATE"] {
        let l = &by_op[op];
        assert!(l["p99_us"].as_f64() >= l["p50_us"].as_f64(), "{l}");
    }
}

#[test]
fn run_prints_db_bench_lines_and_bad_scenarios_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let scen = tmp.path().join("s.toml");
    std::fs::write(&scen, SCENARIO).unwrap();
    let out = zonedb(&[
        "run",
        scen.to_str().unwrap(),
        "--out",
        tmp.path().join("r").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("fillrandom   : ") && l.contains(" micros/op ")),
        "{text}"
    );
    for bad in [
        "name = 1",
        "name = \"x\"\n[engine]\nno_such_option = 1",
        "name = \"x\"\n[device]\nprofile = \"nope\"",
    ] {
        std::fs::write(&scen, bad).unwrap();
        let o = zonedb(&[
            "run",
            scen.to_str().unwrap(),
            "--out",
            tmp.path().join("r").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("error"));
    }
    let o = zonedb(&["compare", "/no/such/scenario.toml"]);
    assert_eq!(o.status.code(), Some(2));
}
