//! A comparison whose baseline has a zero figure (here: no cleaning copies on a device that
//! never fills) prints that column's ratios as "n/a", never as "0.00x", "inf" or "NaN",
//! while every other column keeps its ratio.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::report;
use zonedb_harness::scenario::Scenario;

#[test]
fn a_comparison_table_never_divides_by_a_zero_baseline() {
    let text = r#"
name = "base"
seed = 1
[device]
profile = "splitzns-paper"
scale = "1/64"
[fs]
placement = "liza"
cleaner = "zenfs"
[engine]
write_buffer_size = 65536
target_file_size_base = 65536
[workload]
benchmarks = "fillrandom"
num = 2000
value_size = 100

[[compare]]
name = "greedy"
fs = { cleaner = "greedy", gc_threshold = 20 }
"#;
    let runs: Vec<_> = Scenario::configurations(text)
        .unwrap()
        .iter()
        .map(|s| experiment::run(s).unwrap())
        .collect();
    assert_eq!(runs[0].fs.gc_copied_bytes, 0, "the tiny run must not clean");
    let t = report::table(&runs);
    for bad in ["inf", "NaN", "(0.00x)"] {
        assert!(!t.contains(bad), "{bad} in\n{t}");
    }
    assert!(t.contains("(n/a)"), "{t}");
    assert!(t.contains("(1.00x)"), "{t}");
}
