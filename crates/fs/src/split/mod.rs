//! SplitZNS: split zones and the selective allocation that fills their subzones.
//!
//! - [`selective`]: the selective allocator (LIZA for wide zones, subzones of split zones for
//!   deep SSTs); reachable as `zonedb_fs::placement::selective` too. What it sees of split
//!   zones and what it decides ([`crate::placement::SplitView`],
//!   [`crate::placement::SubzonePlacement`]) is the placement interface's vocabulary
//!   ([`crate::placement::split`]), in the core.
//! - `subzone`: split zones carried out: subzones taken for writers, finished, merged, split
//!   zones deactivated and turned back into wide zones.

pub mod selective;
pub(crate) mod stats;
pub(crate) mod subzone;

pub use stats::SplitStats;
