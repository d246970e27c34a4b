//! The simulated ZNS SSD reaches the analytical limits of its flash: program-bound sequential
//! writes, single-chip zones, QD1 read latency = tR + transfer, and read scaling with chips.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::ZnsSsd;
use zonedb_device::bench::{self, BenchOptions, BenchReport, Workload};
use zonedb_device::payload::Payload;
use zonedb_device::profile::Profile;
use zonedb_env::{SimConfig, SimEnv};

fn run(profile: Profile, opts: BenchOptions) -> BenchReport {
    let env = SimEnv::new(SimConfig {
        seed: opts.seed,
        ..SimConfig::default()
    });
    let dev = Arc::new(ZnsSsd::new(env.clone(), profile, Payload::Discard).unwrap());
    env.run(bench::run(env.clone(), dev, opts))
        .unwrap()
        .unwrap()
}

fn opts(workload: Workload, block_size_bytes: u64, qd: u32) -> BenchOptions {
    BenchOptions {
        workload,
        block_size_bytes,
        qd,
        zones: 1,
        ops: 4000,
        read_pct: 50,
        seed: 7,
        writers: 0,
        write_to: zonedb_device::bench::WriteTo::Wide,
        write_rate_bytes_per_s: 0,
        elide_payload: false,
    }
}

fn within(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual / expected - 1.0).abs() <= tolerance
}

#[test]
fn sequential_write_to_a_wide_zone_reaches_the_program_bound() {
    // 16 chips x 4 planes x 16 KiB per 960 us.
    let limit = 16.0 * 4.0 * 16384.0 / 960e-6;
    let p = Profile::by_name("splitzns-paper")
        .unwrap()
        .scaled(4)
        .unwrap();
    let r = run(p, opts(Workload::SeqWrite, 1 << 20, 4));
    assert!(
        within(r.bandwidth_bytes_per_s, limit, 0.03),
        "{} vs {limit}",
        r.bandwidth_bytes_per_s
    );
}

#[test]
fn sequential_write_to_a_single_chip_zone_reaches_one_chip_bound() {
    // 4 planes x 16 KiB per 960 us ~ 68 MB/s.
    let limit = 4.0 * 16384.0 / 960e-6;
    let p = Profile::by_name("splitzns-paper")
        .unwrap()
        .scaled(8)
        .unwrap()
        .with_chips_per_zone(1)
        .unwrap();
    let r = run(p, opts(Workload::SeqWrite, 256 << 10, 4));
    assert!(
        within(r.bandwidth_bytes_per_s, limit, 0.03),
        "{} vs {limit}",
        r.bandwidth_bytes_per_s
    );
}

#[test]
fn qd1_random_page_read_takes_read_plus_transfer() {
    let p = Profile::by_name("splitzns-paper")
        .unwrap()
        .scaled(16)
        .unwrap();
    let r = run(p, opts(Workload::RandRead, 16 << 10, 1));
    // 35 us tR + 25 us channel transfer, exactly, for every read.
    assert_eq!(
        (r.read.latency_ns_min, r.read.latency_ns_max),
        (60_000, 60_000)
    );
    assert_eq!(r.read.ops, 4000);
}

#[test]
fn qd32_random_reads_scale_with_chips() {
    let base = Profile::by_name("splitzns-paper")
        .unwrap()
        .scaled(16)
        .unwrap();
    let iops = |chips: u32, qd: u32| {
        run(
            base.clone().with_chips_per_zone(chips).unwrap(),
            opts(Workload::RandRead, 16 << 10, qd),
        )
        .iops
    };
    let qd1 = iops(16, 1);
    assert!(within(qd1, 1.0 / 60e-6, 0.001), "{qd1}");
    let (one, four, sixteen) = (iops(1, 32), iops(4, 32), iops(16, 32));
    // One chip saturates at one array read per tR.
    assert!(within(one, 1.0 / 35e-6, 0.02), "1 chip: {one}");
    // Four chips on four channels: nearly four times one chip.
    assert!(
        four / one > 3.5 && four / one <= 4.01,
        "4 chips: {four} vs {one}"
    );
    // Sixteen chips share eight channels: more again, below the 8-channel bound of 320 K IOPS.
    assert!(sixteen / four > 1.8, "16 chips: {sixteen} vs {four}");
    assert!(sixteen <= 8.0 / 25e-6 * 1.001, "{sixteen}");
    assert!(sixteen > 10.0 * qd1, "qd32 {sixteen} vs qd1 {qd1}");
    // Deeper queues approach the channel bound.
    let deep = iops(16, 256);
    assert!(deep > 0.9 * 8.0 / 25e-6, "qd256 {deep}");
}

#[test]
fn reset_erases_only_written_blocks_and_counts_erases() {
    use zonedb_device::{ZoneOp, ZonedDevice};
    let env = SimEnv::new(SimConfig::default());
    let p = Profile::by_name("splitzns-paper")
        .unwrap()
        .with_chips_per_zone(1)
        .unwrap();
    let dev = Arc::new(ZnsSsd::new(env.clone(), p, Payload::Discard).unwrap());
    let d = dev.clone();
    let e = env.clone();
    env.run(async move {
        // 3 rows of one chip's 4 planes: 3 x 32 MiB written = 3 erases per plane... plus a bit.
        let chunk = vec![0u8; 1 << 20];
        for i in 0..97u64 {
            d.write(i << 20, &chunk).await.unwrap();
        }
        let t0 = zonedb_env::Env::now(&e);
        d.manage(0, ZoneOp::Reset).await.unwrap();
        // 97 MiB on one chip = 4 rows (the 4th partly written): 4 multi-plane erases of 3 ms.
        assert_eq!(zonedb_env::Env::now(&e) - t0, 4 * 3_000_000);
    })
    .unwrap();
    let s = dev.stats();
    assert_eq!(s.zone_resets, 1);
    assert_eq!(s.block_erases, 16);
    assert_eq!(
        dev.erase_counts()
            .iter()
            .map(|&c| u64::from(c))
            .sum::<u64>(),
        16
    );
}
