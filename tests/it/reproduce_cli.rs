//! `zonedb reproduce oaza --scale small`: one JSON object per scheme under the slides' names
//! with the keys the issue names, the tables beside the slides' numbers in the report, the
//! same seed twice gives the same figures, and bad arguments exit 2; the splitzns, hhzs and
//! znsplus studies name their schemes and experiments.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use serde_json::Value;

use crate::common::zonedb_output as zonedb;

fn run_oaza(out: &std::path::Path) -> Value {
    let o = zonedb(&[
        "reproduce",
        "oaza",
        "--scale",
        "small",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn reproduce_oaza_reports_every_scheme_beside_the_slides() {
    let dir = tempfile::tempdir().unwrap();
    let j = run_oaza(dir.path());
    assert_eq!(j["study"], "oaza");
    assert_eq!(j["failed"].as_array().unwrap().len(), 0, "{}", j["failed"]);
    for s in ["LIZA", "CAZA", "OAZA"] {
        let o = &j["schemes"][s];
        for k in [
            "gc_copied_bytes",
            "zone_resets",
            "ops_per_s",
            "write_amplification",
            "s_same_avg",
            "s_inval_avg",
        ] {
            assert!(o[k].is_number(), "{s}.{k}: {}", o[k]);
        }
        assert!(o["ops_per_s"].as_f64().unwrap() > 0.0);
        assert!(o["zone_resets"].as_u64().unwrap() > 0, "{s}: no zone reset");
        let s_same = o["s_same_avg"].as_f64().unwrap();
        assert!(s_same > 0.0 && s_same <= 1.0, "{s}: S_same {s_same}");
    }
    // Both forms, named by their policies, and the ablation ending on the code forms.
    assert_eq!(j["form"], "code");
    assert_eq!(j["schemes"]["CAZA"]["placement"], "caza-v1-artifact");
    assert_eq!(j["text_forms"]["CAZA"]["placement"], "caza");
    assert!(j["text_forms"]["OAZA"]["gc_copied_bytes"].is_number());
    let rows = j["ablation"].as_array().unwrap();
    assert!(rows.len() >= 3, "{}", j["ablation"]);
    for row in rows {
        for s in ["LIZA", "CAZA", "OAZA"] {
            assert!(
                row["schemes"][s]["figures"]["gc_copied_bytes"].is_number(),
                "{row}"
            );
        }
    }
    let last = rows.last().unwrap();
    assert_eq!(
        last["schemes"]["CAZA"]["figures"]["gc_copied_bytes"],
        j["schemes"]["CAZA"]["workloads"]["fillrandom-8k"]["gc_copied_bytes"]
    );
    let md = std::fs::read_to_string(dir.path().join("reproduce-oaza.md")).unwrap();
    assert!(md.contains("## Ablation"), "{md}");
    assert!(md.contains("| cleaning copy, LIZA / OAZA | 2.7x |"), "{md}");
    // Same seed, same figures (the host's wall time aside).
    let again = run_oaza(dir.path());
    assert_eq!(j["schemes"], again["schemes"]);
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(zonedb(&["reproduce", "nothing"]).status.code(), Some(2));
    let o = zonedb(&["reproduce", "oaza", "--scale", "huge"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `zonedb reproduce splitzns --scale tiny` of overwrite without the sweeps, with `extra`
/// arguments, writing to `out`.
fn splitzns_tiny_overwrite(out: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "reproduce",
        "splitzns",
        "--scale",
        "tiny",
        "--workloads",
        "overwrite",
        "--no-sweep",
        "--json",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    zonedb(&args)
}

#[test]
fn emitted_scenarios_run_alone_to_the_studys_figures() {
    let dir = tempfile::tempdir().unwrap();
    let emit = dir.path().join("cells");
    let o = splitzns_tiny_overwrite(
        dir.path().join("study").to_str().unwrap(),
        &[
            "--no-breakdown",
            "--engine-option",
            "compaction_readahead_size=1048576",
            "--emit-scenarios",
            emit.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    // The four schemes, and the three baselines again on FIFO queueing.
    let emitted = j["emitted"].as_array().unwrap();
    assert_eq!(emitted.len(), 7, "{j}");
    let fifo = emit.join("splitzns-queueing-LDP__FIFO_-overwrite-seed1.toml");
    assert!(emitted.iter().any(|f| f == fifo.to_str().unwrap()), "{j}");
    assert!(!dir.path().join("study").exists(), "nothing ran");
    let ldp = emit.join("splitzns-scheme-LDP-overwrite-seed1.toml");
    let text = std::fs::read_to_string(&ldp).unwrap();
    assert!(
        text.contains("compaction_readahead_size = 1048576"),
        "{text}"
    );
    // The study's LDP figure, and the emitted file run alone.
    let o = splitzns_tiny_overwrite(
        dir.path().join("study").to_str().unwrap(),
        &[
            "--no-breakdown",
            "--engine-option",
            "compaction_readahead_size=1048576",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let study: Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = zonedb(&["run", ldp.to_str().unwrap(), "--json", "--no-report"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let alone: Value = serde_json::from_slice(&o.stdout).unwrap();
    let last = alone["configurations"][0]["benchmarks"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        study["schemes"]["LDP"]["overwrite"]["ops"], last["ops"],
        "{last}"
    );
    let ops_per_s = last["ops_per_s"].as_f64().unwrap();
    let want = study["schemes"]["LDP"]["overwrite"]["ops_per_s"]
        .as_f64()
        .unwrap();
    assert!(
        (ops_per_s - want).abs() <= want * 1e-9,
        "{ops_per_s} vs {want}"
    );
}

/// `--load-gib` sizes the load at paper scale (35 GiB of 1 KiB values: 36,700,160 keys, the
/// load and the overwrites' key space alike), scaled with the device at the other scales;
/// a size that is not positive is a usage error naming the flag's value.
#[test]
fn load_gib_sizes_the_emitted_load_at_every_scale() {
    let dir = tempfile::tempdir().unwrap();
    for (scale, keys) in [("paper", 36_700_160u64), ("small", 573_440)] {
        let emit = dir.path().join(scale);
        let o = zonedb(&[
            "reproduce",
            "splitzns",
            "--scale",
            scale,
            "--load",
            "unique",
            "--load-gib",
            "35",
            "--workloads",
            "overwrite",
            "--no-breakdown",
            "--no-sweep",
            "--json",
            "--emit-scenarios",
            emit.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text =
            std::fs::read_to_string(emit.join("splitzns-scheme-LDP-overwrite-seed1.toml")).unwrap();
        assert_eq!(
            text.matches(&format!("num = {keys}\n")).count(),
            2,
            "{scale}: {text}"
        );
    }
    for bad in ["0", "-3", "nan"] {
        let o = zonedb(&[
            "reproduce",
            "splitzns",
            "--scale",
            "tiny",
            &format!("--load-gib={bad}"),
            "--emit-scenarios",
            dir.path().join("bad").to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("GiB"), "{bad}: {err}");
    }
}

#[test]
fn reproduce_splitzns_names_the_papers_schemes_and_workloads_and_draws_its_plots() {
    let dir = tempfile::tempdir().unwrap();
    let o = splitzns_tiny_overwrite(dir.path().to_str().unwrap(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["study"], "splitzns");
    assert_eq!(j["failed"].as_array().unwrap().len(), 0, "{}", j["failed"]);
    for s in [
        "LDP", "Gear", "LLC", "SplitZNS", "native", "+diff", "+SZR", "+RP", "+RS",
    ] {
        let w = &j["schemes"][s]["overwrite"];
        for k in zonedb_harness::reproduce::splitzns::ISSUE_KEYS {
            assert!(w[k].is_number(), "{s}.{k}: {}", w[k]);
        }
    }
    // +RS is SplitZNS (one configuration, run once).
    assert_eq!(
        j["schemes"]["+RS"]["overwrite"],
        j["schemes"]["SplitZNS"]["overwrite"]
    );
    for f in [
        "reproduce-splitzns.md",
        "reproduce-splitzns.json",
        "reproduce-splitzns-fig9.svg",
        "reproduce-splitzns-breakdown.svg",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn reproduce_hhzs_names_the_papers_experiments_schemes_and_workloads() {
    let dir = tempfile::tempdir().unwrap();
    let o = zonedb(&[
        "reproduce",
        "hhzs",
        "--scale",
        "tiny",
        "--experiments",
        "exp1,exp2",
        "--json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["study"], "hhzs");
    assert_eq!(j["failed"].as_array().unwrap().len(), 0, "{}", j["failed"]);
    let check = |exp: &str, schemes: &[&str], workloads: &[&str]| {
        for s in schemes {
            for w in workloads.iter().chain(&["load"]) {
                let v = &j[exp][*s][*w];
                for k in zonedb_harness::reproduce::hhzs::ISSUE_KEYS {
                    assert!(v[k].is_number(), "{exp}.{s}.{w}.{k}: {}", v[k]);
                }
            }
        }
    };
    check(
        "exp1",
        &["B3", "AUTO", "HHZS"],
        &["A", "B", "C", "D", "E", "F"],
    );
    check(
        "exp2",
        &["B3", "B3+M", "P", "P+M", "P+M+C"],
        &["W1", "W2", "W3", "W4"],
    );
    assert!(j["must_show"].as_array().unwrap().len() >= 13);
    for f in [
        "reproduce-hhzs.md",
        "reproduce-hhzs.json",
        "reproduce-hhzs-exp1.svg",
        "reproduce-hhzs-exp2.svg",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn reproduce_znsplus_reports_every_scheme_on_every_experiment_in_seconds() {
    let dir = tempfile::tempdir().unwrap();
    #[allow(
        clippy::disallowed_methods,
        reason = "the test times the command on the host"
    )]
    let started = std::time::Instant::now();
    let o = zonedb(&[
        "reproduce",
        "znsplus",
        "--scale",
        "tiny",
        "--json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["study"], "znsplus");
    assert_eq!(j["failed"].as_array().unwrap().len(), 0, "{}", j["failed"]);
    use zonedb_harness::reproduce::znsplus::{EXPERIMENTS, ISSUE_KEYS, SCHEMES};
    assert_eq!(SCHEMES, ["ZNS", "IZC", "ZNS+", "ZNS+/CUB", "ZNS+/need_SSR"]);
    for s in SCHEMES {
        for e in EXPERIMENTS {
            let v = &j["schemes"][s][e];
            for k in ISSUE_KEYS.iter().chain(&[
                "gc_copied_bytes",
                "izc_commands",
                "copyback_ratio",
                "virtual_time_s",
            ]) {
                assert!(v[*k].is_number(), "{s}.{e}.{k}: {}", v[*k]);
            }
            assert!(v["ops_per_s"].as_f64().unwrap() > 0.0, "{s}.{e}");
        }
        // Cleaning runs in every experiment, the engine's included.
        for e in ["fill-delete-80", "overwrite", "ycsb-a"] {
            let v = &j["schemes"][s][e];
            assert!(v["gc_copied_bytes"].as_u64().unwrap() > 0, "{s}.{e}: {v}");
        }
        // chips-16 is the profile's own array: the same run as fill-delete-80.
        assert_eq!(
            j["schemes"][s]["chips-16"],
            j["schemes"][s]["fill-delete-80"]
        );
        assert_eq!(j["schemes"][s]["chips-32"]["chips"], 32);
    }
    // The slides' seven claims, and three of them for ZNS+/need_SSR.
    assert_eq!(j["slides"].as_array().unwrap().len(), 10);
    let md = std::fs::read_to_string(dir.path().join("reproduce-znsplus.md")).unwrap();
    assert!(md.contains("F2FS"), "{md}");
    assert!(md.contains("## The slides beside ours"), "{md}");
    for f in [
        "reproduce-znsplus.json",
        "reproduce-znsplus-throughput.svg",
        "reproduce-znsplus-copyback.svg",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    assert!(took.as_secs() < 60, "took {took:?}");
}

#[test]
fn reproduce_sets_engine_and_device_options_in_every_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let study =
        |opt: &str| splitzns_tiny_overwrite(out, &["--no-breakdown", "--engine-option", opt]);
    let o = study("avoid_unnecessary_blocking_io=true");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["failed"].as_array().unwrap().len(), 0, "{}", j["failed"]);
    assert_eq!(j["engine_options"]["avoid_unnecessary_blocking_io"], true);
    let md = std::fs::read_to_string(dir.path().join("reproduce-splitzns.md")).unwrap();
    assert!(
        md.contains("`avoid_unnecessary_blocking_io = true`"),
        "{md}"
    );
    // Options are checked before anything runs: unknown names, bad values and malformed
    // arguments are usage errors; the znsplus study takes none.
    for bad in [
        "max_subcompactions=0",
        "no_such_option=1",
        "sync",
        "=1",
        "sync=yes please",
    ] {
        let o = study(bad);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{bad}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for bad in [
        "reset_ack=\"never\"",
        "no_such_option=1",
        "scale=1",
        "splitzns..ring=false",
        "splitzns.ring=\"off\"",
    ] {
        let o = splitzns_tiny_overwrite(out, &["--no-breakdown", "--device-option", bad]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{bad}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = splitzns_tiny_overwrite(
        out,
        &["--no-breakdown", "--device-option", "reset_ack=\"at-once\""],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["device_options"]["reset_ack"], "at-once");
    // A dotted key sets one option inside a table and keeps the table's others.
    let o = splitzns_tiny_overwrite(
        out,
        &["--no-breakdown", "--device-option", "splitzns.ring=false"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["device_options"]["splitzns"]["ring"], false);
    for flag in ["--engine-option", "--device-option"] {
        let o = zonedb(&["reproduce", "znsplus", "--scale", "tiny", flag, "sync=true"]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
    }
}

/// Runs `zonedb reproduce ARGS --json --out OUT`; its JSON without `"host"`.
fn study_json(out: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["reproduce"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--out", out.to_str().unwrap()]);
    let o = zonedb(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&crate::common::without_host(&String::from_utf8_lossy(
        &o.stdout,
    )))
    .unwrap()
}

#[test]
fn a_stopped_study_resumes_from_its_cells_and_prints_the_same_json() {
    for (args, tampered, deleted, path) in [
        (
            &[
                "same-zone",
                "--scale",
                "tiny",
                "--claims",
                "--workloads",
                "fillrandom",
            ][..],
            "same-zone-scheme-Baseline-fillrandom-seed1",
            "same-zone-scheme-A-CAZA-fillrandom-seed1",
            &["schemes", "Baseline", "zone_resets"][..],
        ),
        (
            &[
                "znsplus",
                "--scale",
                "tiny",
                "--experiments",
                "fill-delete-70",
            ][..],
            "znsplus-IZC-fill-delete-70-seed1",
            "znsplus-ZNS-fill-delete-70-seed1",
            &["schemes", "IZC", "fill-delete-70", "gc_zone_resets"][..],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let whole = study_json(dir.path(), args);
        let cells = dir.path().join("cells");
        // A stopped study: one cell never finished, and one stored cell marked so that
        // loading it shows (a stored cell is reused, not run again).
        std::fs::remove_file(cells.join(format!("{deleted}.json"))).unwrap();
        let file = cells.join(format!("{tampered}.json"));
        let mut cell: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        cell["figures"][path[path.len() - 1]] = 987_654.into();
        std::fs::write(&file, cell.to_string()).unwrap();
        let mut resume = args.to_vec();
        resume.push("--resume");
        let resumed = study_json(dir.path(), &resume);
        let at = |j: &Value| path.iter().fold(j.clone(), |v, k| v[*k].clone());
        assert_eq!(at(&resumed), 987_654, "the stored cell was loaded");
        // The cell run again is the whole run's, bit for bit.
        let scheme = |j: &Value| j["schemes"][path[1]].clone();
        let deleted_scheme = if path[1] == "IZC" { "ZNS" } else { "A-CAZA" };
        assert_eq!(
            resumed["schemes"][deleted_scheme], whole["schemes"][deleted_scheme],
            "{args:?}"
        );
        assert_ne!(scheme(&resumed), scheme(&whole));
        assert!(cells.join(format!("{deleted}.json")).exists());
        // Without --resume every cell runs again (the marked one is overwritten).
        let again = study_json(dir.path(), args);
        assert_eq!(again, whole, "{args:?}");
        // Resumed from every cell: the whole run's JSON, bit for bit.
        assert_eq!(study_json(dir.path(), &resume), whole, "{args:?}");
    }
}
