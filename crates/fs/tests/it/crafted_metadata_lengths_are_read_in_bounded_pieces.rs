//! Lengths the zone layer reads from the device are bounded before anything is allocated for
//! them: a metadata zone whose write pointer claims 2 GiB (a crafted `ZONES` record of a file-
//! backed device) once made mount read 2.1 GB in one request; a frame claiming 4 GiB, or an
//! unsynced tail running to a far write pointer, must not either. Mount reads in pieces of at
//! most 16 MiB and fails with a typed error (or cuts the torn tail off, as for any torn log).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::future::Future;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use zonedb_device::zone::ZoneGeometry;
use zonedb_device::zonefile::{RECORD_LEN, ZONES_FILE};
use zonedb_device::{
    DeviceError, DeviceStats, IoClass, ZoneFileDevice, ZoneInfo, ZoneOp, ZoneState, ZonedDevice,
};
use zonedb_env::RealEnv;
use zonedb_fs::metalog::MAX_RECORD_BYTES;
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsOptions, ZoneFs};

/// The largest single read mount may make.
const PIECE: u64 = 16 << 20;
const GIB: u64 = 1 << 30;

/// A device that remembers its largest read.
#[derive(Debug)]
struct Watched {
    dev: ZoneFileDevice,
    largest_read: AtomicU64,
    bytes_read: AtomicU64,
}

impl ZonedDevice for Watched {
    fn geometry(&self) -> &ZoneGeometry {
        self.dev.geometry()
    }
    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.dev.report_zones(first, count)
    }
    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        self.largest_read.fetch_max(len, Ordering::Relaxed);
        self.bytes_read.fetch_add(len, Ordering::Relaxed);
        self.dev.read(offset, len, class)
    }
    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.dev.write(offset, data)
    }
    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        self.dev.append(zone, data)
    }
    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.dev.manage(zone, op)
    }
    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.dev.sync()
    }
    fn stats(&self) -> DeviceStats {
        self.dev.stats()
    }
}

/// 8 zones of 4 GiB (sparse files).
fn geometry() -> ZoneGeometry {
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

/// Rewrites zone `zone`'s record (valid CRC) as closed at `wp`, `programmed` bytes written.
fn set_record(dir: &Path, zone: u32, wp: u64, programmed: u64) {
    let mut b = [0u8; RECORD_LEN];
    b[0] = ZoneState::Closed.code();
    b[4..8].copy_from_slice(&zone.to_le_bytes());
    b[8..16].copy_from_slice(&wp.to_le_bytes());
    b[16..24].copy_from_slice(&programmed.to_le_bytes());
    b[24..32].copy_from_slice(&99u64.to_le_bytes());
    let crc = crc32c::crc32c(&b[..RECORD_LEN - 4]);
    b[RECORD_LEN - 4..].copy_from_slice(&crc.to_le_bytes());
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(ZONES_FILE))
        .unwrap();
    f.write_all_at(&b, u64::from(zone) * RECORD_LEN as u64)
        .unwrap();
}

/// A read-only mount's outcome.
type Mounted = Result<Arc<ZoneFs<RealEnv, Watched>>, FsError>;

/// Mounts the device in `dir` read-only (as `zonedb fs fsck` does); the result, the largest
/// read and the bytes read.
fn mount(dir: &Path) -> (Mounted, u64, u64) {
    let dev = Arc::new(Watched {
        dev: ZoneFileDevice::open_read_only(dir).unwrap(),
        largest_read: AtomicU64::new(0),
        bytes_read: AtomicU64::new(0),
    });
    let env = RealEnv::new(0);
    let opts = FsOptions {
        read_only: true,
        ..FsOptions::default()
    };
    let r = env.block_on(ZoneFs::mount(env.clone(), dev.clone(), opts));
    (
        r,
        dev.largest_read.load(Ordering::Relaxed),
        dev.bytes_read.load(Ordering::Relaxed),
    )
}

/// Mount options of the writers: no background cleaner (it would keep the device, and its
/// lock, after the test is done with it).
fn writable() -> FsOptions {
    FsOptions {
        cleaning_interval_ns: 0,
        ..FsOptions::default()
    }
}

/// A formatted device with `names` written and closed; the metadata zone holding the log and
/// the bytes written to it.
fn formatted(dir: &Path, names: &[&str]) -> (u32, u64) {
    let env = RealEnv::new(0);
    let dev = Arc::new(ZoneFileDevice::create(dir, geometry()).unwrap());
    env.block_on(async {
        ZoneFs::<RealEnv, ZoneFileDevice>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let fs = ZoneFs::mount(env.clone(), dev.clone(), writable())
            .await
            .unwrap();
        for n in names {
            let mut w = fs.create(n, Lifetime::Medium).await.unwrap();
            w.append(&[7u8; 10_000]).await.unwrap();
            w.close().await.unwrap();
        }
    });
    let z = dev
        .report_zones(0, 3)
        .into_iter()
        .find(|z| z.write_pointer > z.start)
        .unwrap();
    (z.index, z.write_pointer - z.start)
}

#[test]
fn a_metadata_write_pointer_of_2_gib_over_zeros_is_refused_after_one_piece() {
    let tmp = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
    set_record(tmp.path(), 0, 2 * GIB, 2 * GIB);
    let (r, largest, total) = mount(tmp.path());
    match r {
        Err(FsError::Corrupt(m)) => assert!(m.contains("no metadata zone"), "{m}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(largest <= PIECE, "largest read {largest}");
    assert!(total <= PIECE, "read {total} bytes");
}

#[test]
fn a_frame_claiming_4_gib_is_damage_not_a_read() {
    let tmp = tempfile::tempdir().unwrap();
    drop(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
    // A frame header claiming u32::MAX, then one just over the record limit, at the start
    // of metadata zone 0 (its write pointer 2 GiB on).
    let data = std::fs::OpenOptions::new()
        .write(true)
        .open(tmp.path().join("DATA"))
        .unwrap();
    for len in [u32::MAX, u32::try_from(MAX_RECORD_BYTES + 1).unwrap()] {
        let mut frame = [0u8; 4096];
        frame[4..8].copy_from_slice(&len.to_le_bytes());
        data.write_all_at(&frame, 0).unwrap();
        set_record(tmp.path(), 0, 2 * GIB, 4096);
        let (r, largest, _) = mount(tmp.path());
        assert!(
            matches!(r, Err(FsError::Corrupt(_))),
            "{len}: {:?}",
            r.map(|_| ())
        );
        assert!(largest <= PIECE, "{len}: largest read {largest}");
    }
}

/// A valid log followed by 2 GiB of zeros up to a crafted write pointer: the torn tail is
/// cut off as any torn tail is, every file is there, and no read is larger than a piece.
#[test]
fn a_valid_log_under_a_far_write_pointer_mounts_reading_pieces() {
    let tmp = tempfile::tempdir().unwrap();
    let (zone, written) = formatted(tmp.path(), &["a.sst", "b.sst"]);
    let start = geometry().zone_start(zone);
    set_record(tmp.path(), zone, start + 2 * GIB, written);
    let (r, largest, total) = mount(tmp.path());
    let fs = r.unwrap();
    let mut names = fs.list();
    names.sort();
    assert_eq!(names, ["a.sst", "b.sst"]);
    assert!(fs.fsck().is_empty(), "{:?}", fs.fsck());
    assert!(largest <= PIECE, "largest read {largest}");
    // The scan for later records went over the whole claimed log, a piece at a time.
    assert!(total >= 2 * GIB - PIECE, "read {total} bytes");
}

/// A file open for writing whose zone's write pointer is crafted 2 GiB past its data: the
/// unsynced tail is recovered up to it, read a piece at a time.
#[test]
fn an_unsynced_tail_to_a_far_write_pointer_is_read_in_pieces() {
    let tmp = tempfile::tempdir().unwrap();
    let env = RealEnv::new(0);
    let (zone, start) = {
        let dev = Arc::new(ZoneFileDevice::create(tmp.path(), geometry()).unwrap());
        env.block_on(async {
            ZoneFs::<RealEnv, ZoneFileDevice>::mkfs(dev.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(env.clone(), dev.clone(), writable())
                .await
                .unwrap();
            let mut w = fs.create("000005.sst", Lifetime::Medium).await.unwrap();
            w.append(&[1u8; 8192]).await.unwrap();
            w.sync().await.unwrap();
            let zones = fs.file_zones(&["000005.sst"]);
            let (zone, _) = zones[0][0];
            // The writer is dropped unclosed: a crash, as far as the metadata log knows.
            drop(w);
            (zone, dev.geometry().zone_start(zone))
        })
    };
    set_record(tmp.path(), zone, start + 2 * GIB, 8192);
    let (r, largest, _) = mount(tmp.path());
    let fs = r.unwrap();
    assert!(largest <= PIECE, "largest read {largest}");
    let size = fs.stat("000005.sst").unwrap().size;
    assert!(size >= 2 * GIB - 8192, "recovered {size} bytes");
}
