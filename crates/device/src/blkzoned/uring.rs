//! NVMe Zone Append through io_uring passthrough (`IORING_OP_URING_CMD` with
//! `NVME_URING_CMD_IO`) on a namespace's generic character device (`/dev/ngXnY`): the block
//! layer offers no zone append to user space, so this is how a process reaches it.
//!
//! One ring with 128-byte submission and 32-byte completion entries; one append in flight at a
//! time (the backend serializes writes per zone anyway). The completion's 64-bit result is the
//! LBA the device assigned (ALBA).
#![allow(unsafe_code, reason = "io_uring submission and the NVMe ID ioctl")]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use io_uring::{IoUring, cqueue, opcode, squeue, types};

use super::sys::AlignedBuf;
use crate::{DeviceError, ZoneGeometry};

/// NVMe I/O command opcode of Zone Append (ZNS command set).
pub const NVME_CMD_ZONE_APPEND: u8 = 0x7D;
/// `NVME_URING_CMD_IO` = `_IOWR('N', 0x80, struct nvme_uring_cmd)`.
const NVME_URING_CMD_IO: u32 = 0xC048_4E80;
/// `NVME_IOCTL_ID` = `_IO('N', 0x40)`: the namespace ID of an NVMe block or char device.
const NVME_IOCTL_ID: u64 = 0x4E40;

/// `struct nvme_uring_cmd` of `<linux/nvme_ioctl.h>` (72 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct NvmeUringCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    rsvd2: u32,
}

impl NvmeUringCmd {
    /// A Zone Append of `data_len` bytes to the zone starting at LBA `zslba`.
    fn zone_append(nsid: u32, zslba: u64, addr: u64, data_len: u32, lba_bytes: u64) -> Self {
        let nlb = (u64::from(data_len) / lba_bytes).saturating_sub(1);
        Self {
            opcode: NVME_CMD_ZONE_APPEND,
            nsid,
            addr,
            data_len,
            cdw10: zslba as u32,
            cdw11: (zslba >> 32) as u32,
            cdw12: nlb as u32 & 0xFFFF,
            ..Self::default()
        }
    }

    fn to_bytes(self) -> [u8; 80] {
        let mut out = [0u8; 80];
        let mut at = 0;
        let mut put = |b: &[u8]| {
            out[at..at + b.len()].copy_from_slice(b);
            at += b.len();
        };
        put(&[self.opcode, self.flags]);
        put(&self.rsvd1.to_ne_bytes());
        for w in [self.nsid, self.cdw2, self.cdw3] {
            put(&w.to_ne_bytes());
        }
        put(&self.metadata.to_ne_bytes());
        put(&self.addr.to_ne_bytes());
        for w in [
            self.metadata_len,
            self.data_len,
            self.cdw10,
            self.cdw11,
            self.cdw12,
            self.cdw13,
            self.cdw14,
            self.cdw15,
            self.timeout_ms,
            self.rsvd2,
        ] {
            put(&w.to_ne_bytes());
        }
        out
    }
}

/// The generic character device of an NVMe namespace block device: `nvme0n1` → `ng0n1`.
pub fn char_device_of(block: &Path) -> Option<PathBuf> {
    let name = block.file_name()?.to_str()?;
    let rest = name.strip_prefix("nvme")?;
    // Multipath-free names only: nvme<ctrl>n<ns>, no partition suffix.
    let (ctrl, ns) = rest.split_once('n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(ctrl) && digits(ns)).then(|| PathBuf::from(format!("/dev/ng{ctrl}n{ns}")))
}

/// Zone appends through one io_uring on the namespace's character device.
pub struct ZoneAppender {
    chardev: PathBuf,
    file: File,
    nsid: u32,
    lba_bytes: u64,
    zone_bytes: u64,
    ring: Mutex<IoUring<squeue::Entry128, cqueue::Entry32>>,
}

impl std::fmt::Debug for ZoneAppender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneAppender")
            .field("chardev", &self.chardev)
            .field("nsid", &self.nsid)
            .finish_non_exhaustive()
    }
}

impl ZoneAppender {
    /// Opens the character device beside `block` and sets up the ring.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when `block` is not an NVMe namespace or the kernel lacks
    /// io_uring passthrough (Linux 5.19 or newer needed); [`DeviceError::Io`] otherwise.
    pub fn open(block: &Path, g: &ZoneGeometry) -> Result<Self, DeviceError> {
        let chardev = char_device_of(block).ok_or_else(|| {
            DeviceError::InvalidConfig(format!(
                "{}: zone append through io_uring needs an NVMe namespace (/dev/nvmeXnY)",
                block.display()
            ))
        })?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&chardev)
            .map_err(|e| {
                DeviceError::Io(io::Error::new(
                    e.kind(),
                    format!("{}: {e}", chardev.display()),
                ))
            })?;
        // SAFETY: NVME_IOCTL_ID takes no argument and returns the namespace ID.
        let nsid = unsafe { libc::ioctl(file.as_raw_fd(), NVME_IOCTL_ID as _) };
        let nsid = u32::try_from(nsid).map_err(|_| {
            DeviceError::Io(io::Error::other(format!(
                "{}: NVME_IOCTL_ID failed: {}",
                chardev.display(),
                io::Error::last_os_error()
            )))
        })?;
        let ring = IoUring::<squeue::Entry128, cqueue::Entry32>::builder()
            .build(4)
            .map_err(|e| {
                DeviceError::InvalidConfig(format!(
                    "io_uring with 128-byte entries is unavailable ({e}); zone append through \
                     passthrough needs Linux 5.19 or newer with io_uring enabled"
                ))
            })?;
        Ok(Self {
            chardev,
            file,
            nsid,
            lba_bytes: g.block_size_bytes,
            zone_bytes: g.zone_size_bytes,
            ring: Mutex::new(ring),
        })
    }

    /// The character device used.
    pub fn chardev(&self) -> &Path {
        &self.chardev
    }

    /// Appends `buf` to `zone`; returns the device byte offset the device assigned.
    ///
    /// # Errors
    /// The OS error of the submission, or of the command's completion (negative result).
    pub fn append(&self, zone: u32, buf: &AlignedBuf) -> io::Result<u64> {
        let data = buf.as_slice();
        let len = u32::try_from(data.len()).map_err(|_| io::Error::other("append too large"))?;
        let zslba = u64::from(zone) * self.zone_bytes / self.lba_bytes;
        let cmd =
            NvmeUringCmd::zone_append(self.nsid, zslba, data.as_ptr() as u64, len, self.lba_bytes);
        let sqe = opcode::UringCmd80::new(types::Fd(self.file.as_raw_fd()), NVME_URING_CMD_IO)
            .cmd(cmd.to_bytes())
            .build()
            .user_data(u64::from(zone));
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the command points at `buf`, which outlives the call: we wait for the
        // completion before returning.
        unsafe {
            ring.submission()
                .push(&sqe)
                .map_err(|_| io::Error::other("io_uring submission queue full"))?;
        }
        ring.submit_and_wait(1)?;
        let cqe = ring
            .completion()
            .next()
            .ok_or_else(|| io::Error::other("io_uring gave no completion"))?;
        let res = cqe.result();
        if res < 0 {
            return Err(io::Error::from_raw_os_error(-res));
        }
        if res > 0 {
            // A positive result is the NVMe status of a failed command.
            return Err(nvme_status_error(res));
        }
        let alba = cqe.big_cqe()[0];
        Ok(alba * self.lba_bytes)
    }
}

/// An NVMe status returned by a passthrough command, as the errno the block layer would give.
fn nvme_status_error(status: i32) -> io::Error {
    let sc = status & 0x7FF;
    let errno = match sc {
        // Too many active / open zones.
        0x1BD => libc::EOVERFLOW,
        0x1BE => libc::ETOOMANYREFS,
        _ => libc::EIO,
    };
    io::Error::from_raw_os_error(errno)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uring_command_has_the_kernel_layout() {
        assert_eq!(size_of::<NvmeUringCmd>(), 72);
        let c = NvmeUringCmd::zone_append(1, 0x1_0002_0000, 0xABCD, 16384, 4096);
        let b = c.to_bytes();
        assert_eq!(b[0], NVME_CMD_ZONE_APPEND);
        assert_eq!(u32::from_ne_bytes(b[4..8].try_into().unwrap()), 1);
        assert_eq!(u64::from_ne_bytes(b[24..32].try_into().unwrap()), 0xABCD);
        assert_eq!(u32::from_ne_bytes(b[36..40].try_into().unwrap()), 16384);
        assert_eq!(
            u32::from_ne_bytes(b[40..44].try_into().unwrap()),
            0x0002_0000
        );
        assert_eq!(u32::from_ne_bytes(b[44..48].try_into().unwrap()), 1);
        // NLB is 0-based: 4 blocks → 3.
        assert_eq!(u32::from_ne_bytes(b[48..52].try_into().unwrap()), 3);
        // ioctl number of <linux/nvme_ioctl.h>: _IOWR('N', 0x80, 72 bytes).
        assert_eq!(
            NVME_URING_CMD_IO,
            (3 << 30) | (72 << 16) | (0x4E << 8) | 0x80
        );
    }

    #[test]
    fn character_devices_are_named_after_the_namespace() {
        assert_eq!(
            char_device_of(Path::new("/dev/nvme0n1")),
            Some(PathBuf::from("/dev/ng0n1"))
        );
        assert_eq!(
            char_device_of(Path::new("/dev/nvme12n3")),
            Some(PathBuf::from("/dev/ng12n3"))
        );
        assert_eq!(char_device_of(Path::new("/dev/nvme0n1p1")), None);
        assert_eq!(char_device_of(Path::new("/dev/sdb")), None);
        assert_eq!(
            nvme_status_error(0x1BD).raw_os_error(),
            Some(libc::EOVERFLOW)
        );
        assert_eq!(nvme_status_error(0x1BC).raw_os_error(), Some(libc::EIO));
    }
}
