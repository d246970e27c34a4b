//! ZNS+: the two ways its host recycles zones with the device's help.
//!
//! - [`izc`]: cleaning through in-device zone compaction (the device copies the live blocks);
//!   chosen with [`crate::ZoneCopy::Izc`].
//! - [`threaded`]: hybrid recycling: a zone with garbage opened for threaded logging instead
//!   of cleaning a victim ([`crate::FsOptions::threaded_logging`]).
//!
//! Both are reachable as `zonedb_fs::cleaning::{izc, threaded}` too.

pub mod izc;
mod stats;
pub mod threaded;

pub use stats::ZnsPlusStats;
