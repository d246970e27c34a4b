//! ZN540 profiles against the HHZS paper's Table 1 (fio, QD1): 1039.6 MiB/s sequential 1 MiB
//! reads, 1002.8 MiB/s sequential 1 MiB writes, 16,928 random 4 KiB reads/s. `zn540-hhzs`
//! matches them at any scale; `zn540` (calibrated to another unit) is pinned where it is.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::SimDeviceSpec;
use zonedb_device::bench::{self, BenchOptions, BenchReport, Workload};
use zonedb_device::sim::spec::SimPayload;
use zonedb_env::{SimConfig, SimEnv};

const MIB: f64 = 1_048_576.0;

fn run(
    profile: &str,
    scale: &str,
    workload: Workload,
    block_size_bytes: u64,
    zones: u32,
) -> BenchReport {
    let env = SimEnv::new(SimConfig {
        seed: 5,
        ..SimConfig::default()
    });
    let dev = SimDeviceSpec::new(profile, scale)
        .payload(SimPayload::Discard)
        .build(env.clone())
        .unwrap();
    dev.set_checking(false);
    let opts = BenchOptions {
        workload,
        block_size_bytes,
        qd: 1,
        zones,
        ops: 3000,
        read_pct: 100,
        seed: 5,
        writers: 0,
        write_to: zonedb_device::bench::WriteTo::Wide,
        write_rate_bytes_per_s: 0,
        elide_payload: true,
    };
    env.run(bench::run(env.clone(), Arc::new(dev), opts))
        .unwrap()
        .unwrap()
}

/// Sequential read and write MiB/s (1 MiB), random 4 KiB reads/s, all at QD1.
fn table1(profile: &str, scale: &str) -> (f64, f64, f64) {
    let r = run(profile, scale, Workload::SeqRead, 1 << 20, 2).bandwidth_bytes_per_s / MIB;
    let w = run(profile, scale, Workload::SeqWrite, 1 << 20, 2).bandwidth_bytes_per_s / MIB;
    let iops = run(profile, scale, Workload::RandRead, 4096, 4).iops;
    println!(
        "{profile}@{scale}: seq read {r:.1} MiB/s, seq write {w:.1} MiB/s, rand read {iops:.0} IOPS"
    );
    (r, w, iops)
}

fn within(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual / expected - 1.0).abs() <= tolerance
}

#[test]
fn zn540_hhzs_matches_table_1() {
    for scale in ["1/8", "1/64"] {
        let (r, w, iops) = table1("zn540-hhzs", scale);
        assert!(within(r, 1039.6, 0.05), "{scale}: seq read {r}");
        assert!(within(w, 1002.8, 0.05), "{scale}: seq write {w}");
        assert!(within(iops, 16_928.0, 0.05), "{scale}: rand read {iops}");
    }
}

#[test]
fn zn540_stays_calibrated_to_its_own_unit() {
    let (r, w, iops) = table1("zn540", "1/8");
    assert!(within(r, 1112.3, 0.02), "seq read {r}");
    assert!(within(w, 1056.6, 0.02), "seq write {w}");
    // 74 us per QD1 4 KiB read plus the host's issue cost.
    assert!(within(iops, 13_230.0, 0.02), "rand read {iops}");
}
