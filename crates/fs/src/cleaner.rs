//! The cleaning mechanism: asks the cleaning policy for victims, migrates the live extents of
//! files not open for writing into a zone taken with the reserved migration token (in 128 KiB
//! steps, keeping each extent's offset within its block), persists the new extent lists and
//! resets the victims. Runs in the background every `cleaning_interval_ns` and in the
//! foreground when a writer finds no space; one pass at a time.

use std::sync::{Arc, Weak};

use zonedb_device::{IoClass, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::cleaning::CleaningView;
use crate::file::Extent;
use crate::fs::{GC_COPY_BYTES, ZoneFs, align_up};
use crate::record::Record;

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

    /// Unwritten capacity of all IO zones.
    fn free_capacity(&self) -> u64 {
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
            let mut views = s.views();
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
        let mut target: Option<u32> = None;
        let mut result = Ok(());
        for &victim in &victims {
            if let Err(e) = self.migrate_zone(victim, &mut target).await {
                result = Err(e);
                break;
            }
        }
        if let Some(z) = target.take() {
            self.release_zone(z, true).await?;
        }
        let free_before = self
            .lock()
            .zones
            .iter()
            .filter(|z| z.written() == 0)
            .count();
        self.reset_unused_zones().await?;
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

    async fn migrate_zone(&self, victim: u32, target: &mut Option<u32>) -> Result<(), FsError> {
        let (files, reading): (Vec<(u64, Vec<Extent>, crate::placement::Lifetime)>, _) = {
            let mut s = self.lock();
            let Some(z) = s.zone(victim) else {
                return Ok(());
            };
            if z.busy {
                return Ok(());
            }
            let (lo, hi) = (z.start, z.start + z.capacity);
            let files = s
                .files
                .values()
                .filter(|f| {
                    !f.writing && f.meta.extents.iter().any(|e| e.start >= lo && e.start < hi)
                })
                .map(|f| (f.meta.id, f.meta.extents.clone(), f.meta.lifetime))
                .collect();
            // Not reset (by a deletion emptying it) while its extents are copied out.
            let reading = crate::fs::ZoneReaders::new(self, &mut s, std::iter::once(lo));
            (files, reading)
        };
        let (lo, hi) = {
            let s = self.lock();
            s.zone(victim)
                .map_or((0, 0), |z| (z.start, z.start + z.capacity))
        };
        for (id, extents, lifetime) in files {
            let mut new_extents = Vec::with_capacity(extents.len());
            for e in &extents {
                if e.start >= lo && e.start < hi {
                    new_extents.extend(self.copy_extent(*e, lifetime, target).await?);
                } else {
                    new_extents.push(*e);
                }
            }
            let mut meta = self.meta.lock().await;
            let replaced = {
                let mut s = self.lock();
                let unchanged = s
                    .files
                    .get(&id)
                    .is_some_and(|f| f.meta.extents == extents && !f.writing);
                if unchanged {
                    s.account_extents(&extents, false);
                    s.account_extents(&new_extents, true);
                    if let Some(f) = s.files.get_mut(&id) {
                        f.set_extents(new_extents.clone());
                        f.persisted_extents = f.meta.extents.len();
                    }
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
            }
        }
        drop(reading);
        Ok(())
    }

    /// Takes the zone migrated data goes to, with the reserved cleaning token: the best
    /// partially written zone by LIZA's lifetime match with room for `min_capacity`, else the
    /// first empty zone (ZenFS only uses partial zones; a fresh zone keeps cleaning possible
    /// when none has room).
    fn acquire_migration_zone(
        &self,
        lifetime: crate::placement::Lifetime,
        min_capacity: u64,
    ) -> Result<u32, FsError> {
        let mut s = self.lock();
        let views = s.views();
        let view = s.alloc_view(&views);
        let (_, best) =
            crate::placement::lifetime::best_open_zone_match(&view, lifetime, min_capacity);
        let pick = best
            .or_else(|| crate::placement::lifetime::first_empty_zone(&views))
            .ok_or(FsError::NoSpace)?;
        if let Some(z) = s.zone_mut(pick) {
            z.busy = true;
            if z.written() == 0 {
                z.active = true;
                z.lifetime = lifetime;
            }
        }
        Ok(pick)
    }

    /// Copies one extent into the migration zone (taking new zones as they fill); returns the
    /// new extents.
    async fn copy_extent(
        &self,
        e: Extent,
        lifetime: crate::placement::Lifetime,
        target: &mut Option<u32>,
    ) -> Result<Vec<Extent>, FsError> {
        let block = self.block;
        let first = e.start / block * block;
        let last = align_up(e.start + e.len, block);
        let mut out: Vec<Extent> = Vec::new();
        let mut cur = first;
        while cur < last {
            let zone = if let Some(z) = *target {
                z
            } else {
                let z = self.acquire_migration_zone(lifetime, block)?;
                *target = Some(z);
                z
            };
            let (wp, remaining) = self
                .lock()
                .zone(zone)
                .map_or((0, 0), |z| (z.wp, z.remaining()));
            let n = (last - cur).min(remaining).min(GC_COPY_BYTES);
            if n == 0 {
                self.release_zone(zone, true).await?;
                *target = None;
                continue;
            }
            let data = self.dev.read(cur, n, IoClass::BackgroundRead).await?;
            self.dev.write(wp, &data).await?;
            let file_lo = e.start.max(cur);
            let file_hi = (e.start + e.len).min(cur + n);
            let piece = Extent {
                start: wp + (file_lo - cur),
                len: file_hi - file_lo,
            };
            // Pieces merge only inside one zone: a new migration zone may begin exactly where
            // the last one ended, and an extent must never cross a zone's end.
            let zone_start = self.lock().zone(zone).map_or(0, |z| z.start);
            match out.last_mut() {
                Some(prev) if prev.start >= zone_start && prev.start + prev.len == piece.start => {
                    prev.len += piece.len;
                }
                _ => out.push(piece),
            }
            let full = {
                let mut s = self.lock();
                s.zone_mut(zone).is_some_and(|z| {
                    z.wp += n;
                    z.remaining() == 0
                })
            };
            {
                let mut c = self.counters();
                c.gc_bytes += n;
                c.device_bytes += n;
            }
            if full {
                self.release_zone(zone, true).await?;
                *target = None;
            }
            cur += n;
        }
        Ok(out)
    }
}

/// Starts the background cleaner: it wakes every `cleaning_interval_ns` and after every zone
/// allocation, and cleans while its policy finds victims and a pass frees a zone. It stops when
/// the file layer is dropped.
pub(crate) fn spawn_background<E: Env, D: ZonedDevice>(fs: &Arc<ZoneFs<E, D>>) {
    let weak: Weak<ZoneFs<E, D>> = Arc::downgrade(fs);
    let env = fs.env.clone();
    let interval = fs.opts.cleaning_interval_ns;
    let _handle = fs.env.spawn_background("zone-cleaner", async move {
        loop {
            {
                let Some(fs) = weak.upgrade() else { break };
                let kicked = fs.kick.notified();
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
