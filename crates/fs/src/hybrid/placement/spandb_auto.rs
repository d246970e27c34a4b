//! SpanDB's AUTO placement (`SpanDBController` and `DynamicLevelMoving` in SpanDB's code), as
//! the HHZS paper re-implemented it on a hybrid zoned device (§4.1): a `max_level` starting at
//! 0, moved once per period (1 s) by the SSD's read + write bandwidth over the period: up by
//! one below `low_pct` of the SSD's sequential write bandwidth, down by one above `high_pct`
//! (kept in `[-1, 4]`); then clamped by free SSD space: below `clamp_free_pct` of the SSD and
//! above level 1 it becomes 1, below `stop_free_pct` it becomes -2 (no SST to the SSD).
//! Flushes go to the SSD when `max_level >= 0`, compaction outputs when their level is at most
//! `max_level`; the WAL has its reserved SSD zones (as in HHZS). No migration.
//!
//! Periods are evaluated when a placement decision comes (the controller's state only matters
//! then): the periods elapsed since the last one are applied one by one with the bandwidth
//! averaged over them.

use std::sync::{Mutex, PoisonError};

use zonedb_device::Tier;

use super::{HybridScheme, Target, tier_zones};
use crate::placement::policy::{AllocView, HybridContext, PlacementPolicy, PlacementRequest};

/// Placement name.
pub const NAME: &str = "spandb-auto";

/// AUTO's constants (the HHZS paper's: 40% / 65% of the SSD's sequential write bandwidth,
/// 13.3% / 8% free space; SpanDB's 1 s period and `[-1, 4]` clamp).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoConfig {
    /// The SSD's sequential write bandwidth, MiB/s (ZN540: 1002.8, Table 1).
    pub ssd_write_mib_s: f64,
    /// Raise `max_level` below this share of it, percent.
    pub low_pct: f64,
    /// Lower `max_level` above this share, percent.
    pub high_pct: f64,
    /// Clamp to level 1 below this free share of the SSD, percent.
    pub clamp_free_pct: f64,
    /// Nothing to the SSD below this free share, percent.
    pub stop_free_pct: f64,
    /// Controller period, ns.
    pub period_ns: u64,
    /// Zones kept for the WAL.
    pub log_zones: u32,
}

impl Default for AutoConfig {
    fn default() -> Self {
        Self {
            ssd_write_mib_s: 1002.8,
            low_pct: 40.0,
            high_pct: 65.0,
            clamp_free_pct: 13.3,
            stop_free_pct: 8.0,
            period_ns: 1_000_000_000,
            log_zones: 2,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Controller {
    max_level: i32,
    last_ns: Option<u64>,
    last_bytes: u64,
}

/// SpanDB's AUTO.
#[derive(Debug, Default)]
pub struct SpanDbAuto {
    config: AutoConfig,
    state: Mutex<Controller>,
}

impl SpanDbAuto {
    /// AUTO with `config`.
    pub fn new(config: AutoConfig) -> Self {
        Self {
            config,
            state: Mutex::new(Controller::default()),
        }
    }

    /// Advances the controller to `ctx.now_ns` and returns `max_level`.
    pub fn max_level(&self, view: &AllocView<'_>, ctx: &HybridContext) -> i32 {
        let c = &self.config;
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let ssd_bytes = ctx.stats.ssd.bytes_read + ctx.stats.ssd.bytes_written;
        let Some(last) = st.last_ns else {
            st.last_ns = Some(ctx.now_ns);
            st.last_bytes = ssd_bytes;
            return st.max_level;
        };
        let periods = ctx.now_ns.saturating_sub(last) / c.period_ns.max(1);
        if periods > 0 {
            let secs = (ctx.now_ns - last) as f64 / 1e9;
            let mib_s =
                ssd_bytes.saturating_sub(st.last_bytes) as f64 / f64::from(1u32 << 20) / secs;
            let share = mib_s / c.ssd_write_mib_s * 100.0;
            for _ in 0..periods.min(16) {
                if share > c.high_pct {
                    if st.max_level > -1 {
                        st.max_level -= 1;
                    }
                } else if share < c.low_pct && st.max_level < 4 {
                    st.max_level += 1;
                }
            }
            // Then the free-space clamp of the same period.
            let (mut free, mut total) = (0u64, 0u64);
            for z in tier_zones(view, &ctx.layout, Tier::Ssd) {
                free += z.remaining_bytes;
                total += z.max_capacity_bytes;
            }
            let free_pct = free as f64 * 100.0 / total.max(1) as f64;
            if free_pct < c.clamp_free_pct && st.max_level > 1 {
                st.max_level = 1;
            } else if free_pct < c.stop_free_pct {
                st.max_level = -2;
            }
            st.last_ns = Some(ctx.now_ns);
            st.last_bytes = ssd_bytes;
        }
        st.max_level
    }
}

impl HybridScheme for SpanDbAuto {
    fn target(
        &self,
        view: &AllocView<'_>,
        ctx: &HybridContext,
        r: &PlacementRequest<'_>,
    ) -> Target {
        let max = self.max_level(view, ctx);
        let level = r.sst.map_or(0, |s| s.level);
        let ssd = if level == 0 {
            max >= 0
        } else {
            i64::from(level) <= i64::from(max)
        };
        Target::Sst(if ssd { Tier::Ssd } else { Tier::Hdd })
    }

    fn log_zones(&self) -> u32 {
        self.config.log_zones
    }
}

impl PlacementPolicy for SpanDbAuto {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hybrid_log_zones(&self) -> u32 {
        self.config.log_zones
    }

    super::hybrid_placement_methods!();
}
