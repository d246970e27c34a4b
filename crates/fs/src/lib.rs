//! ZoneDB's zone file layer: the counterpart of ZenFS.
//!
//! ```
//! use std::sync::Arc;
//! use zonedb_device::{SimDevice, SimDeviceSpec, sim::spec::SimPayload};
//! use zonedb_env::{SimConfig, SimEnv};
//! use zonedb_fs::placement::Lifetime;
//! use zonedb_fs::{FsOptions, ZoneFs};
//!
//! let env = SimEnv::new(SimConfig::with_seed(1));
//! let profile = SimDeviceSpec::new("splitzns-paper", "1/512").profile()?;
//! let dev = Arc::new(SimDevice::new(env.clone(), profile, &SimPayload::Memory)?);
//! let e = env.clone();
//! env.run(async move {
//!     ZoneFs::<SimEnv, SimDevice<SimEnv>>::mkfs(dev.as_ref(), 0).await?;
//!     let fs = ZoneFs::mount(e, dev, FsOptions::default()).await?;
//!     let mut f = fs.create("000001.log", Lifetime::Short).await?;
//!     f.append(b"hello, zones").await?;
//!     f.sync().await?;
//!     f.close().await?;
//!     assert_eq!(fs.read_all("000001.log").await?, b"hello, zones");
//!     assert_eq!(fs.list(), ["000001.log"]);
//!     Ok::<(), zonedb_fs::FsError>(())
//! })??;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Files (WAL, SSTs, manifest) are lists of extents on the IO zones of a zoned device; the
//! first zones hold the metadata log (superblock, full snapshot, then delta records, each
//! CRC32C-framed), from which [`ZoneFs::mount`] rebuilds the files and recovers unsynced tails
//! from the zone write pointers. Where new data goes is decided by a [`PlacementPolicy`]
//! (LIZA by default); which zones are cleaned, by a [`CleaningPolicy`].
//!
//! The core:
//!
//! - [`fs`] — the mounted layer, its options, file operations; `mount` — mkfs, mount and
//!   recovery; `alloc` — zone allocation (placement decisions carried out, tokens); `read` —
//!   the read path (extent pieces, page-cache reads, zones being read kept from resets).
//! - [`writer`] — writable files: buffering, alignment, WAL framing, zone switches.
//! - [`metalog`] — the metadata log: records, rolls, replay.
//! - [`record`] and [`codec`] hold the on-device encoding.
//! - [`file`](mod@file) and `state` hold files, extents and zone accounting.
//! - [`placement`] and [`cleaning`] hold the policies, pure functions over views;
//!   [`cleaning::mechanism`] carries cleaning out (migration of live extents, resets) through
//!   `copy`, the copy loop cleaning and HHZS's migration share.
//! - [`stats`] — counters: [`FsStats`], with one flattened part per paper feature.
//! - [`page_cache`] — the optional page cache of buffered reads (LRU pages, Linux-style
//!   readahead), invalidated on delete and migration.
//! - [`hints`] — what the engine tells the layer and its policies ([`ZoneFs::on_hint`]).
//! - [`fsck`] — the layer's consistency check.
//!
//! One folder per paper feature, owning its code, its counters and its options:
//!
//! - [`hybrid`] — HHZS on an SSD + HDD device: the hybrid placement policies
//!   (`hybrid::placement`), migration between the devices, the SSD cache.
//! - [`split`] — SplitZNS: the selective allocator (`split::selective`) and split zones
//!   carried out (subzones taken for writers, finished, merged; split zones turned back into
//!   wide zones).
//! - [`znsplus`] — ZNS+: cleaning through in-device zone compaction and threaded logging
//!   (`znsplus::{izc, threaded}`, options in [`ZnsPlusOptions`]).
//!
//! The core layer (the files at the crate's root) names no feature folder: a mount attaches
//! the features' state and tasks through `features.rs`, the one registry of them; `options.rs`
//! and `stats.rs` compose the features' option and counter parts.
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

mod alloc;
pub mod cleaning;
pub mod codec;
mod copy;
mod error;
mod extensions;
mod features;
pub mod file;
pub mod fs;
pub mod fsck;
pub mod hints;
pub mod hybrid;
pub mod metalog;
mod mount;
pub mod options;
pub mod page_cache;
pub mod placement;
mod read;
pub mod record;
pub mod space;
pub mod split;
mod state;
pub mod stats;
pub mod writer;
pub mod znsplus;

pub use cleaning::CleaningPolicy;
pub use error::{FsError, FsErrorKind, UnknownName};
pub use fs::{RESERVED_ZONES, ZoneFs};
pub use hybrid::SsdCacheStats;
pub use metalog::META_ZONES;
pub use options::{FsOptions, ZoneCopy};
pub use placement::PlacementPolicy;
pub use stats::FsStats;
pub use writer::WritableFile;
pub use znsplus::{ThreadedTrigger, ZnsPlusOptions};
