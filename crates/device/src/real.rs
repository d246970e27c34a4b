//! The device of real mode, whichever backend holds it: a file-backed zoned device in a
//! directory, or (on Linux) a host-managed zoned block device. One type, so the CLI and tools
//! need not be generic over the backend.

use std::path::Path;

use crate::ZonedDevice;
use crate::zonefile::Target;
use crate::{DeviceError, DeviceStats, ZoneFileDevice, ZoneGeometry, ZoneInfo, ZoneOp};

/// A real-mode zoned device.
#[allow(
    clippy::large_enum_variant,
    reason = "one per process; never moved around"
)]
#[derive(Debug)]
pub enum RealDevice {
    /// Zones kept in files of a directory (`--db DIR`).
    File(ZoneFileDevice),
    /// A Linux zoned block device (`--device /dev/nvme0n1`).
    #[cfg(target_os = "linux")]
    Block(crate::BlkZonedDevice),
}

impl RealDevice {
    /// Opens the zoned block device at `path`.
    ///
    /// # Errors
    /// As [`crate::BlkZonedDevice::open`]; [`DeviceError::InvalidConfig`] off Linux.
    pub fn open_block(path: &Path) -> Result<Self, DeviceError> {
        #[cfg(target_os = "linux")]
        {
            crate::BlkZonedDevice::open(path).map(Self::Block)
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(DeviceError::InvalidConfig(format!(
                "{}: zoned block devices are supported on Linux only",
                path.display()
            )))
        }
    }

    /// Where the device lives, for messages.
    pub fn describe(&self) -> String {
        match self {
            Self::File(d) => d.dir().display().to_string(),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.path().display().to_string(),
        }
    }

    /// Resets every zone that holds data (a fresh start on a block device, which cannot be
    /// re-created like a directory).
    ///
    /// # Errors
    /// The first failing reset.
    pub fn reset_all(&self) -> Result<(), DeviceError> {
        let g = self.geometry();
        for z in self.report_zones(0, g.zone_count) {
            if z.write_pointer != z.start || z.state == crate::ZoneState::Full {
                self.manage_now(z.index, ZoneOp::Reset)?;
            }
        }
        Ok(())
    }

    fn read_now(&self, offset: u64, len: u64) -> Result<Vec<u8>, DeviceError> {
        match self {
            Self::File(d) => d.read_now(offset, len),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.read_now(offset, len),
        }
    }

    fn write_now(&self, target: Target, data: &[u8]) -> Result<u64, DeviceError> {
        match self {
            Self::File(d) => d.write_now(target, data),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.write_now(target, data),
        }
    }

    fn manage_now(&self, zone: u32, op: ZoneOp) -> Result<(), DeviceError> {
        match self {
            Self::File(d) => d.manage_now(zone, op),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.manage_now(zone, op),
        }
    }

    fn sync_now(&self) -> Result<(), DeviceError> {
        match self {
            Self::File(d) => d.sync_now(),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.sync_now(),
        }
    }
}

ready_device!(RealDevice);

impl RealDevice {
    fn geometry_now(&self) -> &ZoneGeometry {
        match self {
            Self::File(d) => d.geometry(),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.geometry(),
        }
    }

    fn report_now(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        match self {
            Self::File(d) => d.report_zones(first, count),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.report_zones(first, count),
        }
    }

    fn host_cached_now(&self) -> bool {
        match self {
            Self::File(d) => d.host_cached_writes(),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.host_cached_writes(),
        }
    }

    fn stats_now(&self) -> DeviceStats {
        match self {
            Self::File(d) => d.stats(),
            #[cfg(target_os = "linux")]
            Self::Block(d) => d.stats(),
        }
    }
}
