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
    Background(String),
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

/// Small, stable classification of [`LsmError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LsmErrorKind {
    /// Damaged data.
    Corruption,
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
            Self::Fs(_) | Self::Background(_) | Self::Closed => LsmErrorKind::Io,
            Self::InvalidArgument(_) => LsmErrorKind::InvalidArgument,
        }
    }
}
