//! The cleaning mechanism: asks the cleaning policy for victims, migrates the live extents of
//! files not open for writing into a zone taken with the reserved migration token (in 128 KiB
//! steps, keeping each extent's offset within its block), persists the new extent lists and
//! resets the victims (and every other zone left without live data, also after deletes). Runs in the background every `cleaning_interval_ns` and in the
//! foreground when a writer finds no space; one pass at a time.

use std::sync::{Arc, Weak};

use zonedb_device::{ZoneOp, ZoneState, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::alloc::Token;
use crate::cleaning::CleaningView;
use crate::copy::CopySteps;
use crate::file::Extent;
use crate::fs::{GC_COPY_BYTES, ZoneFs};
use crate::placement::policy::Lifetime;
use crate::record::Record;

/// A victim zone being cleaned.
pub(crate) struct Victim<'a, E: Env, D: ZonedDevice> {
    /// Its live files (not being written): id, extents, lifetime.
    pub(crate) files: Vec<(u64, Vec<Extent>, Lifetime)>,
    /// Keeps it from a reset while its extents are copied out.
    pub(crate) reading: crate::read::ZoneReaders<'a, E, D>,
    /// Its address range.
    pub(crate) range: (u64, u64),
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// Cleans while the policy finds victims and each pass gains space: a pass must free a
    /// zone and leave more unwritten capacity than before. A victim whose garbage is only the
    /// padding inside live blocks gains nothing (its blocks are copied as they are), and
    /// cleaning it again and again would never end.
    ///
    /// # Errors
    /// As [`ZoneFs::clean_once`].
    pub async fn clean_while_gaining(&self) -> Result<(), FsError> {
        loop {
            let before = self.free_capacity();
            if !self.clean_once().await? || self.free_capacity() <= before {
                return Ok(());
            }
        }
    }

    /// Whether the engine should hold back new flushes and compactions now: the authors'
    /// blocking model is on ([`crate::FsOptions::zc_blocking_poll_ns`]) and zone cleaning
    /// runs.
    pub fn cleaning_blocks_jobs(&self) -> bool {
        self.opts.zc_blocking_poll_ns > 0
            && self.zc_running.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits, in steps of [`crate::FsOptions::zc_blocking_poll_ns`], until zone cleaning has
    /// stopped, and counts the wait as I/O blocking. Returns at once when the model is off.
    pub async fn wait_for_cleaning(&self) {
        let poll = self.opts.zc_blocking_poll_ns;
        if poll == 0 {
            return;
        }
        let t0 = self.env.now();
        while self.zc_running.load(std::sync::atomic::Ordering::SeqCst) {
            self.env.sleep(poll).await;
        }
        self.counters().blocking_ns += self.env.now() - t0;
    }

    /// Unwritten capacity of all IO zones.
    pub(crate) fn free_capacity(&self) -> u64 {
        self.lock()
            .zones
            .iter()
            .map(crate::state::ZoneAcct::remaining)
            .sum()
    }

    /// One cleaning pass. Returns whether it freed a zone.
    ///
    /// # Errors
    /// Device errors; [`FsError::NoSpace`] when no zone can take migrated data.
    pub async fn clean_once(&self) -> Result<bool, FsError> {
        self.check_writable()?;
        let _one_at_a_time = self.gc.lock().await;
        let t0 = self.env.now();
        let victims = {
            let s = self.lock();
            let mut views = s.cleaning_views();
            // Zones holding data of files still being written cannot be emptied now (their
            // extents are not migrated): to the policy they are as good as busy.
            for f in s.files.values().filter(|f| f.writing) {
                for e in &f.meta.extents {
                    if let Some(z) = s.zone_of(e.start)
                        && let Ok(i) = views.binary_search_by_key(&z, |v| v.index)
                    {
                        views[i].busy = true;
                    }
                }
            }
            self.opts.cleaner.victims(&CleaningView { zones: &views })
        };
        if victims.is_empty() {
            return Ok(false);
        }
        let _running = Running::enter(&self.zc_running);
        let mut target: Option<u32> = None;
        let mut result = Ok(());
        for &victim in &victims {
            if let Err(e) = self.migrate_zone(victim, &mut target).await {
                result = Err(e);
                break;
            }
        }
        if let Some(z) = target.take() {
            self.release_zone(z, Token::Migration).await?;
        }
        let free_before = self
            .lock()
            .zones
            .iter()
            .filter(|z| z.written() == 0)
            .count();
        self.reset_unused_zones().await?;
        let reclaimed = {
            let st = self.lock();
            victims
                .iter()
                .filter(|&&v| st.zone(v).is_some_and(|z| z.written() == 0))
                .count() as u64
        };
        self.counters().gc_resets += reclaimed;
        let free_after = self
            .lock()
            .zones
            .iter()
            .filter(|z| z.written() == 0)
            .count();
        {
            let mut c = self.counters();
            c.cleaning_runs += 1;
            c.cleaning_ns += self.env.now() - t0;
        }
        let freed = free_after > free_before;
        match result {
            // Migration ran out of room part-way, but the pass still emptied zones: progress.
            Err(FsError::NoSpace) if freed => Ok(true),
            Err(e) => Err(e),
            Ok(()) => Ok(freed),
        }
    }

    /// The live files of `victim` and a guard keeping it from a reset while they are copied
    /// out; `None` when the zone is busy or split (not cleaned).
    pub(crate) fn victim_files(&self, victim: u32) -> Option<Victim<'_, E, D>> {
        let mut s = self.lock();
        let z = s.zone(victim)?;
        // Split zones are never cleaned: their subzones are merged when their SST goes.
        if z.busy || z.split.is_some() {
            return None;
        }
        let (lo, hi) = (z.start, z.start + z.capacity);
        let files = s
            .files
            .values()
            .filter(|f| !f.writing && f.meta.extents.iter().any(|e| e.start >= lo && e.start < hi))
            .map(|f| (f.meta.id, f.meta.extents.clone(), f.meta.lifetime))
            .collect();
        // Not reset (by a deletion emptying it) while its extents are copied out.
        let reading = crate::read::ZoneReaders::new(self, &mut s, std::iter::once(lo));
        Some(Victim {
            files,
            reading,
            range: (lo, hi),
        })
    }

    async fn migrate_zone(&self, victim: u32, target: &mut Option<u32>) -> Result<(), FsError> {
        let Some(v) = self.victim_files(victim) else {
            return Ok(());
        };
        if let crate::fs::ZoneCopy::Izc { copyback_aware } = self.opts.zone_copy
            && self.dev.capabilities().in_device_copy.is_some()
        {
            return self.migrate_zone_izc(v, target, copyback_aware).await;
        }
        let Victim {
            files,
            reading,
            range: (lo, hi),
        } = v;
        for (id, extents, lifetime) in files {
            let mut new_extents = Vec::with_capacity(extents.len());
            // Migration zones this file's copies filled: still busy (so no reset of unused
            // zones takes them while nothing in them is accounted live) until the copies are
            // accounted below.
            let mut filled: Vec<u32> = Vec::new();
            for e in &extents {
                if e.start >= lo && e.start < hi {
                    // Pieces of one extent merge; those of the next extent start anew.
                    let mut pieces = Vec::new();
                    let mut steps = CleaningSteps {
                        lifetime,
                        filled: &mut filled,
                    };
                    match self.copy_extent(*e, target, &mut pieces, &mut steps).await {
                        Ok(()) => new_extents.extend(pieces),
                        Err(err) => {
                            for z in filled {
                                self.release_zone(z, Token::Migration).await?;
                            }
                            return Err(err);
                        }
                    }
                } else {
                    new_extents.push(*e);
                }
            }
            self.commit_copies(id, &extents, new_extents).await?;
            for z in filled {
                self.release_zone(z, Token::Migration).await?;
            }
        }
        drop(reading);
        Ok(())
    }

    /// Replaces file `id`'s `extents` by the copies `new_extents` and persists the change,
    /// unless the file changed meanwhile (then the copies are garbage). Returns whether it
    /// replaced them.
    pub(crate) async fn commit_copies(
        &self,
        id: u64,
        extents: &[Extent],
        new_extents: Vec<Extent>,
    ) -> Result<bool, FsError> {
        // The copies are on the device before a record points the file at them: flushed, on
        // a device with a volatile write cache (a mount refuses a closed file that a write
        // pointer cuts, so a host crash must not keep the record without the copies).
        self.sync_device().await?;
        let mut meta = self.meta.lock().await;
        let replaced = {
            let mut s = self.lock();
            let unchanged = s
                .files
                .get(&id)
                .is_some_and(|f| f.meta.extents == extents && !f.writing);
            if unchanged {
                // The old extents are freed once the record is on the device (below).
                s.account_extents(&new_extents, true);
                if let Some(f) = s.files.get_mut(&id) {
                    f.set_extents(new_extents.clone());
                    f.persisted_extents = f.meta.extents.len();
                }
                self.invalidate_pages(id);
            } else {
                // The file changed meanwhile (deleted): the copies are garbage.
                s.account_extents(&new_extents, true);
                s.account_extents(&new_extents, false);
            }
            unchanged
        };
        if replaced {
            self.persist(
                &mut meta,
                Record::FileReplace {
                    id,
                    extents: new_extents,
                },
            )
            .await?;
            self.free_extents(Some(extents));
        }
        Ok(replaced)
    }

    /// The device reports zone `z` read-only or offline.
    pub(crate) fn zone_failed_on_device(&self, z: u32) -> bool {
        self.dev
            .report_zones(z, 1)
            .first()
            .is_some_and(|r| matches!(r.state, ZoneState::Offline | ZoneState::ReadOnly))
    }

    /// Resets every zone that holds no live data and no writer (ZenFS's `ResetUnusedIOZones`);
    /// on split zones, merges every such subzone and resets split zones left all empty back
    /// to wide zones (`ZoneFs::merge_unused_subzones`).
    pub(crate) async fn reset_unused_zones(&self) -> Result<(), FsError> {
        let victims: Vec<u32> = {
            let mut s = self.lock();
            let v: Vec<u32> = s
                .zones
                .iter()
                .filter(|z| {
                    z.used == 0
                        && !z.busy
                        && !z.failed
                        && z.written() > 0
                        && z.readers == 0
                        && z.split.is_none()
                })
                .map(|z| z.index)
                .collect();
            // Busy until the device has reset them: an allocator that saw them empty before
            // the reset completes would write into a zone the device still has full. Active
            // until then too: the device counts a written zone against its active limit until
            // its reset is done, so a writer handed that token early would have its first
            // write refused (TooManyActive), with two resets in flight and the budget full.
            for &z in &v {
                if let Some(z) = s.zone_mut(z) {
                    z.wp = z.start;
                    z.threaded = None;
                    z.lifetime = Lifetime::NotSet;
                    z.busy = true;
                }
            }
            v
        };
        // What made the zones unused (deletes, migrated copies and their records) is durable
        // before their data goes.
        let mut result = if victims.is_empty() {
            Ok(())
        } else {
            self.sync_device().await
        };

        for z in &victims {
            let mut failed = false;
            if result.is_ok() {
                result = self
                    .dev
                    .manage(*z, ZoneOp::Reset)
                    .await
                    .map_err(FsError::from);
                if result.is_ok() {
                    self.counters().resets += 1;
                } else if self.zone_failed_on_device(*z) {
                    // The zone went read-only or offline under us: it holds nothing live,
                    // so it is simply lost capacity, not an error.
                    failed = true;
                    result = Ok(());
                }
            }
            let reset = result.is_ok() && !failed;
            if let Some(a) = self.lock().zone_mut(*z) {
                a.busy = false;
                if reset || failed {
                    a.active = false;
                }
                if failed {
                    a.failed = true;
                    a.wp = a.start + a.capacity;
                }
            }
        }
        // Waiters wake whatever happened: a failed reset must not leave them asleep.
        if !victims.is_empty() {
            self.tokens.notify_waiters();
        }
        result?;
        if self.split_geo.is_some() {
            self.merge_unused_subzones().await?;
        }
        Ok(())
    }

    /// Keeps a zone that copies filled busy (no reset of unused zones takes it before the copies
    /// in it are accounted) but gives its active resource back at once: a full zone holds none
    /// on the device, and writers must not wait for it.
    pub(crate) fn hold_filled(&self, zone: u32, filled: &mut Vec<u32>) {
        if let Some(a) = self.lock().zone_mut(zone) {
            a.active = false;
        }
        filled.push(zone);
        self.tokens.notify_waiters();
    }
}

/// Cleaning's part of the copy loop ([`ZoneFs::copy_extent`]): zones taken with the migration
/// token for the victim file's lifetime, 128 KiB steps, filled zones held busy until the
/// copies in them are accounted.
struct CleaningSteps<'a> {
    lifetime: Lifetime,
    filled: &'a mut Vec<u32>,
}

impl<E: Env, D: ZonedDevice> CopySteps<E, D> for CleaningSteps<'_> {
    async fn new_zone(&mut self, fs: &ZoneFs<E, D>) -> Result<u32, FsError> {
        fs.acquire_migration_zone(self.lifetime, fs.block)
    }

    fn step_bytes(&self, _fs: &ZoneFs<E, D>) -> u64 {
        GC_COPY_BYTES
    }

    fn filled(&mut self, fs: &ZoneFs<E, D>, zone: u32, _full: bool) {
        fs.hold_filled(zone, self.filled);
    }

    fn count(&self, fs: &ZoneFs<E, D>, n: u64) {
        let mut c = fs.counters();
        c.gc_bytes += n;
        c.device_bytes += n;
    }
}

/// Marks zone cleaning as running ([`ZoneFs::cleaning_blocks_jobs`]) until dropped.
struct Running<'a>(&'a std::sync::atomic::AtomicBool);

impl<'a> Running<'a> {
    fn enter(flag: &'a std::sync::atomic::AtomicBool) -> Self {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        Self(flag)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Starts the background cleaner: it wakes every `cleaning_interval_ns` and after every zone
/// allocation, and cleans while its policy finds victims and a pass frees a zone. It stops when
/// the file layer is dropped. While it waits it holds no strong reference to the layer, so
/// dropping the last handle closes the device at once (a reopen in the same process finds it
/// unlocked), not at the cleaner's next wake-up.
pub(crate) fn spawn_background<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) {
    let weak: Weak<ZoneFs<E, D>> = Arc::downgrade(fs);
    let env = fs.env.clone();
    let interval = fs.opts.cleaning_interval_ns;
    let kick = fs.kick.clone();
    let _handle = fs.env.spawn_background("zone-cleaner", async move {
        loop {
            {
                let kicked = kick.notified();
                let slept = env.sleep(interval);
                let (mut kicked, mut slept) = (std::pin::pin!(kicked), std::pin::pin!(slept));
                std::future::poll_fn(|cx| {
                    if kicked.as_mut().poll(cx).is_ready() || slept.as_mut().poll(cx).is_ready() {
                        std::task::Poll::Ready(())
                    } else {
                        std::task::Poll::Pending
                    }
                })
                .await;
            }
            let Some(fs) = weak.upgrade() else { break };
            // Errors surface to writers through their own requests; the cleaner retries later.
            let _ = fs.clean_while_gaining().await;
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::sync::Arc;

    use zonedb_device::payload::Payload;
    use zonedb_device::sim::DelayedResets;
    use zonedb_device::{Profile, ZnsSsd};
    use zonedb_env::{Env, SimConfig, SimEnv};

    use crate::metalog::META_ZONES;
    use crate::placement::policy::Lifetime;
    use crate::{FsOptions, ZoneFs};

    type Dev = DelayedResets<SimEnv, ZnsSsd<SimEnv>>;

    /// How long a metadata record takes to reach the device.
    const RECORD_NS: u64 = 2_000_000;

    /// `a.sst`, alone in its zone, is deleted while metadata records take 2 ms to reach the
    /// device; 100 us later the layer resets unused zones from elsewhere (as a writer
    /// retrying an allocation does), and the power is lost as soon as that returns. When a
    /// delete counted its space free before writing its record, that reset took `a.sst`'s
    /// zone at once: the remount listed the file (its delete record never arrived) over an
    /// empty zone. Now the space is free only once the record is on the device.
    #[test]
    fn a_zone_freed_by_a_delete_is_reset_only_once_the_delete_is_on_the_device() {
        let env = SimEnv::new(SimConfig::default());
        let mut p = Profile::by_name("tiny").unwrap();
        p.zones.max_open_zones = 6;
        p.zones.max_active_zones = 8;
        let ssd = ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count));
        let dev = Arc::new(
            Dev::new(env.clone(), ssd.unwrap(), 0).with_slow_writes(0..META_ZONES, RECORD_NS),
        );
        let opts = || FsOptions {
            cleaner: crate::cleaning::by_name("none", 0).unwrap(),
            ..FsOptions::default()
        };
        let (env2, dev2) = (env.clone(), dev.clone());
        env.run(async move {
            ZoneFs::<SimEnv, Dev>::mkfs(dev2.as_ref(), 0).await.unwrap();
            let fs = ZoneFs::mount(env2.clone(), dev2, opts()).await.unwrap();
            let mut w = fs.create("a.sst", Lifetime::Short).await.unwrap();
            w.append(&[7; 8192]).await.unwrap();
            w.close().await.unwrap();
            let f2 = fs.clone();
            drop(env2.spawn("delete", async move { f2.delete("a.sst").await }));
            env2.sleep(100_000).await;
            fs.reset_unused_zones().await.unwrap();
        })
        .unwrap();
        env.kill_all_tasks();
        dev.device.power_cycle().unwrap();
        let env2 = env.clone();
        let (listed, problems) = env
            .run(async move {
                let fs = ZoneFs::mount(env2, dev, opts()).await.unwrap();
                (fs.exists("a.sst"), fs.fsck())
            })
            .unwrap();
        assert!(problems.is_empty(), "a.sst listed: {listed}; {problems:?}");
    }
}
