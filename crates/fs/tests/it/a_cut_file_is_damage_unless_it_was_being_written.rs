//! A write pointer that went back under a file: for a file that was being written (a piece
//! persisted ahead of its data, which a crash lost) a writable mount drops the cut tail, as
//! ever; for a closed file it is damage, and the mount refuses with a typed error naming the
//! file and the zone instead of cutting it silently (it once shrank a closed SST from 132,818
//! to 126,976 bytes and fsck said clean).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use zonedb_device::{ZoneFileDevice, ZoneGeometry};
use zonedb_env::RealEnv;
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsErrorKind, FsOptions, ZoneFs};

fn geometry() -> ZoneGeometry {
    ZoneGeometry {
        zone_count: 16,
        zone_size_bytes: 1 << 20,
        zone_capacity_bytes: 1 << 20,
        block_size_bytes: 4096,
        max_open_zones: 8,
        max_active_zones: 8,
        zone_append_max_bytes: 64 << 10,
    }
}

fn mount(
    env: &RealEnv,
    dir: &Path,
    read_only: bool,
) -> Result<Arc<ZoneFs<RealEnv, ZoneFileDevice>>, FsError> {
    let dev = if read_only {
        ZoneFileDevice::open_read_only(dir)?
    } else {
        ZoneFileDevice::open(dir)?
    };
    let opts = FsOptions {
        read_only,
        ..FsOptions::default()
    };
    env.block_on(ZoneFs::mount(env.clone(), Arc::new(dev), opts))
}

/// Moves zone `zone`'s persisted write pointer back `by` bytes (its record rewritten with a
/// valid checksum, as a damaged or rolled-back device would leave it).
fn move_write_pointer_back(dir: &Path, zone: u32, by: u64) -> u64 {
    let zones = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("ZONES"))
        .unwrap();
    let at = u64::from(zone) * 64;
    let mut rec = [0u8; 64];
    zones.read_exact_at(&mut rec, at).unwrap();
    let wp = u64::from_le_bytes(rec[8..16].try_into().unwrap()) - by;
    let start = u64::from(zone) * geometry().zone_size_bytes;
    let programmed = u64::from_le_bytes(rec[16..24].try_into().unwrap()).min(wp - start);
    rec[8..16].copy_from_slice(&wp.to_le_bytes());
    rec[16..24].copy_from_slice(&programmed.to_le_bytes());
    let crc = crc32c::crc32c(&rec[..60]);
    rec[60..64].copy_from_slice(&crc.to_le_bytes());
    zones.write_all_at(&rec, at).unwrap();
    wp
}

/// A device in `dir` holding `name` of 10,000 bytes written with a sync (its last piece
/// padded and persisted ahead of its data), closed when `close`; the zone it is in.
fn device_with_file(dir: &Path, name: &str, close: bool) -> u32 {
    let env = RealEnv::new(0);
    let dev = ZoneFileDevice::create(dir, geometry()).unwrap();
    env.block_on(ZoneFs::<RealEnv, ZoneFileDevice>::mkfs(&dev, 0))
        .unwrap();
    drop(dev);
    let fs = mount(&env, dir, false).unwrap();
    let zone = env.block_on(async {
        let mut f = fs.create(name, Lifetime::Medium).await.unwrap();
        f.append(&[7u8; 10_000]).await.unwrap();
        f.fsync().await.unwrap();
        if close {
            f.close().await.unwrap();
        } else {
            // Left open, as a crash leaves a file being written.
            drop(f);
        }
        fs.file_zones(&[name])[0][0].0
    });
    let problems = fs.fsck();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(fs.stat(name).unwrap().closed, close);
    zone
}

#[test]
fn a_writable_mount_refuses_a_closed_file_its_zone_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let zone = device_with_file(dir, "000009.sst", true);
    let wp = move_write_pointer_back(dir, zone, 4096);
    let env = RealEnv::new(0);

    // fsck (read-only) names the file, the zone, and that it is damage.
    let ro = mount(&env, dir, true).unwrap();
    let problems = ro.fsck();
    assert!(
        problems.iter().any(|p| p.file == "000009.sst"
            && p.what
                .contains(&format!("runs past zone {zone}'s write pointer {wp}"))
            && p.what.contains("the file is complete")),
        "{problems:?}"
    );
    drop(ro);

    let err = mount(&env, dir, false).err().unwrap();
    assert_eq!(err.kind(), FsErrorKind::Corruption, "{err}");
    match &err {
        FsError::FileCut {
            file,
            zone: z,
            write_pointer,
            ..
        } => {
            assert_eq!(
                (file.as_str(), *z, *write_pointer),
                ("000009.sst", zone, wp)
            );
        }
        other => panic!("not a cut file: {other}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("000009.sst") && msg.contains(&format!("zone {zone}")),
        "{msg}"
    );
    // The refusal changed nothing: the file is still whole in the metadata.
    let ro = mount(&env, dir, true).unwrap();
    assert_eq!(ro.stat("000009.sst").unwrap().size, 10_000);
}

#[test]
fn a_writable_mount_drops_the_cut_tail_of_a_file_being_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let zone = device_with_file(dir, "000009.sst", false);
    // The last block of its padded piece (10,000 bytes in three blocks) lost, as a crash
    // between the piece's record and its write leaves it.
    move_write_pointer_back(dir, zone, 4096);
    let env = RealEnv::new(0);
    let fs = mount(&env, dir, false).unwrap();
    let f = fs.stat("000009.sst").unwrap();
    assert_eq!(f.size, 8192);
    assert!(f.closed, "a writable mount settles every file");
    let problems = fs.fsck();
    assert!(problems.is_empty(), "{problems:?}");
    drop(fs);
    // Settled: the next mount finds it complete and whole.
    let fs = mount(&env, dir, false).unwrap();
    assert_eq!(fs.stat("000009.sst").unwrap().size, 8192);
    assert!(fs.fsck().is_empty());
}
