//! `zonedb sweep`: a grid x seeds of a scenario run as `zonedb run` child processes; each
//! run's JSON equals `zonedb run --json` on its scenario (outside `host`); Parquet, summary
//! and plots; a second invocation resumes (runs only what is missing); a bad sweep file
//! exits 2; `--ray` without the Python package says what it needs.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use serde_json::Value;

use crate::common::{without_host, zonedb_output as zonedb};

const SWEEP: &str = r#"
name = "t"
seeds = 2
seed = 5
[scenario]
name = "base"
sample_interval_ms = 20
[scenario.device]
scale = "1/512"
[scenario.engine]
write_buffer_size = 1048576
target_file_size_base = 1048576
max_bytes_for_level_base = 4194304
[scenario.workload]
benchmarks = "fillrandom"
num = 10000
value_size = 256
[grid]
"fs.cleaner" = ["zenfs", "greedy"]
"#;

#[test]
fn a_sweep_runs_every_point_and_seed_and_resumes_from_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sweep.toml");
    std::fs::write(&file, SWEEP).unwrap();
    let out = dir.path().join("out");
    let (file_s, out_s) = (file.to_str().unwrap(), out.to_str().unwrap());
    let o = zonedb(&["sweep", file_s, "--out", out_s, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let configs = summary["configurations"].as_array().unwrap();
    assert_eq!(configs.len(), 2);
    assert_eq!(configs[1]["label"], "fs.cleaner=greedy");
    assert_eq!(configs[1]["seeds"], serde_json::json!([5, 6]));
    let ops = &configs[0]["metrics"]["fillrandom.ops_per_s"];
    assert_eq!(ops["n"], 2);
    assert!(ops["ci95_low"].as_f64().unwrap() <= ops["mean"].as_f64().unwrap());
    for f in [
        "plan.json",
        "runs.parquet",
        "summary.md",
        "summary.csv",
        "summary.json",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    assert!(out.join("sweep-fillrandom-ops_per_s.png").exists());
    // A run's result is `zonedb run --json` on its scenario.
    let scenario = out.join("scenarios").join("c01-s6.toml");
    let run = zonedb(&["run", scenario.to_str().unwrap(), "--json", "--no-report"]);
    assert!(run.status.success());
    let direct = String::from_utf8(run.stdout).unwrap();
    let stored = std::fs::read_to_string(out.join("runs").join("c01-s6.json")).unwrap();
    assert_eq!(without_host(&direct), without_host(&stored));
    // Resume: only the missing run runs again, to the same result.
    std::fs::remove_file(out.join("runs").join("c01-s6.json")).unwrap();
    let o = zonedb(&["sweep", file_s, "--out", out_s]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("4 runs (2 configurations x 2 seeds), 1 to run"),
        "{text}"
    );
    assert!(text.contains(" ± "), "{text}");
    let again = std::fs::read_to_string(out.join("runs").join("c01-s6.json")).unwrap();
    assert_eq!(without_host(&again), without_host(&stored));
    // Another sweep in the same directory is refused.
    std::fs::write(&file, SWEEP.replace("seeds = 2", "seeds = 3")).unwrap();
    let o = zonedb(&["sweep", file_s, "--out", out_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("different sweep"));
}

#[test]
fn bad_sweep_files_exit_2_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    for (text, what) in [
        ("seeds = 1", "no scenario"),
        (
            "[scenario]\nname = \"x\"\n[grid]\n\"fs.cleaner\" = [\"magic\"]",
            "fs.cleaner",
        ),
        (
            "seeds = \"three\"\n[scenario]\nname = \"x\"",
            "non-negative",
        ),
        ("colour = 1\n[scenario]\nname = \"x\"", "unknown key"),
        ("not toml ===", "sweep"),
    ] {
        std::fs::write(&file, text).unwrap();
        let o = zonedb(&["sweep", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(what), "{text}: {err}");
    }
    let o = zonedb(&["sweep", "/no/such/sweep.toml"]);
    assert_eq!(o.status.code(), Some(2));
}
