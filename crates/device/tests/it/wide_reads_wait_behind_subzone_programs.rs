//! `read-under-writes`, the device bench of a wide-zone read stream (2 MiB background reads, as
//! compactions read their inputs) while four writers write 100 MB/s in all. A subzone lives on
//! one chip, so without the SubZone Ring four subzone writers queue their programs on four
//! chips, and every striped read waits for the busiest of its chips: the reads lose far more
//! than under the same bytes written to wide zones, whose programs spread over all sixteen
//! chips. With the ring (its FIFO flushed a program unit per chip at a time) the same subzone
//! writes cost the reads no more than wide writes do.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::DeviceError;
use zonedb_device::bench::{BenchOptions, BenchReport, Workload, WriteTo};
use zonedb_device::splitzns::SplitZnsConfig;

const MB: u64 = 1_000_000;

fn opts(writers: u32, write_to: WriteTo) -> BenchOptions {
    BenchOptions {
        workload: Workload::ReadUnderWrites,
        block_size_bytes: 2 << 20,
        qd: 4,
        zones: 16,
        // 4 GiB of reads: about a second, long enough for the ring (16 MiB) to fill many times.
        ops: 2_000,
        read_pct: 100,
        seed: 1,
        writers,
        write_to,
        write_rate_bytes_per_s: 100 * MB,
        elide_payload: true,
    }
}

fn run(split: Option<SplitZnsConfig>, o: BenchOptions) -> Result<BenchReport, DeviceError> {
    common::run_bench_at_1_64(split, o)
}

/// Read and write bandwidth over the reads' time, MB/s.
fn mb_s(r: &BenchReport) -> (f64, f64) {
    let secs = r.virtual_time_ns as f64 / 1e9;
    (
        r.read.bytes as f64 / secs / 1e6,
        r.write.bytes as f64 / secs / 1e6,
    )
}

#[test]
fn subzone_programs_without_the_ring_slow_striped_reads_more_than_wide_writes() {
    let native = Some(SplitZnsConfig::native());
    let alone = mb_s(&run(native, opts(0, WriteTo::Wide)).unwrap());
    let wide = mb_s(&run(native, opts(4, WriteTo::Wide)).unwrap());
    let sub = mb_s(&run(native, opts(4, WriteTo::Subzone)).unwrap());
    assert_eq!(alone.1, 0.0, "no writers, no writes");
    // Both write about the rate asked (wide 2 MiB writes overshoot it a little at the start).
    assert!((95.0..115.0).contains(&wide.1), "{wide:?}");
    assert!((95.0..115.0).contains(&sub.1), "{sub:?}");
    // Wide writes of 100 MB/s cost the reads under a tenth; the same bytes on four chips a
    // third or more.
    assert!(wide.0 > 0.9 * alone.0, "alone {alone:?} wide {wide:?}");
    assert!(sub.0 < 0.75 * wide.0, "wide {wide:?} subzone {sub:?}");
}

#[test]
fn with_the_ring_subzone_writes_cost_reads_no_more_than_wide_writes() {
    let ring = Some(SplitZnsConfig {
        ring: true,
        ..SplitZnsConfig::native()
    });
    let wide = mb_s(&run(ring, opts(4, WriteTo::Wide)).unwrap());
    let sub = mb_s(&run(ring, opts(4, WriteTo::Subzone)).unwrap());
    assert!((95.0..115.0).contains(&sub.1), "{sub:?}");
    assert!(sub.0 >= 0.97 * wide.0, "wide {wide:?} subzone {sub:?}");
}

#[test]
fn read_under_writes_rejects_what_the_device_cannot_run() {
    // Subzones on a device that does not split zones.
    assert!(matches!(
        run(None, opts(4, WriteTo::Subzone)),
        Err(DeviceError::InvalidConfig(_))
    ));
    // Every zone read: none left for the writers.
    let mut all = opts(4, WriteTo::Wide);
    all.zones = 160;
    assert!(matches!(run(None, all), Err(DeviceError::InvalidConfig(_))));
    // The same with no writers is fine.
    let mut alone = opts(0, WriteTo::Wide);
    alone.zones = 160;
    alone.ops = 10;
    assert_eq!(run(None, alone).unwrap().read.ops, 10);
}
