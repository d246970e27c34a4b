//! A zone file device keeps every acknowledged write, write pointer and zone state across a
//! drop and reopen; open zones come back closed (empty when nothing was written).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use zonedb_device::zone::{ZoneGeometry, ZoneState};
use zonedb_device::{DeviceStats, IoClass, ZoneFileDevice, ZoneOp, ZonedDevice};

const KIB: u64 = 1024;
const ZS: u64 = 256 * KIB;
const CAP: u64 = 192 * KIB;
const BS: u64 = 4 * KIB;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 8,
        zone_size_bytes: ZS,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 4,
        max_active_zones: 5,
        zone_append_max_bytes: 64 * KIB,
    }
}

fn start(z: u32) -> u64 {
    u64::from(z) * ZS
}

/// The byte the tests write at device offset `offset` (differs per zone, block and position).
fn pattern(offset: u64) -> u8 {
    let x = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (offset >> 13);
    (x >> 56) as u8
}

fn bytes(offset: u64, len: u64) -> Vec<u8> {
    (offset..offset + len).map(pattern).collect()
}

fn open(dir: &std::path::Path) -> ZoneFileDevice {
    let dev = ZoneFileDevice::open(dir).unwrap();
    dev.set_checking(true);
    dev
}

fn write(dev: &ZoneFileDevice, offset: u64, len: u64) {
    block_on(dev.write(offset, &bytes(offset, len))).unwrap();
}

fn append(dev: &ZoneFileDevice, zone: u32, len: u64) -> u64 {
    let wp = dev.report_zones(zone, 1)[0].write_pointer;
    let at = block_on(dev.append(zone, &bytes(wp, len))).unwrap();
    assert_eq!(at, wp);
    at
}

fn states(dev: &ZoneFileDevice) -> Vec<(ZoneState, u64)> {
    dev.report_zones(0, 8)
        .iter()
        .map(|z| (z.state, z.write_pointer - z.start))
        .collect()
}

/// Reads every zone up to its write pointer: written bytes carry the pattern, `zeros` ranges
/// (device offsets) read as zeros.
fn verify(dev: &ZoneFileDevice, programmed: &[u64]) {
    for z in dev.report_zones(0, 8) {
        let written = z.write_pointer - z.start;
        if written == 0 {
            let err = block_on(dev.read(z.start, BS, IoClass::QueryRead)).unwrap_err();
            assert!(matches!(
                err,
                zonedb_device::DeviceError::ReadBeyondWritePointer { .. }
            ));
            continue;
        }
        let got = block_on(dev.read(z.start, written, IoClass::QueryRead)).unwrap();
        let p = programmed[z.index as usize];
        assert_eq!(
            got[..p as usize],
            bytes(z.start, p)[..],
            "zone {} data",
            z.index
        );
        assert!(
            got[p as usize..].iter().all(|&b| b == 0),
            "zone {} finished tail",
            z.index
        );
        // Unaligned block-sized reads in the middle as well.
        if written >= 2 * BS {
            let got = block_on(dev.read(z.start + BS, BS, IoClass::BackgroundRead)).unwrap();
            let want = if p >= 2 * BS {
                bytes(z.start + BS, BS)
            } else {
                vec![0; BS as usize]
            };
            assert_eq!(got, want);
        }
    }
}

#[test]
fn reopen_keeps_data_write_pointers_and_states() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    let dev = ZoneFileDevice::create(&dir, geometry()).unwrap();
    dev.set_checking(true);
    assert_eq!(dev.dir(), dir);

    // Zone 0: filled by writes of mixed sizes -> full.
    let mut at = start(0);
    for len in [BS, 16 * KIB, 64 * KIB, 4 * KIB, 104 * KIB] {
        write(&dev, at, len);
        at += len;
    }
    assert_eq!(at, start(0) + CAP);
    // Zone 1: written then closed.
    write(&dev, start(1), 3 * BS);
    block_on(dev.manage(1, ZoneOp::Close)).unwrap();
    // Zone 2: explicitly opened, appended to.
    block_on(dev.manage(2, ZoneOp::Open)).unwrap();
    append(&dev, 2, 2 * BS);
    append(&dev, 2, 3 * BS);
    // Zone 3: implicitly open.
    write(&dev, start(3), 2 * BS);
    // Zone 4: one block then finished (the rest reads as zeros).
    write(&dev, start(4), BS);
    block_on(dev.manage(4, ZoneOp::Finish)).unwrap();
    // Zone 5: written, reset, written again (old bytes must not show up).
    write(&dev, start(5), 8 * BS);
    block_on(dev.manage(5, ZoneOp::Reset)).unwrap();
    write(&dev, start(5), BS);
    // Zone 6: explicitly opened, nothing written.
    block_on(dev.manage(6, ZoneOp::Open)).unwrap();

    let before = states(&dev);
    use ZoneState::*;
    assert_eq!(
        before,
        vec![
            (Full, CAP),
            (Closed, 3 * BS),
            (ExplicitlyOpen, 5 * BS),
            (ImplicitlyOpen, 2 * BS),
            (Full, CAP),
            (ImplicitlyOpen, BS),
            (ExplicitlyOpen, 0),
            (Empty, 0),
        ]
    );
    let programmed = [CAP, 3 * BS, 5 * BS, 2 * BS, BS, BS, 0, 0];
    verify(&dev, &programmed);
    let st = dev.stats();
    assert_eq!(
        st.bytes_written,
        CAP + 3 * BS + 5 * BS + 2 * BS + BS + 8 * BS + BS
    );
    assert_eq!(st.writes, 5 + 1 + 2 + 1 + 1 + 2);
    assert_eq!(
        (
            st.zone_resets,
            st.zone_finishes,
            st.block_erases,
            st.page_ops
        ),
        (1, 1, 0, 0)
    );
    assert!(st.reads > 0 && st.bytes_read >= st.reads * BS);
    drop(dev);

    let dev = open(&dir);
    assert_eq!(dev.geometry(), &geometry());
    assert_eq!(
        zonedb_device::zonefile::geometry_from_dir(&dir).unwrap(),
        geometry()
    );
    assert_eq!(
        states(&dev),
        vec![
            (Full, CAP),
            (Closed, 3 * BS),
            (Closed, 5 * BS),
            (Closed, 2 * BS),
            (Full, CAP),
            (Closed, BS),
            (Empty, 0),
            (Empty, 0),
        ]
    );
    assert_eq!(dev.stats(), DeviceStats::default());
    verify(&dev, &programmed);

    // The device goes on where it stopped: continue zones, reset, finish; sync per write now.
    dev.set_sync_every_write(true);
    assert!(dev.sync_every_write());
    write(&dev, start(3) + 2 * BS, 4 * BS);
    append(&dev, 2, BS);
    block_on(dev.manage(0, ZoneOp::Reset)).unwrap();
    write(&dev, start(0), 2 * BS);
    block_on(dev.manage(1, ZoneOp::Finish)).unwrap();
    block_on(dev.sync()).unwrap();
    drop(dev);

    let dev = open(&dir);
    assert_eq!(
        states(&dev),
        vec![
            (Closed, 2 * BS),
            (Full, CAP),
            (Closed, 6 * BS),
            (Closed, 6 * BS),
            (Full, CAP),
            (Closed, BS),
            (Empty, 0),
            (Empty, 0),
        ]
    );
    verify(&dev, &[2 * BS, 3 * BS, 6 * BS, 6 * BS, BS, BS, 0, 0]);
}

#[test]
fn open_or_create_reuses_a_device_of_the_same_geometry_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = ZoneFileDevice::open_or_create(tmp.path(), geometry()).unwrap();
    write(&dev, start(2), BS);
    drop(dev);
    let dev = ZoneFileDevice::open_or_create(tmp.path(), geometry()).unwrap();
    assert_eq!(dev.report_zones(2, 1)[0].write_pointer, start(2) + BS);
    drop(dev);
    let other = ZoneGeometry {
        max_open_zones: 2,
        ..geometry()
    };
    let err = ZoneFileDevice::open_or_create(tmp.path(), other).unwrap_err();
    assert!(
        matches!(err, zonedb_device::DeviceError::InvalidConfig(_)),
        "{err:?}"
    );
}

#[test]
fn create_refuses_an_existing_device_and_bad_geometry() {
    let tmp = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
    let err = ZoneFileDevice::create(tmp.path(), geometry()).unwrap_err();
    assert!(
        matches!(&err, zonedb_device::DeviceError::InvalidConfig(m) if m.contains("already exists")),
        "{err:?}"
    );
    let bad = ZoneGeometry {
        zone_capacity_bytes: ZS + BS,
        ..geometry()
    };
    let err = ZoneFileDevice::create(&tmp.path().join("other"), bad).unwrap_err();
    assert!(
        matches!(err, zonedb_device::DeviceError::InvalidConfig(_)),
        "{err:?}"
    );
    let missing = ZoneFileDevice::open(&tmp.path().join("missing")).unwrap_err();
    assert!(
        matches!(&missing, zonedb_device::DeviceError::Io(e) if e.kind() == std::io::ErrorKind::NotFound),
        "{missing:?}"
    );
}

#[test]
fn data_file_is_sparse() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let g = ZoneGeometry {
        zone_count: 64,
        zone_size_bytes: 16 << 20,
        zone_capacity_bytes: 16 << 20,
        ..geometry()
    };
    let dev = ZoneFileDevice::create(tmp.path(), g).unwrap();
    let meta = std::fs::metadata(tmp.path().join(zonedb_device::zonefile::DATA_FILE)).unwrap();
    assert_eq!(meta.len(), 1 << 30);
    assert!(
        meta.blocks() * 512 < 1 << 20,
        "data file is not sparse: {} blocks",
        meta.blocks()
    );
    drop(dev);
}
