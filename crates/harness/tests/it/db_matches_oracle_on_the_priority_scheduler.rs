//! The engine on a simulated SSD whose dies serve queued work by priority (query reads first):
//! the oracle suite (puts, deletes, batches, gets, scans, snapshots, flushes, compactions,
//! reopen) reads what a `BTreeMap` does, and two runs of one seed take the same virtual time.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::Scheduler;
use zonedb_device::{SimDevice, SimDeviceSpec};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::ZoneFs;
use zonedb_harness::conformance::{db_oracle, fs_model};

/// Runs the oracle suite on `scheduler`; returns the virtual time it took and the compactions.
fn run(scheduler: Scheduler, seed: u64) -> (u64, u64) {
    let env = SimEnv::new(SimConfig::with_seed(seed));
    let spec = SimDeviceSpec::new("tiny", "1")
        .zone_limits(Some(8), Some(10))
        .scheduler(Some(scheduler));
    let mut p = spec.profile().unwrap();
    p.zones.zone_count = 400;
    let dev = Arc::new(SimDevice::new(env.clone(), p, &spec.payload).unwrap());
    let e = env.clone();
    let stats = env
        .run(async move {
            ZoneFs::<SimEnv, SimDevice<SimEnv>>::mkfs(dev.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(e.clone(), dev.clone(), fs_model::options())
                .await
                .unwrap();
            db_oracle::run_and_reopen(fs, seed, 20_000).await
        })
        .unwrap()
        .unwrap_or_else(|f| panic!("seed {seed}: {f}"));
    (env.now(), stats.compactions)
}

#[test]
fn db_matches_oracle_on_the_priority_scheduler() {
    let (t, compactions) = run(Scheduler::Priority, 4);
    assert!(compactions > 0, "no compaction ran");
    assert_eq!(run(Scheduler::Priority, 4), (t, compactions));
    // The schedule differs from FIFO's (same work, other order) yet reads the same.
    let (t_fifo, _) = run(Scheduler::Fifo, 4);
    assert!(t > 0 && t_fifo > 0);
}
