//! HHZS's SSD cache never serves a block from a zone it no longer owns. At 1/64, exp1's HHZS
//! run of YCSB-A failed with "zone 3: read ... goes beyond the write pointer": the cache's
//! writer took its active zone, then waited for the I/O lock while the WAL evicted that zone;
//! it wrote into the zone the WAL now held and entered the block in the cache without the
//! zone's list, so the entry outlived the zone's next reset. The cell runs to its end with
//! its invariants (fsck, full scan, sampled reads) passing, and the cache both hit and gave
//! zones back to the WAL on the way.

use zonedb_harness::experiment;
use zonedb_harness::reproduce::{ReproScale, hhzs};

#[test]
fn hhzs_cache_never_serves_from_an_evicted_zone() {
    let cells = hhzs::cells(
        ReproScale::Fraction(64),
        &hhzs::HhzsPlan {
            seeds: vec![1],
            experiments: vec!["exp1".into()],
        },
    )
    .unwrap();
    let cell = cells
        .iter()
        .find(|c| c.scheme == "HHZS" && c.workload == "A")
        .unwrap();
    let r = experiment::run(&cell.scenario).unwrap();
    assert_eq!(r.invariants.fsck_problems, 0);
    assert!(r.invariants.sampled_reads > 0, "{:?}", r.invariants);
    assert!(
        r.fs.hybrid.ssd_cache_hits > 0 && r.fs.hybrid.ssd_cache_zone_evictions > 0,
        "{:?}",
        r.fs.hybrid
    );
}
