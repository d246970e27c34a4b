//! A damaged, truncated or missing file of a zone file device makes `open` fail with
//! `Corrupt` or `Io`, never panic and never come up with a wrong state.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use std::fs::{self, OpenOptions};
use std::path::Path;

use proptest::prelude::*;
use zonedb_device::zone::{ZoneGeometry, ZoneState, ZoneTable};
use zonedb_device::zonefile::{
    DATA_FILE, HEADER_FILE, HEADER_LEN, RECORD_LEN, ZONES_FILE, geometry_from_dir,
};
use zonedb_device::{DeviceError, IoClass, ZoneFileDevice, ZoneOp, ZonedDevice};

const BS: u64 = 4096;
const ZS: u64 = 16 * BS;
const CAP: u64 = 12 * BS;

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 4,
        zone_size_bytes: ZS,
        zone_capacity_bytes: CAP,
        block_size_bytes: BS,
        max_open_zones: 2,
        max_active_zones: 2,
        zone_append_max_bytes: 4 * BS,
    }
}

fn start(z: u32) -> u64 {
    u64::from(z) * ZS
}

/// A device with zone 0 full, zone 1 closed at 2 blocks, zone 2 open at 1 block, zone 3 empty.
fn fresh() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dev = ZoneFileDevice::create(tmp.path(), geometry()).unwrap();
    dev.set_checking(true);
    block_on(dev.write(0, &vec![1; CAP as usize])).unwrap();
    block_on(dev.write(start(1), &vec![2; 2 * BS as usize])).unwrap();
    block_on(dev.manage(1, ZoneOp::Close)).unwrap();
    block_on(dev.append(2, &vec![3; BS as usize])).unwrap();
    tmp
}

fn open_err(dir: &Path) -> DeviceError {
    match ZoneFileDevice::open(dir) {
        Ok(dev) => panic!("opened a damaged device: {:?}", dev.report_zones(0, 4)),
        Err(e) => e,
    }
}

fn assert_corrupt(dir: &Path, what: &str) {
    let e = open_err(dir);
    assert!(matches!(e, DeviceError::Corrupt(_)), "{what}: {e:?}");
}

fn patch(path: &Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

fn set_len(path: &Path, len: u64) {
    OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// A zone record as the documented format lays it out, with a valid CRC.
fn record(
    state_code: u8,
    zone: u32,
    wp: u64,
    programmed: u64,
    generation: u64,
) -> [u8; RECORD_LEN] {
    let mut b = [0u8; RECORD_LEN];
    b[0] = state_code;
    b[4..8].copy_from_slice(&zone.to_le_bytes());
    b[8..16].copy_from_slice(&wp.to_le_bytes());
    b[16..24].copy_from_slice(&programmed.to_le_bytes());
    b[24..32].copy_from_slice(&generation.to_le_bytes());
    let crc = crc32c::crc32c(&b[..RECORD_LEN - 4]);
    b[RECORD_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    b
}

fn put_record(dir: &Path, zone: u32, rec: &[u8; RECORD_LEN]) {
    patch(
        &dir.join(ZONES_FILE),
        u64::from(zone) * RECORD_LEN as u64,
        rec,
    );
}

/// Rewrites header bytes `at..` and fixes the header CRC.
fn patch_header(dir: &Path, at: usize, bytes: &[u8]) {
    let path = dir.join(HEADER_FILE);
    let mut h = fs::read(&path).unwrap();
    h[at..at + bytes.len()].copy_from_slice(bytes);
    let crc = crc32c::crc32c(&h[..HEADER_LEN - 4]);
    h[HEADER_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    fs::write(&path, h).unwrap();
}

#[test]
fn the_fresh_device_opens_and_reads() {
    let tmp = fresh();
    let dev = ZoneFileDevice::open(tmp.path()).unwrap();
    let states: Vec<_> = dev.report_zones(0, 4).iter().map(|z| z.state).collect();
    assert_eq!(
        states,
        [
            ZoneState::Full,
            ZoneState::Closed,
            ZoneState::Closed,
            ZoneState::Empty
        ]
    );
    assert_eq!(
        block_on(dev.read(start(1), BS, IoClass::QueryRead)).unwrap(),
        vec![2; BS as usize]
    );
}

#[test]
fn every_flipped_header_bit_is_corrupt() {
    let tmp = fresh();
    let path = tmp.path().join(HEADER_FILE);
    let good = fs::read(&path).unwrap();
    assert_eq!(good.len(), HEADER_LEN);
    for byte in 0..HEADER_LEN {
        for bit in [0, 3, 7] {
            let mut bad = good.clone();
            bad[byte] ^= 1 << bit;
            fs::write(&path, &bad).unwrap();
            assert_corrupt(tmp.path(), &format!("header byte {byte} bit {bit}"));
            assert!(geometry_from_dir(tmp.path()).is_err());
        }
    }
    fs::write(&path, &good).unwrap();
    ZoneFileDevice::open(tmp.path()).unwrap();
}

#[test]
fn truncated_or_extended_headers_are_corrupt() {
    let tmp = fresh();
    let path = tmp.path().join(HEADER_FILE);
    let good = fs::read(&path).unwrap();
    for len in [0, 1, 7, 8, 12, 40, HEADER_LEN - 1] {
        fs::write(&path, &good[..len]).unwrap();
        assert_corrupt(tmp.path(), &format!("header of {len} bytes"));
    }
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 100]);
    fs::write(&path, &longer).unwrap();
    assert_corrupt(tmp.path(), "header with trailing bytes");
    fs::write(&path, vec![0xAB; 1 << 20]).unwrap();
    assert_corrupt(tmp.path(), "a megabyte of garbage");
}

#[test]
fn headers_with_valid_checksums_but_bad_content_are_corrupt() {
    let cases: [(&str, usize, Vec<u8>); 6] = [
        ("format version 2", 8, 2u32.to_le_bytes().to_vec()),
        ("record length 32", 12, 32u32.to_le_bytes().to_vec()),
        ("zero zones", 16, 0u32.to_le_bytes().to_vec()),
        ("block size 3", 48, 3u64.to_le_bytes().to_vec()),
        (
            "capacity above the zone size",
            40,
            (ZS + BS).to_le_bytes().to_vec(),
        ),
        (
            "more zones than the files hold",
            16,
            5u32.to_le_bytes().to_vec(),
        ),
    ];
    for (what, at, bytes) in cases {
        let tmp = fresh();
        patch_header(tmp.path(), at, &bytes);
        assert_corrupt(tmp.path(), what);
    }
}

#[test]
fn damaged_zone_records_are_corrupt() {
    let g = geometry();
    let cases: Vec<(&str, u32, [u8; RECORD_LEN])> = vec![
        ("all zeros", 1, [0; RECORD_LEN]),
        ("unknown state code", 3, record(0x9, 3, start(3), 0, 1)),
        (
            "record of zone 2 in slot 1",
            1,
            record(ZoneState::Closed.code(), 2, start(2) + BS, BS, 9),
        ),
        (
            "empty with data",
            3,
            record(ZoneState::Empty.code(), 3, start(3) + BS, BS, 1),
        ),
        (
            "closed without data",
            1,
            record(ZoneState::Closed.code(), 1, start(1), 0, 1),
        ),
        (
            "full before the capacity end",
            0,
            record(ZoneState::Full.code(), 0, BS, BS, 1),
        ),
        (
            "closed at the capacity end",
            1,
            record(ZoneState::Closed.code(), 1, start(1) + CAP, CAP, 1),
        ),
        (
            "write pointer in the next zone",
            1,
            record(ZoneState::Closed.code(), 1, start(2) + BS, BS, 1),
        ),
        (
            "write pointer before the zone",
            1,
            record(ZoneState::Closed.code(), 1, BS, BS, 1),
        ),
        (
            "write pointer at u64::MAX",
            1,
            record(ZoneState::Closed.code(), 1, u64::MAX, 0, 1),
        ),
        (
            "unaligned write pointer",
            1,
            record(ZoneState::Closed.code(), 1, start(1) + 100, 100, 1),
        ),
        (
            "programmed beyond the write pointer",
            1,
            record(ZoneState::Closed.code(), 1, start(1) + BS, 2 * BS, 1),
        ),
        (
            "programmed u64::MAX",
            0,
            record(
                ZoneState::Full.code(),
                0,
                g.zone_capacity_bytes,
                u64::MAX,
                1,
            ),
        ),
        (
            "too many active zones",
            3,
            record(ZoneState::Closed.code(), 3, start(3) + BS, BS, 1),
        ),
    ];
    for (what, zone, rec) in cases {
        let tmp = fresh();
        put_record(tmp.path(), zone, &rec);
        assert_corrupt(tmp.path(), what);
    }
    // A single flipped bit anywhere in any record.
    let tmp = fresh();
    let path = tmp.path().join(ZONES_FILE);
    let good = fs::read(&path).unwrap();
    for byte in (0..good.len()).step_by(7) {
        let mut bad = good.clone();
        bad[byte] ^= 0x10;
        fs::write(&path, &bad).unwrap();
        assert_corrupt(tmp.path(), &format!("zone file byte {byte}"));
    }
}

#[test]
fn well_formed_records_of_other_states_open() {
    // Read-only and offline zones and an open zone without data restore without complaint.
    let tmp = fresh();
    put_record(
        tmp.path(),
        3,
        &record(ZoneState::ReadOnly.code(), 3, start(3) + BS, BS, 5),
    );
    put_record(
        tmp.path(),
        2,
        &record(ZoneState::ExplicitlyOpen.code(), 2, start(2), 0, 5),
    );
    let dev = ZoneFileDevice::open(tmp.path()).unwrap();
    let states: Vec<_> = dev.report_zones(0, 4).iter().map(|z| z.state).collect();
    assert_eq!(
        states,
        [
            ZoneState::Full,
            ZoneState::Closed,
            ZoneState::Empty,
            ZoneState::ReadOnly
        ]
    );
}

#[test]
fn truncated_extended_or_missing_files_fail() {
    let records_len = 4 * RECORD_LEN as u64;
    for len in [
        0,
        RECORD_LEN as u64,
        records_len - 1,
        records_len + 1,
        records_len + RECORD_LEN as u64,
    ] {
        let tmp = fresh();
        set_len(&tmp.path().join(ZONES_FILE), len);
        assert_corrupt(tmp.path(), &format!("zone file of {len} bytes"));
    }
    for len in [0, 4 * ZS - 1, 4 * ZS + BS] {
        let tmp = fresh();
        set_len(&tmp.path().join(DATA_FILE), len);
        assert_corrupt(tmp.path(), &format!("data file of {len} bytes"));
    }
    for file in [ZONES_FILE, DATA_FILE, HEADER_FILE] {
        let tmp = fresh();
        fs::remove_file(tmp.path().join(file)).unwrap();
        let e = open_err(tmp.path());
        assert!(
            matches!(&e, DeviceError::Io(io) if io.kind() == std::io::ErrorKind::NotFound),
            "{file} missing: {e:?}"
        );
        // The error names the missing file (a missing HEADER reads as "no device").
        if file != HEADER_FILE {
            assert!(e.to_string().contains(file), "{file} missing: {e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any record content with a valid checksum either opens into a consistent table or is
    /// rejected; never a panic.
    #[test]
    fn arbitrary_checksummed_records_never_panic(
        zone in 0u32..4,
        code in prop_oneof![0u8..16, Just(0xE), Just(0x4), Just(0x1)],
        wp_rel in prop_oneof![0u64..(2 * ZS), any::<u64>()],
        wp_blocks in 0u64..=16,
        use_blocks in any::<bool>(),
        programmed in prop_oneof![0u64..(2 * ZS), any::<u64>()],
        generation in any::<u64>(),
    ) {
        let tmp = fresh();
        let wp = if use_blocks { start(zone) + wp_blocks * BS } else { start(zone).wrapping_add(wp_rel) };
        put_record(tmp.path(), zone, &record(code, zone, wp, programmed, generation));
        match ZoneFileDevice::open(tmp.path()) {
            Ok(dev) => {
                dev.set_checking(true);
                let zones = dev.report_zones(0, 4);
                let saved: Vec<_> = zones.iter().map(|z| (z.state, z.write_pointer)).collect();
                let table = ZoneTable::restore(geometry(), &saved).unwrap();
                prop_assert!(table.check_invariants().is_ok());
                prop_assert!(zones.iter().all(|z| !z.state.is_open()));
                // The device works: reset the zone (when allowed) and write to it.
                if block_on(dev.manage(zone, ZoneOp::Reset)).is_ok() {
                    // Free active resources held by the other zones.
                    for other in (0..4).filter(|&z| z != zone) {
                        let _ = block_on(dev.manage(other, ZoneOp::Reset));
                    }
                    block_on(dev.write(start(zone), &vec![7; BS as usize])).unwrap();
                    let got = block_on(dev.read(start(zone), BS, IoClass::QueryRead)).unwrap();
                    prop_assert_eq!(got, vec![7; BS as usize]);
                }
            }
            Err(e) => prop_assert!(matches!(e, DeviceError::Corrupt(_)), "{:?}", e),
        }
    }

    /// Arbitrary bytes as the header or the zone file: an error, never a panic.
    #[test]
    fn arbitrary_file_contents_never_panic(
        header in prop::option::of(prop::collection::vec(any::<u8>(), 0..100)),
        zones in prop::option::of(prop::collection::vec(any::<u8>(), 0..400)),
    ) {
        prop_assume!(header.is_some() || zones.is_some());
        let tmp = fresh();
        if let Some(h) = &header {
            fs::write(tmp.path().join(HEADER_FILE), h).unwrap();
        }
        if let Some(z) = &zones {
            fs::write(tmp.path().join(ZONES_FILE), z).unwrap();
        }
        let e = open_err(tmp.path());
        prop_assert!(matches!(e, DeviceError::Corrupt(_) | DeviceError::Io(_)), "{:?}", e);
    }
}
