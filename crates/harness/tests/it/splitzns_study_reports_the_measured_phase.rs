//! The SplitZNS study's configurations run end to end at `tiny` scale (1/256 of the paper's
//! device and counts): each run passes its invariants (fsck, scan, sampled reads), the
//! measured phase is the last one (4 client threads after the load), its counters are the
//! phase's own, the JSON has an object per scheme and workload with the issue's keys, and a
//! run is a pure function of its seed.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::reproduce::splitzns::{self, PAPER_OPS_PER_THREAD, THREADS};
use zonedb_harness::reproduce::{CellResult, Figures, ReproScale};

fn run(scheme: &str, w: &str) -> Figures {
    let s = splitzns::scenario(scheme, w, ReproScale::Tiny, 1).unwrap();
    let r = experiment::run(&s).unwrap();
    assert_eq!(r.phase_marks.len(), r.benchmarks.len());
    Figures::with_measured(&r)
}

fn cell(scheme: &str, w: &str, f: Figures) -> CellResult {
    CellResult {
        group: "scheme".into(),
        scheme: scheme.into(),
        form: "code".into(),
        workload: w.into(),
        turning_point: None,
        level_constraint: None,
        ablation_step: None,
        seed: 1,
        figures: Ok(f),
    }
}

#[test]
fn overwrite_after_the_load_is_measured_alone_on_ldp_gear_and_splitzns() {
    let tiny_ops = THREADS * (PAPER_OPS_PER_THREAD / splitzns::divisor(ReproScale::Tiny));
    let mut results = Vec::new();
    for scheme in ["LDP", "Gear", "SplitZNS"] {
        let f = run(scheme, "overwrite");
        let m = f.measured.clone().unwrap();
        assert_eq!(m.ops, tiny_ops, "{scheme}");
        assert!(m.ops_per_s > 0.0 && m.latency_us_p99 >= m.latency_us_p50);
        // The phase wrote less than the whole run (the load came before it).
        assert!(m.device_write_bytes > 0 && m.device_write_bytes < m.run_device_write_bytes);
        assert_eq!(m.user_write_bytes + m.gc_copied_bytes, m.device_write_bytes);
        assert!(m.tree_bytes > 0 && m.tree_files > 0);
        results.push(cell(scheme, "overwrite", f));
    }
    let j = splitzns::json(ReproScale::Tiny, &results);
    for scheme in ["LDP", "Gear", "SplitZNS"] {
        let o = &j["schemes"][scheme]["overwrite"];
        for k in splitzns::ISSUE_KEYS {
            assert!(o.get(k).is_some_and(|v| !v.is_null()), "{scheme}.{k}");
        }
    }
    let checks = j["must_show"].as_array().unwrap();
    let first = &checks[0];
    assert_eq!(first["what"], "overwrite, SplitZNS / LDP");
    assert!(first["ours"].as_f64().is_some());
    let md = splitzns::markdown(ReproScale::Tiny, &results);
    assert!(md.contains("| overwrite |"), "{md}");
}

#[test]
fn ycsb_a_runs_after_the_zipfian_load_and_the_same_seed_gives_the_same_figures() {
    let a = run("LDP", "ycsb-a");
    let m = a.measured.clone().unwrap();
    let tiny_ops = THREADS * (PAPER_OPS_PER_THREAD / splitzns::divisor(ReproScale::Tiny));
    assert_eq!(m.ops, tiny_ops);
    // The zipfian load wrote records (upserts), and YCSB-A found most of what it read.
    assert!(m.tree_bytes > 0);
    assert!(m.device_write_bytes > 0);
    let b = run("LDP", "ycsb-a");
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}
