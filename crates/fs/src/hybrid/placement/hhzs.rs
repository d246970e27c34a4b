//! HHZS's write-guided placement (HHZS §3.3; no public code: reconstructed from the paper,
//! its parameters in [`HhzsConfig`]).
//!
//! 1. Storage demand per level ([`super::tracker::Tracker`]): `D0` = the WAL zones in use,
//!    `Di` (i >= 1) from the three compaction hints.
//! 2. Tiering level `t = argmin_i sum_{j<=i} (A_j + D_j) >= C_ssd`, with `A_j` the SSD zones
//!    holding level-j SSTs and `C_ssd` the SSD zones for SSTs (the SSD's IO zones minus the
//!    WAL and cache zones).
//! 3. `L_t` gets `C_ssd - sum_{j<t} (A_j + D_j)` SSD zones.
//! 4. An SST goes to an empty SSD zone if it comes from a flush, or from a compaction into a
//!    level below `t`, or into `L_t` while `L_t` has reserved SSD zones left; else to empty HDD
//!    zones.
//!
//! Migration and caching (§3.4, §3.5) are switched on by the configuration and carried out by
//! the file layer; this module answers what they ask ([`Hhzs::tiering`]).

use std::sync::{Mutex, MutexGuard, PoisonError};

use zonedb_device::Tier;

use std::collections::BTreeMap;

pub use super::migration::Tiering;
use super::migration::{Migration, MigrationSettings, plan};
use super::tracker::{LEVELS, Tracker};
use super::{HybridScheme, Target, migration_snapshot, reserved_log_zones, tier_zones};
use crate::hints::Hint;
use crate::placement::policy::{AllocView, HybridContext, PlacementPolicy, PlacementRequest};

/// Placement names: placement only (`P`), with migration (`P+M`), the whole design
/// (`P+M+C`, HHZS).
pub const NAMES: [&str; 3] = ["hhzs-p", "hhzs-pm", "hhzs"];

/// HHZS's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HhzsConfig {
    /// SSD zones for the WAL and the cache (2: 2.1 GiB of 1077 MiB zones).
    pub log_zones: u32,
    /// Workload-aware migration (§3.4).
    pub migration: bool,
    /// Application-hinted caching (§3.5).
    pub caching: bool,
    /// Migration's rate limit, bytes per second (4 MiB/s).
    pub migration_rate_bytes_per_s: u64,
    /// Migration's copy size, bytes.
    pub migration_chunk_bytes: u64,
    /// How often migration decides, ns (1 s).
    pub migration_period_ns: u64,
    /// Whether running compactions add their demand (`D_i`, i >= 1) to the tiering rule
    /// (the paper: yes; `false` is an ablation).
    pub compaction_demand: bool,
}

impl Default for HhzsConfig {
    fn default() -> Self {
        Self {
            log_zones: 2,
            migration: true,
            caching: true,
            migration_rate_bytes_per_s: MigrationSettings::default().rate_bytes_per_s,
            migration_chunk_bytes: MigrationSettings::default().chunk_bytes,
            migration_period_ns: MigrationSettings::default().period_ns,
            compaction_demand: true,
        }
    }
}

/// Step 2 and 3 over the allocated zones `a`, the demand `d` and `c_ssd` SSD zones.
pub fn tiering(a: &[u64; LEVELS], d: &[u64; LEVELS], c_ssd: u64) -> Tiering {
    let mut below = 0u64;
    for i in 0..LEVELS {
        let with = below + a[i] + d[i];
        if with >= c_ssd {
            return Tiering {
                level: u32::try_from(i).unwrap_or(u32::MAX),
                reserved: c_ssd.saturating_sub(below),
            };
        }
        below = with;
    }
    Tiering {
        level: u32::try_from(LEVELS).unwrap_or(u32::MAX),
        reserved: c_ssd.saturating_sub(below),
    }
}

/// HHZS.
#[derive(Debug, Default)]
pub struct Hhzs {
    config: HhzsConfig,
    tracker: Mutex<Tracker>,
}

impl Hhzs {
    /// HHZS with `config`.
    pub fn new(config: HhzsConfig) -> Self {
        Self {
            config,
            tracker: Mutex::new(Tracker::default()),
        }
    }

    /// By placement name ([`NAMES`]) with `settings`.
    pub fn by_name_at(name: &str, settings: super::HybridSettings) -> Option<Self> {
        let mut h = Self::by_name(name)?;
        h.config.migration_rate_bytes_per_s = settings.rate_bytes_per_s;
        h.config.migration_chunk_bytes = settings.chunk_bytes;
        h.config.migration_period_ns = settings.period_ns;
        h.config.compaction_demand = settings.compaction_demand;
        Some(h)
    }

    /// By placement name ([`NAMES`]).
    pub fn by_name(name: &str) -> Option<Self> {
        let (migration, caching) = match name {
            "hhzs-p" => (false, false),
            "hhzs-pm" => (true, false),
            "hhzs" => (true, true),
            _ => return None,
        };
        Some(Self::new(HhzsConfig {
            migration,
            caching,
            ..HhzsConfig::default()
        }))
    }

    /// Its parameters.
    pub fn config(&self) -> HhzsConfig {
        self.config
    }

    /// The tracker (SSTs, levels, devices, demand).
    pub fn tracker(&self) -> MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The tiering level now, from the view of the zones.
    pub fn tiering(&self, view: &AllocView<'_>, ctx: &HybridContext) -> Tiering {
        self.tiering_and_demand(view, ctx).0
    }

    /// The tiering level and the demand of the levels below it, zones.
    fn tiering_and_demand(&self, view: &AllocView<'_>, ctx: &HybridContext) -> (Tiering, u64) {
        let layout = &ctx.layout;
        let logs = reserved_log_zones(view, layout, self.config.log_zones);
        let ssd_zones = tier_zones(view, layout, Tier::Ssd).count() as u64;
        let c_ssd = ssd_zones.saturating_sub(logs.len() as u64);
        let wal_in_use = view
            .zones
            .iter()
            .filter(|z| logs.contains(&z.index) && (z.busy || !z.is_empty()))
            .count() as u64;
        let t = self.tracker();
        let a = t.count_on(Tier::Ssd);
        let mut d = if self.config.compaction_demand {
            t.demand()
        } else {
            [0; LEVELS]
        };
        d[0] = wal_in_use;
        let tiering = tiering(&a, &d, c_ssd);
        let below = d.iter().take(tiering.level as usize).sum();
        (tiering, below)
    }
}

impl HybridScheme for Hhzs {
    fn target(
        &self,
        view: &AllocView<'_>,
        ctx: &HybridContext,
        r: &PlacementRequest<'_>,
    ) -> Target {
        let Some(sst) = r.sst else {
            return Target::Other;
        };
        if sst.level == 0 {
            return Target::Sst(Tier::Ssd);
        }
        let t = self.tiering(view, ctx);
        let ssd = match sst.level.cmp(&t.level) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => {
                let at_t = self.tracker().count_on(Tier::Ssd)[(t.level as usize).min(LEVELS - 1)];
                at_t < t.reserved
            }
            std::cmp::Ordering::Greater => false,
        };
        Target::Sst(if ssd { Tier::Ssd } else { Tier::Hdd })
    }

    fn log_zones(&self) -> u32 {
        self.config.log_zones
    }

    fn placed(&self, sst: u64, level: u32, tier: Tier, now_ns: u64) {
        self.tracker().placed(sst, level, tier, now_ns);
    }
}

impl PlacementPolicy for Hhzs {
    fn name(&self) -> &'static str {
        match (self.config.migration, self.config.caching) {
            (false, _) => NAMES[0],
            (true, false) => NAMES[1],
            (true, true) => NAMES[2],
        }
    }

    fn hybrid_log_zones(&self) -> u32 {
        self.config.log_zones
    }

    super::hybrid_placement_methods!();

    fn on_hint(&self, hint: &Hint) {
        self.tracker().on_hint(hint);
    }

    fn migration(&self) -> Option<MigrationSettings> {
        self.config.migration.then(|| MigrationSettings {
            log_zones: self.config.log_zones,
            rate_bytes_per_s: self.config.migration_rate_bytes_per_s,
            chunk_bytes: self.config.migration_chunk_bytes,
            period_ns: self.config.migration_period_ns,
            ..MigrationSettings::default()
        })
    }

    fn plan_migration(
        &self,
        view: &AllocView<'_>,
        reads: &BTreeMap<u64, u64>,
        hdd_read_rate: f64,
    ) -> Option<Migration> {
        let ctx = view.hybrid?;
        let tiering = self.tiering_and_demand(view, &ctx);
        let snapshot = migration_snapshot(
            &self.tracker(),
            (view, &ctx),
            reads,
            hdd_read_rate,
            tiering,
            None,
            self.config.log_zones,
        );
        plan(&snapshot, &MigrationSettings::default())
    }

    fn on_migrated(&self, sst: u64, to: Tier) {
        self.tracker().moved(sst, to);
    }

    fn caches_evicted_blocks(&self) -> bool {
        self.config.caching
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(v: &[u64]) -> [u64; LEVELS] {
        let mut a = [0; LEVELS];
        a[..v.len()].copy_from_slice(v);
        a
    }

    #[test]
    fn tiering_level_matches_hand_computed_cases() {
        // C_ssd = 18. L0: 2 SSTs + 1 WAL zone; L1: 3 + 2 demand; L2: 8 + 4 -> the sum reaches
        // 3 + 5 + 12 = 20 >= 18 at L2, which gets 18 - 8 = 10 zones.
        let t = tiering(&arr(&[2, 3, 8, 1]), &arr(&[1, 2, 4]), 18);
        assert_eq!(
            t,
            Tiering {
                level: 2,
                reserved: 10
            }
        );
        // Exactly full at L1: t = 1 with what is left after L0.
        let t = tiering(&arr(&[4, 6]), &arr(&[0, 0]), 10);
        assert_eq!(
            t,
            Tiering {
                level: 1,
                reserved: 6
            }
        );
        // L0 alone over the SSD: t = 0.
        let t = tiering(&arr(&[12]), &arr(&[2]), 10);
        assert_eq!(
            t,
            Tiering {
                level: 0,
                reserved: 10
            }
        );
        // Everything fits: no tiering level, the rest of the SSD free.
        let t = tiering(&arr(&[1, 2, 3]), &arr(&[1]), 18);
        assert_eq!(t.level as usize, LEVELS);
        assert_eq!(t.reserved, 11);
    }
}
