//! Versions and the manifest: the edits that describe how the set of SSTs changes.
//!
//! - [`edit`] — `VersionEdit`: new and deleted files per level, log and file numbers, last
//!   sequence; its binary encoding (the manifest's records).

pub mod edit;
