//! Space of the file-backed device follows its zones: a reset gives the zone's blocks back to
//! the file system (hole punched in `DATA`), a finish the zone's unprogrammed rest, and opening
//! a device frees everything above each zone's programmed bytes (empty zones hold no blocks,
//! and bytes a kill left between a data write and its record go too). Read-only opens punch
//! nothing. Linux only (hole punching); needs a file system with hole punching (ext4, xfs,
//! btrfs, tmpfs).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common::block_on;

use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use zonedb_device::zone::ZoneGeometry;
use zonedb_device::zonefile::DATA_FILE;
use zonedb_device::{IoClass, ZoneFileDevice, ZoneOp, ZonedDevice};

const KIB: u64 = 1024;
const ZS: u64 = 1024 * KIB;
const CAP: u64 = 768 * KIB;
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

/// Bytes the file system holds for `DATA`.
fn data_blocks_bytes(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(DATA_FILE)).unwrap().blocks() * 512
}

fn fill(dev: &ZoneFileDevice, zone: u32, len: u64) {
    let data = vec![0xA5u8; len as usize];
    block_on(dev.write(u64::from(zone) * ZS, &data)).unwrap();
}

#[test]
fn reset_gives_the_zone_blocks_back() {
    let dir = tempfile::tempdir().unwrap();
    let dev = ZoneFileDevice::create(dir.path(), geometry()).unwrap();
    fill(&dev, 1, CAP);
    fill(&dev, 2, 256 * KIB);
    let full = data_blocks_bytes(dir.path());
    assert!(full >= CAP + 256 * KIB, "written zones hold blocks: {full}");
    block_on(dev.manage(1, ZoneOp::Reset)).unwrap();
    let after = data_blocks_bytes(dir.path());
    assert!(
        after <= 256 * KIB + 64 * KIB,
        "after resetting zone 1 DATA still holds {after} bytes (zone 2 holds {})",
        256 * KIB
    );
    // Zone 2 is intact, and the reset zone takes new data.
    let back = block_on(dev.read(2 * ZS, 256 * KIB, IoClass::QueryRead)).unwrap();
    assert!(back.iter().all(|&b| b == 0xA5));
    fill(&dev, 1, 64 * KIB);
    let back = block_on(dev.read(ZS, 64 * KIB, IoClass::QueryRead)).unwrap();
    assert!(back.iter().all(|&b| b == 0xA5));
}

#[test]
fn finish_frees_the_unprogrammed_rest() {
    let dir = tempfile::tempdir().unwrap();
    let dev = ZoneFileDevice::create(dir.path(), geometry()).unwrap();
    fill(&dev, 3, 128 * KIB);
    drop(dev);
    // Bytes above the programmed length of zone 3, as a kill between a data write and its
    // record leaves them.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join(DATA_FILE))
        .unwrap();
    f.write_all_at(&vec![1u8; 256 * KIB as usize], 3 * ZS + 256 * KIB)
        .unwrap();
    f.sync_all().unwrap();
    drop(f);
    let dev = ZoneFileDevice::open(dir.path()).unwrap();
    let opened = data_blocks_bytes(dir.path());
    assert!(
        opened <= 128 * KIB + 64 * KIB,
        "open keeps {opened} bytes for 128 KiB programmed"
    );
    fill(&dev, 4, 128 * KIB);
    block_on(dev.manage(4, ZoneOp::Finish)).unwrap();
    assert!(data_blocks_bytes(dir.path()) <= 256 * KIB + 64 * KIB);
    let back = block_on(dev.read(4 * ZS, CAP, IoClass::QueryRead)).unwrap();
    assert!(back[..128 * KIB as usize].iter().all(|&b| b == 0xA5));
    assert!(back[128 * KIB as usize..].iter().all(|&b| b == 0));
}

#[test]
fn open_empties_the_blocks_of_empty_zones_and_read_only_open_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(dir.path(), geometry()).unwrap());
    // Stale bytes in empty zones 5 and 6 (as a device from before hole punching has them).
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join(DATA_FILE))
        .unwrap();
    f.write_all_at(&vec![7u8; CAP as usize], 5 * ZS).unwrap();
    f.write_all_at(&vec![7u8; CAP as usize], 6 * ZS).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let stale = data_blocks_bytes(dir.path());
    assert!(stale >= 2 * CAP);
    let ro = ZoneFileDevice::open_read_only(dir.path()).unwrap();
    assert_eq!(
        data_blocks_bytes(dir.path()),
        stale,
        "read-only open punches nothing"
    );
    assert!(block_on(ro.write(0, &[0u8; BS as usize])).is_err());
    assert!(block_on(ro.manage(0, ZoneOp::Reset)).is_err());
    drop(ro);
    drop(ZoneFileDevice::open(dir.path()).unwrap());
    let after = data_blocks_bytes(dir.path());
    assert!(after <= 64 * KIB, "empty zones still hold {after} bytes");
}
