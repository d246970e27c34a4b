//! A crafted device directory (valid checksums, sparse files of the sizes its header claims)
//! with a field at its maximum is refused with a typed error before anything is allocated for
//! it: a header claiming 2^26 zones once grew `zonedb fs fsck` to 4.2 GB and aborted.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::fs::{self, File};
use std::path::Path;

use zonedb_device::zone::{ZoneGeometry, ZoneState};
use zonedb_device::zonefile::{
    DATA_FILE, HEADER_FILE, HEADER_LEN, LOCK_FILE, MAX_BLOCK_SIZE_BYTES, MAX_ZONE_COUNT,
    MAX_ZONE_SIZE_BYTES, MIN_BLOCK_SIZE_BYTES, RECORD_LEN, ZONES_FILE, geometry_from_dir,
};
use zonedb_device::{DeviceError, ZoneFileDevice, ZonedDevice};

/// The raw header fields, any values.
#[derive(Debug, Clone, Copy)]
struct Fields {
    zone_count: u32,
    max_open: u32,
    max_active: u32,
    zone_size: u64,
    capacity: u64,
    block: u64,
    append: u64,
}

const GOOD: Fields = Fields {
    zone_count: 4,
    max_open: 2,
    max_active: 2,
    zone_size: 64 << 10,
    capacity: 48 << 10,
    block: 4096,
    append: 16 << 10,
};

fn header(f: Fields) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(b"ZDBZONEF");
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    b[12..16].copy_from_slice(&(RECORD_LEN as u32).to_le_bytes());
    b[16..20].copy_from_slice(&f.zone_count.to_le_bytes());
    b[20..24].copy_from_slice(&f.max_open.to_le_bytes());
    b[24..28].copy_from_slice(&f.max_active.to_le_bytes());
    b[32..40].copy_from_slice(&f.zone_size.to_le_bytes());
    b[40..48].copy_from_slice(&f.capacity.to_le_bytes());
    b[48..56].copy_from_slice(&f.block.to_le_bytes());
    b[56..64].copy_from_slice(&f.append.to_le_bytes());
    let crc = crc32c::crc32c(&b[..HEADER_LEN - 4]);
    b[HEADER_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    b
}

/// A directory whose `HEADER` holds `f` (valid CRC) and whose `ZONES` and `DATA` are sparse
/// files of the sizes `f` gives (as far as the file system allows: the header is checked
/// before either size).
fn crafted(dir: &Path, f: Fields) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(HEADER_FILE), header(f)).unwrap();
    let zones = File::create(dir.join(ZONES_FILE)).unwrap();
    let _ = zones.set_len(u64::from(f.zone_count) * RECORD_LEN as u64);
    let data = File::create(dir.join(DATA_FILE)).unwrap();
    let _ = data.set_len(u64::from(f.zone_count).saturating_mul(f.zone_size));
    File::create(dir.join(LOCK_FILE)).unwrap();
}

fn corrupt_message(dir: &Path) -> &'static str {
    for open in [ZoneFileDevice::open, ZoneFileDevice::open_read_only] {
        match open(dir) {
            Ok(_) => panic!("opened a crafted device"),
            Err(DeviceError::Corrupt(m)) => assert!(!m.is_empty()),
            Err(e) => panic!("not a corrupt-metadata error: {e:?}"),
        }
    }
    match geometry_from_dir(dir) {
        Err(DeviceError::Corrupt(m)) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn each_header_field_at_its_maximum_is_corrupt_not_an_allocation() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Fields, &str)> = vec![
        (
            "2^26 zones",
            Fields {
                zone_count: 1 << 26,
                max_open: 0,
                max_active: 0,
                zone_size: 4096,
                capacity: 4096,
                ..GOOD
            },
            "1048576 zones",
        ),
        (
            "u32::MAX zones",
            Fields {
                zone_count: u32::MAX,
                max_open: 0,
                max_active: 0,
                zone_size: 4096,
                capacity: 4096,
                ..GOOD
            },
            "1048576 zones",
        ),
        (
            "one zone more than the cap",
            Fields {
                zone_count: MAX_ZONE_COUNT + 1,
                max_open: 0,
                max_active: 0,
                zone_size: 4096,
                capacity: 4096,
                ..GOOD
            },
            "1048576 zones",
        ),
        (
            "a zone of 1 TiB",
            Fields {
                zone_size: 1 << 40,
                capacity: 1 << 40,
                ..GOOD
            },
            "64 GiB",
        ),
        (
            "a zone of 2^63 bytes",
            Fields {
                zone_count: 1,
                max_open: 0,
                max_active: 0,
                zone_size: 1 << 63,
                capacity: 1 << 63,
                ..GOOD
            },
            "64 GiB",
        ),
        (
            "the largest zone size",
            Fields {
                zone_size: u64::MAX / 4096 * 4096,
                capacity: 4096,
                ..GOOD
            },
            "invalid",
        ),
        (
            "the largest capacity",
            Fields {
                capacity: u64::MAX,
                ..GOOD
            },
            "invalid",
        ),
        (
            "a block of 2^63 bytes",
            Fields {
                zone_count: 1,
                max_open: 0,
                max_active: 0,
                zone_size: 1 << 63,
                capacity: 1 << 63,
                block: 1 << 63,
                append: 1 << 63,
            },
            "64 GiB",
        ),
        (
            "a block of 1 MiB",
            Fields {
                zone_size: 4 << 20,
                capacity: 4 << 20,
                block: 1 << 20,
                append: 1 << 20,
                ..GOOD
            },
            "block size",
        ),
        (
            "a block of 256 bytes",
            Fields {
                block: 256,
                append: 256,
                ..GOOD
            },
            "block size",
        ),
        (
            "u32::MAX open zones",
            Fields {
                max_open: u32::MAX,
                max_active: 0,
                ..GOOD
            },
            "invalid",
        ),
        (
            "u32::MAX active zones",
            Fields {
                max_active: u32::MAX,
                ..GOOD
            },
            "invalid",
        ),
    ];
    for (i, (what, f, want)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("c{i}"));
        crafted(&dir, f);
        let m = corrupt_message(&dir);
        assert!(m.contains(want), "{what}: {m}");
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn the_bounds_are_what_the_messages_say() {
    assert_eq!(MAX_ZONE_COUNT, 1_048_576);
    assert_eq!(MAX_ZONE_SIZE_BYTES, 64 << 30);
    assert_eq!((MIN_BLOCK_SIZE_BYTES, MAX_BLOCK_SIZE_BYTES), (512, 65536));
}

#[test]
fn create_refuses_what_open_would_refuse() {
    let tmp = tempfile::tempdir().unwrap();
    let g = |zone_count: u32, zone_size: u64, block: u64| ZoneGeometry {
        zone_count,
        zone_size_bytes: zone_size,
        zone_capacity_bytes: zone_size,
        block_size_bytes: block,
        max_open_zones: 0,
        max_active_zones: 0,
        zone_append_max_bytes: block,
    };
    for (i, (geometry, want)) in [
        (g(MAX_ZONE_COUNT + 1, 4096, 4096), "at most 1048576"),
        (g(2, 1 << 40, 4096), "68719476736"),
        (g(2, 1 << 20, 256), "512 to 65536"),
        (g(2, 1 << 21, 1 << 20), "512 to 65536"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = tmp.path().join(format!("g{i}"));
        match ZoneFileDevice::create(&dir, geometry) {
            Err(DeviceError::InvalidConfig(m)) => assert!(m.contains(want), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(!dir.join(HEADER_FILE).exists());
    }
    // The limits themselves are accepted.
    let dir = tmp.path().join("edge");
    let dev =
        ZoneFileDevice::create(&dir, g(2, MAX_ZONE_SIZE_BYTES, MAX_BLOCK_SIZE_BYTES)).unwrap();
    assert_eq!(dev.geometry().zone_size_bytes, MAX_ZONE_SIZE_BYTES);
}

/// A zone record with its write pointer at the end of a zone of the largest size opens: a
/// write pointer bounds what a read may ask for, and the device reads only what is asked.
#[test]
fn a_write_pointer_at_the_end_of_the_largest_zone_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let zs = MAX_ZONE_SIZE_BYTES;
    let f = Fields {
        zone_size: zs,
        capacity: zs,
        ..GOOD
    };
    crafted(tmp.path(), f);
    let rec = |state: ZoneState, zone: u32, wp: u64, programmed: u64| {
        let mut b = [0u8; RECORD_LEN];
        b[0] = state.code();
        b[4..8].copy_from_slice(&zone.to_le_bytes());
        b[8..16].copy_from_slice(&wp.to_le_bytes());
        b[16..24].copy_from_slice(&programmed.to_le_bytes());
        let crc = crc32c::crc32c(&b[..RECORD_LEN - 4]);
        b[RECORD_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
        b
    };
    let mut zones = Vec::new();
    zones.extend_from_slice(&rec(ZoneState::Full, 0, zs, zs));
    zones.extend_from_slice(&rec(ZoneState::Closed, 1, zs + (2 << 30), 2 << 30));
    zones.extend_from_slice(&rec(ZoneState::Empty, 2, 2 * zs, 0));
    zones.extend_from_slice(&rec(ZoneState::Empty, 3, 3 * zs, 0));
    fs::write(tmp.path().join(ZONES_FILE), &zones).unwrap();
    let dev = ZoneFileDevice::open_read_only(tmp.path()).unwrap();
    let z = dev.report_zones(0, 4);
    assert_eq!((z[0].state, z[0].write_pointer), (ZoneState::Full, zs));
    assert_eq!(z[1].write_pointer, zs + (2 << 30));
    // One past the write pointer is out of range, whatever the size asked.
    let e = crate::common::block_on(dev.read(zs, u64::MAX - zs, zonedb_device::IoClass::QueryRead))
        .unwrap_err();
    assert!(!matches!(e, DeviceError::Io(_)), "{e:?}");
}
