//! ZNS+: the two ways its host recycles zones with the device's help.
//!
//! - [`izc`]: cleaning through in-device zone compaction (the device copies the live blocks);
//!   chosen with [`crate::ZoneCopy::Izc`].
//! - [`threaded`]: hybrid recycling: a zone with garbage opened for threaded logging instead
//!   of cleaning a victim ([`ZnsPlusOptions::threaded_logging`]).

pub mod izc;
pub(crate) mod options;
pub(crate) mod stats;
pub mod threaded;

pub use options::{ThreadedTrigger, ZnsPlusOptions};
pub use stats::ZnsPlusStats;
