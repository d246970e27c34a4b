//! `subzone-write`, the device bench of SplitZNS subzones: a subzone lives on one chip, so one
//! writer without the SubZone Ring gets one chip's program bandwidth and sixteen writers get
//! the wide zone's; with the ring, one writer gets about the wide zone's (the ring acknowledges
//! at once and flushes a page per chip in parallel). Zones are split as their first subzone is
//! handed out and finished when their last is full, so 128 zones stay within the active limit.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::DeviceError;
use zonedb_device::bench::{BenchOptions, BenchReport, Workload};
use zonedb_device::splitzns::SplitZnsConfig;

fn opts(workload: Workload, qd: u32, zones: u32) -> BenchOptions {
    BenchOptions {
        workload,
        block_size_bytes: 128 << 10,
        qd,
        zones,
        ops: 1,
        read_pct: 0,
        seed: 1,
        writers: 0,
        write_to: zonedb_device::bench::WriteTo::Wide,
        write_rate_bytes_per_s: 0,
        elide_payload: true,
    }
}

fn run(split: Option<SplitZnsConfig>, o: BenchOptions) -> Result<BenchReport, DeviceError> {
    common::run_bench_at_1_64(split, o)
}

fn mb_s(r: &BenchReport) -> f64 {
    r.bandwidth_bytes_per_s / 1e6
}

#[test]
fn the_ring_gives_one_subzone_writer_the_bandwidth_of_a_wide_zone() {
    let ring = SplitZnsConfig {
        ring: true,
        ..SplitZnsConfig::native()
    };
    let native1 = run(
        Some(SplitZnsConfig::native()),
        opts(Workload::SubzoneWrite, 1, 32),
    )
    .unwrap();
    let native16 = run(
        Some(SplitZnsConfig::native()),
        opts(Workload::SubzoneWrite, 16, 32),
    )
    .unwrap();
    let ring1 = run(Some(ring), opts(Workload::SubzoneWrite, 1, 32)).unwrap();
    let wide16 = run(None, opts(Workload::SeqWrite, 16, 32)).unwrap();
    // Every byte of 32 zones written, as subzones.
    for r in [&native1, &native16, &ring1] {
        assert_eq!(r.bytes, 32 * (8 << 20), "{r:?}");
    }
    let (n1, n16, r1, w16) = (mb_s(&native1), mb_s(&native16), mb_s(&ring1), mb_s(&wide16));
    // One chip (16 KiB x 4 planes per 960 us of program, plus transfer) against sixteen.
    assert!(
        n16 > 14.0 * n1,
        "native: qd1 {n1:.0} MB/s, qd16 {n16:.0} MB/s"
    );
    assert!(
        n16 > 0.9 * w16,
        "native qd16 {n16:.0} vs wide {w16:.0} MB/s"
    );
    // The ring: one writer at nearly the wide zone's rate (its tail of at most two wide
    // zones is acknowledged before it is programmed: 6% of the bytes here).
    assert!(
        r1 > 10.0 * n1,
        "ring qd1 {r1:.0} vs native qd1 {n1:.0} MB/s"
    );
    assert!(
        r1 > 0.75 * w16 && r1 < 1.1 * w16,
        "ring qd1 {r1:.0} vs wide {w16:.0} MB/s"
    );
}

#[test]
fn subzone_writes_need_a_device_that_splits_zones() {
    let err = run(None, opts(Workload::SubzoneWrite, 1, 1)).unwrap_err();
    assert!(
        matches!(err, DeviceError::InvalidConfig(ref m) if m.contains("splits zones")),
        "{err}"
    );
    assert!(Workload::parse("subzone-write").is_ok());
}
