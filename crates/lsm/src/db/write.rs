//! The write path. Writers queue their batch; whoever gets the writer lock first is the
//! leader and commits every queued batch as one group: it makes room (memtable switch, write
//! stalls), assigns sequence numbers, appends one WAL write (synced if any member asked),
//! inserts into the memtable and publishes the new last sequence. Followers find their batch
//! done when they get the lock.
//!
//! Stalls follow RocksDB's write controller: writes **stop** while the immutable memtables
//! reach `max_write_buffer_number`, L0 reaches `level0_stop_writes_trigger` files, or the
//! estimated pending compaction bytes reach `hard_pending_compaction_bytes_limit`; they are
//! **delayed** (at `delayed_write_rate`: each group its bytes' worth, or with `write_delay =
//! "token-bucket"` through RocksDB's token bucket, [`super::write_controller`]) past
//! `level0_slowdown_writes_trigger`,
//! `soft_pending_compaction_bytes_limit`, or with more than three write buffers and only one
//! left. Stopped writers wait on a notification from background work, never spin.

use std::sync::{Arc, Mutex, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::WritableFile;
use zonedb_fs::placement::Lifetime;

use super::write_controller::DELAY_INTERVAL_NS;
use super::write_stall::write_stall_of;
use super::{Inner, apply_batch, background};
use crate::LsmError;
use crate::batch::WriteBatch;
use crate::cost;
use crate::error::BackgroundError;
use crate::hints::Hint;
use crate::log_format::LogWriter;
use crate::memtable::MemTable;
use crate::options::WriteDelay;
use crate::version::manifest::wal_name;

/// The WAL being written.
#[derive(Debug)]
pub(crate) struct WalWriter<E: Env, D: ZonedDevice> {
    pub(crate) file: Option<WritableFile<E, D>>,
    pub(crate) log: LogWriter,
    pub(crate) number: u64,
    /// The WAL bytes of a group with elided values (kept across groups: no allocation per
    /// write).
    pub(crate) scratch: zonedb_device::ElidedBytes,
}

/// A queued write.
#[derive(Debug)]
pub(crate) struct Pending {
    batch: Mutex<Option<WriteBatch>>,
    sync: bool,
    result: Mutex<Option<Result<(), BackgroundError>>>,
    /// Signalled by the leader that committed this write.
    done: tokio::sync::Notify,
    /// Set (before `done`) by the leader that committed this write.
    ready: std::sync::atomic::AtomicBool,
}

impl Pending {
    fn take_result(&self) -> Option<Result<(), BackgroundError>> {
        self.result
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// Busy-wait rounds of a real-mode follower before it yields (RocksDB's write thread spins
/// 200 pause instructions, about a microsecond, before its yield phase).
const SPIN_ROUNDS: u32 = 200;

/// How long a real-mode follower keeps yielding its core before it parks, in nanoseconds
/// (RocksDB's `write_thread_max_yield_usec`, 100 µs).
const MAX_YIELD_NS: u64 = 100_000;

/// A yield that takes longer than this (RocksDB's `write_thread_slow_yield_usec`, 3 µs) means
/// another thread wanted the core: after [`SLOW_YIELDS`] of them the follower parks at once
/// rather than keep the core from background work.
const SLOW_YIELD_NS: u64 = 3_000;

/// Slow yields a follower accepts before it parks.
const SLOW_YIELDS: u32 = 3;

/// What a real-mode follower found while it waited without parking.
enum Waited<G> {
    /// A leader committed its write: the result.
    Done(Result<(), BackgroundError>),
    /// It took the writer lock and leads.
    Leader(G),
    /// Neither within the bound: park.
    Park,
}

/// A real-mode follower's wait before it parks, in RocksDB's write-thread phases: spin a
/// few hundred rounds, then yield the core for up to [`MAX_YIELD_NS`] unless yields turn
/// slow (other threads need the core). Each round checks whether a leader committed this
/// write, or the writer lock is free.
fn wait_unparked<'a, E: Env, D: ZonedDevice>(
    inner: &'a Inner<E, D>,
    me: &Pending,
) -> Waited<tokio::sync::MutexGuard<'a, WalWriter<E, D>>> {
    let check = || {
        if me.ready.load(std::sync::atomic::Ordering::Acquire) {
            return Some(Waited::Done(
                me.take_result()
                    .unwrap_or_else(|| Err(BackgroundError::lost_result())),
            ));
        }
        inner.writer.try_lock().ok().map(Waited::Leader)
    };
    for _ in 0..SPIN_ROUNDS {
        if let Some(w) = check() {
            return w;
        }
        std::hint::spin_loop();
    }
    let start = inner.env.now();
    let mut slow = 0;
    let mut before = start;
    while before.saturating_sub(start) < MAX_YIELD_NS && slow < SLOW_YIELDS {
        if let Some(w) = check() {
            return w;
        }
        std::thread::yield_now();
        let after = inner.env.now();
        if after.saturating_sub(before) > SLOW_YIELD_NS {
            slow += 1;
        }
        before = after;
    }
    Waited::Park
}

enum Room {
    Ready,
    Switch,
    /// Past `max_total_wal_size`: switch and flush every memtable.
    SwitchWal,
    Stop,
    Delay,
}

/// Commits `batch` (see the module docs).
pub(crate) async fn write<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    batch: WriteBatch,
    sync: bool,
) -> Result<(), LsmError> {
    if batch.is_empty() {
        return Ok(());
    }
    let batch = match commit_alone(inner, batch, sync).await {
        Ok(r) => return r,
        Err(batch) => batch,
    };
    let me = Arc::new(Pending {
        batch: Mutex::new(Some(batch)),
        sync,
        result: Mutex::new(None),
        done: tokio::sync::Notify::new(),
        ready: std::sync::atomic::AtomicBool::new(false),
    });
    inner
        .queue
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(me.clone());
    // Become the leader, or learn that a leader committed this write: whichever comes first
    // (a follower does not queue for the lock just to read its result).
    // In real mode, spin and yield briefly first (as RocksDB's write thread does): the leader
    // usually finishes within microseconds, sooner than a parked thread is woken.
    let mut early = None;
    if !inner.env.is_simulated() {
        match wait_unparked(inner, &me) {
            Waited::Done(r) => return r.map_err(LsmError::Background),
            Waited::Leader(g) => early = Some(g),
            Waited::Park => {}
        }
    }
    let mut w = if let Some(g) = early {
        if let Some(r) = me.take_result() {
            return r.map_err(LsmError::Background);
        }
        g
    } else {
        let mut lock = std::pin::pin!(inner.writer.lock());
        let mut done = std::pin::pin!(me.done.notified());
        let won = std::future::poll_fn(|cx| {
            if done.as_mut().poll(cx).is_ready() {
                return std::task::Poll::Ready(None);
            }
            lock.as_mut().poll(cx).map(Some)
        })
        .await;
        match won {
            Some(guard) => {
                if let Some(r) = me.take_result() {
                    return r.map_err(LsmError::Background);
                }
                guard
            }
            None => {
                return me
                    .take_result()
                    .unwrap_or_else(|| Err(BackgroundError::lost_result()))
                    .map_err(LsmError::Background);
            }
        }
    };
    let group: Vec<Arc<Pending>> =
        std::mem::take(&mut *inner.queue.lock().unwrap_or_else(PoisonError::into_inner));
    let batches: Vec<WriteBatch> = group
        .iter()
        .filter_map(|p| {
            p.batch
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        })
        .collect();
    let bytes: usize = batches.iter().map(WriteBatch::logical_size_bytes).sum();
    let want_sync = group.iter().any(|p| p.sync);
    let mut batches = batches;
    let mut r = commit_group(inner, &mut w, &mut batches, want_sync, bytes as u64).await;
    if group.len() > 1 {
        // The followers get the leader's error as a value (their source), not just its text.
        r = r.map_err(LsmError::into_shared);
    }
    for p in &group {
        if !Arc::ptr_eq(p, &me) {
            *p.result.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(r.as_ref().copied().map_err(BackgroundError::from));
            p.ready.store(true, std::sync::atomic::Ordering::Release);
            p.done.notify_one();
        }
    }
    drop(w);
    r
}

/// When nobody leads and nobody waits, commits `batch` as a group of one without queueing
/// (what the queue path of [`write`] would do with it, minus its allocations and
/// notifications); otherwise hands the batch back.
async fn commit_alone<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    batch: WriteBatch,
    sync: bool,
) -> Result<Result<(), LsmError>, WriteBatch> {
    let Ok(mut w) = inner.writer.try_lock() else {
        return Err(batch);
    };
    let alone = inner
        .queue
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .is_empty();
    if !alone {
        return Err(batch);
    }
    let mut batch = batch;
    let bytes = batch.logical_size_bytes() as u64;
    Ok(commit_group(inner, &mut w, std::slice::from_mut(&mut batch), sync, bytes).await)
}

/// Commits a group's `batches` (`bytes` in all; synced if `want_sync`).
async fn commit_group<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    w: &mut WalWriter<E, D>,
    batches: &mut [WriteBatch],
    want_sync: bool,
    bytes: u64,
) -> Result<(), LsmError> {
    make_room(inner, w, bytes).await?;
    let (mem, first_seq) = {
        let st = inner.lock();
        if st.closing || st.closed {
            return Err(LsmError::Closed);
        }
        (st.mem.clone(), st.last_seq + 1)
    };
    let mut seq = first_seq;
    let mut ops = 0u64;
    let mut user_bytes = 0u64;
    for b in batches.iter_mut() {
        b.set_sequence(seq);
        seq += u64::from(b.count());
        ops += u64::from(b.count());
        for op in b.ops().flatten() {
            user_bytes +=
                op.key.len() as u64 + crate::elided::logical_value_len(op.value_type, op.value);
        }
    }
    let mut wal_bytes = 0;
    if let Some(f) = &mut w.file {
        let mut r = if batches.iter().any(WriteBatch::has_elided) {
            match elided_records(inner, &mut w.log, batches, &mut w.scratch) {
                Ok(()) => {
                    wal_bytes = w.scratch.len();
                    f.append_elided(&w.scratch).await
                }
                Err(e) => return Err(wal_failed(inner, e)),
            }
        } else {
            let mut buf =
                Vec::with_capacity(batches.iter().map(WriteBatch::size_bytes).sum::<usize>() + 64);
            for b in batches.iter() {
                w.log.add_record(b.data(), &mut buf);
            }
            wal_bytes = buf.len() as u64;
            f.append(&buf).await
        };
        if r.is_ok() && want_sync {
            r = f.sync().await;
        } else if r.is_ok()
            && !inner.opts.manual_wal_flush
            && inner.fs.device().host_cached_writes()
        {
            // RocksDB's default: the group reaches the host (the OS) before the write
            // returns, so it outlives the process (`DbOptions::manual_wal_flush`).
            r = f.flush().await;
        }
        if let Err(e) = r {
            // The WAL has a gap now (and earlier acknowledged, unsynced writes may be in it):
            // like RocksDB, stop taking writes; the store stays readable.
            return Err(wal_failed(inner, e.into()));
        }
    }
    // Awaited alone up to the writer's task: nothing in the engine or the harness races a
    // write against another future.
    inner
        .env
        .cpu_alone(cost::WRITE_BATCH_NS * batches.len() as u64 + cost::WRITE_OP_NS * ops)
        .await;
    let mut last = first_seq - 1;
    for b in batches.iter() {
        last = last.max(apply_batch(&mem, b)?);
    }
    let mut st = inner.lock();
    st.last_seq = last;
    st.stats.write_batches += batches.len() as u64;
    st.stats.write_groups += 1;
    st.stats.write_ops += ops;
    st.stats.user_bytes_written += user_bytes;
    st.stats.wal_bytes += wal_bytes;
    if w.file.is_some() {
        *st.wal_bytes.entry(w.number).or_default() += wal_bytes;
    }
    if want_sync && w.file.is_some() {
        st.stats.wal_syncs += 1;
    }
    Ok(())
}

/// The WAL records of a group with elided values, into `out` (emptied first): each such
/// batch as an elided record (the same logical bytes as its full record;
/// `crate::log_format`), or in full (regenerated) when its compact record does not fit.
fn elided_records<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    log: &mut LogWriter,
    batches: &[WriteBatch],
    out: &mut zonedb_device::ElidedBytes,
) -> Result<(), LsmError> {
    out.clear();
    let mut buf = Vec::new();
    for b in batches {
        if b.has_elided() && log.add_elided_record(b.data(), b.logical_size_bytes(), out) {
            continue;
        }
        buf.clear();
        if b.has_elided() {
            log.add_record(b.materialize(inner.regen())?.data(), &mut buf);
        } else {
            log.add_record(b.data(), &mut buf);
        }
        out.push_bytes(&buf);
    }
    Ok(())
}

/// Switches, stops or delays until the memtable can take `bytes` more.
async fn make_room<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    w: &mut WalWriter<E, D>,
    bytes: u64,
) -> Result<(), LsmError> {
    let o = &inner.opts;
    // The common case decided before subscribing to background notifications (nothing awaits
    // in between, so the loop below would decide the same).
    if matches!(room(inner, false)?, Room::Ready) {
        return Ok(());
    }
    let mut delayed = false;
    loop {
        let notified = inner.bg_done.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().enable();
        match room(inner, delayed)? {
            Room::Ready => return Ok(()),
            Room::Switch => {
                switch_memtable(inner, w, false).await?;
                background::maybe_schedule(inner);
            }
            Room::SwitchWal => {
                switch_memtable(inner, w, true).await?;
                inner.lock().flush_requested = true;
                background::maybe_schedule(inner);
            }
            Room::Stop => {
                background::maybe_schedule(inner);
                let t0 = inner.env.now();
                notified.await;
                let mut st = inner.lock();
                st.stats.stall_stops += 1;
                st.stats.stall_stop_ns += inner.env.now() - t0;
            }
            Room::Delay if o.write_delay == WriteDelay::PerWrite => {
                delayed = true;
                let ns = bytes.saturating_mul(1_000_000_000) / o.delayed_write_rate.max(1);
                let t0 = inner.env.now();
                inner.env.sleep(ns.max(1_000)).await;
                let mut st = inner.lock();
                st.stats.stall_delays += 1;
                st.stats.stall_delay_ns += inner.env.now() - t0;
            }
            Room::Delay => {
                delayed = true;
                let t0 = inner.env.now();
                let ns = inner
                    .lock()
                    .write_ctl
                    .delay_ns(t0, bytes, o.delayed_write_rate);
                if ns > 0 {
                    // RocksDB's DelayWrite: 1001 µs sleeps until the delay is served or
                    // writes need none any more. Only this leader calls `room`, so the
                    // controller's state changes only through the call below.
                    loop {
                        inner.env.sleep(DELAY_INTERVAL_NS).await;
                        if inner.env.now() >= t0 + ns {
                            break;
                        }
                        // Whether the tree still asks for a delay (updates the controller).
                        room(inner, true)?;
                        if !inner.lock().write_ctl.delaying() {
                            break;
                        }
                    }
                    let mut st = inner.lock();
                    st.stats.stall_delays += 1;
                    st.stats.stall_delay_ns += inner.env.now() - t0;
                }
            }
        }
    }
}

/// What the memtable and the tree allow a write group now (`delayed`: this group was
/// delayed once already).
fn room<E: Env, D: ZonedDevice>(inner: &Inner<E, D>, delayed: bool) -> Result<Room, LsmError> {
    let o = &inner.opts;
    let mut st = inner.lock();
    if let Some(e) = &st.bg_error {
        return Err(LsmError::Background(e.clone()));
    }
    if st.closing || st.closed {
        return Err(LsmError::Closed);
    }
    let stall = write_stall_of(o, &st);
    let slow = stall.delay;
    st.write_ctl.set_delaying(slow);
    // RocksDB's SwitchWAL: past `max_total_wal_size` the memtable is switched and everything
    // flushed (once: not again while that flush is pending).
    let wal_full = o.max_total_wal_size > 0
        && !st.flush_requested
        && !st.mem.is_empty()
        && st.wal_bytes.values().sum::<u64>() >= o.max_total_wal_size;
    Ok(if stall.stop {
        Room::Stop
    } else if wal_full {
        Room::SwitchWal
    } else if st.mem.approximate_bytes() >= o.write_buffer_size {
        Room::Switch
    } else if !delayed && slow {
        Room::Delay
    } else {
        Room::Ready
    })
}

/// Makes the memtable immutable and starts a new one with a new WAL (unless it is empty and
/// `only_if_nonempty`... an empty memtable is never switched).
/// Records a failed WAL write, sync or close: writes stop (a background error, as in RocksDB;
/// the store stays readable) and no later close counts as clean.
pub(crate) fn wal_failed<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    e: LsmError,
) -> LsmError {
    // Shared: the caller gets the error, and every later writer gets it as the source of
    // the background error.
    let e = e.into_shared();
    let b = BackgroundError::from(&e);
    let mut st = inner.lock();
    if st.bg_error.is_none() {
        st.bg_error = Some(b.clone());
    }
    st.wal_error.get_or_insert(b);
    drop(st);
    inner.bg_done.notify_waiters();
    e
}

pub(crate) async fn switch_memtable<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    w: &mut WalWriter<E, D>,
    _forced: bool,
) -> Result<(), LsmError> {
    let number = {
        let mut st = inner.lock();
        if st.mem.is_empty() {
            return Ok(());
        }
        st.new_file_number()
    };
    let new_file = if inner.opts.disable_wal {
        None
    } else {
        let f = inner.fs.create(&wal_name(number), Lifetime::Short).await?;
        inner.hint(&Hint::wal_created(number));
        Some(f)
    };
    if let Some(old) = w.file.take()
        && let Err(e) = old.close().await
    {
        // The old WAL holds the memtable's writes and could not be completed: no write
        // may be acknowledged without a WAL, so writes stop here.
        w.file = new_file;
        return Err(wal_failed(inner, e.into()));
    }
    w.file = new_file;
    w.log = LogWriter::new();
    w.number = number;
    let mut st = inner.lock();
    let old = std::mem::replace(&mut st.mem, Arc::new(MemTable::new()));
    let old_log = std::mem::replace(&mut st.mem_log, number);
    st.imm.push((old.clone(), old_log));
    let smallest_snapshot = st.smallest_snapshot();
    drop(st);
    background::start_build_ahead(inner, &old, smallest_snapshot);
    Ok(())
}
