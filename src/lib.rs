//! ZoneDB: a zone-native LSM-tree key-value store, and the lab around it.
//!
//! The front door is [`Db`], a synchronous store in the shape RocksDB, sled and fjall users
//! know, on a file-backed zoned device in a directory ([`Db::open`]) or a Linux zoned block
//! device ([`Db::open_device`]):
//!
//! ```
//! use zonedb::{Db, Options};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let db = Db::open(dir.path(), Options::default())?;
//! db.put(b"hello", b"world")?;
//! assert_eq!(db.get(b"hello")?.as_deref(), Some(&b"world"[..]));
//! for item in db.range(b"a".as_slice()..b"z".as_slice()).rev() {
//!     let (key, value) = item?;
//!     println!("{key:?} = {value:?}");
//! }
//! db.close()?;
//! # Ok::<(), zonedb::Error>(())
//! ```
//!
//! - [`Db`], [`Options`], [`WriteOptions`], [`WriteBatch`], [`Snapshot`], [`Iter`]: the
//!   synchronous API; [`Error`] and [`ErrorKind`] its one error type.
//! - [`asynchronous`]: the engine's own asynchronous `Db` ([`AsyncDb`]), opened the same way.
//! - [`lab`]: the simulations behind `zonedb run` and `zonedb reproduce`, as functions;
//!   [`cli`]: the command line's commands. [`host`] is the one place that reads the OS
//!   clock.
//!
//! The layers underneath are crates of their own: `zonedb_lsm` (the engine), `zonedb_fs`
//! (the zone file layer), `zonedb_device` (zoned devices, simulated and real), `zonedb_env`
//! (virtual or real time), `zonedb_harness` (workloads and studies). `docs/library.md` tells
//! the story; `examples/` runs it.
#![forbid(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod asynchronous;
pub mod cli;
mod db;
mod error;
pub mod host;
mod iter;
pub mod lab;
mod open;
pub mod options;
pub mod progress;
mod snapshot;

pub use asynchronous::AsyncDb;
pub use db::{Db, MAX_ENTRY_BYTES};
pub use error::{Error, ErrorKind, Result};
pub use iter::{Iter, KeyValue};
pub use options::{Options, WriteOptions};
pub use snapshot::Snapshot;
pub use zonedb_lsm::DbStats;
pub use zonedb_lsm::batch::WriteBatch;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
