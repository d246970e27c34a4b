//! Zone allocation: carries out the placement policy's decisions for writers (finishes, open
//! and active tokens, waiting for a token, the last-resort partial zone when the policy finds
//! no space, foreground cleaning and a retry), takes the migration zone for cleaning with the
//! reserved token, and gives zones back.

use std::pin::pin;

use zonedb_device::{ZoneOp, ZonedDevice};
use zonedb_env::Env;

use crate::FsError;
use crate::file::FileKind;
use crate::fs::ZoneFs;
use crate::placement::lifetime::{best_open_zone_match, first_empty_zone};
use crate::placement::policy::{
    HybridContext, Lifetime, Placement, PlacementDecision, PlacementRequest, SstContext, ZoneView,
};
use crate::record::Record;
use crate::state::ZoneAcct;

/// How a writer's zone is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllocMode {
    /// Where the placement policy says.
    Policy,
    /// Where the placement policy says; when it finds no space, the partially written zone
    /// with the most room, whatever its lifetime (the last resort before failing a write).
    LastResort,
}

/// Which token a zone was taken with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A writer's open token (shared by all writers, within the IO zone budget).
    Writer,
    /// The cleaner's reserved migration token (outside the writers' budget).
    Migration,
}

impl<E: Env, D: ZonedDevice> ZoneFs<E, D> {
    /// What placement policies see of a hybrid device now (`None` on one device).
    pub(crate) fn hybrid_context(&self) -> Option<HybridContext> {
        let layout = self.hybrid_layout()?;
        Some(HybridContext {
            layout,
            stats: self
                .dev
                .capabilities()
                .tiers
                .map(zonedb_device::Tiers::hybrid_stats)
                .unwrap_or_default(),
            now_ns: self.env.now(),
        })
    }

    /// Takes a zone for a writer; when the device is out of space and a cleaner is configured,
    /// cleans in the foreground (the wait counts as I/O blocking time) and tries again.
    pub(crate) async fn acquire_zone(
        &self,
        lifetime: Lifetime,
        kind: FileKind,
        sst: Option<&SstContext>,
    ) -> Result<u32, FsError> {
        let t0 = self.env.now();
        if kind == FileKind::Wal {
            // HHZS: the WAL takes a zone back from the SSD cache when it has none.
            self.cache_yield_for_wal().await?;
        }
        if kind == FileKind::Sst
            && let Some(z) = self.try_threaded_zone(lifetime).await?
        {
            return Ok(z);
        }
        loop {
            match self
                .try_acquire_zone(lifetime, kind, 0, AllocMode::Policy, sst)
                .await
            {
                Err(FsError::NoSpace) if self.opts.alloc_retry_blocking_ns > 0 => {
                    return self.retry_after_sleeps(lifetime, kind, sst).await;
                }
                Err(FsError::NoSpace) => {
                    let freed = if self.opts.cleaner.name() == "none" {
                        false
                    } else {
                        // Cleaning that found no zone to migrate into freed nothing: that
                        // is no reason to fail the write before the last resort below.
                        let freed = match self.clean_once().await {
                            Ok(freed) => freed,
                            Err(FsError::NoSpace) => false,
                            Err(e) => return Err(e),
                        };
                        self.counters().blocking_ns += self.env.now() - t0;
                        freed
                    };
                    if !freed {
                        // Last resort before failing: a partially written zone of another
                        // lifetime. LIZA leaves those alone, so with every active token held
                        // by nearly empty zones of other lifetimes it reports a full device
                        // while most of it is free; ZenFS then fails the write.
                        let mut notified = pin!(self.tokens.notified());
                        notified.as_mut().enable();
                        match self
                            .try_acquire_zone(lifetime, kind, 0, AllocMode::LastResort, sst)
                            .await
                        {
                            // Every zone with room is held by a writer: when one of them is
                            // an SST writer, it gives its zone back when its file is done
                            // (the WAL's and the manifest's are kept), so wait for that
                            // rather than fail a write with room on the device, then try
                            // again from the policy.
                            Err(FsError::NoSpace) if self.sst_writer_holds_room() => {
                                let t1 = self.env.now();
                                notified.await;
                                let mut c = self.counters();
                                c.last_resort_waits += 1;
                                c.blocking_ns += self.env.now() - t1;
                            }
                            other => return other,
                        }
                    }
                }
                other => return other,
            }
        }
    }

    /// Whether a zone an SST writer holds still has a block of room (it comes back to the
    /// allocator when that SST is complete).
    fn sst_writer_holds_room(&self) -> bool {
        let s = self.lock();
        s.zones.iter().any(|z| {
            z.busy
                && z.holder == Some(FileKind::Sst)
                && z.split.is_none()
                && z.remaining() >= self.block
        })
    }

    /// The authors' retry loop (`ZoneFile::AllocateNewZone` of their ZenFS fork): while more
    /// than an eighth of a zone is unwritten, try again, sleep
    /// [`FsOptions::alloc_retry_blocking_ns`](crate::fs::FsOptions::alloc_retry_blocking_ns)
    /// (after every attempt, the successful one too), and on failure reset unused zones
    /// (their `RuntimeReset`); the background cleaner cleans meanwhile. The whole loop is I/O
    /// blocking time. No room left: [`FsError::NoSpace`].
    async fn retry_after_sleeps(
        &self,
        lifetime: Lifetime,
        kind: FileKind,
        sst: Option<&SstContext>,
    ) -> Result<u32, FsError> {
        let t0 = self.env.now();
        let pause_ns = self.opts.alloc_retry_blocking_ns;
        let floor = self
            .lock()
            .zones
            .iter()
            .map(|z| z.capacity)
            .max()
            .unwrap_or(0)
            / 8;
        let result = loop {
            if self.free_capacity() <= floor {
                break Err(FsError::NoSpace);
            }
            let attempt = self
                .try_acquire_zone(lifetime, kind, 0, AllocMode::Policy, sst)
                .await;
            // The fork's cleaner polls every 100 ms and runs below its free-space trigger;
            // here the background cleaner is woken to clean while the writer sleeps.
            self.kick.notify_one();
            self.env.sleep(pause_ns).await;
            self.counters().alloc_retries += 1;
            match attempt {
                Err(FsError::NoSpace) => self.reset_unused_zones().await?,
                other => break other,
            }
        };
        let waited = self.env.now() - t0;
        let mut c = self.counters();
        c.blocking_ns += waited;
        c.alloc_retry_ns += waited;
        result
    }

    /// Takes a zone following the placement policy: finishes what it says, waits for tokens.
    /// Returns the zone, marked busy, or [`FsError::NoSpace`].
    pub(crate) async fn try_acquire_zone(
        &self,
        lifetime: Lifetime,
        kind: FileKind,
        min_capacity: u64,
        mode: AllocMode,
        sst: Option<&SstContext>,
    ) -> Result<u32, FsError> {
        let request = PlacementRequest {
            lifetime,
            io_type: kind.io_type(),
            min_capacity_bytes: min_capacity,
            sst,
        };
        let mut waited_since: Option<u64> = None;
        loop {
            let mut notified = pin!(self.tokens.notified());
            notified.as_mut().enable();
            let (finish, outcome) = {
                let mut s = self.lock();
                let views = s.views();
                let mut view = s.alloc_view(&views);
                view.hybrid = self.hybrid_context();
                let mut decision = self.opts.placement.place(&view, &request);
                if mode == AllocMode::LastResort
                    && decision.outcome == Placement::NoSpace
                    && let Some(z) = roomiest_partial_zone(
                        &views,
                        &decision.finish,
                        min_capacity.max(self.block),
                    )
                {
                    decision.outcome = Placement::Active(z);
                    self.counters().last_resort_allocations += 1;
                }
                self.count_placement(&request, &decision);
                for &z in &decision.finish {
                    if let Some(z) = s.zone_mut(z) {
                        z.wp = z.start + z.capacity;
                        z.threaded = None;
                        z.active = false;
                        // Busy until the finish is done, so no reset can overtake it.
                        z.busy = true;
                    }
                }
                match decision.outcome {
                    Placement::Active(z) | Placement::Empty(z) => {
                        if let Some(acct) = s.zone_mut(z) {
                            acct.busy = true;
                            acct.holder = Some(kind);
                            if matches!(decision.outcome, Placement::Empty(_)) {
                                acct.active = true;
                                acct.lifetime = lifetime;
                            }
                        }
                        s.open_tokens += 1;
                        let free: u64 = s.zones.iter().map(ZoneAcct::remaining).sum();
                        self.counters().free_series.push((self.env.now(), free));
                    }
                    _ => {}
                }
                (decision.finish, decision.outcome)
            };
            let mut finished = Ok(());
            for z in finish {
                if finished.is_ok() {
                    finished = self.dev.manage(z, ZoneOp::Finish).await;
                    if finished.is_ok() {
                        self.counters().finishes += 1;
                    }
                }
                if let Some(a) = self.lock().zone_mut(z) {
                    a.busy = false;
                }
            }
            finished?;
            match outcome {
                Placement::Active(z) | Placement::Empty(z) => {
                    self.kick.notify_one();
                    if let Placement::Empty(_) = outcome {
                        let mut meta = self.meta.lock().await;
                        self.persist(&mut meta, Record::ZoneLifetime { zone: z, lifetime })
                            .await?;
                    }
                    if let Some(t0) = waited_since {
                        self.counters().blocking_ns += self.env.now() - t0;
                    }
                    return Ok(z);
                }
                Placement::WaitForOpenToken | Placement::WaitForActiveToken => {
                    waited_since.get_or_insert(self.env.now());
                    notified.await;
                }
                Placement::NoSpace => return Err(FsError::NoSpace),
            }
        }
    }

    /// Counts SST allocations described by a context, and those its rules placed.
    fn count_placement(&self, request: &PlacementRequest<'_>, decision: &PlacementDecision) {
        if request.sst.is_some()
            && matches!(decision.outcome, Placement::Active(_) | Placement::Empty(_))
        {
            let mut c = self.counters();
            c.context_requests += 1;
            c.context_placements += u64::from(decision.from_context);
        }
    }

    /// Gives a zone back: closes it on the device if it is not full, returns its tokens. The
    /// zone stays busy until the close is done, so no other writer (or a finish decided by the
    /// allocator) can touch it in between.
    pub(crate) async fn release_zone(&self, zone: u32, token: Token) -> Result<(), FsError> {
        let (close, finish) = {
            let mut s = self.lock();
            s.zone_mut(zone).map_or((false, false), |z| {
                let threaded = z.threaded.is_some();
                (
                    z.remaining() > 0 && (z.written() > 0 || threaded),
                    // A threaded zone without a garbage block left: the device plugs the rest
                    // and it is an ordinary full zone again.
                    threaded && z.remaining() == 0,
                )
            })
        };
        let closed = if close {
            self.dev.manage(zone, ZoneOp::Close).await
        } else if finish {
            let done = self.dev.manage(zone, ZoneOp::Finish).await;
            if done.is_ok()
                && let Some(z) = self.lock().zone_mut(zone)
            {
                z.threaded = None;
                z.wp = z.start + z.capacity;
            }
            done
        } else {
            Ok(())
        };
        {
            let mut s = self.lock();
            if token == Token::Writer {
                s.open_tokens = s.open_tokens.saturating_sub(1);
            }
            if let Some(z) = s.zone_mut(zone) {
                z.busy = false;
                z.holder = None;
                if z.remaining() == 0 {
                    z.active = false;
                }
            }
        }
        self.tokens.notify_waiters();
        closed?;
        Ok(())
    }

    /// Takes the zone migrated data goes to, with the reserved cleaning token: the best
    /// partially written zone by LIZA's lifetime match with room for `min_capacity`, else the
    /// first empty zone (ZenFS only uses partial zones; a fresh zone keeps cleaning possible
    /// when none has room).
    pub(crate) fn acquire_migration_zone(
        &self,
        lifetime: Lifetime,
        min_capacity: u64,
    ) -> Result<u32, FsError> {
        let mut s = self.lock();
        let views = s.views();
        let view = s.alloc_view(&views);
        let (_, best) = best_open_zone_match(&view, lifetime, min_capacity);
        let pick = best
            .or_else(|| first_empty_zone(&views))
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
}

/// The non-busy, partially written zone (not about to be finished) with the most room, at
/// least `min` bytes; ties go to the lower index.
fn roomiest_partial_zone(views: &[ZoneView], finish: &[u32], min: u64) -> Option<u32> {
    views
        .iter()
        .filter(|z| {
            !z.busy && z.is_active() && !finish.contains(&z.index) && z.remaining_bytes >= min
        })
        .max_by_key(|z| (z.remaining_bytes, std::cmp::Reverse(z.index)))
        .map(|z| z.index)
}
