//! Every transition and every error of the NVMe ZNS zone state machine, on the `ZoneTable`
//! every device shares. A rejected request must change nothing.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use proptest::prelude::*;
use zonedb_device::zone::{ZoneGeometry, ZoneState, ZoneTable};
use zonedb_device::{DeviceError, ZoneOp};

const KIB: u64 = 1024;
const ZS: u64 = 256 * KIB;
const CAP: u64 = 192 * KIB;
const BS: u64 = 4 * KIB;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 16,
        zone_size_bytes: ZS,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 3,
        max_active_zones: 4,
        zone_append_max_bytes: 32 * KIB,
    }
}

fn table() -> ZoneTable {
    ZoneTable::new(geometry()).unwrap()
}

fn start(z: u32) -> u64 {
    u64::from(z) * ZS
}

fn state(t: &ZoneTable, z: u32) -> ZoneState {
    t.info(z).unwrap().state
}

fn wp(t: &ZoneTable, z: u32) -> u64 {
    t.info(z).unwrap().write_pointer
}

/// Asserts `f` fails with an error matching `pred` and leaves the table unchanged.
fn rejects(
    t: &mut ZoneTable,
    f: impl FnOnce(&mut ZoneTable) -> Result<(), DeviceError>,
    pred: impl Fn(&DeviceError) -> bool,
) {
    let before = t.report(0, 16);
    let (open, active) = (t.open_count(), t.active_count());
    let err = f(t).expect_err("request should be rejected");
    assert!(pred(&err), "unexpected error: {err:?}");
    assert_eq!(t.report(0, 16), before, "a rejected request changed zones");
    assert_eq!((t.open_count(), t.active_count()), (open, active));
    t.check_invariants().unwrap();
}

#[test]
fn write_implicitly_opens_an_empty_zone_and_takes_both_resources() {
    let mut t = table();
    let a = t.admit_write(start(0), BS).unwrap();
    assert_eq!(
        (a.zone, a.offset, a.filled, a.auto_closed),
        (0, 0, false, None)
    );
    assert_eq!(state(&t, 0), ZoneState::ImplicitlyOpen);
    assert_eq!((t.open_count(), t.active_count()), (1, 1));
    assert_eq!(wp(&t, 0), BS);
    t.admit_write(BS, 2 * BS).unwrap();
    assert_eq!(state(&t, 0), ZoneState::ImplicitlyOpen);
    assert_eq!(wp(&t, 0), 3 * BS);
}

#[test]
fn write_to_closed_zone_reopens_it_implicitly_with_one_open_resource() {
    let mut t = table();
    t.admit_write(start(1), BS).unwrap();
    t.close(1).unwrap();
    assert_eq!(state(&t, 1), ZoneState::Closed);
    assert_eq!((t.open_count(), t.active_count()), (0, 1));
    t.admit_write(start(1) + BS, BS).unwrap();
    assert_eq!(state(&t, 1), ZoneState::ImplicitlyOpen);
    assert_eq!((t.open_count(), t.active_count()), (1, 1));
}

#[test]
fn write_to_explicitly_open_zone_keeps_it_explicit() {
    let mut t = table();
    t.open(2).unwrap();
    t.admit_write(start(2), BS).unwrap();
    assert_eq!(state(&t, 2), ZoneState::ExplicitlyOpen);
}

#[test]
fn write_reaching_capacity_makes_the_zone_full_and_releases_resources() {
    let mut t = table();
    t.admit_write(start(0), CAP - BS).unwrap();
    assert_eq!((t.open_count(), t.active_count()), (1, 1));
    let a = t.admit_write(start(0) + CAP - BS, BS).unwrap();
    assert!(a.filled);
    assert_eq!(state(&t, 0), ZoneState::Full);
    assert_eq!((t.open_count(), t.active_count()), (0, 0));
    // A single write filling an empty zone needs no resources at all.
    t.admit_write(start(1), CAP).unwrap();
    assert_eq!(state(&t, 1), ZoneState::Full);
}

#[test]
fn zone_append_returns_the_assigned_offset() {
    let mut t = table();
    let a = t.admit_append(3, 8 * KIB).unwrap();
    assert_eq!(a.offset, start(3));
    let b = t.admit_append(3, 4 * KIB).unwrap();
    assert_eq!(b.offset, start(3) + 8 * KIB);
    assert_eq!(wp(&t, 3), start(3) + 12 * KIB);
}

#[test]
fn explicit_open_transitions() {
    let mut t = table();
    t.open(0).unwrap(); // E -> EO
    assert_eq!(state(&t, 0), ZoneState::ExplicitlyOpen);
    assert_eq!((t.open_count(), t.active_count()), (1, 1));
    assert!(!t.open(0).unwrap().changed); // EO no-op
    t.admit_write(start(1), BS).unwrap();
    t.open(1).unwrap(); // IO -> EO
    assert_eq!(state(&t, 1), ZoneState::ExplicitlyOpen);
    t.admit_write(start(2), BS).unwrap();
    t.close(2).unwrap();
    t.open(2).unwrap(); // C -> EO
    assert_eq!(state(&t, 2), ZoneState::ExplicitlyOpen);
    assert_eq!((t.open_count(), t.active_count()), (3, 3));
    t.finish(3).unwrap();
    rejects(
        &mut t,
        |t| t.open(3).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Open,
                    from: ZoneState::Full,
                    ..
                }
            )
        },
    );
}

#[test]
fn close_transitions() {
    let mut t = table();
    t.admit_write(start(0), BS).unwrap();
    t.close(0).unwrap(); // IO -> C
    assert_eq!(state(&t, 0), ZoneState::Closed);
    assert!(!t.close(0).unwrap().changed); // C no-op
    t.open(1).unwrap();
    t.close(1).unwrap(); // EO with nothing written -> E
    assert_eq!(state(&t, 1), ZoneState::Empty);
    assert_eq!((t.open_count(), t.active_count()), (0, 1));
    t.open(2).unwrap();
    t.admit_write(start(2), BS).unwrap();
    t.close(2).unwrap(); // EO -> C
    assert_eq!(state(&t, 2), ZoneState::Closed);
    rejects(
        &mut t,
        |t| t.close(5).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Close,
                    from: ZoneState::Empty,
                    ..
                }
            )
        },
    );
    t.finish(6).unwrap();
    rejects(
        &mut t,
        |t| t.close(6).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    from: ZoneState::Full,
                    ..
                }
            )
        },
    );
}

#[test]
fn finish_transitions_move_the_write_pointer_to_the_capacity_end() {
    let mut t = table();
    t.finish(0).unwrap(); // E -> F
    t.admit_write(start(1), BS).unwrap();
    t.finish(1).unwrap(); // IO -> F
    t.open(2).unwrap();
    t.finish(2).unwrap(); // EO -> F
    t.admit_write(start(3), BS).unwrap();
    t.close(3).unwrap();
    t.finish(3).unwrap(); // C -> F
    for z in 0..4 {
        assert_eq!(state(&t, z), ZoneState::Full);
        assert_eq!(wp(&t, z), start(z) + CAP);
    }
    assert_eq!((t.open_count(), t.active_count()), (0, 0));
    assert!(!t.finish(0).unwrap().changed); // F no-op
    rejects(
        &mut t,
        |t| t.admit_write(start(0) + CAP, BS).map(drop),
        |e| matches!(e, DeviceError::ZoneFull { zone: 0 }),
    );
    rejects(
        &mut t,
        |t| t.admit_append(0, BS).map(drop),
        |e| matches!(e, DeviceError::ZoneFull { zone: 0 }),
    );
}

#[test]
fn reset_transitions_empty_the_zone() {
    let mut t = table();
    t.admit_write(start(0), BS).unwrap();
    t.open(1).unwrap();
    t.admit_write(start(2), BS).unwrap();
    t.close(2).unwrap();
    t.admit_write(start(3), CAP).unwrap();
    for z in 0..4 {
        let out = t.reset(z).unwrap();
        assert!(out.changed);
        assert_eq!(state(&t, z), ZoneState::Empty);
        assert_eq!(wp(&t, z), start(z));
    }
    assert_eq!((t.open_count(), t.active_count()), (0, 0));
    assert!(!t.reset(0).unwrap().changed); // E no-op
}

#[test]
fn read_only_and_offline_zones() {
    let mut t = table();
    t.admit_write(start(0), 2 * BS).unwrap();
    t.set_read_only(0).unwrap();
    assert_eq!(state(&t, 0), ZoneState::ReadOnly);
    assert_eq!((t.open_count(), t.active_count()), (0, 0));
    t.check_read(start(0), BS).unwrap();
    rejects(
        &mut t,
        |t| t.admit_write(start(0) + 2 * BS, BS).map(drop),
        |e| matches!(e, DeviceError::ZoneReadOnly { zone: 0 }),
    );
    rejects(
        &mut t,
        |t| t.reset(0).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Reset,
                    ..
                }
            )
        },
    );
    rejects(
        &mut t,
        |t| t.finish(0).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Finish,
                    ..
                }
            )
        },
    );
    rejects(
        &mut t,
        |t| t.open(0).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Open,
                    ..
                }
            )
        },
    );
    rejects(
        &mut t,
        |t| t.set_offline(1).map(drop),
        |e| {
            matches!(
                e,
                DeviceError::InvalidTransition {
                    op: ZoneOp::Offline,
                    ..
                }
            )
        },
    );
    t.set_offline(0).unwrap();
    assert_eq!(state(&t, 0), ZoneState::Offline);
    assert!(matches!(
        t.check_read(start(0), BS),
        Err(DeviceError::ZoneOffline { zone: 0 })
    ));
    rejects(
        &mut t,
        |t| t.admit_write(start(0), BS).map(drop),
        |e| matches!(e, DeviceError::ZoneOffline { zone: 0 }),
    );
    rejects(
        &mut t,
        |t| t.close(0).map(drop),
        |e| matches!(e, DeviceError::InvalidTransition { .. }),
    );
    rejects(
        &mut t,
        |t| t.set_read_only(0).map(drop),
        |e| matches!(e, DeviceError::InvalidTransition { .. }),
    );
}

#[test]
fn write_not_at_the_write_pointer_is_rejected() {
    let mut t = table();
    t.admit_write(start(0), BS).unwrap();
    rejects(
        &mut t,
        |t| t.admit_write(start(0) + 2 * BS, BS).map(drop),
        |e| matches!(e, DeviceError::NotAtWritePointer { zone: 0, write_pointer, .. } if *write_pointer == BS),
    );
    rejects(
        &mut t,
        |t| t.admit_write(start(0), BS).map(drop),
        |e| matches!(e, DeviceError::NotAtWritePointer { .. }),
    );
}

#[test]
fn write_beyond_capacity_is_rejected() {
    let mut t = table();
    t.admit_write(start(0), CAP - BS).unwrap();
    rejects(
        &mut t,
        |t| t.admit_write(start(0) + CAP - BS, 2 * BS).map(drop),
        |e| matches!(e, DeviceError::BeyondCapacity { .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_append(0, 2 * BS).map(drop),
        |e| matches!(e, DeviceError::BeyondCapacity { .. }),
    );
}

#[test]
fn unaligned_requests_are_rejected() {
    let mut t = table();
    rejects(
        &mut t,
        |t| t.admit_write(start(0), 100).map(drop),
        |e| matches!(e, DeviceError::Unaligned { .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_write(start(0) + 512, BS).map(drop),
        |e| matches!(e, DeviceError::Unaligned { .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_write(start(0), 0).map(drop),
        |e| matches!(e, DeviceError::Unaligned { .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_append(0, 10).map(drop),
        |e| matches!(e, DeviceError::Unaligned { .. }),
    );
    t.admit_write(start(0), BS).unwrap();
    assert!(matches!(
        t.check_read(1, BS),
        Err(DeviceError::Unaligned { .. })
    ));
}

#[test]
fn too_many_active_zones_is_rejected() {
    let mut t = table();
    for z in 0..4 {
        t.admit_write(start(z), BS).unwrap();
        t.close(z).unwrap();
    }
    assert_eq!(t.active_count(), 4);
    rejects(
        &mut t,
        |t| t.admit_write(start(4), BS).map(drop),
        |e| matches!(e, DeviceError::TooManyActive { zone: 4, limit: 4 }),
    );
    rejects(
        &mut t,
        |t| t.open(4).map(drop),
        |e| matches!(e, DeviceError::TooManyActive { zone: 4, .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_append(4, BS).map(drop),
        |e| matches!(e, DeviceError::TooManyActive { .. }),
    );
    // Writing to an already active zone still works.
    t.admit_write(start(0) + BS, BS).unwrap();
}

#[test]
fn too_many_open_zones_is_rejected_when_all_are_explicit() {
    let mut t = table();
    for z in 0..3 {
        t.open(z).unwrap();
    }
    rejects(
        &mut t,
        |t| t.open(3).map(drop),
        |e| matches!(e, DeviceError::TooManyOpen { zone: 3, limit: 3 }),
    );
    rejects(
        &mut t,
        |t| t.admit_write(start(3), BS).map(drop),
        |e| matches!(e, DeviceError::TooManyOpen { zone: 3, .. }),
    );
}

#[test]
fn implicit_open_at_the_open_limit_closes_the_oldest_implicitly_opened_zone() {
    let mut t = table();
    t.admit_write(start(0), BS).unwrap();
    t.open(1).unwrap();
    t.admit_write(start(2), BS).unwrap();
    t.admit_write(start(0) + BS, BS).unwrap(); // zone 0 stays the oldest implicit open
    let a = t.admit_write(start(3), BS).unwrap();
    assert_eq!(a.auto_closed, Some(0));
    assert_eq!(state(&t, 0), ZoneState::Closed);
    assert_eq!(state(&t, 3), ZoneState::ImplicitlyOpen);
    assert_eq!((t.open_count(), t.active_count()), (3, 4));
    // An explicit open never auto-closes.
    t.reset(0).unwrap();
    rejects(
        &mut t,
        |t| t.open(5).map(drop),
        |e| matches!(e, DeviceError::TooManyOpen { .. }),
    );
}

#[test]
fn out_of_range_requests_are_rejected() {
    let mut t = table();
    rejects(
        &mut t,
        |t| t.admit_write(16 * ZS, BS).map(drop),
        |e| matches!(e, DeviceError::OutOfRange { what: "offset", .. }),
    );
    rejects(
        &mut t,
        |t| t.admit_append(16, BS).map(drop),
        |e| matches!(e, DeviceError::OutOfRange { what: "zone", .. }),
    );
    rejects(
        &mut t,
        |t| t.reset(99).map(drop),
        |e| matches!(e, DeviceError::OutOfRange { .. }),
    );
    assert!(matches!(
        t.check_read(u64::MAX - BS + 1, BS),
        Err(DeviceError::OutOfRange { .. })
    ));
    assert!(t.info(16).is_err());
    assert_eq!(t.report(14, 10).len(), 2);
}

#[test]
fn reads_beyond_the_write_pointer_or_across_the_zone_end_are_rejected() {
    let mut t = table();
    t.admit_write(start(0), 2 * BS).unwrap();
    t.check_read(start(0), 2 * BS).unwrap();
    assert!(matches!(
        t.check_read(start(0) + BS, 2 * BS),
        Err(DeviceError::ReadBeyondWritePointer { .. })
    ));
    t.finish(0).unwrap();
    assert!(matches!(
        t.check_read(start(0) + CAP - BS, 2 * BS),
        Err(DeviceError::CrossesZoneEnd { .. }) | Err(DeviceError::ReadBeyondWritePointer { .. })
    ));
    assert!(matches!(
        t.check_read(start(0) + ZS - BS, 2 * BS),
        Err(DeviceError::CrossesZoneEnd { .. })
    ));
}

#[test]
fn oversized_append_is_rejected() {
    let mut t = table();
    rejects(
        &mut t,
        |t| t.admit_append(0, 64 * KIB).map(drop),
        |e| matches!(e, DeviceError::AppendTooLarge { .. }),
    );
}

#[test]
fn inconsistent_geometries_are_rejected() {
    let g = geometry();
    for bad in [
        ZoneGeometry {
            zone_count: 0,
            ..g.clone()
        },
        ZoneGeometry {
            zone_capacity_bytes: ZS + BS,
            ..g.clone()
        },
        ZoneGeometry {
            block_size_bytes: 3000,
            ..g.clone()
        },
        ZoneGeometry {
            max_open_zones: 5,
            ..g.clone()
        },
        ZoneGeometry {
            zone_append_max_bytes: 0,
            ..g.clone()
        },
        ZoneGeometry {
            zone_size_bytes: u64::MAX / 2,
            ..g.clone()
        },
    ] {
        assert!(matches!(
            ZoneTable::new(bad),
            Err(DeviceError::InvalidConfig(_))
        ));
    }
}

#[test]
fn restore_closes_open_zones_and_rejects_nonsense() {
    let mut saved = vec![(ZoneState::Empty, 0); 16];
    for (z, s) in saved.iter_mut().enumerate() {
        s.1 = start(z as u32);
    }
    saved[0] = (ZoneState::ImplicitlyOpen, BS);
    saved[1] = (ZoneState::ExplicitlyOpen, start(1));
    saved[2] = (ZoneState::Full, start(2) + CAP);
    let t = ZoneTable::restore(geometry(), &saved).unwrap();
    assert_eq!(state(&t, 0), ZoneState::Closed);
    assert_eq!(state(&t, 1), ZoneState::Empty);
    assert_eq!(state(&t, 2), ZoneState::Full);
    assert_eq!((t.open_count(), t.active_count()), (0, 1));
    t.check_invariants().unwrap();
    let mut bad = saved.clone();
    bad[3] = (ZoneState::Empty, start(3) + BS);
    assert!(matches!(
        ZoneTable::restore(geometry(), &bad),
        Err(DeviceError::Corrupt(_))
    ));
    let mut bad = saved.clone();
    bad[3] = (ZoneState::Closed, start(4));
    assert!(ZoneTable::restore(geometry(), &bad).is_err());
    assert!(ZoneTable::restore(geometry(), &saved[..3]).is_err());
}

#[derive(Debug, Clone)]
enum Op {
    Write {
        zone: u32,
        delta_blocks: i64,
        blocks: u64,
    },
    Append {
        zone: u32,
        blocks: u64,
    },
    Read {
        zone: u32,
        block: u64,
        blocks: u64,
    },
    Manage {
        zone: u32,
        op: u8,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..18, -2i64..3, 0u64..60).prop_map(|(zone, delta_blocks, blocks)| Op::Write {
            zone,
            delta_blocks,
            blocks
        }),
        (0u32..18, 0u64..10).prop_map(|(zone, blocks)| Op::Append { zone, blocks }),
        (0u32..18, 0u64..70, 0u64..5).prop_map(|(zone, block, blocks)| Op::Read {
            zone,
            block,
            blocks
        }),
        (0u32..18, 0u8..6).prop_map(|(zone, op)| Op::Manage { zone, op }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random request sequences never panic, every rejection leaves the table unchanged, and
    /// the invariants (write pointers, states, resource counts and limits) always hold.
    #[test]
    fn random_requests_keep_every_invariant(ops in prop::collection::vec(op(), 1..200)) {
        let mut t = table();
        for op in ops {
            let before = t.report(0, 16);
            let result = match op {
                Op::Write { zone, delta_blocks, blocks } => {
                    let wp = t.info(zone).map(|i| i.write_pointer).unwrap_or(start(zone));
                    let off = wp.saturating_add_signed(delta_blocks * BS as i64);
                    t.admit_write(off, blocks * BS).map(drop)
                }
                Op::Append { zone, blocks } => t.admit_append(zone, blocks * BS).map(drop),
                Op::Read { zone, block, blocks } => t.check_read(start(zone) + block * BS, blocks * BS).map(drop),
                Op::Manage { zone, op } => match op {
                    0 => t.open(zone).map(drop),
                    1 => t.close(zone).map(drop),
                    2 => t.finish(zone).map(drop),
                    3 => t.reset(zone).map(drop),
                    4 => t.set_read_only(zone).map(drop),
                    _ => t.set_offline(zone).map(drop),
                },
            };
            if result.is_err() {
                prop_assert_eq!(t.report(0, 16), before);
            }
            prop_assert!(t.check_invariants().is_ok(), "{:?}", t.check_invariants());
        }
    }
}
