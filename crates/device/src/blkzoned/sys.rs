//! The Linux system interface of the zoned block device backend: the `blkzoned.h` ioctls,
//! `BLKSSZGET` / `BLKGETSIZE64`, and an aligned buffer for O_DIRECT. Every `unsafe` block of
//! the backend lives here.
#![allow(
    unsafe_code,
    reason = "ioctls and aligned allocations need raw pointers"
)]

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;

/// Bytes per sector in every zone ioctl (Linux always counts 512-byte sectors there).
pub const SECTOR: u64 = 512;

/// `struct blk_zone` of `<linux/blkzoned.h>` (64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct BlkZone {
    /// Zone start sector.
    pub start: u64,
    /// Zone length in sectors.
    pub len: u64,
    /// Write pointer sector (for a full zone Linux reports `start + len`).
    pub wp: u64,
    /// `BLK_ZONE_TYPE_*`.
    pub kind: u8,
    /// `BLK_ZONE_COND_*`.
    pub cond: u8,
    /// Non-sequential write resources active.
    pub non_seq: u8,
    /// Reset recommended.
    pub reset: u8,
    /// Reserved.
    pub resv: [u8; 4],
    /// Writable sectors (valid when the report flags have [`BLK_ZONE_REP_CAPACITY`]).
    pub capacity: u64,
    /// Reserved.
    pub reserved: [u8; 24],
}

/// `struct blk_zone_report` header (16 bytes), followed by `nr_zones` [`BlkZone`]s.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct BlkZoneReport {
    sector: u64,
    nr_zones: u32,
    flags: u32,
}

/// `struct blk_zone_range`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct BlkZoneRange {
    sector: u64,
    nr_sectors: u64,
}

/// The report's `capacity` fields are valid.
pub const BLK_ZONE_REP_CAPACITY: u32 = 1;
/// Conventional zone type.
pub const BLK_ZONE_TYPE_CONVENTIONAL: u8 = 1;
/// Sequential-write-required zone type.
pub const BLK_ZONE_TYPE_SEQWRITE_REQ: u8 = 2;

const fn ioc(dir: u64, kind: u64, nr: u64, size: u64) -> u64 {
    (dir << 30) | (size << 16) | (kind << 8) | nr
}
const IOC_NONE: u64 = 0;
const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;
const BLKREPORTZONE: u64 = ioc(IOC_READ | IOC_WRITE, 0x12, 130, 16);
const BLKRESETZONE: u64 = ioc(IOC_WRITE, 0x12, 131, 16);
const BLKOPENZONE: u64 = ioc(IOC_WRITE, 0x12, 134, 16);
const BLKCLOSEZONE: u64 = ioc(IOC_WRITE, 0x12, 135, 16);
const BLKFINISHZONE: u64 = ioc(IOC_WRITE, 0x12, 136, 16);
const BLKGETZONESZ: u64 = ioc(IOC_READ, 0x12, 132, 4);
const BLKGETNRZONES: u64 = ioc(IOC_READ, 0x12, 133, 4);
const BLKSSZGET: u64 = ioc(IOC_NONE, 0x12, 104, 0);
const BLKGETSIZE64: u64 = ioc(IOC_READ, 0x12, 114, 8);

/// A zone-management ioctl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneIoctl {
    /// `BLKOPENZONE`.
    Open,
    /// `BLKCLOSEZONE`.
    Close,
    /// `BLKFINISHZONE`.
    Finish,
    /// `BLKRESETZONE`.
    Reset,
}

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Reports up to `max` zones from `sector`; returns the zones and the report flags.
///
/// # Errors
/// The ioctl's OS error.
pub fn report_zones(f: &File, sector: u64, max: u32) -> io::Result<(Vec<BlkZone>, u32)> {
    let header = size_of::<BlkZoneReport>();
    let bytes = header + max as usize * size_of::<BlkZone>();
    // u64 words keep the buffer aligned for both structs.
    let mut buf = vec![0u64; bytes.div_ceil(8)];
    let head = BlkZoneReport {
        sector,
        nr_zones: max,
        flags: 0,
    };
    // SAFETY: the buffer holds at least `header` bytes and is 8-byte aligned.
    unsafe { buf.as_mut_ptr().cast::<BlkZoneReport>().write(head) };
    // SAFETY: BLKREPORTZONE reads the header and writes at most `nr_zones` zones after it,
    // all inside `buf`.
    check(unsafe { libc::ioctl(f.as_raw_fd(), BLKREPORTZONE as _, buf.as_mut_ptr()) })?;
    // SAFETY: as above; the kernel updated the header in place.
    let head = unsafe { buf.as_ptr().cast::<BlkZoneReport>().read() };
    let n = head.nr_zones.min(max) as usize;
    let mut zones = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: zone `i < max` lies inside `buf`; the header is 16 bytes, so each zone is
        // 8-byte aligned.
        let z = unsafe {
            buf.as_ptr()
                .add((header + i * size_of::<BlkZone>()) / 8)
                .cast::<BlkZone>()
                .read()
        };
        zones.push(z);
    }
    Ok((zones, head.flags))
}

/// Runs a zone-management ioctl on `nr_sectors` from `sector`.
///
/// # Errors
/// The ioctl's OS error.
pub fn manage_zones(f: &File, op: ZoneIoctl, sector: u64, nr_sectors: u64) -> io::Result<()> {
    let req = match op {
        ZoneIoctl::Open => BLKOPENZONE,
        ZoneIoctl::Close => BLKCLOSEZONE,
        ZoneIoctl::Finish => BLKFINISHZONE,
        ZoneIoctl::Reset => BLKRESETZONE,
    };
    let range = BlkZoneRange { sector, nr_sectors };
    // SAFETY: the request takes a pointer to a `blk_zone_range`, which lives across the call.
    check(unsafe { libc::ioctl(f.as_raw_fd(), req as _, &raw const range) })
}

fn get_u32(f: &File, req: u64) -> io::Result<u32> {
    let mut v: u32 = 0;
    // SAFETY: the request writes one u32 through the pointer.
    check(unsafe { libc::ioctl(f.as_raw_fd(), req as _, &raw mut v) })?;
    Ok(v)
}

/// `BLKGETZONESZ`: zone size in sectors (0 for a device that is not zoned).
///
/// # Errors
/// The ioctl's OS error.
pub fn zone_size_sectors(f: &File) -> io::Result<u32> {
    get_u32(f, BLKGETZONESZ)
}

/// `BLKGETNRZONES`: number of zones.
///
/// # Errors
/// The ioctl's OS error.
pub fn zone_count(f: &File) -> io::Result<u32> {
    get_u32(f, BLKGETNRZONES)
}

/// `BLKSSZGET`: logical block size in bytes.
///
/// # Errors
/// The ioctl's OS error.
pub fn logical_block_size(f: &File) -> io::Result<u64> {
    let mut v: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer.
    check(unsafe { libc::ioctl(f.as_raw_fd(), BLKSSZGET as _, &raw mut v) })?;
    u64::try_from(v).map_err(|_| io::Error::other("negative logical block size"))
}

/// `BLKGETSIZE64`: device size in bytes.
///
/// # Errors
/// The ioctl's OS error.
pub fn size_bytes(f: &File) -> io::Result<u64> {
    let mut v: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    check(unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as _, &raw mut v) })?;
    Ok(v)
}

/// Alignment of every O_DIRECT buffer (a page covers any logical block size up to 4 KiB and
/// the DMA alignment of every Linux driver).
pub const BUF_ALIGN: usize = 4096;

/// A zeroed heap buffer aligned to [`BUF_ALIGN`], for O_DIRECT reads and writes.
#[derive(Debug)]
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the buffer is uniquely owned heap memory, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least one byte is allocated).
    ///
    /// # Panics
    /// When `len` is too large for a layout, or the allocation fails.
    pub fn zeroed(len: usize) -> Self {
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        Self { ptr, len }
    }

    /// A buffer holding a copy of `data`.
    pub fn copy_of(data: &[u8]) -> Self {
        let mut b = Self::zeroed(data.len());
        b.as_mut_slice().copy_from_slice(data);
        b
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), BUF_ALIGN).expect("buffer length fits a layout")
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` points to `len` initialized (zeroed or written) bytes we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_linux_headers() {
        // Values of the macros in <linux/blkzoned.h> and <linux/fs.h> on x86-64.
        assert_eq!(BLKREPORTZONE, 0xC010_1282);
        assert_eq!(BLKRESETZONE, 0x4010_1283);
        assert_eq!(BLKGETZONESZ, 0x8004_1284);
        assert_eq!(BLKGETNRZONES, 0x8004_1285);
        assert_eq!(BLKOPENZONE, 0x4010_1286);
        assert_eq!(BLKCLOSEZONE, 0x4010_1287);
        assert_eq!(BLKFINISHZONE, 0x4010_1288);
        assert_eq!(BLKSSZGET, 0x1268);
        assert_eq!(BLKGETSIZE64, 0x8008_1272);
        assert_eq!(size_of::<BlkZone>(), 64);
        assert_eq!(size_of::<BlkZoneReport>(), 16);
        assert_eq!(size_of::<BlkZoneRange>(), 16);
    }

    #[test]
    fn aligned_buffers_are_aligned_and_keep_their_bytes() {
        for len in [0usize, 1, 4095, 4096, 65536 + 512] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let b = AlignedBuf::copy_of(&data);
            assert_eq!(b.as_slice().as_ptr() as usize % BUF_ALIGN, 0);
            assert_eq!(b.as_slice(), &data[..]);
        }
    }

    #[test]
    fn zone_ioctls_on_a_regular_file_fail_cleanly() {
        let f = tempfile::tempfile().expect("temp file");
        assert!(report_zones(&f, 0, 4).is_err());
        assert!(manage_zones(&f, ZoneIoctl::Reset, 0, 8).is_err());
        assert!(zone_count(&f).is_err());
    }
}
