//! A file-backed device never creates or writes its files through a symbolic link: a link
//! planted at `DATA`, `ZONES`, `HEADER.tmp` or `LOCK` (dangling or not) is refused with
//! `LinkRefused` naming it, and the link's target is left as it was. An empty directory path
//! is refused before anything is created, and a missing `LOCK` is named by a read-only open.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::symlink;
use std::path::Path;

use zonedb_device::zone::ZoneGeometry;
use zonedb_device::zonefile::{DATA_FILE, LOCK_FILE, ZONES_FILE};
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

const VICTIM: &[u8] = b"not yours to truncate\n";

fn refused_at(r: Result<ZoneFileDevice, DeviceError>, want: &Path) {
    match r {
        Err(e @ DeviceError::LinkRefused { .. }) => {
            let DeviceError::LinkRefused { path } = &e else {
                unreachable!()
            };
            assert_eq!(path, want);
            let msg = e.to_string();
            assert!(msg.contains(&want.display().to_string()), "{msg}");
            assert!(msg.contains("symbolic link"), "{msg}");
        }
        Err(e) => panic!("want LinkRefused for {}, got {e}", want.display()),
        Ok(_) => panic!("want LinkRefused for {}, got a device", want.display()),
    }
}

#[test]
fn create_refuses_a_link_at_each_file_and_leaves_its_target_alone() {
    for name in [DATA_FILE, ZONES_FILE, "HEADER.tmp", LOCK_FILE] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dev");
        std::fs::create_dir(&dir).unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, VICTIM).unwrap();
        symlink(&victim, dir.join(name)).unwrap();
        refused_at(ZoneFileDevice::create(&dir, geometry()), &dir.join(name));
        assert_eq!(std::fs::read(&victim).unwrap(), VICTIM, "{name}");
        // A dangling link: its target is not created.
        let nowhere = tmp.path().join("nowhere");
        std::fs::remove_file(dir.join(name)).unwrap();
        symlink(&nowhere, dir.join(name)).unwrap();
        refused_at(ZoneFileDevice::create(&dir, geometry()), &dir.join(name));
        assert!(!nowhere.exists(), "{name}");
    }
}

#[test]
fn open_refuses_a_device_whose_files_became_links() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    drop(ZoneFileDevice::create(&dir, geometry()).unwrap());
    for name in [DATA_FILE, ZONES_FILE, LOCK_FILE] {
        // The file moved elsewhere, a link left in its place.
        let moved = tmp.path().join(format!("moved-{name}"));
        std::fs::rename(dir.join(name), &moved).unwrap();
        symlink(&moved, dir.join(name)).unwrap();
        let before = std::fs::read(&moved).unwrap();
        refused_at(ZoneFileDevice::open(&dir), &dir.join(name));
        assert_eq!(std::fs::read(&moved).unwrap(), before, "{name}");
        if name != LOCK_FILE {
            refused_at(ZoneFileDevice::open_read_only(&dir), &dir.join(name));
        }
        std::fs::remove_file(dir.join(name)).unwrap();
        std::fs::rename(&moved, dir.join(name)).unwrap();
    }
    // Back in place: it opens.
    drop(ZoneFileDevice::open(&dir).unwrap());
}

#[test]
fn an_empty_path_is_refused_before_anything_is_created() {
    let r = ZoneFileDevice::create(Path::new(""), geometry());
    assert!(matches!(r, Err(DeviceError::InvalidConfig(_))), "{r:?}");
}

#[test]
fn a_read_only_open_without_the_lock_file_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
    std::fs::remove_file(tmp.path().join(LOCK_FILE)).unwrap();
    let e = ZoneFileDevice::open_read_only(tmp.path()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&tmp.path().join(LOCK_FILE).display().to_string()),
        "{msg}"
    );
}
