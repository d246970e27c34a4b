//! SplitZNS split zones on the simulated device (`tiny`: 4 chips, subzones of 64 KiB with
//! 48 KiB capacity): every transition of §4.2 / Fig. 6, every refusal as a typed error that
//! changes nothing, the two rules the paper leaves open, the chip allocator, the
//! subzone-to-block map and MERGE erasing one chip's blocks only.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::splitzns::{SplitZnsConfig, SubzoneState};
use zonedb_device::{
    DeviceError, SimDevice, SimDeviceSpec, SplitOp, SplitRefusal, SubzoneId, ZoneOp, ZoneState,
    ZonedDevice,
};
use zonedb_env::{SimConfig, SimEnv};

const KIB: u64 = 1 << 10;
const SUB: u64 = 48 * KIB;

fn device(env: &SimEnv) -> Arc<SimDevice<SimEnv>> {
    let spec = SimDeviceSpec::new("tiny", "1").splitzns(Some(SplitZnsConfig::native()));
    Arc::new(spec.build(env.clone()).unwrap())
}

fn sub(zone: u32, index: u32) -> SubzoneId {
    SubzoneId { zone, index }
}

fn refusal(e: &DeviceError) -> (SplitOp, SplitRefusal) {
    match e {
        DeviceError::SplitZone { op, reason, .. } => (*op, *reason),
        other => panic!("a split-zone refusal expected, got {other:?}"),
    }
}

fn run(f: impl AsyncFnOnce(Arc<SimDevice<SimEnv>>) + Send + 'static) {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let dev = device(&env);
    env.run(async move { f(dev).await }).unwrap();
}

#[test]
fn a_zns_ssd_refuses_every_split_command() {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let dev = Arc::new(SimDeviceSpec::new("tiny", "1").build(env.clone()).unwrap());
    env.run(async move {
        // It does not have the family: no split command can even be issued.
        assert!(dev.capabilities().split_zones.is_none());
        assert!(dev.split_stats().is_none());
    })
    .unwrap();
}

#[test]
fn split_takes_an_empty_wide_zone_and_one_token_pair() {
    run(async |d| {
        assert!(d.capabilities().split_zones.is_some());
        let g = d
            .capabilities()
            .split_zones
            .map(|c| c.split_geometry())
            .unwrap();
        assert_eq!(
            (g.subzones, g.subzone_size_bytes, g.subzone_capacity_bytes),
            (4, 64 * KIB, SUB)
        );
        let z1 = d.geometry().zone_start(1);
        d.write(z1, &[1; 4096]).await.unwrap();
        let e = crate::common::split(&*d)
            .split_zone(1, 4)
            .await
            .unwrap_err();
        assert_eq!(
            refusal(&e),
            (
                SplitOp::Split,
                SplitRefusal::NotEmpty(ZoneState::ImplicitlyOpen)
            )
        );
        let e = crate::common::split(&*d)
            .split_zone(0, 3)
            .await
            .unwrap_err();
        assert_eq!(refusal(&e), (SplitOp::Split, SplitRefusal::WrongParts(4)));
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let e = crate::common::split(&*d)
            .split_zone(0, 4)
            .await
            .unwrap_err();
        assert_eq!(refusal(&e).1, SplitRefusal::AlreadySplit);
        let z = d.report_zones(0, 1)[0];
        assert_eq!(
            (z.state, z.write_pointer),
            (ZoneState::ExplicitlyOpen, z.start)
        );
        let subs = crate::common::split(&*d).report_subzones(0).unwrap();
        assert_eq!(subs.len(), 4);
        assert!(
            subs.iter()
                .all(|s| s.state == SubzoneState::Empty && s.chip.is_none())
        );
        assert_eq!(subs[2].start, 2 * 64 * KIB);
        // Open limit 3 on `tiny`: zone 1 (implicitly open), split zone 0 and one more.
        d.manage(2, ZoneOp::Open).await.unwrap();
        let e = crate::common::split(&*d)
            .split_zone(3, 4)
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::TooManyOpen { .. }), "{e:?}");
        assert!(
            crate::common::split(&*d).report_subzones(3).is_err(),
            "a refused split changes nothing"
        );
        assert_eq!(d.split_stats().unwrap().splits, 1);
    });
}

#[test]
fn subzone_writes_open_fill_and_are_checked() {
    run(async |d| {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let s2 = crate::common::split(&*d).report_subzones(0).unwrap()[2];
        d.write(s2.start, &[7; 8192]).await.unwrap();
        let s = crate::common::split(&*d).report_subzones(0).unwrap()[2];
        assert_eq!(
            (s.state, s.write_pointer),
            (SubzoneState::Open, s2.start + 8192)
        );
        assert!(s.chip.is_some());
        let e = d.write(s2.start, &[7; 4096]).await.unwrap_err();
        assert!(matches!(e, DeviceError::NotAtWritePointer { .. }), "{e:?}");
        let e = d.write(s2.start + 8192, &[7; 100]).await.unwrap_err();
        assert!(matches!(e, DeviceError::Unaligned { .. }), "{e:?}");
        let at = crate::common::split(&*d)
            .append_subzone(sub(0, 2), &[8; 4096])
            .await
            .unwrap();
        assert_eq!(at, s2.start + 8192);
        let e = crate::common::split(&*d)
            .append_subzone(sub(0, 2), &vec![8; 64 * 1024])
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::AppendTooLarge { .. }), "{e:?}");
        let e = d
            .write(s2.start + 12 * KIB, &vec![9; 40 * 1024])
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::BeyondCapacity { .. }), "{e:?}");
        let e = d
            .read(s2.start + 8192, 8192, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap_err();
        assert!(
            matches!(e, DeviceError::ReadBeyondWritePointer { .. }),
            "{e:?}"
        );
        let e = d
            .read(s2.start + 60 * KIB, 8192, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::CrossesZoneEnd { .. }), "{e:?}");
        let got = d
            .read(s2.start, 12 * KIB, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got[..8192].iter().all(|&b| b == 7) && got[8192..].iter().all(|&b| b == 8));
        // Writing to capacity fills the subzone.
        d.write(s2.start + 12 * KIB, &vec![9; 36 * 1024])
            .await
            .unwrap();
        assert_eq!(
            crate::common::split(&*d).report_subzones(0).unwrap()[2].state,
            SubzoneState::Full
        );
        let e = crate::common::split(&*d)
            .append_subzone(sub(0, 2), &[1; 4096])
            .await
            .unwrap_err();
        assert_eq!(refusal(&e), (SplitOp::Write, SplitRefusal::SubzoneFull));
        let e = crate::common::split(&*d)
            .append_subzone(sub(0, 4), &[1; 4096])
            .await
            .unwrap_err();
        assert_eq!(refusal(&e).1, SplitRefusal::NoSuchSubzone);
        let e = crate::common::split(&*d)
            .append_subzone(sub(5, 0), &[1; 4096])
            .await
            .unwrap_err();
        assert_eq!(refusal(&e).1, SplitRefusal::NotSplit);
        // Wide-zone commands on a split zone are refused.
        let e = d.append(0, &[1; 4096]).await.unwrap_err();
        assert_eq!(refusal(&e), (SplitOp::WideCommand, SplitRefusal::SplitZone));
        for op in [ZoneOp::Open, ZoneOp::Close] {
            let e = d.manage(0, op).await.unwrap_err();
            assert_eq!(refusal(&e).1, SplitRefusal::SplitZone);
        }
    });
}

#[test]
fn finish_deactivates_only_when_no_subzone_is_open() {
    run(async |d| {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let e = crate::common::split(&*d)
            .finish_subzone(sub(0, 1))
            .await
            .unwrap_err();
        assert_eq!(
            refusal(&e),
            (SplitOp::FinishSubzone, SplitRefusal::SubzoneEmpty)
        );
        crate::common::split(&*d)
            .append_subzone(sub(0, 1), &[1; 8192])
            .await
            .unwrap();
        let e = d.manage(0, ZoneOp::Finish).await.unwrap_err();
        assert_eq!(refusal(&e), (SplitOp::Finish, SplitRefusal::SubzonesOpen));
        crate::common::split(&*d)
            .finish_subzone(sub(0, 1))
            .await
            .unwrap();
        let s = crate::common::split(&*d).report_subzones(0).unwrap()[1];
        assert_eq!(
            (s.state, s.write_pointer),
            (SubzoneState::Full, s.start + SUB)
        );
        crate::common::split(&*d)
            .finish_subzone(sub(0, 1))
            .await
            .unwrap();
        // The bytes written before the finish stay readable.
        let got = d
            .read(s.start, 8192, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got.iter().all(|&b| b == 1));
        d.manage(0, ZoneOp::Finish).await.unwrap();
        let z = d.report_zones(0, 1)[0];
        assert_eq!(
            (z.state, z.write_pointer),
            (ZoneState::Full, z.start + z.capacity_bytes)
        );
        // The tokens went back: three other zones can be opened (open limit 3).
        for zone in 1..4 {
            d.manage(zone, ZoneOp::Open).await.unwrap();
        }
        d.manage(0, ZoneOp::Finish).await.unwrap();
        let st = d.split_stats().unwrap();
        assert_eq!((st.split_finishes, st.subzone_finishes), (1, 1));
    });
}

#[test]
fn a_write_to_an_empty_subzone_reactivates_a_finished_split_zone() {
    run(async |d| {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        crate::common::split(&*d)
            .append_subzone(sub(0, 0), &[1; 4096])
            .await
            .unwrap();
        crate::common::split(&*d)
            .finish_subzone(sub(0, 0))
            .await
            .unwrap();
        d.manage(0, ZoneOp::Finish).await.unwrap();
        // No open token free: the write is refused and nothing changes.
        for zone in 1..4 {
            d.manage(zone, ZoneOp::Open).await.unwrap();
        }
        let e = crate::common::split(&*d)
            .append_subzone(sub(0, 2), &[2; 4096])
            .await
            .unwrap_err();
        assert!(matches!(e, DeviceError::TooManyOpen { .. }), "{e:?}");
        assert_eq!(
            crate::common::split(&*d).report_subzones(0).unwrap()[2].state,
            SubzoneState::Empty
        );
        assert_eq!(d.report_zones(0, 1)[0].state, ZoneState::Full);
        d.manage(3, ZoneOp::Close).await.unwrap();
        crate::common::split(&*d)
            .append_subzone(sub(0, 2), &[2; 4096])
            .await
            .unwrap();
        assert_eq!(d.report_zones(0, 1)[0].state, ZoneState::ExplicitlyOpen);
        assert_eq!(d.split_stats().unwrap().reactivations, 1);
        // A full subzone of a finished split zone stays full.
        crate::common::split(&*d)
            .finish_subzone(sub(0, 2))
            .await
            .unwrap();
        d.manage(0, ZoneOp::Finish).await.unwrap();
        let e = crate::common::split(&*d)
            .append_subzone(sub(0, 0), &[2; 4096])
            .await
            .unwrap_err();
        assert_eq!(refusal(&e).1, SplitRefusal::SubzoneFull);
    });
}

#[test]
fn merge_erases_one_chip_and_reset_turns_an_all_empty_split_zone_back_to_wide() {
    run(async |d| {
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        for i in 0..4 {
            crate::common::split(&*d)
                .append_subzone(sub(0, i), &[i as u8; 8192])
                .await
                .unwrap();
        }
        d.write(
            crate::common::split(&*d).report_subzones(0).unwrap()[0].write_pointer,
            &vec![0; 40 * 1024],
        )
        .await
        .unwrap();
        let e = d.manage(0, ZoneOp::Reset).await.unwrap_err();
        assert_eq!(
            refusal(&e),
            (SplitOp::Reset, SplitRefusal::SubzonesNotEmpty)
        );
        // A full subzone on one chip: 48 KiB over 2 planes of 8-page blocks = 1 block a plane.
        let erases = d.stats().block_erases;
        crate::common::split(&*d)
            .merge_subzone(sub(0, 0))
            .await
            .unwrap();
        assert_eq!(d.stats().block_erases - erases, 2);
        let s = crate::common::split(&*d).report_subzones(0).unwrap()[0];
        assert_eq!(
            (s.state, s.write_pointer, s.chip),
            (SubzoneState::Empty, s.start, None)
        );
        let e = d
            .read(s.start, 4096, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap_err();
        assert!(
            matches!(e, DeviceError::ReadBeyondWritePointer { .. }),
            "{e:?}"
        );
        // Merging an empty subzone is a no-op.
        crate::common::split(&*d)
            .merge_subzone(sub(0, 0))
            .await
            .unwrap();
        for i in 1..4 {
            crate::common::split(&*d)
                .merge_subzone(sub(0, i))
                .await
                .unwrap();
        }
        // Rule: all empty, still split until the host resets it.
        assert!(
            crate::common::split(&*d)
                .report_subzones(0)
                .unwrap()
                .iter()
                .all(|s| s.state == SubzoneState::Empty)
        );
        assert_eq!(d.report_zones(0, 1)[0].state, ZoneState::ExplicitlyOpen);
        d.manage(0, ZoneOp::Reset).await.unwrap();
        let e = crate::common::split(&*d).report_subzones(0).unwrap_err();
        assert_eq!(refusal(&e).1, SplitRefusal::NotSplit);
        let z = d.report_zones(0, 1)[0];
        assert_eq!((z.state, z.write_pointer), (ZoneState::Empty, z.start));
        // A wide zone again: written from its start, split again later.
        d.write(z.start, &[5; 16384]).await.unwrap();
        let got = d
            .read(z.start, 16384, zonedb_device::IoClass::QueryRead)
            .await
            .unwrap();
        assert!(got.iter().all(|&b| b == 5));
        d.manage(0, ZoneOp::Reset).await.unwrap();
        crate::common::split(&*d).split_zone(0, 4).await.unwrap();
        let st = d.split_stats().unwrap();
        assert_eq!((st.splits, st.split_resets, st.merges), (2, 1, 4));
    });
}

#[test]
fn the_chip_allocator_never_repeats_a_chip_in_a_split_zone() {
    run(async |d| {
        for zone in [0, 5] {
            crate::common::split(&*d).split_zone(zone, 4).await.unwrap();
        }
        // Interleave first writes of two split zones, merges and rewrites.
        let order = [
            (0, 3),
            (5, 0),
            (0, 1),
            (5, 2),
            (0, 0),
            (5, 1),
            (0, 2),
            (5, 3),
        ];
        for (zone, i) in order {
            crate::common::split(&*d)
                .append_subzone(sub(zone, i), &[1; 4096])
                .await
                .unwrap();
        }
        let mut all_chips = Vec::new();
        for round in 0..3 {
            for zone in [0, 5] {
                let chips: Vec<u32> = crate::common::split(&*d)
                    .report_subzones(zone)
                    .unwrap()
                    .iter()
                    .filter_map(|s| s.chip)
                    .collect();
                let mut dedup = chips.clone();
                dedup.sort_unstable();
                dedup.dedup();
                assert_eq!(
                    dedup.len(),
                    chips.len(),
                    "round {round}, zone {zone}: {chips:?}"
                );
                all_chips.push(chips);
            }
            crate::common::split(&*d)
                .merge_subzone(sub(0, round))
                .await
                .unwrap();
            crate::common::split(&*d)
                .merge_subzone(sub(5, 3 - round))
                .await
                .unwrap();
            crate::common::split(&*d)
                .append_subzone(sub(5, 3 - round), &[2; 4096])
                .await
                .unwrap();
            crate::common::split(&*d)
                .append_subzone(sub(0, round), &[2; 4096])
                .await
                .unwrap();
        }
        // Every subzone of split zone 0 holds a chip again after the rewrites.
        let first = crate::common::split(&*d).report_subzones(0).unwrap();
        assert!(first.iter().all(|s| s.chip.is_some()));
        let st = d.split_stats().unwrap();
        assert_eq!(st.map_entries, 8);
        assert_eq!(st.map_bytes, 64);
        assert_eq!(st.map_peak_bytes, 64);
    });
}
