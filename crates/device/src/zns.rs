//! The simulated ZNS SSD: the zone state machine, the flash timing engine and a payload store
//! behind the [`ZonedDevice`] trait, in the virtual time of an [`Env`].
//!
//! A request is admitted when it is issued: the zone table checks it (a rejected request changes
//! nothing), the timing engine books its flash work, the payload store takes its bytes. The
//! returned future then waits until the booked completion time. The write-pointer checker runs
//! before admission and after completion.

use std::sync::{Mutex, PoisonError};

use zonedb_env::Env;

use crate::checker::WritePointerChecker;
use crate::flash::TimingEngine;
use crate::payload::Payload;
use crate::profile::Profile;
use crate::zone::{ZoneGeometry, ZoneInfo, ZoneState, ZoneTable};
use crate::{DeviceError, DeviceStats, IoClass, ZoneOp, ZonedDevice};

/// Where a write goes.
#[derive(Debug, Clone, Copy)]
enum Target {
    At(u64),
    Append(u32),
}

#[derive(Debug)]
struct State {
    table: ZoneTable,
    engine: TimingEngine,
    checker: WritePointerChecker,
    /// Bytes actually programmed per zone (a finish moves the write pointer, not this).
    programmed: Vec<u64>,
    /// Writes not yet complete per zone: (device offset, length, completion time).
    in_flight: Vec<std::collections::VecDeque<(u64, u64, u64)>>,
    stats: DeviceStats,
    faults: Faults,
}

/// Faults the simulated device injects (all off by default), for torture campaigns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Faults {
    /// One read in this many fails with [`DeviceError::UnrecoveredRead`] (0 = never). Which reads
    /// fail is a pure function of `seed` and the read's sequence number.
    pub read_error_one_in: u64,
    /// A power cycle tears the first lost write of each zone: a block-aligned prefix of it (chosen
    /// from `seed`, the zone and the offset) survives, as when a controller loses power in the
    /// middle of programming a request. Off: the whole request is lost.
    pub torn_writes: bool,
    /// Seed of the fault choices.
    pub seed: u64,
}

/// A 64-bit mix (splitmix64's finalizer): fault choices as a pure function of their inputs.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A simulated ZNS SSD.
#[derive(Debug)]
pub struct ZnsSsd<E: Env> {
    env: E,
    profile: Profile,
    state: Mutex<State>,
    payload: Payload,
}

impl<E: Env> ZnsSsd<E> {
    /// A new, empty device.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the profile is inconsistent.
    pub fn new(env: E, profile: Profile, payload: Payload) -> Result<Self, DeviceError> {
        profile.validate()?;
        let layout = profile.layout()?;
        let table = ZoneTable::new(profile.zones.clone())?;
        let state = State {
            engine: TimingEngine::new(layout, profile.timing.clone()),
            checker: WritePointerChecker::new(cfg!(debug_assertions)),
            programmed: vec![0; profile.zones.zone_count as usize],
            in_flight: vec![std::collections::VecDeque::new(); profile.zones.zone_count as usize],
            table,
            stats: DeviceStats::default(),
            faults: Faults::default(),
        };
        Ok(Self {
            env,
            profile,
            state: Mutex::new(state),
            payload,
        })
    }

    /// Turns the write-pointer checker on or off (on by default in debug builds).
    pub fn set_checking(&self, enabled: bool) {
        self.lock().checker = WritePointerChecker::new(enabled);
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Erase count of every flash block.
    pub fn erase_counts(&self) -> Vec<u32> {
        self.lock().engine.erase_counts().to_vec()
    }

    /// Busy time booked on each die so far.
    pub fn die_busy_ns(&self) -> Vec<u64> {
        self.lock().engine.die_busy_ns()
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
        for info in s.table.report(0, g.zone_count) {
            let z = info.index as usize;
            let first_lost = s.in_flight[z]
                .iter()
                .filter(|&&(_, _, t)| t > now)
                .map(|&(off, len, _)| (off, len))
                .min();
            let lost_from = first_lost.map(|(off, len)| {
                if !s.faults.torn_writes {
                    return off;
                }
                // A block-aligned prefix of the torn request survives (possibly none or all).
                let block = g.block_size_bytes.max(1);
                let blocks = len / block;
                let kept =
                    mix(s.faults.seed ^ mix(u64::from(info.index) ^ mix(off))) % (blocks + 1);
                off + kept * block
            });
            let (state, wp) = match lost_from {
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
        s.checker = WritePointerChecker::new(s.checker.enabled());
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn check_after(&self, moment: &str) {
        let mut s = self.lock();
        let State { table, checker, .. } = &mut *s;
        checker.check(table, moment, None);
    }

    async fn complete<T>(&self, at: u64, value: T, moment: &str) -> Result<T, DeviceError> {
        self.env.sleep_until(at).await;
        self.check_after(moment);
        Ok(value)
    }

    fn admit_write(&self, target: Target, data: &[u8]) -> Result<(u64, u64), DeviceError> {
        let len = data.len() as u64;
        let now = self.env.now();
        let mut s = self.lock();
        let State {
            table,
            checker,
            engine,
            programmed,
            stats,
            in_flight,
            ..
        } = &mut *s;
        checker.check(table, "before write", None);
        let adm = match target {
            Target::At(off) => table.admit_write(off, len)?,
            Target::Append(zone) => table.admit_append(zone, len)?,
        };
        let g = table.geometry();
        let start = g.zone_start(adm.zone);
        let rel = adm.offset - start;
        let done = engine.write(now, adm.zone, rel, len, g.zone_capacity_bytes);
        programmed[adm.zone as usize] = rel + len;
        let pending = &mut in_flight[adm.zone as usize];
        while pending.front().is_some_and(|&(_, _, t)| t <= now) {
            pending.pop_front();
        }
        pending.push_back((adm.offset, len, done));
        stats.bytes_written += len;
        stats.writes += 1;
        stats.page_ops = engine.page_ops();
        checker.check(table, "after write admission", None);
        drop(s);
        self.payload.write(adm.zone, start, adm.offset, data)?;
        Ok((adm.offset, done))
    }
}

impl<E: Env> ZonedDevice for ZnsSsd<E> {
    fn geometry(&self) -> &ZoneGeometry {
        &self.profile.zones
    }

    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo> {
        self.lock().table.report(first, count)
    }

    fn read(
        &self,
        offset: u64,
        len: u64,
        _class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send {
        let admitted = (|| {
            let now = self.env.now();
            let mut s = self.lock();
            let zone = s.table.check_read(offset, len)?;
            if s.faults.read_error_one_in > 0 {
                let n = s.stats.reads;
                if mix(s.faults.seed ^ mix(n)).is_multiple_of(s.faults.read_error_one_in) {
                    s.stats.reads += 1;
                    return Err(DeviceError::UnrecoveredRead { offset, len });
                }
            }
            let start = s.table.geometry().zone_start(zone);
            let done = s.engine.read(now, zone, offset - start, len);
            s.stats.bytes_read += len;
            s.stats.reads += 1;
            s.stats.page_ops = s.engine.page_ops();
            drop(s);
            Ok::<_, DeviceError>((self.payload.read(zone, start, offset, len)?, done))
        })();
        async move {
            let (data, done) = admitted?;
            self.complete(done, data, "after read").await
        }
    }

    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let admitted = self.admit_write(Target::At(offset), data);
        async move {
            let (_, done) = admitted?;
            self.complete(done, (), "after write").await
        }
    }

    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send {
        let admitted = self.admit_write(Target::Append(zone), data);
        async move {
            let (offset, done) = admitted?;
            self.complete(done, offset, "after append").await
        }
    }

    fn manage(
        &self,
        zone: u32,
        op: ZoneOp,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let admitted = (|| {
            let now = self.env.now();
            let mut s = self.lock();
            let State {
                table,
                checker,
                engine,
                programmed,
                stats,
                in_flight,
                ..
            } = &mut *s;
            checker.check(table, "before zone management", None);
            let before = table.info(zone)?;
            let done = match op {
                ZoneOp::Open => {
                    table.open(zone)?;
                    engine.manage(now)
                }
                ZoneOp::Close => {
                    table.close(zone)?;
                    engine.manage(now)
                }
                ZoneOp::Finish => {
                    let out = table.finish(zone)?;
                    if out.changed {
                        stats.zone_finishes += 1;
                    }
                    let unwritten = table.geometry().zone_capacity_bytes - before.written_bytes();
                    engine.finish(now, zone, unwritten, before.state == ZoneState::Empty)
                }
                ZoneOp::Reset => {
                    let out = table.reset(zone)?;
                    let prog = std::mem::take(&mut programmed[zone as usize]);
                    in_flight[zone as usize].clear();
                    if out.changed {
                        stats.zone_resets += 1;
                        let erases_before = engine.block_erases();
                        let done = engine.reset(now, zone, prog);
                        stats.block_erases += engine.block_erases() - erases_before;
                        self.payload.discard_zone(zone);
                        done
                    } else {
                        engine.manage(now)
                    }
                }
                ZoneOp::Offline => table.set_offline(zone).map(|_| engine.manage(now))?,
                ZoneOp::ReadOnly => table.set_read_only(zone).map(|_| engine.manage(now))?,
            };
            let reset_zone = (op == ZoneOp::Reset).then_some(zone);
            checker.check(table, "after zone management", reset_zone);
            Ok::<u64, DeviceError>(done)
        })();
        async move {
            let done = admitted?;
            self.complete(done, (), "after zone management").await
        }
    }

    /// A flush: completes when every acknowledged write has left the write buffer.
    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let done = {
            let mut s = self.lock();
            s.stats.syncs += 1;
            s.engine.flush_done_ns(self.env.now())
        };
        async move { self.complete(done, (), "after flush").await }
    }

    /// No: a write completes when it has left the (power-protected) write buffer, and a power
    /// cycle loses only writes still in flight.
    fn volatile_write_cache(&self) -> bool {
        false
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

    fn stats(&self) -> DeviceStats {
        self.lock().stats
    }
}
