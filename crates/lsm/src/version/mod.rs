//! Versions and the manifest: the edits that describe how the set of SSTs changes.
//!
//! - [`edit`] — `VersionEdit`: new and deleted files per level, log and file numbers, last
//!   sequence; its binary encoding (the manifest's records).
//! - [`file_meta`] — `FileMeta`, the one metadata type of an SST.
//! - [`version`] — `Version` (files per level), `LiveFile` and `Obsolete` (deletion once no
//!   version holds a file).
//! - [`manifest`] — file names, the MANIFEST writer, `CURRENT`, and reading them back.

pub mod edit;
pub mod file_meta;
pub mod manifest;
#[allow(clippy::module_inception)]
pub mod version;

pub use edit::VersionEdit;
pub use file_meta::FileMeta;
pub use version::{Dead, DeletionWaits, Graveyard, LiveFile, PurgeHold, Version};
