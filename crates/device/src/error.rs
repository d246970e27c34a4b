//! Typed device errors, one per NVMe ZNS status the spec defines, plus I/O and metadata errors
//! of the file-backed device. A request that fails changes nothing.

use crate::zone::ZoneState;

/// The operation a zone-management error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneOp {
    /// Explicit open.
    Open,
    /// Close.
    Close,
    /// Finish (write pointer to the end of the zone capacity).
    Finish,
    /// Reset (write pointer back to the zone start; erases the zone's blocks).
    Reset,
    /// Device-internal transition to offline.
    Offline,
    /// Device-internal transition to read-only.
    ReadOnly,
}

impl std::fmt::Display for ZoneOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Self::Open => "open",
            Self::Close => "close",
            Self::Finish => "finish",
            Self::Reset => "reset",
            Self::Offline => "offline",
            Self::ReadOnly => "read-only",
        };
        f.write_str(s)
    }
}

/// A SplitZNS split-zone command (see [`crate::splitzns`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SplitOp {
    /// SPLIT: an empty wide zone becomes a split zone.
    Split,
    /// A write or append to a subzone.
    Write,
    /// A read of a subzone.
    Read,
    /// Finish of one subzone (its SST is complete).
    FinishSubzone,
    /// MERGE: reset of one subzone.
    Merge,
    /// FINISH of a split zone (deactivation).
    Finish,
    /// RESET of a split zone (back to a wide zone).
    Reset,
    /// A wide-zone command (open, close, append, ...) sent to a split zone.
    WideCommand,
}

impl std::fmt::Display for SplitOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Split => "split",
            Self::Write => "subzone write",
            Self::Read => "subzone read",
            Self::FinishSubzone => "subzone finish",
            Self::Merge => "merge",
            Self::Finish => "split-zone finish",
            Self::Reset => "split-zone reset",
            Self::WideCommand => "wide-zone command",
        })
    }
}

/// Why a split-zone command was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitRefusal {
    /// SPLIT of a wide zone that is not empty (its state).
    NotEmpty(ZoneState),
    /// SPLIT asked for another number of subzones than the device has per zone (the device's).
    WrongParts(u32),
    /// A subzone command (or SPLIT) to a zone that is not split (or already is).
    NotSplit,
    /// SPLIT of a zone that is already split.
    AlreadySplit,
    /// A subzone index beyond the split zone's subzones.
    NoSuchSubzone,
    /// A write or append to a full subzone.
    SubzoneFull,
    /// Finish of a subzone that was never written.
    SubzoneEmpty,
    /// FINISH of a split zone with a subzone still open.
    SubzonesOpen,
    /// RESET of a split zone with a subzone holding data.
    SubzonesNotEmpty,
    /// A command for wide zones only (open, close, append by zone) sent to a split zone.
    SplitZone,
}

impl std::fmt::Display for SplitRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotEmpty(s) => write!(f, "the zone is {s:?}, not empty"),
            Self::WrongParts(n) => write!(f, "a split zone has {n} subzones on this device"),
            Self::NotSplit => f.write_str("the zone is not split"),
            Self::AlreadySplit => f.write_str("the zone is already split"),
            Self::NoSuchSubzone => f.write_str("no such subzone"),
            Self::SubzoneFull => f.write_str("the subzone is full"),
            Self::SubzoneEmpty => f.write_str("the subzone is empty"),
            Self::SubzonesOpen => f.write_str("a subzone is still open"),
            Self::SubzonesNotEmpty => f.write_str("a subzone holds data"),
            Self::SplitZone => f.write_str("the zone is split"),
        }
    }
}

/// Every way a request to a zoned device can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// A write (not an append) whose offset is not the zone's write pointer (NVMe 0x1BC).
    #[error("zone {zone}: write at byte {offset} is not at the write pointer {write_pointer}")]
    NotAtWritePointer {
        /// Zone index.
        zone: u32,
        /// Requested device byte offset.
        offset: u64,
        /// Current write pointer (device byte offset).
        write_pointer: u64,
    },
    /// A write or append that would cross the zone capacity (NVMe 0x1B8).
    #[error("zone {zone}: {len} bytes at {offset} cross the zone capacity end {capacity_end}")]
    BeyondCapacity {
        /// Zone index.
        zone: u32,
        /// Device byte offset of the request.
        offset: u64,
        /// Request length in bytes.
        len: u64,
        /// Device byte offset where the zone's writable capacity ends.
        capacity_end: u64,
    },
    /// A read that crosses the end of its zone (NVMe 0x1B8 without cross-zone reads).
    #[error("zone {zone}: read of {len} bytes at {offset} crosses the zone end")]
    CrossesZoneEnd {
        /// Zone index.
        zone: u32,
        /// Device byte offset.
        offset: u64,
        /// Length in bytes.
        len: u64,
    },
    /// Offset or length not a multiple of the logical block size, or zero length.
    #[error("request at {offset} of {len} bytes is not aligned to the {block_size}-byte block")]
    Unaligned {
        /// Device byte offset.
        offset: u64,
        /// Length in bytes.
        len: u64,
        /// Logical block size in bytes.
        block_size: u64,
    },
    /// Opening another zone would exceed the max active zones (NVMe 0x1BD, Linux EOVERFLOW).
    #[error("zone {zone}: too many active zones (limit {limit})")]
    TooManyActive {
        /// Zone that needed an active resource.
        zone: u32,
        /// Max active zones.
        limit: u32,
    },
    /// Opening another zone would exceed the max open zones (NVMe 0x1BE, Linux ETOOMANYREFS).
    #[error("zone {zone}: too many open zones (limit {limit})")]
    TooManyOpen {
        /// Zone that needed an open resource.
        zone: u32,
        /// Max open zones.
        limit: u32,
    },
    /// A zone-management command not allowed in the zone's state (NVMe 0x1BF).
    #[error("zone {zone}: invalid transition: {op} from {from:?}")]
    InvalidTransition {
        /// Zone index.
        zone: u32,
        /// The command.
        op: ZoneOp,
        /// The zone's state.
        from: ZoneState,
    },
    /// Write or append to a full zone (NVMe 0x1B9).
    #[error("zone {zone} is full")]
    ZoneFull {
        /// Zone index.
        zone: u32,
    },
    /// Write to a read-only zone (NVMe 0x1BA).
    #[error("zone {zone} is read-only")]
    ZoneReadOnly {
        /// Zone index.
        zone: u32,
    },
    /// Any I/O to an offline zone (NVMe 0x1BB).
    #[error("zone {zone} is offline")]
    ZoneOffline {
        /// Zone index.
        zone: u32,
    },
    /// Offset or zone index beyond the device (NVMe 0x080).
    #[error("out of range: {what} {value} (device has {limit})")]
    OutOfRange {
        /// What was out of range ("offset", "zone").
        what: &'static str,
        /// The value given.
        value: u64,
        /// The device's bound.
        limit: u64,
    },
    /// A read of bytes at or beyond the zone's write pointer.
    #[error(
        "zone {zone}: read of {len} bytes at {offset} goes beyond the write pointer {write_pointer}"
    )]
    ReadBeyondWritePointer {
        /// Zone index.
        zone: u32,
        /// Device byte offset.
        offset: u64,
        /// Length in bytes.
        len: u64,
        /// Current write pointer.
        write_pointer: u64,
    },
    /// Zone append larger than the zone append size limit (NVMe 0x002).
    #[error("zone append of {len} bytes exceeds the limit of {limit} bytes")]
    AppendTooLarge {
        /// Request length.
        len: u64,
        /// Zone append size limit.
        limit: u64,
    },
    /// The media could not return the data (NVMe 0x281, Unrecovered Read Error); injected by the
    /// simulated device's fault plan.
    #[error("unrecovered read error: {len} bytes at {offset}")]
    UnrecoveredRead {
        /// Device byte offset.
        offset: u64,
        /// Length in bytes.
        len: u64,
    },
    /// An operating-system I/O error (file-backed or Linux devices).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// On-disk state of a file-backed device is damaged or inconsistent.
    #[error("corrupt device metadata: {0}")]
    Corrupt(&'static str),
    /// The device configuration is invalid (geometry, limits, profile, scale).
    #[error("invalid device configuration: {0}")]
    InvalidConfig(String),
    /// The device is used by another process.
    #[error("device is locked by another process")]
    Locked,
    /// The host file system holding a file-backed device is full (`ENOSPC`) or over its
    /// quota (`EDQUOT`): the device has room in its zones but the host cannot hold the
    /// bytes. A no-space error like a full zone ([`DeviceErrorKind::NoSpace`]), so the layers
    /// above fall back as on a full device; a write refused this way changed nothing.
    #[error("no space on the host file system holding the device ({source}): free space there")]
    HostNoSpace {
        /// The host's error.
        source: std::io::Error,
    },
    /// A file ZoneDB creates or writes (a file-backed device's `HEADER`, `ZONES`, `DATA` or
    /// `LOCK`; a report or sweep file) is a symbolic link: it is never written through (see
    /// [`crate::links`]). Remove the link, or give the directory it points into.
    #[error(
        "{}: is a symbolic link; ZoneDB does not create or write files through links (remove it, or use the directory it points into)",
        path.display()
    )]
    LinkRefused {
        /// The link.
        path: std::path::PathBuf,
    },
    /// A SplitZNS command not allowed in the split zone's or subzone's state; nothing changed.
    #[error("zone {zone}{}: {op} refused: {reason}", subzone.map(|i| format!(" subzone {i}")).unwrap_or_default())]
    SplitZone {
        /// The (wide or split) zone.
        zone: u32,
        /// The subzone, for subzone commands.
        subzone: Option<u32>,
        /// The command.
        op: SplitOp,
        /// Why it was refused.
        reason: SplitRefusal,
    },
    /// A ZNS+ command refused (threaded logging's write order, a write into a valid block, an
    /// IZC too large or into a threaded zone); nothing changed.
    #[error("zone {zone}: {command} refused: {reason}")]
    ZnsPlus {
        /// The zone.
        zone: u32,
        /// The command ("internal copy", "threaded open", "threaded write").
        command: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// An optional command the device does not carry out (its capability is absent; NVMe
    /// 0x001, Invalid Command Opcode).
    #[error("the device does not support {command}")]
    Unsupported {
        /// The command ("simple copy", "zone split", "sparse write").
        command: &'static str,
    },
}

impl DeviceError {
    /// `e` as a device error: [`DeviceError::HostNoSpace`] when the host file system is full
    /// or over quota, else [`DeviceError::Io`].
    pub fn from_host(e: std::io::Error) -> Self {
        if matches!(
            e.kind(),
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
        ) {
            Self::HostNoSpace { source: e }
        } else {
            Self::Io(e)
        }
    }

    /// The coarse kind, stable for callers that branch on errors.
    pub fn kind(&self) -> DeviceErrorKind {
        match self {
            Self::TooManyActive { .. } | Self::TooManyOpen { .. } => DeviceErrorKind::ResourceLimit,
            Self::Io(_) | Self::UnrecoveredRead { .. } => DeviceErrorKind::Io,
            Self::Corrupt(_) => DeviceErrorKind::Corruption,
            Self::InvalidConfig(_) | Self::LinkRefused { .. } => DeviceErrorKind::InvalidConfig,
            Self::Locked => DeviceErrorKind::Locked,
            Self::Unsupported { .. } => DeviceErrorKind::Unsupported,
            Self::ZoneFull { .. } | Self::BeyondCapacity { .. } | Self::HostNoSpace { .. } => {
                DeviceErrorKind::NoSpace
            }
            _ => DeviceErrorKind::InvalidRequest,
        }
    }
}

/// Small, stable classification of [`DeviceError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceErrorKind {
    /// The request broke a rule of the zone model; nothing changed.
    InvalidRequest,
    /// An open or active zone limit was hit.
    ResourceLimit,
    /// The zone has no room for the request.
    NoSpace,
    /// The operating system reported an I/O error.
    Io,
    /// Persistent state is damaged.
    Corruption,
    /// Configuration rejected.
    InvalidConfig,
    /// Another process holds the device.
    Locked,
    /// The device does not carry out the command.
    Unsupported,
}
