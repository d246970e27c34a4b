//! `workload.reopen_between_phases`: the database is closed and opened again between phases,
//! as when YCSB's load and run (or two db_bench invocations with `--use_existing_db`) are
//! separate processes. The run's checks pass, the series and phase marks stay cumulative
//! across the reopen, and the report's engine counters are the last open's.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::scenario::Scenario;

fn scenario(workload: &str, reopen: bool) -> Scenario {
    let text = format!(
        "name = \"reopen\"\nseed = 9\nsample_interval_ms = 5\n\
         [device]\nprofile = \"caza-paper\"\nscale = \"1/256\"\n\
         [engine]\nwrite_buffer_size = 262144\ntarget_file_size_base = 262144\nmax_bytes_for_level_base = 1048576\n\
         [workload]\nreopen_between_phases = {reopen}\n{workload}"
    );
    Scenario::configurations(&text).unwrap().remove(0)
}

const YCSB: &str = "kind = \"ycsb\"\n[workload.ycsb]\nrecordcount = 4000\noperationcount = 3000\n\
                    readproportion = 0.5\nupdateproportion = 0.5\nfieldcount = 1\nfieldlength = 200\n";

const DB_BENCH: &str = "benchmarks = \"fillrandom\"\nnum = 4000\nvalue_size = 200\n\
                        [[workload.then]]\nbenchmarks = \"overwrite\"\nwrites = 2000\n";

#[test]
fn ycsb_load_and_run_as_two_processes() {
    let kept = experiment::run(&scenario(YCSB, false)).unwrap();
    let r = experiment::run(&scenario(YCSB, true)).unwrap();
    assert_eq!(r.benchmarks.len(), 2);
    assert!(r.invariants.keys_scanned >= 4000, "{:?}", r.invariants);
    // The last open saw only the run phase's updates; the kept open saw the load's too.
    assert!(kept.db.write_ops >= 4000, "{:?}", kept.db);
    assert!(r.db.write_ops < 4000 && r.db.write_ops > 0, "{:?}", r.db);
    // The marks carry the load's operations over the reopen.
    let (load, run) = (&r.phase_marks[0], &r.phase_marks[1]);
    assert!(run.0.ops >= load.1.ops, "{:?} {:?}", load.1, run.0);
    let kept_run = &kept.phase_marks[1];
    assert_eq!(run.1.ops - run.0.ops, kept_run.1.ops - kept_run.0.ops);
    assert!(r.series.windows(2).all(|w| w[1].ops >= w[0].ops));
    // The reopen flushed the load's WAL: the run began with no unflushed load writes.
    assert!(
        run.0.level_bytes.iter().sum::<u64>() > load.1.level_bytes.iter().sum::<u64>(),
        "{:?} {:?}",
        load.1.level_bytes,
        run.0.level_bytes
    );
}

#[test]
fn db_bench_phases_as_two_invocations() {
    let r = experiment::run(&scenario(DB_BENCH, true)).unwrap();
    assert_eq!(r.benchmarks.len(), 2);
    assert!(r.invariants.ledger_keys_checked > 0, "{:?}", r.invariants);
    assert_eq!(r.db.write_ops, 2000, "{:?}", r.db);
    let kept = experiment::run(&scenario(DB_BENCH, false)).unwrap();
    assert_eq!(kept.db.write_ops, 6000, "{:?}", kept.db);
}
