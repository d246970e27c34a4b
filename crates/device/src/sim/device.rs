//! The simulated zoned device, generic over its media: the zone state machine, a [`Media`]
//! timing model and a payload store behind the [`ZonedDevice`] trait, in the virtual time of an
//! [`Env`].
//!
//! A request is admitted when it is issued: the zone table checks it (a rejected request changes
//! nothing), the media books its work, the payload store takes its bytes. The returned future
//! then waits until the media's completion time (polling the media while its scheduler has not
//! decided yet). The write-pointer checker runs before admission and after completion.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use zonedb_env::Env;

use super::faults::Faults;
use super::hook::{Routed, Target};
use super::media::{Completion, Media, Poll};
use crate::checker::WritePointerChecker;
use crate::payload::Payload;
use crate::zone::{ZoneGeometry, ZoneInfo, ZoneState, ZoneTable};
use crate::{Capabilities, DeviceError, DeviceStats, ElidedBytes, IoClass, ZoneOp, ZonedDevice};

/// What a write carries: bytes, or a logical string whose holes the payload does not store.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WriteData<'a> {
    Dense(&'a [u8]),
    Elided(&'a ElidedBytes),
    /// The logical range `[at, at + len)` of a string (`len` within it).
    Range(&'a ElidedBytes, u64, u64),
}

impl WriteData<'_> {
    /// Logical bytes (what the device is asked to write and times).
    fn len(&self) -> u64 {
        match self {
            Self::Dense(d) => d.len() as u64,
            Self::Elided(e) => e.len(),
            Self::Range(_, _, len) => *len,
        }
    }
}

#[derive(Debug)]
pub(crate) struct State<M> {
    pub(crate) table: ZoneTable,
    pub(crate) media: M,
    pub(crate) checker: WritePointerChecker,
    /// Bytes actually programmed per zone (a finish moves the write pointer, not this).
    pub(crate) programmed: Vec<u64>,
    /// Writes not yet complete per payload slot (a zone; with split zones also a subzone):
    /// (device offset, length, completion), the completion still [`Completion::Queued`] while
    /// the media has not timed the write.
    pub(crate) in_flight: Vec<VecDeque<(u64, u64, Completion)>>,
    pub(crate) stats: DeviceStats,
    pub(crate) faults: Faults,
    /// Zones open for ZNS+'s threaded logging.
    pub(crate) threaded: std::collections::BTreeMap<u32, super::threaded_zone::ThreadedZone>,
}

/// A simulated zoned device over the media `M`.
#[derive(Debug)]
pub struct SimZonedDevice<E: Env, M: Media> {
    pub(crate) env: E,
    pub(crate) zones: ZoneGeometry,
    pub(crate) state: Mutex<State<M>>,
    pub(crate) payload: Payload,
}

impl<E: Env, M: Media> SimZonedDevice<E, M> {
    /// A new, empty device of `zones` over `media`.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the zone geometry is inconsistent.
    pub fn with_media(
        env: E,
        zones: ZoneGeometry,
        media: M,
        payload: Payload,
    ) -> Result<Self, DeviceError> {
        let table = ZoneTable::new(zones.clone())?;
        let n = media
            .zone_hook_ref()
            .map_or(zones.zone_count, |h| h.payload_slots(zones.zone_count))
            as usize;
        let state = State {
            media,
            checker: WritePointerChecker::new(cfg!(debug_assertions)),
            programmed: vec![0; n],
            in_flight: vec![VecDeque::new(); n],
            table,
            stats: DeviceStats::default(),
            faults: Faults::default(),
            threaded: std::collections::BTreeMap::new(),
        };
        Ok(Self {
            env,
            zones,
            state: Mutex::new(state),
            payload,
        })
    }

    /// Turns the write-pointer checker on or off (on by default in debug builds).
    pub fn set_checking(&self, enabled: bool) {
        self.lock().checker = WritePointerChecker::new(enabled);
    }

    /// Runs `f` on the media (for model-specific inspection such as erase counts).
    pub fn with_media_ref<T>(&self, f: impl FnOnce(&M) -> T) -> T {
        f(&self.lock().media)
    }

    /// Bytes of payload held in memory.
    pub fn resident_bytes(&self) -> u64 {
        self.payload.resident_bytes()
    }

    /// Sets the injected faults (read errors, torn writes at power loss); replaces the last plan.
    pub fn set_faults(&self, faults: Faults) {
        self.lock().faults = faults;
    }

    /// The injected faults in force.
    pub fn faults(&self) -> Faults {
        self.lock().faults
    }

    /// Media failure injection: the zone turns read-only (then may be taken offline).
    ///
    /// # Errors
    /// [`DeviceError::InvalidTransition`] or [`DeviceError::OutOfRange`].
    pub fn fail_zone(&self, zone: u32, offline: bool) -> Result<(), DeviceError> {
        let mut s = self.lock();
        s.table.set_read_only(zone)?;
        if offline {
            s.table.set_offline(zone)?;
        }
        Ok(())
    }

    /// A simulated power loss at the current virtual time: every write not completed by now is
    /// lost (with every later write to its zone), open zones come back closed, as after a
    /// controller power cycle. Completed writes, resets and finishes are durable.
    ///
    /// # Errors
    /// [`DeviceError::Corrupt`] if the rolled-back zones are inconsistent (a model bug).
    pub fn power_cycle(&self) -> Result<(), DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        let g = s.table.geometry().clone();
        let mut saved = Vec::with_capacity(g.zone_count as usize);
        self.power_cycle_parts(&mut s, now);
        for info in s.table.report(0, g.zone_count) {
            let z = info.index as usize;
            let lost_from = Self::lost_from(&mut s, now, z, info.index);
            let cap_end = info.start + g.zone_capacity_bytes;
            let (state, wp) = match lost_from {
                // A threaded zone keeps its old bytes: only the host's lost writes go, and
                // the device closes it at power-up (plugging the rest).
                Some(off) if s.threaded.contains_key(&info.index) => {
                    if off < info.write_pointer {
                        Self::threaded_lost(&mut s, info.index, off);
                    }
                    (ZoneState::Full, cap_end)
                }
                None if s.threaded.contains_key(&info.index) => (ZoneState::Full, cap_end),
                Some(off) if off < info.write_pointer => {
                    let state = if off == info.start {
                        ZoneState::Empty
                    } else {
                        ZoneState::Closed
                    };
                    s.programmed[z] = s.programmed[z].min(off - info.start);
                    self.payload.truncate_zone(info.index, off - info.start);
                    (state, off)
                }
                _ => (info.state, info.write_pointer),
            };
            saved.push((state, wp));
            s.in_flight[z].clear();
        }
        s.table = ZoneTable::restore(g, &saved)?;
        let threaded: Vec<u32> = s.threaded.keys().copied().collect();
        for &zone in &threaded {
            Self::plug_rest(&mut s, now, zone);
        }
        let State { table, media, .. } = &mut *s;
        if let Some(h) = media.zone_hook_ref() {
            h.power_up(table)?;
        }
        s.checker = WritePointerChecker::new(s.checker.enabled());
        s.media.power_cycle(now);
        drop(s);
        for zone in threaded {
            self.close_threaded(zone)?;
        }
        Ok(())
    }

    /// The parts' share of a power loss at `now` (the payload slots of the media's
    /// [`super::ZoneHook`]): each part loses its writes not yet acknowledged (and every later
    /// one).
    fn power_cycle_parts(&self, s: &mut State<M>, now: u64) {
        let zone_count = s.table.geometry().zone_count;
        let Some(h) = s.media.zone_hook_ref() else {
            return;
        };
        for p in h.part_slots(zone_count) {
            let lost = Self::lost_from(s, now, p.slot as usize, p.zone);
            s.in_flight[p.slot as usize].clear();
            if let Some(off) = lost
                && let Some(h) = s.media.zone_hook()
            {
                h.truncate_part(p.zone, p.index, off - p.start);
                self.payload.truncate_zone(p.slot, off - p.start);
            }
        }
    }

    /// Where the writes of payload slot `slot` (zone `zone` for torn-write faults) lost at a
    /// power loss at `now` start: the first write not complete by now (its waiter may be gone;
    /// it is lost unless the media says it completed by now), or the block-aligned prefix of it
    /// a torn write keeps.
    pub(crate) fn lost_from(s: &mut State<M>, now: u64, slot: usize, zone: u32) -> Option<u64> {
        let State {
            in_flight,
            media,
            faults,
            table,
            ..
        } = s;
        let first_lost = in_flight[slot]
            .iter()
            .filter(|&&(_, _, c)| match c {
                Completion::At(t) => t > now,
                Completion::Queued(ticket) => match media.poll(ticket, now) {
                    Poll::Done(t) => t > now,
                    Poll::Until(_) => true,
                },
            })
            .map(|&(off, len, _)| (off, len))
            .min();
        first_lost.map(|(off, len)| {
            if !faults.torn_writes {
                return off;
            }
            // A block-aligned prefix of the torn request survives (possibly none or all).
            let block = table.geometry().block_size_bytes.max(1);
            off + faults.torn_blocks_kept(zone, off, len / block) * block
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State<M>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the media has timed a request; returns its completion time.
    async fn settle(&self, c: Completion) -> u64 {
        match c {
            Completion::At(t) => t,
            Completion::Queued(ticket) => loop {
                let polled = self.lock().media.poll(ticket, self.env.now());
                match polled {
                    Poll::Done(t) => break t,
                    Poll::Until(t) => self.env.sleep_until(t).await,
                }
            },
        }
    }

    pub(crate) async fn complete<T>(
        &self,
        c: Completion,
        value: T,
        moment: &str,
    ) -> Result<T, DeviceError> {
        let at = self.settle(c).await;
        self.env.sleep_until(at).await;
        let mut s = self.lock();
        let State { table, checker, .. } = &mut *s;
        checker.check(table, moment, None);
        Ok(value)
    }

    pub(crate) fn admit_write(
        &self,
        target: Target,
        data: WriteData<'_>,
    ) -> Result<(u32, u64, Completion), DeviceError> {
        if let Some(zone) = self.threaded_target(target) {
            let bytes = match data {
                WriteData::Dense(d) => ElidedBytes::from_vec(d.to_vec()),
                WriteData::Elided(e) => e.clone(),
                WriteData::Range(e, at, len) => e.slice(at, len),
            };
            let Target::At(offset) = target else {
                return Err(DeviceError::ZnsPlus {
                    zone,
                    command: "zone append",
                    reason: "the zone is open for threaded logging",
                });
            };
            if let Some(r) = self.admit_threaded_write(zone, offset, &bytes) {
                return r;
            }
        }
        let len = data.len();
        let now = self.env.now();
        let mut s = self.lock();
        let State {
            table,
            checker,
            media,
            programmed,
            stats,
            in_flight,
            ..
        } = &mut *s;
        checker.check(table, "before write", None);
        let routed = match media.zone_hook() {
            Some(h) => h.write(table, now, target, len)?,
            None if matches!(target, Target::Part(..)) => {
                return Err(crate::zone_split_unsupported());
            }
            None => None,
        };
        let (slot, start, offset, done) = if let Some(Routed {
            slot,
            slot_start,
            offset,
            done,
        }) = routed
        {
            (slot, slot_start, offset, done)
        } else {
            let adm = match target {
                Target::At(off) => table.admit_write(off, len)?,
                Target::Append(zone) => table.admit_append(zone, len)?,
                Target::Part(..) => unreachable!("the zone hook routes part appends"),
            };
            let g = table.geometry();
            let start = g.zone_start(adm.zone);
            let rel = adm.offset - start;
            let done = media.write(now, adm.zone, rel, len, g.zone_capacity_bytes);
            programmed[adm.zone as usize] = rel + len;
            (adm.zone, start, adm.offset, done)
        };
        let pending = &mut in_flight[slot as usize];
        while pending
            .front()
            .is_some_and(|&(_, _, c)| matches!(c, Completion::At(t) if t <= now))
        {
            pending.pop_front();
        }
        pending.push_back((offset, len, done));
        stats.bytes_written += len;
        stats.writes += 1;
        stats.page_ops = media.page_ops();
        checker.check(table, "after write admission", None);
        drop(s);
        match data {
            WriteData::Dense(d) => self.payload.write(slot, start, offset, d)?,
            WriteData::Elided(e) => self.payload.write_elided(slot, start, offset, e)?,
            WriteData::Range(e, at, len) => {
                let pieces = e.pieces_in(at, len);
                self.payload
                    .write_elided_pieces(slot, start, offset, pieces)?;
            }
        }
        Ok((slot, offset, done))
    }

    /// The zone of a write or append target when that zone is open for threaded logging.
    fn threaded_target(&self, target: Target) -> Option<u32> {
        let s = self.lock();
        if s.threaded.is_empty() {
            return None;
        }
        let zone = match target {
            Target::At(off) => s.table.geometry().zone_of(off)?,
            Target::Append(zone) => zone,
            Target::Part(..) => return None,
        };
        s.threaded.contains_key(&zone).then_some(zone)
    }

    /// A read admitted now (`fetch` takes its bytes from the payload; `assembled` makes them
    /// from a threaded zone's bytes) that completes when the media has served it.
    fn read_with<T: Send + 'static>(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
        fetch: impl FnOnce(&Payload, u32, u64) -> Result<T, DeviceError>,
        assembled: impl FnOnce(ElidedBytes) -> T,
    ) -> impl Future<Output = Result<T, DeviceError>> + Send + '_ {
        let admitted = self.admit_read(offset, len, class, fetch, assembled);
        async move {
            let (data, done) = admitted?;
            self.complete(done, data, "after read").await
        }
    }

    /// A write at `offset` admitted now that completes when the media has programmed it.
    fn write_at(
        &self,
        offset: u64,
        data: WriteData<'_>,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send + '_ {
        let admitted = self.admit_write(Target::At(offset), data);
        async move {
            let (zone, offset, done) = admitted?;
            self.complete_write(zone, offset, done, "after write").await;
            Ok(())
        }
    }

    /// Completes an admitted write: waits for the media, records when it completed.
    pub(crate) async fn complete_write(&self, zone: u32, offset: u64, c: Completion, moment: &str) {
        let at = self.settle(c).await;
        if matches!(c, Completion::Queued(_)) {
            let mut s = self.lock();
            if let Some(e) = s.in_flight[zone as usize]
                .iter_mut()
                .find(|e| e.0 == offset && e.2 == c)
            {
                e.2 = Completion::At(at);
            }
        }
        let _ = self.complete(Completion::At(at), (), moment).await;
    }

    /// Admits a read; `fetch` takes its bytes from the payload (zone, zone start).
    fn admit_read<T>(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
        fetch: impl FnOnce(&Payload, u32, u64) -> Result<T, DeviceError>,
        assembled: impl FnOnce(ElidedBytes) -> T,
    ) -> Result<(T, Completion), DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        let split = match s.media.zone_hook_ref() {
            Some(h) => h.check_read(offset, len)?,
            None => None,
        };
        let mut threaded = false;
        let zone = if split.is_some() {
            0
        } else {
            let zone = s.table.geometry().zone_of(offset);
            match zone.and_then(|z| Self::threaded_readable(&s, z, offset, len)) {
                Some(r) => {
                    s.table.check_aligned_read(offset, len)?;
                    r?;
                    threaded = true;
                    zone.unwrap_or(0)
                }
                None => s.table.check_read(offset, len)?,
            }
        };
        if s.faults.read_fails(s.stats.reads) {
            s.stats.reads += 1;
            return Err(DeviceError::UnrecoveredRead { offset, len });
        }
        let zone_count = s.table.geometry().zone_count;
        let hook = split.and_then(|z| s.media.zone_hook().map(|h| (z, h)));
        let (zone, start, done) = if let Some((split, h)) = hook {
            h.read(now, zone_count, split, offset, len, class)
        } else {
            let start = s.table.geometry().zone_start(zone);
            (
                zone,
                start,
                s.media.read(now, zone, offset - start, len, class),
            )
        };
        s.stats.bytes_read += len;
        s.stats.reads += 1;
        s.stats.page_ops = s.media.page_ops();
        drop(s);
        if threaded {
            return Ok((assembled(self.zone_bytes(zone, offset, len)?), done));
        }
        Ok((fetch(&self.payload, zone, start)?, done))
    }

    fn admit_manage(&self, zone: u32, op: ZoneOp) -> Result<Completion, DeviceError> {
        let now = self.env.now();
        let mut s = self.lock();
        if s.threaded.contains_key(&zone) {
            match op {
                ZoneOp::Finish => {
                    // Closing a threaded zone: the device plugs every unit left.
                    let out = s.table.finish(zone)?;
                    let plugged = Self::plug_rest(&mut s, now, zone).unwrap_or(now);
                    if out.changed {
                        s.stats.zone_finishes += 1;
                    }
                    s.stats.page_ops = s.media.page_ops();
                    drop(s);
                    self.close_threaded(zone)?;
                    return Ok(Completion::At(plugged));
                }
                ZoneOp::Reset => {
                    s.threaded.remove(&zone);
                    if let Some((_, zp)) = s.media.znsplus() {
                        zp.pluggers.remove(&zone);
                    }
                }
                _ => {}
            }
        }
        let State {
            table,
            checker,
            media,
            programmed,
            stats,
            in_flight,
            ..
        } = &mut *s;
        checker.check(table, "before zone management", None);
        let before = table.info(zone)?;
        let hooked = match media.zone_hook() {
            Some(h) => h.manage(table, now, zone, op)?,
            None => None,
        };
        if let Some(done) = hooked {
            checker.check(table, "after zone management", None);
            return Ok(done);
        }
        let done = match op {
            ZoneOp::Open => {
                table.open(zone)?;
                Completion::At(media.manage(now))
            }
            ZoneOp::Close => {
                table.close(zone)?;
                Completion::At(media.manage(now))
            }
            ZoneOp::Finish => {
                let out = table.finish(zone)?;
                if out.changed {
                    stats.zone_finishes += 1;
                }
                let unwritten = table.geometry().zone_capacity_bytes - before.written_bytes();
                media.finish(now, zone, unwritten, before.state == ZoneState::Empty)
            }
            ZoneOp::Reset => {
                let out = table.reset(zone)?;
                let prog = std::mem::take(&mut programmed[zone as usize]);
                in_flight[zone as usize].clear();
                if out.changed {
                    stats.zone_resets += 1;
                    let erases_before = media.block_erases();
                    let done = media.reset(now, zone, prog);
                    stats.block_erases += media.block_erases() - erases_before;
                    self.payload.discard_zone(zone);
                    done
                } else {
                    Completion::At(media.manage(now))
                }
            }
            ZoneOp::Offline => {
                table.set_offline(zone)?;
                Completion::At(media.manage(now))
            }
            ZoneOp::ReadOnly => {
                table.set_read_only(zone)?;
                Completion::At(media.manage(now))
            }
        };
        let reset_zone = (op == ZoneOp::Reset).then_some(zone);
        checker.check(table, "after zone management", reset_zone);
        Ok(done)
    }
}

impl<E: Env, M: Media> ZonedDevice for SimZonedDevice<E, M> {
    fn geometry(&self) -> &ZoneGeometry {
        &self.zones
    }

    /// The zone table's descriptors; a split zone shows explicitly open at its start while it
    /// holds its tokens and full once deactivated.
    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        let s = self.lock();
        let mut out = s.table.report(first, count);
        if let Some(h) = s.media.zone_hook_ref() {
            h.report(&mut out);
        }
        out
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        self.read_with(
            offset,
            len,
            class,
            move |p, zone, start| p.read(zone, start, offset, len),
            |e| e.materialize(),
        )
    }

    /// As `read`; holes the payload kept come back as holes.
    fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<ElidedBytes, DeviceError>> + Send {
        self.read_with(
            offset,
            len,
            class,
            move |p, zone, start| p.read_elided(zone, start, offset, len),
            |e| e,
        )
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.write_at(offset, WriteData::Dense(data))
    }

    /// As `write` of `data.len()` bytes; the payload does not store the holes.
    fn write_elided(
        &self,
        offset: u64,
        data: &ElidedBytes,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.write_at(offset, WriteData::Elided(data))
    }

    /// As `write_elided` of the range, its pieces borrowed from `data`.
    fn write_elided_range(
        &self,
        offset: u64,
        data: &ElidedBytes,
        at: u64,
        len: u64,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let len = len.min(data.len().saturating_sub(at));
        self.write_at(offset, WriteData::Range(data, at, len))
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        let admitted = self.admit_write(Target::Append(zone), WriteData::Dense(data));
        async move {
            let (zone, offset, done) = admitted?;
            self.complete_write(zone, offset, done, "after append")
                .await;
            Ok(offset)
        }
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let delay = if op == ZoneOp::Reset {
            self.lock().faults.reset_delay_ns
        } else {
            0
        };
        // A delayed reset is admitted when it takes effect (`Faults::reset_delay_ns`).
        let admitted = (delay == 0).then(|| self.admit_manage(zone, op));
        async move {
            let done = if let Some(a) = admitted {
                a?
            } else {
                self.env.sleep(delay).await;
                self.admit_manage(zone, op)?
            };
            self.complete(done, (), "after zone management").await
        }
    }

    /// A flush: completes when every acknowledged write is durable on the media.
    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let done = {
            let mut s = self.lock();
            s.stats.syncs += 1;
            s.media.flush_done_ns(self.env.now())
        };
        async move { self.complete(Completion::At(done), (), "after flush").await }
    }

    /// No: a write completes when it is durable (for flash, when it has left the
    /// power-protected write buffer), and a power cycle loses only writes still in flight.
    fn volatile_write_cache(&self) -> bool {
        false
    }

    /// The media's families ([`Media::device_capabilities`]).
    fn capabilities(&self) -> Capabilities<'_> {
        M::device_capabilities(self)
    }

    fn memory_payload_bytes(&self) -> Option<u64> {
        self.payload
            .is_memory()
            .then(|| self.payload.resident_bytes())
    }

    fn peak_memory_payload_bytes(&self) -> Option<u64> {
        self.payload
            .is_memory()
            .then(|| self.payload.peak_resident_bytes())
    }

    fn read_discard(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        self.read_with(offset, len, class, |_, _, _| Ok(()), drop)
    }

    fn peek_elided(&self, offset: u64, len: u64) -> Option<ElidedBytes> {
        let (zone, start) = {
            let s = self.lock();
            if s.media.zone_hook_ref().is_some_and(|h| !h.peekable()) || !s.threaded.is_empty() {
                // Subzone data may still sit in the SubZone Ring, a threaded zone's bytes are
                // assembled by a read: no peeking.
                return None;
            }
            let zone = s.table.check_read(offset, len).ok()?;
            (zone, s.table.geometry().zone_start(zone))
        };
        self.payload.read_elided(zone, start, offset, len).ok()
    }

    fn stats(&self) -> DeviceStats {
        self.lock().stats
    }
}
