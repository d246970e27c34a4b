//! The HHZS paper's basic schemes `Bh` (§2.3): the WAL and the SSTs of levels `L0 .. L(h-1)`
//! on the SSD, levels `Lh` and up on the HDD; when the SSD has no empty zone the write goes
//! to the HDD (no migration: SSD space comes back when compaction deletes SSD SSTs). No SSD
//! zone is reserved for the WAL. `Bh+M` (`hybrid-bh-m`, Exp#2's `B3+M`) adds HHZS's migration
//! with the tiering level fixed at `h`: SSTs of levels below `h` move between the devices by
//! popularity, deeper ones never go to the SSD.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use zonedb_device::Tier;

use super::migration::{Migration, MigrationSettings, Tiering, plan};
use super::tracker::Tracker;
use super::{HybridScheme, Target, migration_snapshot};
use crate::hints::Hint;
use crate::placement::policy::{AllocView, HybridContext, PlacementPolicy, PlacementRequest};

/// `Bh`: levels below `h` on the SSD; with `migration`, `Bh+M`.
#[derive(Debug, Default)]
pub struct Basic {
    /// The first level kept on the HDD.
    pub h: u32,
    /// HHZS's migration with the tiering level fixed at `h`.
    pub migration: bool,
    /// Migration's rate limit, bytes per second.
    pub migration_rate_bytes_per_s: u64,
    /// Migration's copy size, bytes.
    pub migration_chunk_bytes: u64,
    /// How often migration decides, ns.
    pub migration_period_ns: u64,
    tracker: Mutex<Tracker>,
}

/// Placement names of `B1` .. `B4`.
pub const NAMES: [&str; 4] = ["hybrid-b1", "hybrid-b2", "hybrid-b3", "hybrid-b4"];

/// Placement names of `B1+M` .. `B4+M`.
pub const NAMES_M: [&str; 4] = ["hybrid-b1-m", "hybrid-b2-m", "hybrid-b3-m", "hybrid-b4-m"];

impl Basic {
    /// `Bh`.
    pub fn new(h: u32, migration: bool) -> Self {
        Self {
            h,
            migration,
            migration_rate_bytes_per_s: MigrationSettings::default().rate_bytes_per_s,
            migration_chunk_bytes: MigrationSettings::default().chunk_bytes,
            migration_period_ns: MigrationSettings::default().period_ns,
            tracker: Mutex::default(),
        }
    }

    /// `Bh` or `Bh+M` for a name of [`NAMES`] or [`NAMES_M`].
    pub fn by_name(name: &str) -> Option<Self> {
        let (i, migration) = match NAMES.iter().position(|n| *n == name) {
            Some(i) => (i, false),
            None => (NAMES_M.iter().position(|n| *n == name)?, true),
        };
        Some(Self::new(u32::try_from(i).ok()? + 1, migration))
    }

    fn tracker(&self) -> MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The device of an SST at `level`.
    pub fn tier(&self, level: u32) -> Tier {
        if level < self.h { Tier::Ssd } else { Tier::Hdd }
    }
}

impl HybridScheme for Basic {
    fn target(&self, _: &AllocView<'_>, _: &HybridContext, r: &PlacementRequest<'_>) -> Target {
        Target::Sst(self.tier(r.sst.map_or(0, |s| s.level)))
    }

    fn placed(&self, sst: u64, level: u32, tier: Tier, now_ns: u64) {
        self.tracker().placed(sst, level, tier, now_ns);
    }
}

impl PlacementPolicy for Basic {
    fn name(&self) -> &'static str {
        let i = (self.h as usize).clamp(1, NAMES.len()) - 1;
        if self.migration { NAMES_M[i] } else { NAMES[i] }
    }

    super::hybrid_placement_methods!();

    fn on_hint(&self, hint: &Hint) {
        self.tracker().on_hint(hint);
    }

    fn migration(&self) -> Option<MigrationSettings> {
        self.migration.then(|| MigrationSettings {
            rate_bytes_per_s: self.migration_rate_bytes_per_s,
            chunk_bytes: self.migration_chunk_bytes,
            period_ns: self.migration_period_ns,
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
        let tiering = Tiering {
            level: self.h,
            reserved: 0,
        };
        let snapshot = migration_snapshot(
            &self.tracker(),
            (view, &ctx),
            reads,
            hdd_read_rate,
            (tiering, 0),
            Some(self.h),
            0,
        );
        plan(&snapshot, &MigrationSettings::default())
    }

    fn on_migrated(&self, sst: u64, to: Tier) {
        self.tracker().moved(sst, to);
    }
}
