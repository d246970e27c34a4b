//! Helpers shared by the device integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Drives a future that completes at once (the file-backed device does its work at call time).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("zone file device futures complete immediately"),
    }
}

/// Runs the device bench `o` on the SplitZNS paper device at 1/64, split zones with `split`
/// (`None`: a plain ZNS device), seed 1.
pub fn run_bench_at_1_64(
    split: Option<zonedb_device::splitzns::SplitZnsConfig>,
    o: zonedb_device::bench::BenchOptions,
) -> Result<zonedb_device::bench::BenchReport, zonedb_device::DeviceError> {
    let env = zonedb_env::SimEnv::new(zonedb_env::SimConfig::with_seed(1));
    let dev: std::sync::Arc<zonedb_device::SimDevice<zonedb_env::SimEnv>> = std::sync::Arc::new(
        zonedb_device::SimDeviceSpec::new("splitzns-paper", "1/64")
            .splitzns(split)
            .build(env.clone())
            .unwrap_or_else(|e| panic!("the paper device builds: {e}")),
    );
    let out = env
        .run(zonedb_device::bench::run(env.clone(), dev, o))
        .unwrap_or_else(|e| panic!("the simulation runs: {e}"));
    env.kill_all_tasks();
    out
}

/// The split-zone commands of `d`, a device that has the family.
pub fn split<D: zonedb_device::ZonedDevice>(d: &D) -> &dyn zonedb_device::SplitZones {
    d.capabilities()
        .split_zones
        .expect("the device has the split-zone family")
}
