//! `workload.wait_for_compactions_between_phases`: between phases the memtable is flushed and
//! the compactions still owed run out (db_bench's `waitforcompaction`), so the measured phase
//! starts on a settled tree instead of paying for work the load deferred.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::scenario::Scenario;

fn scenario(wait: bool) -> Scenario {
    let text = format!(
        "name = \"settle\"\nseed = 9\nsample_interval_ms = 5\n\
         [device]\nprofile = \"caza-paper\"\nscale = \"1/256\"\n\
         [engine]\nwrite_buffer_size = 262144\ntarget_file_size_base = 262144\nmax_bytes_for_level_base = 1048576\n\
         [workload]\nkind = \"ycsb\"\nwait_for_compactions_between_phases = {wait}\n\
         [workload.ycsb]\nrecordcount = 6000\noperationcount = 3000\n\
         readproportion = 0.5\nupdateproportion = 0.5\nfieldcount = 1\nfieldlength = 200\n"
    );
    Scenario::configurations(&text).unwrap().remove(0)
}

#[test]
fn ycsb_run_starts_on_a_settled_tree() {
    let kept = experiment::run(&scenario(false)).unwrap();
    let r = experiment::run(&scenario(true)).unwrap();
    assert_eq!(r.benchmarks.len(), 2);
    assert!(r.invariants.keys_scanned >= 6000, "{:?}", r.invariants);
    let (load, run) = (&r.phase_marks[0], &r.phase_marks[1]);
    // Without the wait the run starts the instant the load ends.
    let (kept_load, kept_run) = (&kept.phase_marks[0], &kept.phase_marks[1]);
    assert_eq!(kept_run.0.t_ns, kept_load.1.t_ns);
    // With it, time passes and the device is written between the phases: the memtable's
    // flush and the compactions the load left.
    assert!(
        run.0.t_ns > load.1.t_ns,
        "{:?} {:?}",
        load.1.t_ns,
        run.0.t_ns
    );
    assert!(
        run.0.device_bytes > load.1.device_bytes,
        "{} {}",
        load.1.device_bytes,
        run.0.device_bytes
    );
    assert!(
        run.0.level_bytes.iter().sum::<u64>() > load.1.level_bytes.iter().sum::<u64>(),
        "{:?} {:?}",
        load.1.level_bytes,
        run.0.level_bytes
    );
    // The load itself is the same run either way.
    assert_eq!(load.1.ops, kept_load.1.ops);
    assert_eq!(load.1.device_bytes, kept_load.1.device_bytes);
}
