//! The Linux zoned block device backend: ZoneDB on `/dev/nvme0n1` (an NVMe ZNS namespace) or a
//! host-managed SMR disk, through the kernel's `blkzoned` interface.
//!
//! - Geometry and limits come from sysfs ([`sysfs::QueueLimits`]) and the zone ioctls: zone
//!   size, the zone capacity of the zone report, zone count, logical block size, max open and
//!   max active zones, the zone append limit. Devices that are not host-managed, that use
//!   another scheduler than mq-deadline, or that have conventional zones or zones of different
//!   capacities are refused with a message that says what to do.
//! - The device is opened `O_RDWR | O_DIRECT | O_EXCL`: one user at a time, no page cache.
//! - A host-side [`ZoneTable`] mirrors the device's zones: every request is checked against it
//!   first (so the layer above gets the same typed errors as from the simulated and file-backed
//!   devices, and never sends the device a request it would refuse for its open or active
//!   limit), then issued. Open zones found at open time are closed, as after a power cycle, so
//!   the mirror starts equal to the device. When the table closes an implicitly opened zone to
//!   make room, the backend closes it on the device too.
//! - The zone condition is checked, not only the write pointer: Linux reports a full zone's
//!   write pointer as the next zone's start.
//! - Writes to one zone are serialized by the backend (a lock per zone taken in admission
//!   order); writes to different zones run in parallel, reads run beside them and only see data
//!   whose write completed.
//! - A failed request re-reads the zone from the device, puts the mirror back in step, and maps
//!   the OS error: EOVERFLOW to [`DeviceError::TooManyActive`], ETOOMANYREFS to
//!   [`DeviceError::TooManyOpen`], EIO to the zone rule the request broke (full, not at the
//!   write pointer, beyond the capacity) or [`DeviceError::Io`].
//! - Zone append goes through io_uring NVMe passthrough on the namespace's character device
//!   when enabled ([`BlkZonedDevice::enable_zone_append`]); otherwise an append is a write at
//!   the write pointer under the zone's lock.
//!
//! Only built on Linux.

pub mod sys;
pub mod sysfs;
pub mod uring;

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::checker::WritePointerChecker;
use crate::zone::{ZoneGeometry, ZoneInfo, ZoneState, ZoneTable};
use crate::{DeviceError, DeviceStats, ZoneOp};
use sys::{AlignedBuf, BlkZone, SECTOR, ZoneIoctl};
pub use sysfs::QueueLimits;

/// Zones asked for per BLKREPORTZONE call.
const REPORT_CHUNK: u32 = 512;

use crate::zonefile::Target;

#[derive(Debug)]
struct Inner {
    table: ZoneTable,
    checker: WritePointerChecker,
    stats: DeviceStats,
}

impl Inner {
    fn check(&mut self, moment: &str, reset_zone: Option<u32>) {
        self.checker.check(&self.table, moment, reset_zone);
    }
}

/// A Linux host-managed zoned block device; see the [module docs](self).
#[derive(Debug)]
pub struct BlkZonedDevice {
    path: PathBuf,
    file: File,
    geometry: ZoneGeometry,
    limits: QueueLimits,
    inner: Mutex<Inner>,
    /// One lock per zone, taken in admission order and held across the zone's write I/O.
    zone_io: Vec<Mutex<()>>,
    /// Per zone: the end of the data whose write completed (reads above it are refused).
    completed: Vec<AtomicU64>,
    append: Mutex<Option<uring::ZoneAppender>>,
}

/// The state and write pointer (bytes) a zone report entry stands for, with the capacity the
/// device uses; `None` for a conventional zone or an unknown condition.
pub fn zone_from_report(z: &BlkZone, capacity_bytes: u64) -> Option<(ZoneState, u64)> {
    let start = z.start * SECTOR;
    let cap_end = start + capacity_bytes;
    let wp = (z.wp * SECTOR).clamp(start, cap_end);
    let state = match z.cond {
        0x1 => return Some((ZoneState::Empty, start)),
        0x2 => ZoneState::ImplicitlyOpen,
        0x3 => ZoneState::ExplicitlyOpen,
        0x4 => ZoneState::Closed,
        0xD => ZoneState::ReadOnly,
        // A full zone's reported write pointer is the next zone's start: use the capacity end.
        0xE => return Some((ZoneState::Full, cap_end)),
        0xF => return Some((ZoneState::Offline, start)),
        _ => return None,
    };
    Some((state, wp))
}

/// Maps the OS error of a failed write to `zone` at `offset` to a typed device error, given the
/// zone as the device reports it after the failure.
pub fn map_write_error(
    e: io::Error,
    g: &ZoneGeometry,
    zone: u32,
    offset: u64,
    len: u64,
    after: Option<(ZoneState, u64)>,
) -> DeviceError {
    if let Some(limit) = limit_error(&e, g, zone) {
        return limit;
    }
    match e.raw_os_error() {
        Some(libc::EIO) => {
            let cap_end = g.zone_start(zone) + g.zone_capacity_bytes;
            match after {
                Some((ZoneState::Full, _)) => DeviceError::ZoneFull { zone },
                Some((ZoneState::ReadOnly, _)) => DeviceError::ZoneReadOnly { zone },
                Some((ZoneState::Offline, _)) => DeviceError::ZoneOffline { zone },
                Some((_, wp)) if wp != offset => DeviceError::NotAtWritePointer {
                    zone,
                    offset,
                    write_pointer: wp,
                },
                _ if offset + len > cap_end => DeviceError::BeyondCapacity {
                    zone,
                    offset,
                    len,
                    capacity_end: cap_end,
                },
                _ => DeviceError::Io(e),
            }
        }
        _ => DeviceError::Io(e),
    }
}

/// Maps the OS error of a failed zone-management ioctl.
fn map_manage_error(e: &io::Error, g: &ZoneGeometry, zone: u32, op: ZoneOp) -> DeviceError {
    limit_error(e, g, zone).unwrap_or_else(|| {
        DeviceError::Io(io::Error::new(
            e.kind(),
            format!("zone {zone}: {op} failed: {e}"),
        ))
    })
}

/// EOVERFLOW (too many active zones) and ETOOMANYREFS (too many open zones) as typed errors.
fn limit_error(e: &io::Error, g: &ZoneGeometry, zone: u32) -> Option<DeviceError> {
    match e.raw_os_error() {
        Some(libc::EOVERFLOW) => Some(DeviceError::TooManyActive {
            zone,
            limit: g.max_active_zones,
        }),
        Some(libc::ETOOMANYREFS) => Some(DeviceError::TooManyOpen {
            zone,
            limit: g.max_open_zones,
        }),
        _ => None,
    }
}

fn report_all(file: &File, zone_sectors: u64, count: u32) -> Result<Vec<BlkZone>, DeviceError> {
    let mut zones = Vec::with_capacity(count as usize);
    while (zones.len() as u64) < u64::from(count) {
        let first = zones.len() as u64;
        let want = (u64::from(count) - first).min(u64::from(REPORT_CHUNK)) as u32;
        let (got, _) = sys::report_zones(file, first * zone_sectors, want)?;
        if got.is_empty() {
            return Err(DeviceError::Corrupt(
                "zone report ended before the last zone",
            ));
        }
        zones.extend(got);
    }
    zones.truncate(count as usize);
    Ok(zones)
}

impl BlkZonedDevice {
    /// Opens the whole zoned block device at `path` (such as `/dev/nvme0n1`) exclusively.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for a path that is not a usable host-managed zoned block
    /// device (the message says why and what to do), [`DeviceError::Locked`] when another
    /// process has it open exclusively, [`DeviceError::Io`] for OS errors.
    pub fn open(path: &Path) -> Result<Self, DeviceError> {
        Self::open_with_sysfs(path, Path::new("/sys/block"))
    }

    fn open_with_sysfs(path: &Path, sys_block: &Path) -> Result<Self, DeviceError> {
        let real = std::fs::canonicalize(path).map_err(|e| {
            DeviceError::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        })?;
        if !std::fs::metadata(&real)?.file_type().is_block_device() {
            return Err(DeviceError::InvalidConfig(format!(
                "{} is not a block device; give a zoned block device such as /dev/nvme0n1, or \
                 use a file-backed zoned device with --db DIR",
                path.display()
            )));
        }
        let name = real
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| {
                DeviceError::InvalidConfig(format!("{}: no device name", path.display()))
            })?
            .to_string();
        let limits = QueueLimits::read(sys_block, &name)?;
        limits.require_usable()?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT | libc::O_EXCL)
            .open(&real)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::EBUSY) => DeviceError::Locked,
                _ => DeviceError::Io(e),
            })?;
        let geometry = Self::probe_geometry(&file, &limits)?;
        let zone_sectors = geometry.zone_size_bytes / SECTOR;
        // Close what is open, as after a power cycle, so the mirror starts equal to the device.
        for z in report_all(&file, zone_sectors, geometry.zone_count)? {
            if matches!(z.cond, 0x2 | 0x3) {
                sys::manage_zones(&file, ZoneIoctl::Close, z.start, z.len)?;
            }
        }
        let saved = report_all(&file, zone_sectors, geometry.zone_count)?
            .iter()
            .map(|z| {
                zone_from_report(z, geometry.zone_capacity_bytes).ok_or(DeviceError::Corrupt(
                    "zone report holds an unknown zone condition",
                ))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let table = ZoneTable::restore(geometry.clone(), &saved)?;
        let completed = saved.iter().map(|&(_, wp)| AtomicU64::new(wp)).collect();
        let zone_io = (0..geometry.zone_count).map(|_| Mutex::new(())).collect();
        Ok(Self {
            path: real,
            file,
            geometry,
            limits,
            inner: Mutex::new(Inner {
                table,
                checker: WritePointerChecker::new(cfg!(debug_assertions)),
                stats: DeviceStats::default(),
            }),
            zone_io,
            completed,
            append: Mutex::new(None),
        })
    }

    /// Geometry from the ioctls and the zone report, cross-checked with sysfs.
    fn probe_geometry(file: &File, limits: &QueueLimits) -> Result<ZoneGeometry, DeviceError> {
        let zone_sectors = u64::from(sys::zone_size_sectors(file)?);
        let zone_count = sys::zone_count(file)?;
        let block = sys::logical_block_size(file)?;
        let size = sys::size_bytes(file)?;
        let name = &limits.name;
        if zone_sectors == 0 || zone_count == 0 {
            return Err(DeviceError::InvalidConfig(format!(
                "/dev/{name} reports no zones"
            )));
        }
        if zone_sectors != limits.chunk_sectors || block != limits.logical_block_size {
            return Err(DeviceError::InvalidConfig(format!(
                "/dev/{name}: the ioctls and sysfs disagree on the zone size or block size"
            )));
        }
        let zones = report_all(file, zone_sectors, zone_count)?;
        let (_, flags) = sys::report_zones(file, 0, 1)?;
        let mut capacity = None;
        for z in &zones {
            if z.kind != sys::BLK_ZONE_TYPE_SEQWRITE_REQ {
                return Err(DeviceError::InvalidConfig(format!(
                    "/dev/{name}: zone at sector {} is {} (type {}); ZoneDB needs every zone \
                     sequential-write-required",
                    z.start,
                    if z.kind == sys::BLK_ZONE_TYPE_CONVENTIONAL {
                        "conventional"
                    } else {
                        "sequential-write-preferred"
                    },
                    z.kind
                )));
            }
            let cap = if flags & sys::BLK_ZONE_REP_CAPACITY != 0 {
                z.capacity
            } else {
                z.len
            };
            match capacity {
                None => capacity = Some(cap),
                Some(c) if c != cap => {
                    return Err(DeviceError::InvalidConfig(format!(
                        "/dev/{name}: zones have different capacities ({c} and {cap} sectors)"
                    )));
                }
                Some(_) => {}
            }
        }
        let capacity_bytes = capacity.unwrap_or(zone_sectors) * SECTOR;
        let append_max = limits.passthrough_bytes() / block * block;
        let geometry = ZoneGeometry {
            zone_count,
            zone_size_bytes: zone_sectors * SECTOR,
            zone_capacity_bytes: capacity_bytes,
            block_size_bytes: block,
            max_open_zones: limits.max_open_zones,
            max_active_zones: limits.max_active_zones,
            zone_append_max_bytes: append_max.max(block),
        };
        if geometry.device_size_bytes() > size {
            return Err(DeviceError::InvalidConfig(format!(
                "/dev/{name}: {zone_count} zones do not fit its {size} bytes"
            )));
        }
        geometry.validate()?;
        Ok(geometry)
    }

    /// The device path (resolved).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The queue attributes read at open.
    pub fn limits(&self) -> &QueueLimits {
        &self.limits
    }

    /// Sends zone appends through io_uring NVMe passthrough on the namespace's character
    /// device (`/dev/ngXnY` beside `/dev/nvmeXnY`).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the device is not an NVMe namespace or the kernel
    /// lacks io_uring passthrough; [`DeviceError::Io`] when the character device cannot be
    /// opened.
    pub fn enable_zone_append(&self) -> Result<(), DeviceError> {
        let appender = uring::ZoneAppender::open(&self.path, &self.geometry)?;
        *self.append.lock().unwrap_or_else(PoisonError::into_inner) = Some(appender);
        Ok(())
    }

    /// Whether zone appends go through io_uring passthrough.
    pub fn zone_append_enabled(&self) -> bool {
        self.append
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Turns the write-pointer checker on or off (on by default in debug builds).
    pub fn set_checking(&self, enabled: bool) {
        self.lock().checker = WritePointerChecker::new(enabled);
    }

    /// Compares the host-side mirror with a fresh zone report of the device; returns one line
    /// per zone that differs (empty when they agree). Call it while no request is in flight.
    ///
    /// # Errors
    /// [`DeviceError::Io`] when the report fails.
    pub fn verify_mirror(&self) -> Result<Vec<String>, DeviceError> {
        let s = self.lock();
        let g = &self.geometry;
        let reported = report_all(&self.file, g.zone_size_bytes / SECTOR, g.zone_count)?;
        let mut diffs = Vec::new();
        for (info, z) in s.table.report(0, g.zone_count).iter().zip(&reported) {
            let dev = zone_from_report(z, g.zone_capacity_bytes);
            // The device may keep a zone implicitly open where the mirror closed it, and
            // the reverse is impossible; both hold an active resource at the same pointer.
            let same = match dev {
                Some((state, wp)) => {
                    wp == info.write_pointer
                        && (state == info.state || (state.is_active() && info.state.is_active()))
                }
                None => false,
            };
            if !same {
                diffs.push(format!(
                    "zone {}: mirror {:?} at {}, device {:?}",
                    info.index, info.state, info.write_pointer, dev
                ));
            }
        }
        Ok(diffs)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Re-reads `zone` from the device and puts the mirror in step; returns what the device
    /// reported.
    fn resync(&self, s: &mut Inner, zone: u32) -> Option<(ZoneState, u64)> {
        let g = &self.geometry;
        let sector = g.zone_start(zone) / SECTOR;
        let z = sys::report_zones(&self.file, sector, 1)
            .ok()?
            .0
            .into_iter()
            .next()?;
        let (state, wp) = zone_from_report(&z, g.zone_capacity_bytes)?;
        s.table.resync(zone, state, wp).ok()?;
        self.completed[zone as usize].store(wp, Ordering::Release);
        Some((state, wp))
    }

    pub(crate) fn read_now(&self, offset: u64, len: u64) -> Result<Vec<u8>, DeviceError> {
        let zone = self.lock().table.check_read(offset, len)?;
        let done = self.completed[zone as usize].load(Ordering::Acquire);
        if offset + len > done {
            return Err(DeviceError::ReadBeyondWritePointer {
                zone,
                offset,
                len,
                write_pointer: done,
            });
        }
        let mut buf = AlignedBuf::zeroed(len as usize);
        self.file.read_exact_at(buf.as_mut_slice(), offset)?;
        let mut s = self.lock();
        s.stats.reads += 1;
        s.stats.bytes_read += len;
        Ok(buf.as_slice().to_vec())
    }

    pub(crate) fn write_now(&self, target: Target, data: &[u8]) -> Result<u64, DeviceError> {
        let len = data.len() as u64;
        let buf = AlignedBuf::copy_of(data);
        let mut s = self.lock();
        s.check("before write", None);
        let adm = match target {
            Target::At(offset) => s.table.admit_write(offset, len)?,
            Target::Append(zone) => s.table.admit_append(zone, len)?,
        };
        // Taken while the table is locked, so writes to a zone reach the device in the order
        // they were admitted.
        let zone_lock = self.zone_io[adm.zone as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(closed) = adm.auto_closed {
            // Mirror the table's auto-close, once that zone's own writes are done.
            let _closed_io = self.zone_io[closed as usize]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let start = self.geometry.zone_start(closed) / SECTOR;
            let len = self.geometry.zone_size_bytes / SECTOR;
            if sys::manage_zones(&self.file, ZoneIoctl::Close, start, len).is_err() {
                self.resync(&mut s, closed);
            }
        }
        drop(s);
        let appended = match target {
            Target::Append(zone) => self.append_io(zone, &buf),
            Target::At(_) => None,
        };
        let written = match appended {
            Some(r) => r.and_then(|at| {
                if at == adm.offset {
                    Ok(())
                } else {
                    Err(io::Error::other(format!(
                        "zone append landed at {at}, the mirror expected {}",
                        adm.offset
                    )))
                }
            }),
            None => self.file.write_all_at(buf.as_slice(), adm.offset),
        };
        if written.is_ok() {
            self.completed[adm.zone as usize].store(adm.offset + len, Ordering::Release);
        }
        drop(zone_lock);
        let mut s = self.lock();
        match written {
            Ok(()) => {
                s.stats.writes += 1;
                s.stats.bytes_written += len;
                s.check("after write", None);
                Ok(adm.offset)
            }
            Err(e) => {
                let after = self.resync(&mut s, adm.zone);
                Err(map_write_error(
                    e,
                    &self.geometry,
                    adm.zone,
                    adm.offset,
                    len,
                    after,
                ))
            }
        }
    }

    /// fdatasync on a block device sends the device a cache flush (the data itself went out
    /// with O_DIRECT, and zone write pointers are the device's own, durable with the data).
    pub(crate) fn sync_now(&self) -> Result<(), DeviceError> {
        self.file.sync_data().map_err(DeviceError::Io)?;
        self.lock().stats.syncs += 1;
        Ok(())
    }

    /// A zone append through io_uring passthrough, when enabled: the offset assigned.
    fn append_io(&self, zone: u32, buf: &AlignedBuf) -> Option<io::Result<u64>> {
        let appender = self.append.lock().unwrap_or_else(PoisonError::into_inner);
        appender.as_ref().map(|a| a.append(zone, buf))
    }

    pub(crate) fn manage_now(&self, zone: u32, op: ZoneOp) -> Result<(), DeviceError> {
        let mut s = self.lock();
        s.check("before zone management", None);
        let ioctl = match op {
            ZoneOp::Open => ZoneIoctl::Open,
            ZoneOp::Close => ZoneIoctl::Close,
            ZoneOp::Finish => ZoneIoctl::Finish,
            ZoneOp::Reset => ZoneIoctl::Reset,
            ZoneOp::ReadOnly | ZoneOp::Offline => {
                return Err(DeviceError::InvalidConfig(format!(
                    "zone {zone}: '{op}' is a device-internal transition a host cannot request"
                )));
            }
        };
        let out = match op {
            ZoneOp::Open => s.table.open(zone)?,
            ZoneOp::Close => s.table.close(zone)?,
            ZoneOp::Finish => s.table.finish(zone)?,
            _ => s.table.reset(zone)?,
        };
        let _zone_lock = self.zone_io[zone as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let start = self.geometry.zone_start(zone) / SECTOR;
        let len = self.geometry.zone_size_bytes / SECTOR;
        if out.changed
            && let Err(e) = sys::manage_zones(&self.file, ioctl, start, len)
        {
            self.resync(&mut s, zone);
            return Err(map_manage_error(&e, &self.geometry, zone, op));
        }
        let info = s.table.info(zone)?;
        self.completed[zone as usize].store(info.write_pointer, Ordering::Release);
        if out.changed {
            match op {
                ZoneOp::Finish => s.stats.zone_finishes += 1,
                ZoneOp::Reset => s.stats.zone_resets += 1,
                _ => {}
            }
        }
        let reset_zone = (op == ZoneOp::Reset).then_some(zone);
        s.check("after zone management", reset_zone);
        Ok(())
    }
}

ready_device!(BlkZonedDevice);

impl BlkZonedDevice {
    fn geometry_now(&self) -> &ZoneGeometry {
        &self.geometry
    }

    fn report_now(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.lock().table.report(first, count)
    }

    fn stats_now(&self) -> DeviceStats {
        self.lock().stats
    }

    /// Direct I/O: every write is a device command, none waits in a host cache.
    #[allow(clippy::unused_self, reason = "the ready_device! method set")]
    fn host_cached_now(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> ZoneGeometry {
        ZoneGeometry {
            zone_count: 16,
            zone_size_bytes: 64 << 20,
            zone_capacity_bytes: 62 << 20,
            block_size_bytes: 4096,
            max_open_zones: 14,
            max_active_zones: 14,
            zone_append_max_bytes: 512 << 10,
        }
    }

    fn blk(start_sector: u64, wp_sector: u64, cond: u8) -> BlkZone {
        BlkZone {
            start: start_sector,
            len: 131_072,
            wp: wp_sector,
            kind: sys::BLK_ZONE_TYPE_SEQWRITE_REQ,
            cond,
            capacity: 126_976,
            ..BlkZone::default()
        }
    }

    #[test]
    fn a_full_zone_is_read_by_its_condition_not_its_write_pointer() {
        let cap = 62u64 << 20;
        // Linux reports a full zone's write pointer as the next zone's start.
        let full = blk(131_072, 262_144, 0xE);
        assert_eq!(
            zone_from_report(&full, cap),
            Some((ZoneState::Full, (64 << 20) + cap))
        );
        let open = blk(0, 8, 0x2);
        assert_eq!(
            zone_from_report(&open, cap),
            Some((ZoneState::ImplicitlyOpen, 4096))
        );
        assert_eq!(
            zone_from_report(&blk(0, 0, 0x1), cap),
            Some((ZoneState::Empty, 0))
        );
        assert_eq!(
            zone_from_report(&blk(0, 16, 0x4), cap).map(|z| z.0),
            Some(ZoneState::Closed)
        );
        assert_eq!(zone_from_report(&blk(0, 0, 0x0), cap), None);
    }

    #[test]
    fn os_errors_map_to_the_typed_device_errors() {
        let g = geometry();
        let err = |n| io::Error::from_raw_os_error(n);
        assert!(matches!(
            map_write_error(err(libc::EOVERFLOW), &g, 3, 0, 4096, None),
            DeviceError::TooManyActive { zone: 3, limit: 14 }
        ));
        assert!(matches!(
            map_write_error(err(libc::ETOOMANYREFS), &g, 3, 0, 4096, None),
            DeviceError::TooManyOpen { zone: 3, limit: 14 }
        ));
        let z1 = g.zone_start(1);
        assert!(matches!(
            map_write_error(err(libc::EIO), &g, 1, z1, 4096, Some((ZoneState::Full, z1))),
            DeviceError::ZoneFull { zone: 1 }
        ));
        assert!(matches!(
            map_write_error(
                err(libc::EIO),
                &g,
                1,
                z1 + 8192,
                4096,
                Some((ZoneState::ImplicitlyOpen, z1 + 4096))
            ),
            DeviceError::NotAtWritePointer { zone: 1, .. }
        ));
        let near_end = z1 + g.zone_capacity_bytes - 4096;
        assert!(matches!(
            map_write_error(
                err(libc::EIO),
                &g,
                1,
                near_end,
                8192,
                Some((ZoneState::ImplicitlyOpen, near_end))
            ),
            DeviceError::BeyondCapacity { zone: 1, .. }
        ));
        assert!(matches!(
            map_write_error(
                err(libc::EIO),
                &g,
                1,
                z1,
                4096,
                Some((ZoneState::Empty, z1))
            ),
            DeviceError::Io(_)
        ));
        assert!(matches!(
            map_manage_error(&err(libc::EOVERFLOW), &g, 2, ZoneOp::Open),
            DeviceError::TooManyActive { zone: 2, .. }
        ));
    }

    #[test]
    fn opening_something_that_is_not_a_zoned_block_device_says_what_to_do() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").expect("write");
        let e = BlkZonedDevice::open(&file).expect_err("a file").to_string();
        assert!(
            e.contains("not a block device") && e.contains("--db DIR"),
            "{e}"
        );
        let e = BlkZonedDevice::open(&dir.path().join("missing"))
            .expect_err("missing")
            .to_string();
        assert!(e.contains("missing"), "{e}");
    }
}
