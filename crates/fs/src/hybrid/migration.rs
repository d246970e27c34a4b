//! Migration between the devices of a hybrid (HHZS §3.4), the mechanism: a background task
//! that, once per period, asks the placement policy for a decision
//! ([`crate::PlacementPolicy::plan_migration`]) from the zones and the query reads of each
//! SST, and carries it out: an SST's bytes copied into fresh zones of the other device at the
//! policy's rate limit, its extents replaced in one metadata record (the copy is garbage if
//! the file changed meanwhile), the old zones reset once nothing in them is live.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use zonedb_device::{Tier, ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::alloc::Token;
use crate::copy::CopySteps;
use crate::file::Extent;
use crate::file::sst_number;
use crate::fs::ZoneFs;
use crate::hybrid::placement::migration::{Migration, MigrationSettings};

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Query reads of each live SST so far, by SST number.
    pub(crate) fn sst_query_reads(&self) -> BTreeMap<u64, u64> {
        let s = self.lock();
        s.names
            .iter()
            .filter_map(|(name, id)| {
                let n = sst_number(name)?;
                Some((n, s.files.get(id)?.query_reads))
            })
            .collect()
    }

    /// Carries out one migration decision.
    ///
    /// # Errors
    /// Device errors; [`FsError::NoSpace`] when the target device has no fresh zone.
    pub(crate) async fn migrate(
        &self,
        decision: Migration,
        settings: &MigrationSettings,
    ) -> Result<(), FsError> {
        match decision {
            Migration::Move { sst, to } => self.migrate_sst(sst, to, settings).await,
            Migration::Swap { up, down } => {
                self.migrate_sst(down, Tier::Hdd, settings).await?;
                self.migrate_sst(up, Tier::Ssd, settings).await
            }
        }
    }

    /// Moves SST `number` to fresh zones of `to`, at most `settings.rate_bytes_per_s`.
    async fn migrate_sst(
        &self,
        number: u64,
        to: Tier,
        settings: &MigrationSettings,
    ) -> Result<(), FsError> {
        let Some(layout) = self.hybrid_layout() else {
            return Ok(());
        };
        let (id, extents, readers) = {
            let mut s = self.lock();
            let Some(id) = s
                .names
                .iter()
                .find(|(n, _)| sst_number(n) == Some(number))
                .map(|(_, id)| *id)
            else {
                return Ok(());
            };
            let Some(f) = s.files.get(&id).filter(|f| !f.writing) else {
                return Ok(());
            };
            let extents = f.meta.extents.clone();
            // Already there (a decision from a stale view): nothing to do.
            if extents
                .iter()
                .all(|e| s.zone_of(e.start).and_then(|z| layout.tier_of(z)) == Some(to))
            {
                return Ok(());
            }
            let readers =
                crate::read::ZoneReaders::new(self, &mut s, extents.iter().map(|e| e.start));
            (id, extents, readers)
        };
        // The zones written stay busy (no reset can take them while nothing in them is
        // accounted live) until the new extents are accounted below.
        let mut written: Vec<u32> = Vec::new();
        let copied = self
            .copy_to_tier(&extents, to, settings, &mut written)
            .await;
        let new_extents = match copied {
            Ok(e) => e,
            Err(e) => {
                for z in written {
                    self.release_zone(z, Token::Migration).await?;
                }
                drop(readers);
                return Err(e);
            }
        };
        let replaced = self.commit_copies(id, &extents, new_extents).await?;
        if replaced {
            self.counters().hybrid.migrations += 1;
        }
        drop(readers);
        for z in written {
            self.release_zone(z, Token::Migration).await?;
        }
        self.reset_unused_zones().await?;
        if replaced {
            self.opts.placement.on_migrated(number, to);
        }
        Ok(())
    }

    /// Copies `extents` into fresh zones of `to` at the rate limit; returns the new extents.
    async fn copy_to_tier(
        &self,
        extents: &[Extent],
        to: Tier,
        settings: &MigrationSettings,
        written: &mut Vec<u32>,
    ) -> Result<Vec<Extent>, FsError> {
        let mut steps = MigrationSteps {
            to,
            settings,
            written,
            t0: self.env.now(),
            copied: 0,
        };
        let mut target: Option<u32> = None;
        // One list for the whole file: pieces of consecutive extents merge inside a zone.
        let mut new_extents: Vec<Extent> = Vec::with_capacity(extents.len());
        for e in extents {
            self.copy_extent(*e, &mut target, &mut new_extents, &mut steps)
                .await?;
        }
        Ok(new_extents)
    }

    /// A fresh zone of `tier` for migrated data (outside the writers' open budget, as the
    /// cleaner's), finishing done zones first if the device is at its active limit.
    async fn acquire_tier_zone(&self, tier: Tier, log_zones: u32) -> Result<u32, FsError> {
        let (zone, finish) = {
            let mut s = self.lock();
            let views = s.views();
            let mut view = s.alloc_view(&views);
            view.hybrid = self.hybrid_context();
            let ctx = view.hybrid.ok_or(FsError::NoSpace)?;
            let logs = crate::hybrid::placement::reserved_log_zones(&view, &ctx.layout, log_zones);
            let (zone, finish) =
                crate::hybrid::placement::fresh_zone(&view, &ctx.layout, tier, &logs)
                    .ok_or(FsError::NoSpace)?;
            for &f in &finish {
                if let Some(a) = s.zone_mut(f) {
                    a.wp = a.start + a.capacity;
                    a.active = false;
                    a.busy = true;
                }
            }
            if let Some(a) = s.zone_mut(zone) {
                a.busy = true;
                a.active = true;
            }
            (zone, finish)
        };
        for f in finish {
            let r = self.dev.manage(f, ZoneOp::Finish).await;
            if let Some(a) = self.lock().zone_mut(f) {
                a.busy = false;
            }
            r?;
            self.counters().finishes += 1;
        }
        Ok(zone)
    }
}

/// Migration's part of the copy loop ([`ZoneFs::copy_extent`]): fresh zones of the target
/// device, the policy's chunk size, filled zones inactive at once, and the rate limit.
struct MigrationSteps<'a> {
    to: Tier,
    settings: &'a MigrationSettings,
    /// Every zone taken, busy until the new extents are accounted.
    written: &'a mut Vec<u32>,
    t0: u64,
    copied: u64,
}

impl<E: Env, D: ZonedDevice> CopySteps<E, D> for MigrationSteps<'_> {
    async fn new_zone(&mut self, fs: &ZoneFs<E, D>) -> Result<u32, FsError> {
        let z = fs
            .acquire_tier_zone(self.to, self.settings.log_zones)
            .await?;
        self.written.push(z);
        Ok(z)
    }

    fn step_bytes(&self, fs: &ZoneFs<E, D>) -> u64 {
        self.settings.chunk_bytes.max(fs.block)
    }

    fn filled(&mut self, fs: &ZoneFs<E, D>, zone: u32, full: bool) {
        if full && let Some(a) = fs.lock().zone_mut(zone) {
            a.active = false;
        }
    }

    fn count(&self, fs: &ZoneFs<E, D>, n: u64) {
        let mut c = fs.counters();
        c.device_bytes += n;
        c.hybrid.migrated_bytes += n;
    }

    async fn after_step(&mut self, fs: &ZoneFs<E, D>, n: u64) {
        self.copied += n;
        // The rate limit: never ahead of `rate` since the start.
        let due = self.t0
            + self.copied.saturating_mul(1_000_000_000) / self.settings.rate_bytes_per_s.max(1);
        if due > fs.env.now() {
            fs.env.sleep(due - fs.env.now()).await;
        }
    }
}

/// Starts the migrator of a policy that migrates, on a hybrid device: every period it measures
/// the HDD's query read rate, asks the policy and carries out its decision. It stops when the
/// file layer is dropped.
pub(crate) fn start<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) {
    if fs.dev.capabilities().tiers.is_none() {
        return;
    }
    let Some(settings) = fs.opts.placement.migration() else {
        return;
    };
    let weak: Weak<ZoneFs<E, D>> = Arc::downgrade(fs);
    let env = fs.env.clone();
    let _handle = fs.env.spawn_background("hybrid-migrator", async move {
        let mut last_reads: BTreeMap<u64, u64> = BTreeMap::new();
        loop {
            env.sleep(settings.period_ns).await;
            let Some(fs) = weak.upgrade() else { break };
            let Some(layout) = fs.hybrid_layout() else {
                break;
            };
            let reads = fs.sst_query_reads();
            // Query reads the HDD served over the period: reads of SSTs whose data is there.
            let on_hdd: u64 = {
                let s = fs.lock();
                s.names
                    .iter()
                    .filter_map(|(name, id)| {
                        let n = crate::file::sst_number(name)?;
                        let f = s.files.get(id)?;
                        let first = f.meta.extents.first()?;
                        let hdd = s.zone_of(first.start).and_then(|z| layout.tier_of(z))
                            == Some(Tier::Hdd);
                        hdd.then(|| f.query_reads - last_reads.get(&n).copied().unwrap_or(0))
                    })
                    .sum()
            };
            let rate = on_hdd as f64 * 1e9 / settings.period_ns.max(1) as f64;
            last_reads.clone_from(&reads);
            let decision = {
                let s = fs.lock();
                let views = s.views();
                let mut view = s.alloc_view(&views);
                view.hybrid = fs.hybrid_context();
                fs.opts.placement.plan_migration(&view, &reads, rate)
            };
            if let Some(d) = decision {
                // Out of room on the target is not an error of anyone's request: try later.
                // Under the cleaning lock: a quiesced fsck waits for a migration in flight.
                let _migrating = fs.gc.lock().await;
                let _ = fs.migrate(d, &settings).await;
            }
        }
    });
}
