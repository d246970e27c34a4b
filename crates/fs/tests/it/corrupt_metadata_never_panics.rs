//! Corrupting any byte of the metadata log or of a superblock: mount either succeeds (a torn or
//! damaged tail is cut off, an older superblock is used) or returns a clear error. It never
//! panics, and what it mounts is consistent (fsck finds nothing).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use zonedb_device::{Profile, ZoneFileDevice, ZonedDevice};
use zonedb_env::{RealEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsOptions, ZoneFs};

fn geometry() -> zonedb_device::ZoneGeometry {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 24;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 8;
    p.zones
}

/// Builds a device with a few files and returns the bytes of the current metadata zone range.
fn build(dir: &std::path::Path) -> (u64, u64) {
    let env = RealEnv::new(0);
    let dev = Arc::new(ZoneFileDevice::create(dir, geometry()).unwrap());
    env.block_on(ZoneFs::<RealEnv, ZoneFileDevice>::mkfs(dev.as_ref(), 0))
        .unwrap();
    let fs = env
        .block_on(ZoneFs::mount(
            env.clone(),
            dev.clone(),
            FsOptions::default(),
        ))
        .unwrap();
    env.block_on(async {
        for i in 0..6 {
            let mut w = fs
                .create(&format!("{i}.sst"), Lifetime::Medium)
                .await
                .unwrap();
            w.append(&vec![i as u8; 10_000 + i * 3000]).await.unwrap();
            w.close().await.unwrap();
        }
        fs.delete("2.sst").await.unwrap();
        fs.rename("3.sst", "3b.sst").await.unwrap();
    });
    // The metadata zone in use is the one among the first three with data.
    let z = dev
        .report_zones(0, 3)
        .into_iter()
        .find(|z| z.write_pointer > z.start)
        .unwrap();
    (z.start, z.write_pointer)
}

#[test]
fn every_damaged_metadata_byte_is_survived_or_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let pristine = tmp.path().join("pristine");
    let (start, end) = build(&pristine);
    let data = std::fs::read(pristine.join("DATA")).unwrap();
    let mut rng = SimRng::seed_from_u64(5);
    let mut mounted = 0;
    let mut refused = 0;
    for round in 0..120u64 {
        let dir = tmp.path().join(format!("r{round}"));
        std::fs::create_dir(&dir).unwrap();
        for f in ["HEADER", "ZONES"] {
            std::fs::copy(pristine.join(f), dir.join(f)).unwrap();
        }
        std::fs::write(dir.join("DATA"), &data).unwrap();
        // Damage: early rounds hit the superblock, later ones anywhere in the log.
        let span = if round < 40 { 64 } else { end - start };
        let at = start + rng.gen_range(0..span);
        let f = OpenOptions::new()
            .write(true)
            .open(dir.join("DATA"))
            .unwrap();
        f.write_all_at(&[data[at as usize] ^ (1 << rng.gen_range(0..8))], at)
            .unwrap();
        drop(f);
        let env = RealEnv::new(0);
        let dev = Arc::new(ZoneFileDevice::open(&dir).unwrap());
        match env.block_on(ZoneFs::mount(env.clone(), dev, FsOptions::default())) {
            Ok(fs) => {
                mounted += 1;
                assert!(fs.fsck().is_empty(), "round {round}: {:?}", fs.fsck());
                for name in fs.list() {
                    let want = name
                        .trim_end_matches(".sst")
                        .trim_end_matches('b')
                        .parse::<u8>()
                        .unwrap();
                    let got = env.block_on(fs.read_all(&name)).unwrap();
                    assert!(
                        got.iter().all(|&b| b == want),
                        "round {round}: {name} has wrong bytes"
                    );
                }
            }
            Err(FsError::Corrupt(_) | FsError::NotFormatted) => refused += 1,
            Err(e) => panic!("round {round}: unexpected error {e}"),
        }
    }
    assert!(
        mounted > 0 && refused > 0,
        "mounted {mounted}, refused {refused}"
    );
}
