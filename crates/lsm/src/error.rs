//! Errors of the LSM engine.

use zonedb_fs::FsError;

/// Every way an engine operation can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LsmError {
    /// The zone file layer failed.
    #[error("file layer: {0}")]
    Fs(#[from] FsError),
    /// Stored data failed a checksum or does not decode.
    #[error("corruption in {file} at byte {offset}: {what}")]
    Corruption {
        /// File (or "memory" for in-memory buffers).
        file: String,
        /// Byte offset in the file.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// Bad argument or option.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A background flush or compaction failed earlier; the database refuses writes until
    /// it is reopened (RocksDB's background error).
    #[error("background error, writes refused: {0}")]
    Background(BackgroundError),
    /// The database is closed.
    #[error("database is closed")]
    Closed,
}

impl LsmError {
    /// A corruption error.
    pub fn corruption(file: &str, offset: u64, what: impl Into<String>) -> Self {
        Self::Corruption {
            file: file.to_owned(),
            offset,
            what: what.into(),
        }
    }
}

/// Why a database refuses writes (RocksDB's background error): what failed and its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub struct BackgroundError {
    /// The kind of the error that stopped writes ([`LsmErrorKind::NoSpace`] for a full
    /// device: the store stays readable; delete data or reopen after cleaning).
    pub kind: LsmErrorKind,
    /// What failed.
    pub what: String,
}

impl BackgroundError {
    /// A group-commit follower woken without the leader's result (a bug, reported as I/O).
    pub(crate) fn lost_result() -> Self {
        Self {
            kind: LsmErrorKind::Io,
            what: "write lost its result".into(),
        }
    }
}

impl From<&LsmError> for BackgroundError {
    fn from(e: &LsmError) -> Self {
        match e {
            LsmError::Background(b) => b.clone(),
            _ => Self {
                kind: e.kind(),
                what: e.to_string(),
            },
        }
    }
}

/// Small, stable classification of [`LsmError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LsmErrorKind {
    /// Damaged data.
    Corruption,
    /// The zoned device has no room for new data (and cleaning cannot free any): reads still
    /// work; writes are refused until data is deleted or space is reclaimed.
    NoSpace,
    /// I/O or space problems below the engine.
    Io,
    /// Bad request or option.
    InvalidArgument,
}

impl LsmError {
    /// The coarse kind.
    pub fn kind(&self) -> LsmErrorKind {
        match self {
            Self::Corruption { .. } => LsmErrorKind::Corruption,
            Self::Fs(e) if e.kind() == zonedb_fs::FsErrorKind::Corruption => {
                LsmErrorKind::Corruption
            }
            Self::Fs(e) if e.kind() == zonedb_fs::FsErrorKind::NoSpace => LsmErrorKind::NoSpace,
            Self::Background(b) => b.kind,
            Self::Fs(_) | Self::Closed => LsmErrorKind::Io,
            Self::InvalidArgument(_) => LsmErrorKind::InvalidArgument,
        }
    }
}
