//! Scheduling: one flush at a time, and one compaction at a time unless the tree needs
//! compactions sped up, then up to
//! `max(1, max_background_jobs − max(1, max_background_jobs / 4))` in parallel (as RocksDB
//! splits its job budget and throttles it, [`compaction_limit`]); a finished job releases its
//! inputs, refreshes the scores and schedules again. Under the authors' ZenFS blocking model
//! (`FsOptions::zc_blocking_poll_ns`) nothing new starts while zone cleaning runs: one waiter
//! polls the file layer and schedules when cleaning has stopped.

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::write_stall::write_stall_of;
use super::super::zones::zone_layout;
use super::super::{Inner, State};
use super::compaction_job::{Compacted, compact};
use super::flush::flush_one;
use super::no_space::{compaction_failed, hold_cancelled_slot};
use super::{level_view, refresh_scores};
use crate::LsmError;
use crate::compaction::{PickerInput, RunningCompaction as PickerRunning};
use crate::key;
use crate::options::DbOptions;

/// A compaction registered as running.
#[derive(Debug, Clone)]
pub(crate) struct RunningCompaction {
    pub(crate) job: u64,
    pub(crate) view: PickerRunning,
    /// When it started (the environment's clock).
    pub(crate) started_ns: u64,
    /// Its input files.
    pub(crate) input_files: u32,
    /// An extra entry for a level a gear compaction cascades into (the job's main entry has
    /// its output level).
    pub(crate) cascade_level: bool,
}

pub(super) fn max_compactions(opts: &DbOptions) -> u32 {
    let flushes = (opts.max_background_jobs / 4).max(1);
    opts.max_background_jobs.saturating_sub(flushes).max(1)
}

/// How many compactions may run now: RocksDB's `GetBGJobLimits`, which allows one
/// ("throttle background compactions until we deem necessary") unless the write controller
/// needs compactions sped up (`WriteController::NeedSpeedupCompaction`): writes are stopped
/// or delayed, or the tree holds a compaction-pressure token
/// (`RecalculateWriteStallConditions`: L0 at `GetL0ThresholdSpeedupCompaction`, the lesser
/// of twice `level0_file_num_compaction_trigger` and a quarter of the way from it to
/// `level0_slowdown_writes_trigger`; or pending compaction bytes at a quarter of
/// `soft_pending_compaction_bytes_limit`; see [`write_stall_of`], which the write path shares);
/// then [`max_compactions`].
///
/// Every running compaction holds the version it started from, and with it every file
/// compacted away since: sixteen long compactions at once pin a quarter of a full device.
pub(crate) fn compaction_limit(opts: &DbOptions, st: &State) -> u32 {
    if write_stall_of(opts, st).needs_speedup() {
        max_compactions(opts)
    } else {
        1
    }
}

/// Starts whatever background work is due and allowed.
pub(crate) fn maybe_schedule<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let mut st = inner.lock();
    if st.bg_error.is_some() || st.closing || st.closed {
        return;
    }
    if held_back_by_cleaning(inner, &mut st) {
        return;
    }
    let merge = inner.opts.min_write_buffer_number_to_merge as usize;
    if !st.flush_running && !st.imm.is_empty() && (st.imm.len() >= merge || st.flush_requested) {
        st.flush_running = true;
        let job = st.next_job;
        st.next_job += 1;
        let i = inner.clone();
        drop(inner.env.spawn_background("flush", async move {
            let t0 = i.env.now();
            let r = flush_one(&i, job).await;
            let dt = i.env.now() - t0;
            finish_job(&i, r, |st| {
                st.flush_running = false;
                st.stats.flush_ns += dt;
            });
        }));
    }
    let zone_map = inner.picker.wants_zone_view().then(|| {
        let numbers: Vec<u64> = st.version.all_files().map(|(_, f)| f.meta.number).collect();
        zone_layout(&inner.fs, &numbers)
    });
    while st.compactions_running < compaction_limit(&inner.opts, &st) {
        let version = st.version.clone();
        let levels = level_view(&version, &st.being_compacted);
        let running: Vec<PickerRunning> = st.running.iter().map(|r| r.view.clone()).collect();
        let plan = inner.picker.pick(&PickerInput {
            levels: &levels,
            running: &running,
            next_compaction_index: &st.next_compaction_index,
            compact_cursor: &st.compact_cursor,
            options: &inner.opts,
            zones: zone_map.as_ref(),
        });
        let Some(plan) = plan else { break };
        // RocksDB's `EnoughRoomForCompaction`: free space is asked only under a soft
        // no-space error; a compaction that does not fit is cancelled and its slot waits.
        let input_bytes = plan_input_bytes(&levels, &plan);
        let free = st.space.soft_error().then(|| inner.fs.free_bytes());
        if !st.space.admit(input_bytes, free) {
            st.stats.compactions_cancelled += 1;
            st.compactions_running += 1;
            hold_cancelled_slot(inner);
            break;
        }
        if let Some((l, i)) = plan.next_compaction_index
            && let Some(x) = st.next_compaction_index.get_mut(l as usize)
        {
            *x = i;
        }
        if let Some((l, c)) = &plan.compact_cursor
            && let Some(x) = st.compact_cursor.get_mut(*l as usize)
        {
            x.clone_from(c);
        }
        let job = st.next_job;
        st.next_job += 1;
        let inputs = register(&mut st, job, &plan, &levels, inner.env.now());
        st.compactions_running += 1;
        let i = inner.clone();
        drop(inner.env.spawn_background("compaction", async move {
            let t0 = i.env.now();
            let r = match compact(&i, job, &plan).await {
                Ok(Compacted::Done) => Ok(()),
                Ok(Compacted::OutOfSpace(e)) => compaction_failed(&i, job, e).await,
                Err(e) => Err(e),
            };
            let dt = i.env.now() - t0;
            finish_job(&i, r, |st| {
                st.space.completed(job, input_bytes);
                st.stats.compaction_ns += dt;
                st.compactions_running -= 1;
                st.running.retain(|r| r.job != job);
                for n in &inputs {
                    st.being_compacted.remove(n);
                }
            });
        }));
    }
}

/// The bytes of a plan's input files.
fn plan_input_bytes(
    levels: &[Vec<crate::compaction::LevelFile<'_>>],
    plan: &crate::compaction::CompactionPlan,
) -> u64 {
    plan.inputs
        .iter()
        .flat_map(|i| {
            let files = levels.get(i.level as usize).map_or(&[][..], Vec::as_slice);
            i.files.iter().filter_map(move |n| {
                files
                    .iter()
                    .find(|f| f.number == *n)
                    .map(|f| f.meta.file_size)
            })
        })
        .sum()
}

/// Registers a picked compaction as running: its inputs marked as being compacted, an entry
/// for its output level and one per level it cascades into. Returns its input files.
fn register(
    st: &mut State,
    job: u64,
    plan: &crate::compaction::CompactionPlan,
    levels: &[Vec<crate::compaction::LevelFile<'_>>],
    now: u64,
) -> Vec<u64> {
    let inputs: Vec<u64> = plan.inputs.iter().flat_map(|i| i.files.clone()).collect();
    let (mut lo, mut hi): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
    for files in levels {
        for f in files.iter().filter(|f| inputs.contains(&f.number)) {
            let s = key::user_key(&f.smallest).to_vec();
            let l = key::user_key(&f.largest).to_vec();
            if lo.as_ref().is_none_or(|x| s < *x) {
                lo = Some(s);
            }
            if hi.as_ref().is_none_or(|x| l > *x) {
                hi = Some(l);
            }
        }
    }
    for n in &inputs {
        st.being_compacted.insert(*n);
    }
    let view = PickerRunning {
        start_level: plan.start_level,
        output_level: plan.output_level,
        smallest_user_key: lo.unwrap_or_default(),
        largest_user_key: hi.unwrap_or_default(),
    };
    // A gear compaction also writes the levels it cascades into: each is registered, so
    // that no other compaction into them picks a range it writes.
    for c in &plan.cascade {
        st.running.push(RunningCompaction {
            job,
            started_ns: now,
            input_files: 0,
            cascade_level: true,
            view: PickerRunning {
                output_level: c.level,
                ..view.clone()
            },
        });
    }
    st.running.push(RunningCompaction {
        job,
        started_ns: now,
        input_files: u32::try_from(inputs.len()).unwrap_or(u32::MAX),
        cascade_level: false,
        view,
    });
    inputs
}

/// Under the authors' ZenFS blocking model, whether zone cleaning holds new jobs back now; if
/// so, one waiter task schedules again once cleaning has stopped.
fn held_back_by_cleaning<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>, st: &mut State) -> bool {
    if !inner.fs.cleaning_blocks_jobs() {
        return false;
    }
    if st.cleaning_waiter.is_none() {
        let job = st.next_job;
        st.next_job += 1;
        st.cleaning_waiter = Some(job);
        let i = inner.clone();
        drop(inner.env.spawn_background("wait-for-cleaning", async move {
            i.fs.wait_for_cleaning().await;
            i.lock().cleaning_waiter = None;
            maybe_schedule(&i);
        }));
    }
    true
}

pub(super) fn finish_job<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    r: Result<(), LsmError>,
    release: impl FnOnce(&mut State),
) {
    {
        let mut st = inner.lock();
        release(&mut st);
        if let Err(e) = r
            && st.bg_error.is_none()
        {
            st.bg_error = Some(crate::error::BackgroundError::from(e));
        }
    }
    refresh_scores(inner);
    inner.bg_done.notify_waiters();
    maybe_schedule(inner);
}
