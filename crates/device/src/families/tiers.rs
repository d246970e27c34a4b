//! A hybrid of two devices (a ZNS SSD and an HM-SMR HDD) under one zone index space.

use crate::{HybridLayout, HybridStats};

/// A device whose zones split between a fast and a slow tier.
pub trait Tiers: Send + Sync {
    /// How the zones split between the fast and the slow device.
    fn hybrid_layout(&self) -> HybridLayout;

    /// Counters of each device.
    fn hybrid_stats(&self) -> HybridStats;
}
