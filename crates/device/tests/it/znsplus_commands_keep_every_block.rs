//! ZNS+'s commands on the simulated SSD (`tiny`: 4 chips x 2 planes, 4 KiB pages, 8 KiB program
//! units, 192 KiB zone capacity = 48 blocks): IZC copies exactly the listed blocks (read back
//! byte for byte) without host-link bytes and uses copyback only where the destination page's
//! source is on the same die and plane; threaded logging takes writes only into invalid blocks
//! in increasing order, keeps the valid blocks readable past the write pointer and, at close,
//! every skipped block plugged (valid data kept, invalid blocks padding); a power loss in the
//! middle of either loses no acknowledged data (a threaded zone comes back closed).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::flash::ZnsPlusConfig;
use zonedb_device::{
    DeviceError, IoClass, SimDevice, SimDeviceSpec, ZoneOp, ZoneState, ZonedDevice,
};
use zonedb_env::{SimConfig, SimEnv};

const KIB: u64 = 1 << 10;
const B: u64 = 4 * KIB;
/// Blocks of a zone's capacity.
const BLOCKS: u64 = 48;

fn device(env: &SimEnv) -> Arc<SimDevice<SimEnv>> {
    let spec = SimDeviceSpec::new("tiny", "1").znsplus(Some(ZnsPlusConfig {
        max_copy_blocks: 16,
        ..ZnsPlusConfig::reference()
    }));
    Arc::new(spec.build(env.clone()).unwrap())
}

/// Block `b` of zone `zone` as the tests write it first.
fn block(zone: u32, b: u64, round: u8) -> Vec<u8> {
    (0..B)
        .map(|i| (zone as u8) ^ (b as u8).wrapping_mul(7) ^ round ^ (i / 512) as u8)
        .collect()
}

fn fill(zone: u32, round: u8) -> Vec<u8> {
    (0..BLOCKS).flat_map(|b| block(zone, b, round)).collect()
}

fn start(d: &SimDevice<SimEnv>, zone: u32) -> u64 {
    d.report_zones(zone, 1)[0].start
}

#[test]
fn izc_copies_exactly_the_listed_blocks_without_host_transfer() {
    let env = SimEnv::new(SimConfig::with_seed(1));
    let d = device(&env);
    assert!(d.capabilities().in_device_copy.is_some());
    let e = env.clone();
    e.run(async move {
        let (s0, s1) = (start(&d, 0), start(&d, 1));
        d.write(s0, &fill(0, 1)).await.unwrap();
        let before = d.stats();
        // Scattered ranges, in the order given.
        let ranges = [(s0 + 8 * B, 2 * B), (s0, B), (s0 + 40 * B, 5 * B)];
        let at = d
            .capabilities()
            .in_device_copy
            .unwrap()
            .copy(&ranges, 1)
            .await
            .unwrap();
        assert_eq!(at, s1);
        let want: Vec<u8> = ranges
            .iter()
            .flat_map(|&(o, l)| fill(0, 1)[(o - s0) as usize..(o - s0 + l) as usize].to_vec())
            .collect();
        assert_eq!(d.report_zones(1, 1)[0].write_pointer, s1 + 8 * B);
        let got = d.read(s1, 8 * B, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, want);
        // Nothing crossed the host link for the copy.
        let after = d.stats();
        assert_eq!(after.bytes_written, before.bytes_written);
        assert_eq!(after.bytes_read - before.bytes_read, 8 * B);
        let z = d
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        assert_eq!((z.copy_commands, z.copy_bytes), (1, 8 * B));
        // Blocks 8 and 9 land on the die and plane they came from (units 4 and 0 share die
        // slot 0): copyback; the six others change die or plane: read and program.
        assert_eq!((z.copyback_pages, z.read_program_pages), (2, 6), "{z:?}");
    })
    .unwrap();
}

#[test]
fn izc_uses_copyback_only_on_the_same_die_and_plane() {
    let env = SimEnv::new(SimConfig::with_seed(2));
    let d = device(&env);
    let e = env.clone();
    e.run(async move {
        let (s0, s2) = (start(&d, 0), start(&d, 2));
        d.write(s0, &fill(0, 3)).await.unwrap();
        // Same zone-relative offsets: every page on its own die and plane -> copyback.
        d.capabilities()
            .in_device_copy
            .unwrap()
            .copy(&[(s0, 16 * B)], 2)
            .await
            .unwrap();
        let z = d
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        assert_eq!((z.copyback_pages, z.read_program_pages), (16, 0), "{z:?}");
        // One block off: no page keeps its die and plane.
        d.capabilities()
            .in_device_copy
            .unwrap()
            .copy(&[(s0 + 17 * B, 16 * B)], 2)
            .await
            .unwrap();
        let z = d
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        assert_eq!((z.copyback_pages, z.read_program_pages), (16, 16), "{z:?}");
        let got = d.read(s2, 32 * B, IoClass::QueryRead).await.unwrap();
        let src = fill(0, 3);
        let mut want = src[..(16 * B) as usize].to_vec();
        want.extend_from_slice(&src[(17 * B) as usize..(33 * B) as usize]);
        assert_eq!(got, want);
        // Too many blocks for one command: refused, nothing changes.
        let wp = d.report_zones(2, 1)[0].write_pointer;
        let err = d
            .capabilities()
            .in_device_copy
            .unwrap()
            .copy(&[(s0, 17 * B)], 2)
            .await
            .unwrap_err();
        assert!(matches!(err, DeviceError::ZnsPlus { .. }), "{err}");
        assert_eq!(d.report_zones(2, 1)[0].write_pointer, wp);
        // A source past its zone's write pointer: refused.
        let s3 = start(&d, 3);
        assert!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .copy(&[(s3, B)], 2)
                .await
                .is_err()
        );
    })
    .unwrap();
}

/// Zone 0 full of round-1 data, opened for threaded logging with `valid`.
async fn threaded_zone(d: &SimDevice<SimEnv>, valid: &[bool]) -> u64 {
    let s0 = start(d, 0);
    d.write(s0, &fill(0, 1)).await.unwrap();
    assert_eq!(d.report_zones(0, 1)[0].state, ZoneState::Full);
    d.capabilities()
        .in_device_copy
        .unwrap()
        .threaded_open(0, valid)
        .await
        .unwrap();
    s0
}

/// Valid: blocks 0-7 (one unit per die: fully valid units), then every third block.
fn validity() -> Vec<bool> {
    (0..BLOCKS).map(|b| b < 8 || b % 3 == 0).collect()
}

#[test]
fn threaded_logging_plugs_every_skipped_block() {
    let env = SimEnv::new(SimConfig::with_seed(3));
    let d = device(&env);
    let e = env.clone();
    e.run(async move {
        let valid = validity();
        let s0 = threaded_zone(&d, &valid).await;
        let info = d.report_zones(0, 1)[0];
        assert_eq!(info.write_pointer, s0);
        assert!(info.state.is_open());
        // Valid blocks read their old bytes past the write pointer; invalid ones do not read.
        let got = d.read(s0 + 9 * B, B, IoClass::QueryRead).await.unwrap();
        assert_eq!(got, block(0, 9, 1));
        assert!(d.read(s0 + 10 * B, B, IoClass::QueryRead).await.is_err());
        // New data into invalid blocks in increasing order, some skipped (13, 14 stay invalid).
        let writes: Vec<u64> = (8..BLOCKS)
            .filter(|&b| !valid[b as usize] && b != 13 && b != 14 && b < 40)
            .collect();
        for &b in &writes {
            d.capabilities()
                .in_device_copy
                .unwrap()
                .write_sparse(s0 + b * B, &block(0, b, 2))
                .await
                .unwrap();
        }
        // Below the write pointer, or into a valid block: refused.
        assert!(matches!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .write_sparse(s0 + 10 * B, &block(0, 10, 9))
                .await,
            Err(DeviceError::ZnsPlus { .. })
        ));
        assert!(matches!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .write_sparse(s0 + 42 * B, &block(0, 42, 9))
                .await,
            Err(DeviceError::ZnsPlus { .. })
        ));
        // A plain append into the zone is refused too.
        assert!(d.append(0, &block(0, 0, 9)).await.is_err());
        d.manage(0, ZoneOp::Finish).await.unwrap();
        assert_eq!(d.report_zones(0, 1)[0].state, ZoneState::Full);
        let got = d.read(s0, BLOCKS * B, IoClass::QueryRead).await.unwrap();
        for b in 0..BLOCKS {
            let piece = &got[(b * B) as usize..((b + 1) * B) as usize];
            let want = if valid[b as usize] {
                block(0, b, 1)
            } else if writes.contains(&b) {
                block(0, b, 2)
            } else {
                vec![0; B as usize]
            };
            assert_eq!(piece, &want[..], "block {b}");
        }
        let z = d
            .capabilities()
            .in_device_copy
            .map(|c| c.znsplus_stats())
            .unwrap();
        // Every unit got programmed: 24 units x 2 pages, host programs included.
        assert!(z.plug_pages > 0 && z.copyback_pages >= 8, "{z:?}");
        assert!(z.padding_pages > 0, "{z:?}");
        assert_eq!(z.threaded_opens, 1);
        // The zone is an ordinary full zone again: reset and reuse.
        d.manage(0, ZoneOp::Reset).await.unwrap();
        d.write(s0, &fill(0, 5)).await.unwrap();
        assert_eq!(
            d.read(s0, BLOCKS * B, IoClass::QueryRead).await.unwrap(),
            fill(0, 5)
        );
    })
    .unwrap();
}

#[test]
fn threaded_open_needs_a_full_zone_and_a_whole_bitmap() {
    let env = SimEnv::new(SimConfig::with_seed(4));
    let d = device(&env);
    let e = env.clone();
    e.run(async move {
        assert!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .threaded_open(0, &validity())
                .await
                .is_err(),
            "empty zone"
        );
        d.write(start(&d, 0), &fill(0, 1)).await.unwrap();
        assert!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .threaded_open(0, &[true; 3])
                .await
                .is_err(),
            "short bitmap"
        );
        assert!(
            d.capabilities()
                .in_device_copy
                .unwrap()
                .write_sparse(start(&d, 0), &block(0, 0, 1))
                .await
                .is_err()
        );
        d.capabilities()
            .in_device_copy
            .unwrap()
            .threaded_open(0, &validity())
            .await
            .unwrap();
    })
    .unwrap();
    // A plain ZNS SSD has neither command.
    let plain = SimDeviceSpec::new("tiny", "1").build(env.clone()).unwrap();
    env.run(async move {
        assert!(plain.capabilities().in_device_copy.is_none());
    })
    .unwrap();
}

#[test]
fn power_loss_in_threaded_logging_keeps_acknowledged_and_valid_blocks() {
    let env = SimEnv::new(SimConfig::with_seed(5));
    let d = device(&env);
    let e = env.clone();
    let dd = d.clone();
    e.run(async move {
        let valid = validity();
        let s0 = threaded_zone(&dd, &valid).await;
        dd.capabilities()
            .in_device_copy
            .unwrap()
            .write_sparse(s0 + 10 * B, &block(0, 10, 2))
            .await
            .unwrap();
        dd.capabilities()
            .in_device_copy
            .unwrap()
            .write_sparse(s0 + 11 * B, &block(0, 11, 2))
            .await
            .unwrap();
        // Admitted, never completed: lost at the power loss.
        let data = block(0, 13, 2);
        let lost = dd
            .capabilities()
            .in_device_copy
            .unwrap()
            .write_sparse(s0 + 13 * B, &data);
        dd.power_cycle().unwrap();
        drop(lost);
        // The device closed the zone at power-up: full, the rest plugged.
        let info = dd.report_zones(0, 1)[0];
        assert_eq!(info.state, ZoneState::Full);
        for b in 0..BLOCKS {
            let got = dd.read(s0 + b * B, B, IoClass::QueryRead).await.unwrap();
            if valid[b as usize] {
                assert_eq!(got, block(0, b, 1), "valid block {b}");
            } else if b == 10 || b == 11 {
                assert_eq!(got, block(0, b, 2), "acknowledged block {b}");
            } else {
                assert_eq!(got, vec![0; B as usize], "block {b} is padding");
            }
        }
        assert!(
            dd.capabilities()
                .in_device_copy
                .unwrap()
                .write_sparse(s0 + 13 * B, &data)
                .await
                .is_err()
        );
        // An ordinary full zone: reset and reuse.
        dd.manage(0, ZoneOp::Reset).await.unwrap();
        dd.write(s0, &fill(0, 7)).await.unwrap();
        assert_eq!(
            dd.read(s0, BLOCKS * B, IoClass::QueryRead).await.unwrap(),
            fill(0, 7)
        );
    })
    .unwrap();
}

#[test]
fn power_loss_during_izc_keeps_the_sources_and_acknowledged_copies() {
    let env = SimEnv::new(SimConfig::with_seed(6));
    let d = device(&env);
    let e = env.clone();
    e.run(async move {
        let (s0, s1) = (start(&d, 0), start(&d, 1));
        d.write(s0, &fill(0, 1)).await.unwrap();
        d.capabilities()
            .in_device_copy
            .unwrap()
            .copy(&[(s0, 8 * B)], 1)
            .await
            .unwrap();
        let ranges = [(s0 + 8 * B, 8 * B)];
        let lost = d.capabilities().in_device_copy.unwrap().copy(&ranges, 1);
        d.power_cycle().unwrap();
        drop(lost);
        assert_eq!(d.report_zones(1, 1)[0].write_pointer, s1 + 8 * B);
        assert_eq!(
            d.read(s1, 8 * B, IoClass::QueryRead).await.unwrap(),
            fill(0, 1)[..(8 * B) as usize]
        );
        assert_eq!(
            d.read(s0, BLOCKS * B, IoClass::QueryRead).await.unwrap(),
            fill(0, 1)
        );
    })
    .unwrap();
}
