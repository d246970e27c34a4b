//! [`Error`]: the one error type of the front door ([`crate::Db`], [`crate::asynchronous`]), and
//! its small, stable classification [`ErrorKind`].

use zonedb_device::{DeviceError, DeviceErrorKind};
use zonedb_fs::{FsError, FsErrorKind};
use zonedb_lsm::{LsmError, LsmErrorKind};

/// Every way a call of the front door can fail. Match on [`Error::kind`] rather than on the
/// variants: the variants say which layer failed (and carry its error, with its sources), the
/// kind says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The engine failed (see its message and sources).
    #[error(transparent)]
    Engine(#[from] LsmError),
    /// The zone file layer failed (mounting or formatting the device).
    #[error(transparent)]
    Fs(#[from] FsError),
    /// The device failed (opening or creating it).
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A bad argument or option: fix what the message names.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// A result of the front door.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure an [`Error`] is (RocksDB's status codes, as far as they apply).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A bad argument or option; a store that does not exist opened with
    /// `create_if_missing = false` (RocksDB says `InvalidArgument` too).
    InvalidArgument,
    /// Stored data failed a checksum or does not decode: run `zonedb fs fsck` on the device.
    Corruption,
    /// The zoned device is full: reads work, writes are refused until data is deleted.
    NoSpace,
    /// The device or the zone file layer failed (an operating system error, a failed zone).
    Io,
    /// Another handle (this process or another) has the device open.
    Busy,
    /// The store was closed.
    Closed,
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Engine(LsmError::Closed) => ErrorKind::Closed,
            Self::Engine(LsmError::Fs(e)) | Self::Fs(e) => fs_kind(e),
            Self::Engine(e) => match e.kind() {
                LsmErrorKind::Corruption => ErrorKind::Corruption,
                LsmErrorKind::NoSpace => ErrorKind::NoSpace,
                LsmErrorKind::InvalidArgument => ErrorKind::InvalidArgument,
                LsmErrorKind::Io => ErrorKind::Io,
            },
            Self::Device(e) => device_kind(e),
            Self::InvalidArgument(_) => ErrorKind::InvalidArgument,
        }
    }

    /// An [`Error::InvalidArgument`] saying `what`.
    pub(crate) fn invalid(what: impl Into<String>) -> Self {
        Self::InvalidArgument(what.into())
    }
}

fn fs_kind(e: &FsError) -> ErrorKind {
    match e {
        FsError::Device(d) => device_kind(d),
        _ => match e.kind() {
            FsErrorKind::NoSpace => ErrorKind::NoSpace,
            FsErrorKind::Corruption => ErrorKind::Corruption,
            FsErrorKind::InvalidArgument => ErrorKind::InvalidArgument,
            FsErrorKind::Io | FsErrorKind::NotFound => ErrorKind::Io,
        },
    }
}

fn device_kind(e: &DeviceError) -> ErrorKind {
    match e.kind() {
        DeviceErrorKind::Locked => ErrorKind::Busy,
        DeviceErrorKind::InvalidConfig => ErrorKind::InvalidArgument,
        DeviceErrorKind::Corruption => ErrorKind::Corruption,
        DeviceErrorKind::NoSpace => ErrorKind::NoSpace,
        _ => ErrorKind::Io,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_layer_that_failed() {
        assert_eq!(Error::from(LsmError::Closed).kind(), ErrorKind::Closed);
        assert_eq!(
            Error::from(LsmError::InvalidArgument("x".into())).kind(),
            ErrorKind::InvalidArgument
        );
        assert_eq!(Error::from(DeviceError::Locked).kind(), ErrorKind::Busy);
        assert_eq!(
            Error::from(LsmError::Fs(FsError::NoSpace)).kind(),
            ErrorKind::NoSpace
        );
        assert_eq!(Error::invalid("bad").to_string(), "invalid argument: bad");
    }
}
