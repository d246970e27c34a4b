//! `zonedb fs fsck --dir D` on crafted device directories (valid checksums, sparse files of the
//! sizes the header claims) under a 1 GB address-space limit (`prlimit --as`): each exits 2
//! with a message naming what is wrong, never aborts on a failed allocation. A header claiming
//! 2^26 zones once grew fsck to 4.2 GB (`memory allocation of 4294967296 bytes failed`), and a
//! metadata write pointer of 2 GiB made it read 2.1 GB. The rows are in `docs/bad-inputs.md`.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::Command;

use zonedb_device::zonefile::{
    DATA_FILE, HEADER_FILE, HEADER_LEN, LOCK_FILE, RECORD_LEN, ZONES_FILE,
};
use zonedb_device::{ZoneFileDevice, ZoneGeometry, ZoneState};

/// The address-space limit fsck runs under.
const LIMIT: &str = "--as=1000000000";
const GIB: u64 = 1 << 30;

/// CRC32C (Castagnoli), as the device's files carry it.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82F6_3B78 & 0u32.wrapping_sub(crc & 1));
        }
    }
    !crc
}

fn header(g: &ZoneGeometry) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[0..8].copy_from_slice(b"ZDBZONEF");
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    b[12..16].copy_from_slice(&(RECORD_LEN as u32).to_le_bytes());
    b[16..20].copy_from_slice(&g.zone_count.to_le_bytes());
    b[20..24].copy_from_slice(&g.max_open_zones.to_le_bytes());
    b[24..28].copy_from_slice(&g.max_active_zones.to_le_bytes());
    b[32..40].copy_from_slice(&g.zone_size_bytes.to_le_bytes());
    b[40..48].copy_from_slice(&g.zone_capacity_bytes.to_le_bytes());
    b[48..56].copy_from_slice(&g.block_size_bytes.to_le_bytes());
    b[56..64].copy_from_slice(&g.zone_append_max_bytes.to_le_bytes());
    let crc = crc32c(&b[..HEADER_LEN - 4]);
    b[HEADER_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    b
}

fn record(state: ZoneState, zone: u32, wp: u64, programmed: u64) -> [u8; RECORD_LEN] {
    let mut b = [0u8; RECORD_LEN];
    b[0] = state.code();
    b[4..8].copy_from_slice(&zone.to_le_bytes());
    b[8..16].copy_from_slice(&wp.to_le_bytes());
    b[16..24].copy_from_slice(&programmed.to_le_bytes());
    let crc = crc32c(&b[..RECORD_LEN - 4]);
    b[RECORD_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    b
}

/// A directory holding `g`'s header and sparse `ZONES` and `DATA` of its sizes (records not
/// written: the header is refused first).
fn header_only(dir: &Path, g: &ZoneGeometry) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(HEADER_FILE), header(g)).unwrap();
    File::create(dir.join(ZONES_FILE))
        .unwrap()
        .set_len(u64::from(g.zone_count) * RECORD_LEN as u64)
        .unwrap();
    File::create(dir.join(DATA_FILE))
        .unwrap()
        .set_len(u64::from(g.zone_count) * g.zone_size_bytes)
        .unwrap();
    File::create(dir.join(LOCK_FILE)).unwrap();
}

/// 8 zones of 4 GiB.
fn big_zones() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 8,
        zone_size_bytes: 4 * GIB,
        zone_capacity_bytes: 4 * GIB,
        block_size_bytes: 4096,
        max_open_zones: 6,
        max_active_zones: 6,
        zone_append_max_bytes: 64 << 10,
    }
}

/// A device of [`big_zones`] whose metadata zone 0 is closed with its write pointer 2 GiB on
/// and `first_block` written at its start.
fn far_metadata_write_pointer(dir: &Path, first_block: &[u8]) {
    drop(ZoneFileDevice::create(dir, big_zones()).unwrap());
    let data = OpenOptions::new()
        .write(true)
        .open(dir.join(DATA_FILE))
        .unwrap();
    data.write_all_at(first_block, 0).unwrap();
    let zones = OpenOptions::new()
        .write(true)
        .open(dir.join(ZONES_FILE))
        .unwrap();
    zones
        .write_all_at(&record(ZoneState::Closed, 0, 2 * GIB, 2 * GIB), 0)
        .unwrap();
}

/// Lays a crafted device out in a directory.
type Craft = Box<dyn Fn(&Path)>;

/// Runs `zonedb fs fsck --dir dir` under the limit; `None` without `prlimit`.
fn fsck_limited(dir: &Path) -> Option<(Option<i32>, String)> {
    let out = match Command::new("prlimit")
        .arg(LIMIT)
        .arg(env!("CARGO_BIN_EXE_zonedb"))
        .args(["fs", "fsck", "--dir"])
        .arg(dir)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("prlimit: {e}"),
    };
    Some((
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn crafted_directories_exit_2_within_a_gigabyte() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    let out = Command::new(env!("CARGO_BIN_EXE_zonedb"))
        .args(["fs", "mkfs", "--scale", "1/512", "--dir"])
        .arg(&good)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // The limit leaves room for a real fsck: what fails below fails for its input.
    let Some((code, err)) = fsck_limited(&good) else {
        eprintln!("prlimit is not installed: crafted directories not checked under a limit");
        return;
    };
    assert_eq!(code, Some(0), "fsck of a good device under {LIMIT}: {err}");

    let mut frame = vec![0u8; 4096];
    frame[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let cases: Vec<(&str, Craft, &str)> = vec![
        (
            "a header claiming 2^26 zones",
            Box::new(|d: &Path| {
                header_only(
                    d,
                    &ZoneGeometry {
                        zone_count: 1 << 26,
                        zone_size_bytes: 4096,
                        zone_capacity_bytes: 4096,
                        block_size_bytes: 4096,
                        max_open_zones: 0,
                        max_active_zones: 0,
                        zone_append_max_bytes: 4096,
                    },
                );
            }),
            "header claims more than 1048576 zones",
        ),
        (
            "a header claiming zones of 1 TiB",
            Box::new(|d: &Path| {
                header_only(
                    d,
                    &ZoneGeometry {
                        zone_size_bytes: 1 << 40,
                        zone_capacity_bytes: 1 << 40,
                        ..big_zones()
                    },
                );
            }),
            "header claims a zone size above 64 GiB",
        ),
        (
            "a header claiming blocks of 1 MiB",
            Box::new(|d: &Path| {
                header_only(
                    d,
                    &ZoneGeometry {
                        block_size_bytes: 1 << 20,
                        zone_append_max_bytes: 1 << 20,
                        ..big_zones()
                    },
                );
            }),
            "header claims a block size outside 512 B to 64 KiB",
        ),
        (
            "a metadata write pointer 2 GiB on, zeros below it",
            Box::new(|d: &Path| far_metadata_write_pointer(d, &[0u8; 4096])),
            "no metadata zone holds a valid superblock and snapshot",
        ),
        (
            "a metadata frame claiming 4 GiB",
            Box::new(move |d: &Path| far_metadata_write_pointer(d, &frame)),
            "no metadata zone holds a valid superblock and snapshot",
        ),
    ];
    for (i, (what, craft, want)) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("c{i}"));
        craft(&dir);
        let (code, err) = fsck_limited(&dir).unwrap();
        assert!(!err.contains("memory allocation"), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(code, Some(2), "{what}: {err}");
        assert!(
            err.starts_with("zonedb: error: corrupt"),
            "{what}: the message names the damage: {err}"
        );
        assert!(err.contains(want), "{what}: want '{want}': {err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
