//! ZoneDB's LSM-tree engine (in progress: the building blocks land first, the `Db` after).
//!
//! - [`key`] — internal keys and their order.
//! - [`options`] — `DbOptions` under RocksDB's names and defaults, from TOML.
//! - [`batch`] — `WriteBatch` and its encoding (also the WAL record).
//! - [`log_format`] — the WAL/MANIFEST record format and `RecoveryMode`.
//! - [`memtable`] — the skiplist memtable.
//! - [`block_cache`] — LRU block cache bounded in bytes, with an eviction callback.
//! - [`sst`] — SST format: blocks, Bloom filter, builder, reader.
//! - [`version`] — version edits (the manifest's records).
#![deny(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
#![warn(clippy::pedantic)]
#![allow(
    clippy::module_name_repetitions,
    clippy::must_use_candidate,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss
)]

pub mod batch;
pub mod block_cache;
pub mod compaction;
pub mod cost;
pub mod db;
pub mod elided;
mod error;
pub mod fuzz;
pub mod hints;
pub mod key;
pub mod log_format;
pub mod memtable;
pub mod options;
pub mod sst;
pub mod version;

pub use db::{
    Db, DbConfig, DbIter, DbStats, FlushPhases, RunningCompactionInfo, Snapshot, WalDrop,
    WalRecovery,
};
pub use error::{BackgroundError, LsmError, LsmErrorKind};
