//! `caza-artifact` lets an SST spill: the planned zone needs only some room, not room for the
//! whole SST (the authors' CAZA code); the SST's first extent fills that zone and the rest
//! continues in another zone. `caza` (the paper's text) puts the whole SST elsewhere.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::placement::{Lifetime, SstContext, by_name};
use zonedb_fs::{FsOptions, ZoneFs};

const KIB: usize = 1024;

/// Zones of `sst` after writing `first` (148 KiB) then `sst` (100 KiB) planned into the
/// first file's zone, under `placement`; and that zone.
fn zones_of_second_sst(placement: &str) -> (u32, Vec<(u32, u64)>, (u64, u64)) {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 6;
    let dev = Arc::new(ZnsSsd::new(env.clone(), p, Payload::memory(16)).unwrap());
    let (env2, dev2) = (env.clone(), dev.clone());
    let placement = placement.to_string();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev2.as_ref(), 0)
            .await
            .unwrap();
        let fs = ZoneFs::mount(
            env2.clone(),
            dev2.clone(),
            FsOptions {
                placement: by_name(&placement).unwrap(),
                write_buffer_bytes: 16 << 10,
                ..FsOptions::default()
            },
        )
        .await
        .unwrap();
        let mut a = fs.create("1.sst", Lifetime::Long).await.unwrap();
        a.append(&vec![1; 148 * KIB]).await.unwrap();
        a.close().await.unwrap();
        let zone = fs.file_zones(&["1.sst"])[0][0].0;
        let plan = SstContext {
            number: 2,
            level: 2,
            size: (100 * KIB) as u64,
            candidates: vec![zone],
            spill: placement != "caza",
            ..SstContext::default()
        };
        let mut b = fs.create_sst("2.sst", Lifetime::Long, plan).await.unwrap();
        b.append(&vec![2; 100 * KIB]).await.unwrap();
        b.close().await.unwrap();
        assert_eq!(fs.read_all("2.sst").await.unwrap(), vec![2; 100 * KIB]);
        assert!(fs.fsck().is_empty());
        (
            zone,
            fs.file_zones(&["2.sst"])[0].clone(),
            (
                fs.stats().sst_context_allocations,
                fs.stats().sst_context_placements,
            ),
        )
    })
    .unwrap()
}

#[test]
fn the_sst_fills_the_planned_zone_then_continues_in_another() {
    let (zone, zones, placed) = zones_of_second_sst("caza-artifact");
    // 192 KiB zones: 44 KiB left after the first file (148 KiB).
    let in_planned = zones.iter().find(|(z, _)| *z == zone).map(|(_, b)| *b);
    assert_eq!(in_planned, Some(44 * KIB as u64), "{zones:?}");
    assert_eq!(zones.len(), 2, "{zones:?}");
    assert_eq!(zones.iter().map(|(_, b)| b).sum::<u64>(), 100 * KIB as u64);
    // Both extents asked with the plan: the first went to the planned zone (CAZA's rule),
    // the second, the planned zone being full, to an empty zone.
    assert_eq!(placed, (2, 1));
}

#[test]
fn caza_without_spill_puts_the_whole_sst_elsewhere() {
    let (zone, zones, _) = zones_of_second_sst("caza");
    assert_eq!(zones.len(), 1, "{zones:?}");
    assert_ne!(zones[0].0, zone);
}
