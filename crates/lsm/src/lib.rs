//! ZoneDB's LSM-tree engine: [`Db`] (write path with group commit and WAL, memtables, SSTs,
//! versions and MANIFEST, flushes and leveled compactions, snapshots and iterators) on the
//! zone file layer, generic over an `Env` (virtual or real time) and a zoned device.
//!
//! ```
//! use std::sync::Arc;
//! use zonedb_device::{SimDevice, SimDeviceSpec, sim::spec::SimPayload};
//! use zonedb_env::{SimConfig, SimEnv};
//! use zonedb_fs::{FsOptions, ZoneFs};
//! use zonedb_lsm::{Db, options::DbOptions};
//!
//! let env = SimEnv::new(SimConfig::with_seed(1));
//! let profile = SimDeviceSpec::new("splitzns-paper", "1/512").profile()?;
//! let dev = Arc::new(SimDevice::new(env.clone(), profile, &SimPayload::Memory)?);
//! let e = env.clone();
//! env.run(async move {
//!     ZoneFs::<SimEnv, SimDevice<SimEnv>>::mkfs(dev.as_ref(), 0).await?;
//!     let fs = ZoneFs::mount(e, dev, FsOptions::default()).await?;
//!     let db = Db::open(fs, DbOptions::default()).await?;
//!     db.put(b"a", b"1").await?;
//!     db.put(b"b", b"2").await?;
//!     assert_eq!(db.get(b"a").await?, Some(b"1".to_vec()));
//!     let mut it = db.iter();
//!     it.seek_to_last().await?; // backwards: seek_to_last / seek_for_prev, then prev
//!     assert_eq!((it.key(), it.value()), (&b"b"[..], &b"2"[..]));
//!     it.prev().await?;
//!     assert_eq!(it.key(), b"a");
//!     db.close().await
//! })??;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`db`] — the `Db`: open and recovery, writes, reads, iterators, background work.
//! - [`compaction`] — pickers, start-file rules, output cutting, the drop rule.
//! - [`key`] — internal keys and their order.
//! - [`options`] — `DbOptions` under RocksDB's names and defaults, from TOML.
//! - [`batch`] — `WriteBatch` and its encoding (also the WAL record).
//! - [`log_format`] — the WAL/MANIFEST record format and `RecoveryMode`.
//! - [`memtable`] — the memtable (a B-tree of key prefixes over an entry arena).
//! - [`block_cache`] — LRU block cache bounded in bytes, with an eviction callback.
//! - [`sst`] — SST format: blocks, Bloom filter, builder, reader.
//! - [`version`] — versions, version edits (the manifest's records), the MANIFEST.
//! - [`hints`], [`elided`], [`cost`] — hints for the zone layer, elided values of
//!   simulations, the CPU cost model.
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
pub use error::{BackgroundError, CorruptionKind, LsmError, LsmErrorKind};
