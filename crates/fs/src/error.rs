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
    /// A name no registry row has (a cleaner).
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
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
    /// A writable mount found a file its metadata says is complete ([`crate::file::FileMeta::closed`])
    /// running past its zone's write pointer: the zone lost data the file holds (a damaged
    /// device, or one whose write pointers went back). Cutting the file would lose it
    /// silently, so the mount refuses; `zonedb fs fsck` lists the damage. (The tail of a file
    /// that was being written is dropped, as a crash leaves it.)
    #[error(
        "{file}: the metadata says it is complete, but its extent at byte {extent_start} of {extent_len} bytes runs past zone {zone}'s write pointer {write_pointer}: the zone lost data of the file; refusing to mount it writable (run `zonedb fs fsck`)"
    )]
    FileCut {
        /// The file.
        file: String,
        /// The zone.
        zone: u32,
        /// Device offset of the first extent cut.
        extent_start: u64,
        /// Its length.
        extent_len: u64,
        /// The zone's (or subzone's) write pointer.
        write_pointer: u64,
    },
    /// The layer was mounted for writing, but the device had no room for what the mount
    /// itself writes (its metadata roll): it is mounted for reading only, as a full device
    /// opens (every write fails with this error, a no-space one).
    #[error("mounted read-only: the device had no room for the mount's own metadata ({0})")]
    FullReadOnly(String),
    /// A snapshot of the metadata no longer fits in one metadata zone.
    #[error("metadata snapshot of {needed} bytes exceeds a metadata zone of {capacity} bytes")]
    MetadataTooLarge {
        /// Bytes the snapshot needs.
        needed: u64,
        /// Capacity of a metadata zone.
        capacity: u64,
    },
}

/// A name no registry row has (a placement, a cleaner): what was asked for and what is
/// accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{name}'; known: {}", known.join(", "))]
pub struct UnknownName {
    /// What the name names (`placement`, `cleaner`).
    pub what: &'static str,
    /// The name asked for.
    pub name: String,
    /// The accepted names, in the registry's order.
    pub known: Vec<String>,
}

impl UnknownName {
    /// `name` is not one of `known`.
    pub fn new<S: Into<String>>(
        what: &'static str,
        name: &str,
        known: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            what,
            name: name.to_owned(),
            known: known.into_iter().map(Into::into).collect(),
        }
    }
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
            | Self::FullReadOnly(_)
            | Self::Device(DeviceError::HostNoSpace { .. })
            | Self::WriterFailed { no_space: true, .. } => FsErrorKind::NoSpace,
            Self::NotFound(_) => FsErrorKind::NotFound,
            Self::Corrupt(_) | Self::NotFormatted | Self::FileCut { .. } => FsErrorKind::Corruption,
            Self::Device(e) if e.kind() == zonedb_device::DeviceErrorKind::Corruption => {
                FsErrorKind::Corruption
            }
            Self::Device(_) | Self::WriterFailed { .. } => FsErrorKind::Io,
            _ => FsErrorKind::InvalidArgument,
        }
    }
}
