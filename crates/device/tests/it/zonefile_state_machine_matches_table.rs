//! A zone file device behaves exactly like the in-memory `ZoneTable` plus a map of written
//! bytes, for random sequences of writes (at the write pointer and elsewhere), appends, zone
//! management, reads, syncs and reopens, with random zones (one beyond the device) and random
//! lengths (zero, unaligned, beyond the capacity, beyond the append limit).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use std::fmt::Debug;
use std::mem::discriminant;
use std::path::Path;

use proptest::prelude::*;
use zonedb_device::zone::{ZoneGeometry, ZoneTable};
use zonedb_device::{DeviceError, DeviceStats, IoClass, ZoneFileDevice, ZoneOp, ZonedDevice};

const ZONES: u32 = 6;
const BS: u64 = 4096;
const ZS: u64 = 16 * BS;
const CAP: u64 = 12 * BS;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: ZONES,
        zone_size_bytes: ZS,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 2,
        max_active_zones: 3,
        zone_append_max_bytes: 4 * BS,
    }
}

fn start(z: u32) -> u64 {
    u64::from(z) * ZS
}

#[derive(Debug, Clone)]
enum Op {
    WriteAtWp {
        zone: u32,
        blocks: u64,
        unaligned: bool,
    },
    WriteElsewhere {
        zone: u32,
        delta_blocks: i64,
        blocks: u64,
    },
    Append {
        zone: u32,
        blocks: u64,
        unaligned: bool,
    },
    Manage {
        zone: u32,
        op: ZoneOp,
    },
    Read {
        zone: u32,
        from_block: u64,
        blocks: u64,
        unaligned: bool,
    },
    Sync,
    SyncEveryWrite(bool),
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    let zone = 0..=ZONES;
    let mgmt = prop_oneof![
        6 => Just(ZoneOp::Open),
        6 => Just(ZoneOp::Close),
        4 => Just(ZoneOp::Finish),
        5 => Just(ZoneOp::Reset),
        1 => Just(ZoneOp::ReadOnly),
        1 => Just(ZoneOp::Offline),
    ];
    prop_oneof![
        12 => (zone.clone(), 0..=13u64, prop::bool::weighted(0.1))
            .prop_map(|(zone, blocks, unaligned)| Op::WriteAtWp { zone, blocks, unaligned }),
        2 => (zone.clone(), prop_oneof![-3..=-1i64, 1..=3i64], 1..=3u64)
            .prop_map(|(zone, delta_blocks, blocks)| Op::WriteElsewhere { zone, delta_blocks, blocks }),
        8 => (zone.clone(), 0..=6u64, prop::bool::weighted(0.1))
            .prop_map(|(zone, blocks, unaligned)| Op::Append { zone, blocks, unaligned }),
        8 => (zone.clone(), mgmt).prop_map(|(zone, op)| Op::Manage { zone, op }),
        8 => (zone, 0..=16u64, 0..=17u64, prop::bool::weighted(0.1))
            .prop_map(|(zone, from_block, blocks, unaligned)| Op::Read { zone, from_block, blocks, unaligned }),
        1 => Just(Op::Sync),
        1 => any::<bool>().prop_map(Op::SyncEveryWrite),
        2 => Just(Op::Reopen),
    ]
}

/// The reference: the shared zone table plus the bytes programmed into each zone.
struct Model {
    table: ZoneTable,
    data: Vec<Vec<u8>>,
    stats: DeviceStats,
}

impl Model {
    fn new() -> Self {
        Self {
            table: ZoneTable::new(geometry()).unwrap(),
            data: vec![Vec::new(); ZONES as usize],
            stats: DeviceStats::default(),
        }
    }

    fn store(&mut self, zone: u32, offset: u64, data: &[u8]) {
        let z = &mut self.data[zone as usize];
        assert_eq!(
            z.len() as u64,
            offset - start(zone),
            "model: write not at the programmed end"
        );
        z.extend_from_slice(data);
        self.stats.writes += 1;
        self.stats.bytes_written += data.len() as u64;
    }

    fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        let adm = self.table.admit_write(offset, data.len() as u64)?;
        self.store(adm.zone, adm.offset, data);
        Ok(())
    }

    fn append(&mut self, zone: u32, data: &[u8]) -> Result<u64, DeviceError> {
        let adm = self.table.admit_append(zone, data.len() as u64)?;
        self.store(adm.zone, adm.offset, data);
        Ok(adm.offset)
    }

    fn manage(&mut self, zone: u32, op: ZoneOp) -> Result<(), DeviceError> {
        let out = match op {
            ZoneOp::Open => self.table.open(zone)?,
            ZoneOp::Close => self.table.close(zone)?,
            ZoneOp::Finish => self.table.finish(zone)?,
            ZoneOp::Reset => self.table.reset(zone)?,
            ZoneOp::ReadOnly => self.table.set_read_only(zone)?,
            ZoneOp::Offline => self.table.set_offline(zone)?,
        };
        if op == ZoneOp::Reset {
            self.data[zone as usize].clear();
        }
        match op {
            ZoneOp::Finish if out.changed => self.stats.zone_finishes += 1,
            ZoneOp::Reset if out.changed => self.stats.zone_resets += 1,
            _ => {}
        }
        Ok(())
    }

    fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, DeviceError> {
        let zone = self.table.check_read(offset, len)?;
        let z = &self.data[zone as usize];
        let rel = (offset - start(zone)) as usize;
        let out = (rel..rel + len as usize)
            .map(|i| z.get(i).copied().unwrap_or(0))
            .collect();
        self.stats.reads += 1;
        self.stats.bytes_read += len;
        Ok(out)
    }

    /// What a restart does: the table's own restore (open zones close); counters restart.
    fn reopen(&mut self) {
        let saved: Vec<_> = self
            .table
            .report(0, ZONES)
            .iter()
            .map(|z| (z.state, z.write_pointer))
            .collect();
        self.table = ZoneTable::restore(geometry(), &saved).unwrap();
        self.stats = DeviceStats::default();
    }
}

fn payload(offset: u64, len: u64, salt: u64) -> Vec<u8> {
    (0..len)
        .map(|i| ((offset + i).wrapping_mul(31) ^ salt.wrapping_mul(0x9E37)) as u8)
        .collect()
}

fn same<T: PartialEq + Debug>(
    dev: &Result<T, DeviceError>,
    model: &Result<T, DeviceError>,
) -> bool {
    match (dev, model) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => {
            discriminant(a) == discriminant(b) && format!("{a:?}") == format!("{b:?}")
        }
        _ => false,
    }
}

fn brief<T>(r: &Result<T, DeviceError>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(e) => format!("Err({e:?})"),
    }
}

fn open(dir: &Path) -> ZoneFileDevice {
    let dev = ZoneFileDevice::open(dir).unwrap();
    dev.set_checking(true);
    dev
}

fn wp(model: &Model, zone: u32) -> u64 {
    model
        .table
        .info(zone)
        .map_or(start(zone), |z| z.write_pointer)
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut dev = ZoneFileDevice::create(dir, geometry()).unwrap();
    dev.set_checking(true);
    let mut model = Model::new();
    for (step, op) in ops.iter().enumerate() {
        let salt = step as u64;
        let (d, m) = match *op {
            Op::WriteAtWp {
                zone,
                blocks,
                unaligned,
            } => {
                let at = wp(&model, zone);
                let data = payload(at, blocks * BS + if unaligned { 512 } else { 0 }, salt);
                let d = block_on(dev.write(at, &data));
                let m = model.write(at, &data);
                prop_assert!(
                    same(&d, &m),
                    "step {step} {op:?}: device {d:?}, model {m:?}"
                );
                (brief(&d), brief(&m))
            }
            Op::WriteElsewhere {
                zone,
                delta_blocks,
                blocks,
            } => {
                let at = wp(&model, zone).saturating_add_signed(delta_blocks * BS as i64);
                let data = payload(at, blocks * BS, salt);
                let d = block_on(dev.write(at, &data));
                let m = model.write(at, &data);
                prop_assert!(
                    same(&d, &m),
                    "step {step} {op:?}: device {d:?}, model {m:?}"
                );
                (brief(&d), brief(&m))
            }
            Op::Append {
                zone,
                blocks,
                unaligned,
            } => {
                let data = payload(
                    wp(&model, zone),
                    blocks * BS + if unaligned { 512 } else { 0 },
                    salt,
                );
                let d = block_on(dev.append(zone, &data));
                let m = model.append(zone, &data);
                prop_assert!(
                    same(&d, &m),
                    "step {step} {op:?}: device {d:?}, model {m:?}"
                );
                (brief(&d), brief(&m))
            }
            Op::Manage { zone, op: mop } => {
                let d = block_on(dev.manage(zone, mop));
                let m = model.manage(zone, mop);
                prop_assert!(
                    same(&d, &m),
                    "step {step} {op:?}: device {d:?}, model {m:?}"
                );
                (brief(&d), brief(&m))
            }
            Op::Read {
                zone,
                from_block,
                blocks,
                unaligned,
            } => {
                let at = start(zone) + from_block * BS + if unaligned { 512 } else { 0 };
                let d = block_on(dev.read(at, blocks * BS, IoClass::QueryRead));
                let m = model.read(at, blocks * BS);
                prop_assert!(
                    same(&d, &m),
                    "step {step} {op:?}: device {}, model {}",
                    brief(&d),
                    brief(&m)
                );
                (brief(&d), brief(&m))
            }
            Op::Sync => {
                let d = block_on(dev.sync());
                prop_assert!(d.is_ok(), "sync: {d:?}");
                model.stats.syncs += 1;
                (brief(&d), "Ok".into())
            }
            Op::SyncEveryWrite(on) => {
                dev.set_sync_every_write(on);
                ("Ok".into(), "Ok".into())
            }
            Op::Reopen => {
                drop(dev);
                dev = open(dir);
                model.reopen();
                ("Ok".into(), "Ok".into())
            }
        };
        prop_assert_eq!(d, m, "step {} {:?}", step, op);
        prop_assert_eq!(
            dev.report_zones(0, ZONES + 1),
            model.table.report(0, ZONES + 1),
            "step {} {:?}",
            step,
            op
        );
        prop_assert_eq!(dev.stats(), model.stats, "step {} {:?}", step, op);
    }
    // After a final reopen: identical write pointers and states, identical bytes.
    drop(dev);
    let dev = open(dir);
    model.reopen();
    prop_assert_eq!(dev.report_zones(0, ZONES), model.table.report(0, ZONES));
    for z in 0..ZONES {
        let written = model.table.info(z).unwrap().written_bytes();
        if written > 0 {
            let d = block_on(dev.read(start(z), written, IoClass::BackgroundRead));
            let m = model.read(start(z), written);
            prop_assert!(
                same(&d, &m),
                "zone {z} after reopen: device {}, model {}",
                brief(&d),
                brief(&m)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn zone_file_device_matches_the_zone_table(ops in prop::collection::vec(op(), 1..80)) {
        run(&ops)?;
    }
}

#[test]
fn a_fixed_sequence_matches_too() {
    use Op::*;
    let ops = [
        WriteAtWp {
            zone: 0,
            blocks: 3,
            unaligned: false,
        },
        Append {
            zone: 1,
            blocks: 4,
            unaligned: false,
        },
        Append {
            zone: 1,
            blocks: 5,
            unaligned: false,
        },
        Manage {
            zone: 2,
            op: ZoneOp::Open,
        },
        WriteAtWp {
            zone: 3,
            blocks: 1,
            unaligned: false,
        },
        Manage {
            zone: 0,
            op: ZoneOp::Finish,
        },
        Read {
            zone: 0,
            from_block: 0,
            blocks: 12,
            unaligned: false,
        },
        Reopen,
        WriteAtWp {
            zone: 1,
            blocks: 8,
            unaligned: false,
        },
        Manage {
            zone: 1,
            op: ZoneOp::Reset,
        },
        WriteAtWp {
            zone: 1,
            blocks: 1,
            unaligned: false,
        },
        Read {
            zone: 1,
            from_block: 0,
            blocks: 1,
            unaligned: false,
        },
        Manage {
            zone: 4,
            op: ZoneOp::ReadOnly,
        },
        Reopen,
        Read {
            zone: 4,
            from_block: 0,
            blocks: 1,
            unaligned: false,
        },
        Manage {
            zone: 4,
            op: ZoneOp::Offline,
        },
        WriteAtWp {
            zone: 6,
            blocks: 1,
            unaligned: false,
        },
        Sync,
    ];
    run(&ops).unwrap();
}
