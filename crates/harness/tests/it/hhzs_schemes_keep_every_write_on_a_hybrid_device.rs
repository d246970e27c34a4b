//! Every hybrid scheme (the basic schemes with and without migration, SpanDB's AUTO, HHZS's
//! placement, migration and caching) runs YCSB end to end on a ZNS SSD + HM-SMR HDD hybrid
//! whose SSD holds a fraction of the data: the invariants (fsck, full scan, sampled reads,
//! write ledger) pass, both devices are written, migration copies SSTs and never exceeds its
//! rate limit, and reads the SSD cache serves return what was written.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::experiment;
use zonedb_harness::scenario::Scenario;

fn scenario(placement: &str, rate_mib_s: u64) -> Scenario {
    let text = format!(
        r#"
name = "{placement}"
seed = 5
host_cores = 16
[device]
kind = "hybrid"
[device.ssd]
profile = "zn540-hhzs"
scale = "1/128"
zone_count = 13
[device.hdd]
profile = "st14000nm0007"
scale = "1/128"
zone_count = 600
[fs]
placement = "{placement}"
cleaner = "none"
migration_rate_mib_s = {rate_mib_s}
[engine]
write_buffer_size = 1048576
min_write_buffer_number_to_merge = 2
max_write_buffer_number = 4
max_total_wal_size = 4194304
target_file_size_base = 2097152
max_bytes_for_level_base = 4194304
level0_file_num_compaction_trigger = 1
max_background_jobs = 6
block_cache_size = 65536
compression = "none"
[workload]
kind = "ycsb"
[workload.ycsb]
recordcount = 120000
fieldcount = 1
fieldlength = 1000
threadcount = 8
[[workload.then]]
[workload.then.ycsb]
operationcount = 6000
threadcount = 8
readproportion = 0.9
updateproportion = 0.1
requestdistribution = "zipfian"
zipfianconstant = 1.2
"#
    );
    Scenario::base(&text).unwrap()
}

#[test]
fn every_hybrid_scheme_verifies_and_uses_both_devices() {
    for placement in [
        "hybrid-b1",
        "hybrid-b3",
        "hybrid-b3-m",
        "spandb-auto",
        "hhzs-p",
        "hhzs-pm",
        "hhzs",
    ] {
        let r = experiment::run(&scenario(placement, 4)).unwrap();
        assert!(
            r.invariants.keys_scanned > 0,
            "{placement}: {:?}",
            r.invariants
        );
        assert!(
            r.invariants.sampled_reads > 0,
            "{placement}: {:?}",
            r.invariants
        );
        assert_eq!(r.invariants.fsck_problems, 0, "{placement}");
        let h = r.hybrid_device.unwrap();
        assert!(
            h.ssd.bytes_written > 0 && h.hdd.bytes_written > 0,
            "{placement}: {h:?}"
        );
        // Each phase's query reads spread over SSTs (O4) are measured.
        assert_eq!(r.phase_sst_reads.len(), r.benchmarks.len(), "{placement}");
        let last = r.phase_sst_reads.last().unwrap();
        assert!(
            last.reads > 0 && last.ssts_read > 0 && last.top10pct_share <= 1.0,
            "{placement}: {last:?}"
        );
        if placement == "hhzs" {
            assert!(
                r.fs.hybrid.ssd_cache_hits > 0,
                "hhzs served nothing from its cache: {:?}",
                r.fs
            );
            // The cache's trace adds up: every offered block is refused (not on the HDD,
            // cached already), written, or dropped for want of a zone; hits are lookups.
            let f = &r.fs;
            assert!(
                f.hybrid.ssd_cache_offered
                    >= f.hybrid.ssd_cache_offered_not_on_hdd
                        + f.hybrid.ssd_cache_admissions
                        + f.hybrid.ssd_cache_dropped_no_zone
                    && f.hybrid.ssd_cache_admissions > 0
                    && f.hybrid.ssd_cache_lookups >= f.hybrid.ssd_cache_hits,
                "{f:?}"
            );
        } else {
            assert_eq!(r.fs.hybrid.ssd_cache_offered, 0, "{placement}");
            assert_eq!(r.fs.hybrid.ssd_cache_hits, 0, "{placement}");
        }
        if !matches!(placement, "hybrid-b3-m" | "hhzs-pm" | "hhzs") {
            assert_eq!(r.fs.hybrid.migrated_bytes, 0, "{placement}");
        }
    }
}

#[test]
fn migration_stays_under_its_rate() {
    let r = experiment::run(&scenario("hhzs-pm", 1)).unwrap();
    let secs = r.end_ns as f64 / 1e9;
    assert!(r.fs.hybrid.migrated_bytes > 0, "no migration: {:?}", r.fs);
    // One SST moves at a time, never ahead of 1 MiB/s since its start (its first 128 KiB
    // piece goes out at once).
    let slack = (r.fs.hybrid.migrations + 1) as f64 * f64::from(128u32 << 10);
    assert!(
        r.fs.hybrid.migrated_bytes as f64 <= secs * f64::from(1u32 << 20) + slack,
        "{} bytes in {secs:.1} s",
        r.fs.hybrid.migrated_bytes
    );
}
