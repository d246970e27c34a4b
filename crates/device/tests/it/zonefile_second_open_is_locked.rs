//! Only one handle at a time may use a zone file device directory: a second open (or create)
//! while the first is alive fails with `Locked`; dropping the first releases the directory.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::fs::{File, OpenOptions};

use zonedb_device::zone::ZoneGeometry;
use zonedb_device::zonefile::LOCK_FILE;
use zonedb_device::{DeviceError, ZoneFileDevice};

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 4,
        zone_size_bytes: 64 * 1024,
        zone_capacity_bytes: 64 * 1024,
        block_size_bytes: 4096,
        max_open_zones: 0,
        max_active_zones: 0,
        zone_append_max_bytes: 64 * 1024,
    }
}

#[test]
fn second_open_while_the_first_is_alive_is_locked() {
    let tmp = tempfile::tempdir().unwrap();
    let first = ZoneFileDevice::create(tmp.path(), geometry()).unwrap();
    assert!(matches!(
        ZoneFileDevice::open(tmp.path()),
        Err(DeviceError::Locked)
    ));
    assert!(matches!(
        ZoneFileDevice::open_or_create(tmp.path(), geometry()),
        Err(DeviceError::Locked)
    ));
    // Creating over a live device is refused as well (it exists).
    assert!(matches!(
        ZoneFileDevice::create(tmp.path(), geometry()),
        Err(DeviceError::InvalidConfig(_))
    ));
    drop(first);
    let second = ZoneFileDevice::open(tmp.path()).unwrap();
    assert!(matches!(
        ZoneFileDevice::open(tmp.path()),
        Err(DeviceError::Locked)
    ));
    drop(second);
    ZoneFileDevice::open(tmp.path()).unwrap();
}

#[test]
fn a_lock_held_by_someone_else_blocks_open_and_create() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    std::fs::create_dir(&dir).unwrap();
    let holder: File = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(LOCK_FILE))
        .unwrap();
    holder.try_lock().unwrap();
    assert!(matches!(
        ZoneFileDevice::create(&dir, geometry()),
        Err(DeviceError::Locked)
    ));
    holder.unlock().unwrap();
    drop(ZoneFileDevice::create(&dir, geometry()).unwrap());
    holder.try_lock().unwrap();
    assert!(matches!(
        ZoneFileDevice::open(&dir),
        Err(DeviceError::Locked)
    ));
    drop(holder);
    ZoneFileDevice::open(&dir).unwrap();
}
