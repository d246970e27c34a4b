//! ZoneDB's zone file layer: the counterpart of ZenFS.
//!
//! Files (WAL, SSTs, manifest) are lists of extents on the IO zones of a zoned device; the
//! first zones hold the metadata log (superblock, full snapshot, then delta records, each
//! CRC32C-framed), from which [`ZoneFs::mount`] rebuilds the files and recovers unsynced tails
//! from the zone write pointers. Where new data goes is decided by a [`PlacementPolicy`]
//! (LIZA by default); which zones are cleaned, by a [`CleaningPolicy`].
//!
//! - [`fs`] — the mounted layer, its options, mkfs and mount.
//! - [`writer`] — writable files: buffering, alignment, WAL framing, zone switches.
//! - [`metalog`] — the metadata log: records, rolls, replay.
//! - [`cleaner`] — the cleaning mechanism (migration of live extents, resets).
//! - [`record`] and [`codec`] hold the on-device encoding.
//! - [`file`] and `state` hold files, extents and zone accounting.
//! - [`placement`] and [`cleaning`] hold the policies, pure functions over views.
//! - [`stats`] — counters.
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

pub mod cleaner;
pub mod cleaning;
pub mod codec;
mod error;
pub mod file;
pub mod fill_delete;
pub mod fs;
pub mod fsck;
pub mod metalog;
pub mod placement;
pub mod record;
mod state;
pub mod stats;
pub mod writer;

pub use cleaning::CleaningPolicy;
pub use error::{FsError, FsErrorKind};
pub use fs::{FsOptions, RESERVED_ZONES, ZoneFs};
pub use metalog::META_ZONES;
pub use placement::PlacementPolicy;
pub use stats::FsStats;
pub use writer::WritableFile;
