//! HHZS on a hybrid device (a ZNS SSD and an HM-SMR HDD under one zone index space): every
//! piece of the paper's design this layer carries, in one place.
//!
//! - [`placement`]: the hybrid placement policies (the basic schemes, SpanDB's AUTO, HHZS's
//!   write-guided placement) and the pure migration decisions
//!   ([`placement::migration`]); reachable as `zonedb_fs::placement::hybrid` too.
//! - `migration`: migration carried out (§3.4): a background task copying an SST between
//!   the devices at the policy's rate.
//! - `ssd_cache`: application-hinted caching (§3.5): evicted blocks of HDD SSTs kept in SSD
//!   cache zones taken from the WAL zones, and the reads they serve.
//!
//! The core layer reaches these through the placement policy's hybrid hooks
//! ([`crate::PlacementPolicy::migration`], [`crate::PlacementPolicy::caches_evicted_blocks`])
//! and the SSD cache's state on [`crate::ZoneFs`].

pub(crate) mod migration;
pub mod placement;
pub(crate) mod ssd_cache;

pub use ssd_cache::SsdCacheStats;
pub(crate) mod stats;

pub use stats::HybridStats;
