//! Errors of the zone file layer.

use zonedb_device::DeviceError;

/// Every way a file-layer request can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// The device failed or rejected a request.
    #[error("device: {0}")]
    Device(#[from] DeviceError),
    /// No zone can be had for new data (and cleaning cannot free one).
    #[error("no space left on the zoned device")]
    NoSpace,
    /// No file of that name.
    #[error("no such file: {0}")]
    NotFound(String),
    /// A file of that name exists already.
    #[error("file exists: {0}")]
    AlreadyExists(String),
    /// The file is open for writing by another writer.
    #[error("file is busy: {0}")]
    Busy(String),
    /// On-device metadata is damaged beyond repair.
    #[error("corrupt file-system metadata: {0}")]
    Corrupt(String),
    /// No valid superblock: the device holds no file system.
    #[error("no ZoneDB file system on the device")]
    NotFormatted,
    /// Bad argument (name, offset, option).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The device is too small or its limits too tight for the layer.
    #[error("unsupported device: {0}")]
    Unsupported(String),
    /// An earlier write of this open file failed: the data it buffered is lost, so every later
    /// append, sync or close fails too (nothing is written after the gap).
    #[error("an earlier write of {file} failed ({cause}); its unsynced data is lost")]
    WriterFailed {
        /// The file.
        file: String,
        /// The first error.
        cause: String,
        /// The first error was a full device.
        no_space: bool,
    },
    /// A snapshot of the metadata no longer fits in one metadata zone.
    #[error("metadata snapshot of {needed} bytes exceeds a metadata zone of {capacity} bytes")]
    MetadataTooLarge {
        /// Bytes the snapshot needs.
        needed: u64,
        /// Capacity of a metadata zone.
        capacity: u64,
    },
}

/// Small, stable classification of [`FsError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsErrorKind {
    /// Out of space.
    NoSpace,
    /// Missing file.
    NotFound,
    /// Damaged metadata or data.
    Corruption,
    /// Device I/O failed.
    Io,
    /// Bad request or configuration.
    InvalidArgument,
}

impl FsError {
    /// The coarse kind.
    pub fn kind(&self) -> FsErrorKind {
        match self {
            Self::NoSpace
            | Self::MetadataTooLarge { .. }
            | Self::WriterFailed { no_space: true, .. } => FsErrorKind::NoSpace,
            Self::NotFound(_) => FsErrorKind::NotFound,
            Self::Corrupt(_) | Self::NotFormatted => FsErrorKind::Corruption,
            Self::Device(e) if e.kind() == zonedb_device::DeviceErrorKind::Corruption => {
                FsErrorKind::Corruption
            }
            Self::Device(_) | Self::WriterFailed { .. } => FsErrorKind::Io,
            _ => FsErrorKind::InvalidArgument,
        }
    }
}
