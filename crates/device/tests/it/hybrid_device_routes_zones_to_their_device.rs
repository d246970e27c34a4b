//! A hybrid device (a ZNS SSD's zones first, then an HM-SMR HDD's, under one zone index space)
//! routes every request to the device owning its zone: per-zone capacities, per-device
//! counters and timing, both write-pointer checkers on, errors in the hybrid's coordinates,
//! requests leaving their zone refused, full zones, power loss of both parts.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_device::{
    DeviceError, HybridSpec, IoClass, SimDevice, SimDeviceSpec, Tier, ZoneOp, ZoneState,
    ZonedDevice,
};
use zonedb_env::{Env, SimConfig, SimEnv};

const KIB: u64 = 1024;

/// `tiny` (16 zones of 256 KiB, 192 KiB capacity, 3 open / 4 active) and 8 zones of the
/// ST14000NM0007 scaled to 128 KiB zones.
fn hybrid(env: &SimEnv) -> SimDevice<SimEnv> {
    let spec = HybridSpec {
        ssd: SimDeviceSpec::new("tiny", "1"),
        hdd: SimDeviceSpec::new("st14000nm0007", "1/2048").zone_count(Some(8)),
    };
    assert_eq!(spec.profile_name().unwrap(), "tiny+st14000nm0007@1/2048");
    let dev = spec.build(env.clone()).unwrap();
    dev.set_checking(true);
    dev
}

fn block(seed: u8, len: u64) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
}

#[test]
fn geometry_and_reports_give_each_zone_its_device_and_capacity() {
    let env = SimEnv::new(SimConfig::default());
    let dev = hybrid(&env);
    let g = dev.geometry().clone();
    assert_eq!(g.zone_count, 24);
    assert_eq!(g.zone_size_bytes, 256 * KIB);
    assert_eq!(g.zone_capacity_bytes, 192 * KIB);
    assert_eq!(g.block_size_bytes, 4 * KIB);
    assert_eq!(g.max_open_zones, 3 + 8);
    assert_eq!(g.max_active_zones, 0, "the HDD has no active limit");
    assert_eq!(g.zone_append_max_bytes, 32 * KIB);
    let l = dev.capabilities().tiers.map(|c| c.hybrid_layout()).unwrap();
    assert_eq!((l.ssd.zones, l.hdd.zones), (16, 8));
    assert_eq!(l.ssd.zone_capacity_bytes, 192 * KIB);
    assert_eq!(l.hdd.zone_capacity_bytes, 128 * KIB);
    assert_eq!((l.hdd.max_open_zones, l.hdd.max_active_zones), (8, 0));
    assert_eq!(l.tier_of(15), Some(Tier::Ssd));
    assert_eq!(l.tier_of(16), Some(Tier::Hdd));
    let zones = dev.report_zones(0, 100);
    assert_eq!(zones.len(), 24);
    for z in &zones {
        assert_eq!(z.start, u64::from(z.index) * 256 * KIB);
        assert_eq!(z.write_pointer, z.start);
        let cap = if z.index < 16 { 192 } else { 128 };
        assert_eq!(z.capacity_bytes, cap * KIB, "zone {}", z.index);
    }
    let middle = dev.report_zones(14, 4);
    assert_eq!(
        middle.iter().map(|z| z.index).collect::<Vec<_>>(),
        [14, 15, 16, 17]
    );
}

#[test]
fn requests_go_to_their_device_with_its_timing_and_counters() {
    let env = SimEnv::new(SimConfig::default());
    let dev = std::sync::Arc::new(hybrid(&env));
    let (e2, d) = (env.clone(), dev.clone());
    env.run(async move {
        let ssd_at = 3 * 256 * KIB;
        let hdd_at = 17 * 256 * KIB;
        let t0 = e2.now();
        d.write(ssd_at, &block(1, 16 * KIB)).await.unwrap();
        let ssd_ns = e2.now() - t0;
        let t1 = e2.now();
        d.write(hdd_at, &block(2, 16 * KIB)).await.unwrap();
        let hdd_ns = e2.now() - t1;
        assert!(ssd_ns < 1_000_000, "SSD write {ssd_ns} ns");
        assert!(hdd_ns > 200_000, "HDD write {hdd_ns} ns");
        let off = d.append(17, &block(3, 8 * KIB)).await.unwrap();
        assert_eq!(off, hdd_at + 16 * KIB);
        assert_eq!(
            d.read(hdd_at + 16 * KIB, 8 * KIB, IoClass::QueryRead)
                .await
                .unwrap(),
            block(3, 8 * KIB)
        );
        assert_eq!(
            d.read(ssd_at, 16 * KIB, IoClass::QueryRead).await.unwrap(),
            block(1, 16 * KIB)
        );
        let e = d.read_elided(hdd_at, 16 * KIB, IoClass::BackgroundRead);
        assert_eq!(e.await.unwrap().materialize(), block(2, 16 * KIB));
        d.read_discard(hdd_at, 4 * KIB, IoClass::BackgroundRead)
            .await
            .unwrap();
        assert_eq!(
            d.peek_elided(ssd_at, 4 * KIB).unwrap().materialize(),
            block(1, 4 * KIB)
        );
        d.manage(17, ZoneOp::Finish).await.unwrap();
        d.manage(3, ZoneOp::Reset).await.unwrap();
        d.sync().await.unwrap();
        let h = d.capabilities().tiers.map(|c| c.hybrid_stats()).unwrap();
        assert_eq!((h.ssd.writes, h.ssd.reads, h.ssd.zone_resets), (1, 1, 1));
        assert_eq!((h.hdd.writes, h.hdd.reads, h.hdd.zone_finishes), (2, 3, 1));
        assert_eq!(h.hdd.bytes_written, 24 * KIB);
        let all = d.stats();
        assert_eq!(all.writes, 3);
        assert_eq!(all.bytes_read, h.ssd.bytes_read + h.hdd.bytes_read);
        assert_eq!(all.syncs, 2, "a sync flushes both devices");
        let z = d.report_zones(17, 1)[0];
        assert_eq!(z.state, ZoneState::Full);
        assert_eq!(z.write_pointer, z.start + 128 * KIB);
        assert_eq!(d.report_zones(3, 1)[0].state, ZoneState::Empty);
        assert!(d.memory_payload_bytes().unwrap() > 0);
        assert!(!d.volatile_write_cache());
    })
    .unwrap();
}

#[test]
fn requests_leaving_their_zone_or_device_are_refused_in_hybrid_coordinates() {
    let env = SimEnv::new(SimConfig::default());
    let dev = std::sync::Arc::new(hybrid(&env));
    let d = dev.clone();
    env.run(async move {
        let hdd = 16 * 256 * KIB;
        // From the last SSD zone's address range into the first HDD zone.
        let r = d.write(hdd - 4 * KIB, &block(0, 8 * KIB)).await;
        assert!(
            matches!(r, Err(DeviceError::CrossesZoneEnd { zone: 15, .. })),
            "{r:?}"
        );
        // Past an HDD zone's own size, into the gap before the next stride.
        let r = d.read(hdd + 124 * KIB, 8 * KIB, IoClass::QueryRead).await;
        assert!(
            matches!(r, Err(DeviceError::CrossesZoneEnd { zone: 16, .. })),
            "{r:?}"
        );
        let r = d.write(24 * 256 * KIB, &block(0, 4 * KIB)).await;
        assert!(matches!(r, Err(DeviceError::OutOfRange { .. })), "{r:?}");
        let r = d.manage(24, ZoneOp::Open).await;
        assert!(matches!(r, Err(DeviceError::OutOfRange { .. })), "{r:?}");
        // The HDD's errors name hybrid zones and offsets.
        d.write(hdd + 256 * KIB, &block(0, 4 * KIB)).await.unwrap();
        let r = d.write(hdd + 256 * KIB + 8 * KIB, &block(0, 4 * KIB)).await;
        match r {
            Err(DeviceError::NotAtWritePointer {
                zone,
                offset,
                write_pointer,
            }) => {
                assert_eq!(zone, 17);
                assert_eq!(offset, hdd + 256 * KIB + 8 * KIB);
                assert_eq!(write_pointer, hdd + 256 * KIB + 4 * KIB);
            }
            other => panic!("{other:?}"),
        }
        // A full HDD zone: its capacity end is where the zone is full.
        for i in 0..4 {
            d.write(hdd + i * 32 * KIB, &block(1, 32 * KIB))
                .await
                .unwrap();
        }
        assert_eq!(d.report_zones(16, 1)[0].state, ZoneState::Full);
        let r = d.append(16, &block(0, 4 * KIB)).await;
        assert!(
            matches!(r, Err(DeviceError::ZoneFull { zone: 16 })),
            "{r:?}"
        );
        // A full SSD zone too (192 KiB of 256 KiB).
        for i in 0..6 {
            d.append(2, &block(2, 32 * KIB)).await.unwrap();
            assert_eq!(
                d.report_zones(2, 1)[0].write_pointer,
                2 * 256 * KIB + (i + 1) * 32 * KIB
            );
        }
        assert_eq!(d.report_zones(2, 1)[0].state, ZoneState::Full);
        let r = d.write(2 * 256 * KIB + 192 * KIB, &block(0, 4 * KIB)).await;
        assert!(matches!(r, Err(DeviceError::ZoneFull { zone: 2 })), "{r:?}");
        let r = d.read(3 * 256 * KIB, 4 * KIB, IoClass::QueryRead).await;
        assert!(
            matches!(r, Err(DeviceError::ReadBeyondWritePointer { zone: 3, .. })),
            "{r:?}"
        );
    })
    .unwrap();
}

#[test]
fn a_power_cycle_loses_the_writes_in_flight_on_both_devices() {
    let env = SimEnv::new(SimConfig::default());
    let dev = std::sync::Arc::new(hybrid(&env));
    let (e2, d) = (env.clone(), dev.clone());
    env.run(async move {
        let (ssd, hdd) = (256 * KIB, 20 * 256 * KIB);
        d.write(ssd, &block(1, 8 * KIB)).await.unwrap();
        d.write(hdd, &block(2, 8 * KIB)).await.unwrap();
        // Admitted, never completed: the power goes 1 µs later.
        drop(d.write(ssd + 8 * KIB, &block(3, 64 * KIB)));
        drop(d.write(hdd + 8 * KIB, &block(4, 64 * KIB)));
        e2.sleep(1_000).await;
        d.power_cycle().unwrap();
        let s = d.report_zones(1, 1)[0];
        let h = d.report_zones(20, 1)[0];
        assert_eq!(s.write_pointer, ssd + 8 * KIB);
        assert_eq!(h.write_pointer, hdd + 8 * KIB);
        assert_eq!((s.state, h.state), (ZoneState::Closed, ZoneState::Closed));
        assert_eq!(
            d.read(hdd, 8 * KIB, IoClass::QueryRead).await.unwrap(),
            block(2, 8 * KIB)
        );
        // Both write again where they were.
        d.write(ssd + 8 * KIB, &block(5, 4 * KIB)).await.unwrap();
        d.write(hdd + 8 * KIB, &block(6, 4 * KIB)).await.unwrap();
    })
    .unwrap();
}

#[test]
fn bad_hybrid_specs_are_refused_saying_why() {
    let env = SimEnv::new(SimConfig::default());
    let err = |ssd: SimDeviceSpec, hdd: SimDeviceSpec| {
        HybridSpec { ssd, hdd }
            .build(env.clone())
            .unwrap_err()
            .to_string()
    };
    let disk = || SimDeviceSpec::new("st14000nm0007", "1/2048");
    let e = err(disk(), disk());
    assert!(
        e.contains("hybrid ssd") && e.contains("flash profile"),
        "{e}"
    );
    let e = err(
        SimDeviceSpec::new("tiny", "1"),
        SimDeviceSpec::new("tiny", "1"),
    );
    assert!(
        e.contains("hybrid hdd") && e.contains("not an HM-SMR disk"),
        "{e}"
    );
    let e = err(SimDeviceSpec::new("tiny", "1"), disk().zone_count(Some(0)));
    assert!(
        e.contains("hybrid hdd") && e.contains("zone_count 0"),
        "{e}"
    );
    let e = err(
        SimDeviceSpec::new("tiny", "1"),
        disk().chips_per_zone(Some(2)),
    );
    assert!(e.contains("chips_per_zone is a flash setting"), "{e}");
    let e = err(SimDeviceSpec::new("tiny", "1").zone_count(Some(17)), disk());
    assert!(
        e.contains("hybrid ssd") && e.contains("zone_count 17"),
        "{e}"
    );
    // A restricted SSD keeps its limits within its zones.
    let p = SimDeviceSpec::new("zn540", "1/64")
        .zone_count(Some(10))
        .profile()
        .unwrap();
    assert_eq!(
        (
            p.zones.zone_count,
            p.zones.max_open_zones,
            p.zones.max_active_zones
        ),
        (10, 10, 10)
    );
}

#[test]
fn parts_with_different_block_sizes_are_refused() {
    use zonedb_device::payload::Payload;
    use zonedb_device::profile::Profile;
    use zonedb_device::{DiskProfile, HybridDevice, SmrHdd, ZnsSsd};
    let env = SimEnv::new(SimConfig::default());
    let ssd = ZnsSsd::new(
        env.clone(),
        Profile::by_name("tiny").unwrap(),
        Payload::Discard,
    )
    .unwrap();
    let mut p = DiskProfile::by_name("st14000nm0007")
        .unwrap()
        .scaled(2048)
        .unwrap()
        .with_zone_count(4)
        .unwrap();
    p.zones.block_size_bytes = 8 * KIB;
    let hdd = SmrHdd::new_disk(env, p, Payload::Discard).unwrap();
    let e = HybridDevice::new(ssd, hdd).unwrap_err().to_string();
    assert!(
        e.contains("block size 4096 differs from the HDD's 8192"),
        "{e}"
    );
}
