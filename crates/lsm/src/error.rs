//! Errors of the LSM engine.

use std::sync::Arc;

use zonedb_fs::FsError;

/// Every way an engine operation can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LsmError {
    /// The zone file layer failed. A full device (`kind() == NoSpace`): delete data or use a
    /// larger device; otherwise see the file layer's error (and the device's under it).
    #[error("file layer: {0}")]
    Fs(#[from] FsError),
    /// Stored data failed a checksum or does not decode. Run `zonedb fs fsck` on the device;
    /// restore the database from elsewhere (`wal_recovery_mode` decides what an open drops).
    #[error("corruption in {file} at byte {offset}: {what}")]
    Corruption {
        /// What kind of damage.
        kind: CorruptionKind,
        /// File (or "memory" for in-memory buffers).
        file: String,
        /// Byte offset in the file.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// Bad argument or option: fix the option or argument it names.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A background flush or compaction, or a WAL write, failed earlier; the database refuses
    /// writes until it is reopened (RocksDB's background error). Reads still work: read what
    /// you need, fix the cause (its source: a full device, a failed zone) and reopen.
    #[error("background error, writes refused: {0}")]
    Background(#[source] BackgroundError),
    /// The database is closed: open it again to use it.
    #[error("database is closed")]
    Closed,
    /// An error reported to several callers at once (a failed WAL write: to the writer whose
    /// group hit it, and kept as the background error every later writer gets); it reads as
    /// the error itself: do what the error under it says.
    #[error(transparent)]
    Shared(Arc<LsmError>),
}

impl LsmError {
    /// This error in a form that can be handed to several callers ([`LsmError::Shared`]);
    /// background errors and shared errors are that already.
    #[must_use]
    pub fn into_shared(self) -> Self {
        match self {
            e @ (Self::Shared(_) | Self::Background(_)) => e,
            e => Self::Shared(Arc::new(e)),
        }
    }

    /// A corruption error of data that does not decode ([`CorruptionKind::Malformed`]).
    pub fn corruption(file: &str, offset: u64, what: impl Into<String>) -> Self {
        Self::corrupt(CorruptionKind::Malformed, file, offset, what)
    }

    /// A corruption error of `kind`.
    pub fn corrupt(kind: CorruptionKind, file: &str, offset: u64, what: impl Into<String>) -> Self {
        Self::Corruption {
            kind,
            file: file.to_owned(),
            offset,
            what: what.into(),
        }
    }
}

/// What kind of damage an [`LsmError::Corruption`] is (its message says the details).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CorruptionKind {
    /// A checksum does not match its data.
    Checksum,
    /// Data ends before what it says it holds: a short read, a file or record cut short.
    Truncated,
    /// Data does not decode: a bad magic, an unknown type, a malformed record, batch or
    /// version edit, an edit the tree cannot apply.
    Malformed,
    /// A file the metadata names is not there (or not in the version or snapshot that should
    /// hold it).
    Missing,
}

impl CorruptionKind {
    /// The kind a log reader's damage message names (`truncated ...`, `... checksum
    /// mismatch`, anything else malformed).
    pub fn of_message(what: &str) -> Self {
        if what.starts_with("truncated") {
            Self::Truncated
        } else if what.contains("checksum mismatch") {
            Self::Checksum
        } else {
            Self::Malformed
        }
    }
}

/// Why a database refuses writes (RocksDB's background error), and what a group-commit
/// follower gets when its leader's commit failed: the kind, the message, and the error itself
/// as the source (shared by everyone it is reported to).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{what}")]
pub struct BackgroundError {
    /// The kind of the error that stopped writes ([`LsmErrorKind::NoSpace`] for a full
    /// device: the store stays readable; delete data or reopen after cleaning).
    pub kind: LsmErrorKind,
    /// What failed.
    pub what: String,
    /// The error that failed (with its own sources: the file layer's, the device's); None
    /// when there is no error value behind it (a store opened read-only, a lost result).
    #[source]
    pub source: Option<Arc<LsmError>>,
}

impl PartialEq for BackgroundError {
    /// Same kind and message (the sources are not compared).
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.what == other.what
    }
}

impl Eq for BackgroundError {}

impl BackgroundError {
    /// A background error of `kind` with no error value behind it.
    pub fn new(kind: LsmErrorKind, what: impl Into<String>) -> Self {
        Self {
            kind,
            what: what.into(),
            source: None,
        }
    }

    /// A group-commit follower woken without the leader's result (a bug, reported as I/O).
    pub(crate) fn lost_result() -> Self {
        Self::new(LsmErrorKind::Io, "write lost its result")
    }

    fn of_shared(e: &Arc<LsmError>) -> Self {
        Self {
            kind: e.kind(),
            what: e.to_string(),
            source: Some(e.clone()),
        }
    }
}

/// The background error an error stands for: a shared error keeps itself as the source;
/// any other keeps only its kind and message (make it [`LsmError::into_shared`] first, or
/// use `From<LsmError>`, to keep the value).
impl From<&LsmError> for BackgroundError {
    fn from(e: &LsmError) -> Self {
        match e {
            LsmError::Background(b) => b.clone(),
            LsmError::Shared(s) => Self::of_shared(s),
            _ => Self::new(e.kind(), e.to_string()),
        }
    }
}

/// The background error an error stands for, keeping the error as its source.
impl From<LsmError> for BackgroundError {
    fn from(e: LsmError) -> Self {
        match e.into_shared() {
            LsmError::Background(b) => b,
            LsmError::Shared(s) => Self::of_shared(&s),
            e => Self::new(e.kind(), e.to_string()),
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
            Self::Shared(e) => e.kind(),
            Self::Fs(_) | Self::Closed => LsmErrorKind::Io,
            Self::InvalidArgument(_) => LsmErrorKind::InvalidArgument,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruption_keeps_its_message_and_names_its_kind() {
        let e = LsmError::corrupt(
            CorruptionKind::Checksum,
            "000007.sst",
            4096,
            "block checksum mismatch",
        );
        assert_eq!(
            e.to_string(),
            "corruption in 000007.sst at byte 4096: block checksum mismatch"
        );
        assert!(matches!(
            e,
            LsmError::Corruption {
                kind: CorruptionKind::Checksum,
                ..
            }
        ));
        assert_eq!(e.kind(), LsmErrorKind::Corruption);
        for (what, kind) in [
            ("truncated fragment", CorruptionKind::Truncated),
            ("fragment checksum mismatch", CorruptionKind::Checksum),
            ("unknown fragment type 9", CorruptionKind::Malformed),
        ] {
            assert_eq!(CorruptionKind::of_message(what), kind, "{what}");
        }
    }
}
