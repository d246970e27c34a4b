//! A `kind = "hybrid"` scenario (an SSD's zones, then an HM-SMR HDD's) runs db_bench
//! fillrandom end to end through the experiment runner with the default `liza` placement: the
//! invariants (fsck, full scan, sampled reads, write ledger) pass, and the SSD fills first so
//! the HDD takes the rest.
//!
//! The two parts have equal zone capacities here (4 MiB): the zone layer (not hybrid-aware
//! yet under `liza`) takes every zone's capacity from the geometry, the larger of the two.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::scenario::Scenario;

const SCENARIO: &str = r#"
name = "hybrid-liza"
seed = 3
[device]
kind = "hybrid"
[device.ssd]
profile = "caza-paper"
scale = "1/256"
zone_count = 8
[device.hdd]
profile = "st14000nm0007"
scale = "1/64"
zone_count = 200
[engine]
write_buffer_size = 1048576
target_file_size_base = 524288
max_bytes_for_level_base = 2097152
[workload]
benchmarks = "fillrandom"
num = 60000
value_size = 400
"#;

#[test]
fn fillrandom_on_a_hybrid_device_verifies_and_uses_both_parts() {
    let s = Scenario::configurations(SCENARIO).unwrap().remove(0);
    assert_eq!(s.fs.placement, "liza");
    let r = experiment::run(&s).unwrap();
    assert_eq!(r.profile, "caza-paper@1/256+st14000nm0007@1/64");
    assert_eq!(r.benchmarks[0].ops, 60_000);
    assert!(r.invariants.keys_scanned > 0, "{:?}", r.invariants);
    assert!(r.invariants.ledger_keys_checked > 0, "{:?}", r.invariants);
    let h = r.hybrid_device.unwrap();
    println!("ssd {:?}\nhdd {:?}", h.ssd, h.hdd);
    assert!(h.ssd.bytes_written > 0 && h.hdd.bytes_written > 0, "{h:?}");
    assert_eq!(
        h.ssd.bytes_written + h.hdd.bytes_written,
        r.device.bytes_written
    );
}
