//! A full device under a compaction, handled as RocksDB handles it with the `SstFileManager`
//! every database gets by default (`ErrorHandler::SetBGError`, `SstFileManagerImpl`):
//!
//! - A compaction whose output write finds no space is a *soft* error (RocksDB maps
//!   `kCompaction` + `NoSpace` with `paranoid_checks` on to `kSoftError`): its outputs are
//!   deleted, its inputs and the version it held are released, its background slot sleeps one
//!   second (`BackgroundCallCompaction`'s wait after a failed compaction), and writes go on.
//! - While the soft error lasts, every picked compaction must fit (`EnoughRoomForCompaction`):
//!   free space (ZenFS's `GetFreeSpace`: unwritten bytes of the IO zones) of at least the
//!   input bytes of the running compactions, plus the reserved disk buffer (the largest
//!   `write_buffer_size`; RocksDB's `ReserveDiskBuffer` at open), minus the bytes running
//!   compactions have already written, plus the candidate's input bytes twice (RocksDB adds
//!   them once to the headroom and once in the comparison). One that does not fit is
//!   cancelled (`COMPACTION_CANCELLED`) and its slot sleeps one second.
//! - A recovery poller (`SstFileManagerImpl::ClearError`) checks at once and then every five
//!   seconds whether free space has reached the reserved input bytes as they were at the last
//!   admitted compaction (`free_space_trigger_`); then the soft error is cleared and
//!   compactions are scheduled as before.
//! - A flush or WAL write that finds no space stays a hard error (writes refused), as in
//!   RocksDB, where db_bench then stops on the failed put.
//!
//! One departure, so that a simulation cannot run forever: RocksDB keeps a soft error as long
//! as free space stays short, and with writes stopped behind an L0 full of files that never
//! compact it waits forever. Here, when [`STALLED_POLLS`] polls in a row find no more free
//! space than the one before, no flush or compaction finished in between and compactions were
//! cancelled, the soft error becomes a hard one: writes are refused with a no-space error.

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::Inner;
use super::schedule::maybe_schedule;
use crate::LsmError;
use crate::error::{BackgroundError, LsmErrorKind};
use crate::hints::Hint;
use crate::version::manifest::sst_name;

/// Polls in a row without progress after which the soft error becomes a hard one (not
/// RocksDB's; see the module documentation).
pub(crate) const STALLED_POLLS: u32 = 3;

/// RocksDB's `SstFileManager` space accounting for compactions, and the soft error.
#[derive(Debug, Default)]
pub(crate) struct SpaceManager {
    /// Input bytes of the running compactions admitted (`cur_compactions_reserved_size_`).
    reserved: u64,
    /// `reserved` as it was at the last admission (`free_space_trigger_`).
    trigger: u64,
    /// The free space kept for flushes and the WAL (`reserved_disk_buffer_`).
    disk_buffer: u64,
    /// Outputs of running compactions, by job: every file number created, and the bytes of
    /// those finished (`in_progress_files_size_` summed over jobs).
    outputs: BTreeMap<u64, JobOutputs>,
    /// The soft error, while it lasts.
    soft: Option<BackgroundError>,
    /// A recovery poller is running.
    polling: bool,
}

#[derive(Debug, Default)]
struct JobOutputs {
    files: Vec<u64>,
    bytes: u64,
}

impl SpaceManager {
    /// Accounting with `disk_buffer` bytes reserved for flushes and the WAL.
    pub(crate) fn new(disk_buffer: u64) -> Self {
        Self {
            disk_buffer,
            ..Self::default()
        }
    }

    /// Whether a soft no-space error holds.
    pub(crate) fn soft_error(&self) -> bool {
        self.soft.is_some()
    }

    /// Whether a compaction with `inputs` bytes of input may start, given `free` bytes free
    /// (asked only while a soft error holds: `None` otherwise, when every compaction fits);
    /// if it may, its inputs are reserved.
    pub(crate) fn admit(&mut self, inputs: u64, free: Option<u64>) -> bool {
        if let Some(free) = free {
            let in_progress: u64 = self.outputs.values().map(|o| o.bytes).sum();
            let headroom = (self.reserved + inputs + self.disk_buffer).saturating_sub(in_progress);
            if free < headroom + inputs {
                return false;
            }
        }
        self.reserved += inputs;
        self.trigger = self.reserved;
        true
    }

    /// Job `job` created output file `number`.
    pub(crate) fn output_started(&mut self, job: u64, number: u64) {
        self.outputs.entry(job).or_default().files.push(number);
    }

    /// Job `job` finished an output of `bytes`.
    pub(crate) fn output_written(&mut self, job: u64, bytes: u64) {
        self.outputs.entry(job).or_default().bytes += bytes;
    }

    /// The files job `job` created (to delete when it failed).
    pub(crate) fn outputs_of(&self, job: u64) -> Vec<u64> {
        self.outputs
            .get(&job)
            .map(|o| o.files.clone())
            .unwrap_or_default()
    }

    /// Job `job`, admitted with `inputs` bytes, ended (`OnCompactionCompletion`).
    pub(crate) fn completed(&mut self, job: u64, inputs: u64) {
        self.reserved = self.reserved.saturating_sub(inputs);
        self.outputs.remove(&job);
    }

    /// Records a soft error; true when a recovery poller must be started.
    pub(crate) fn set_soft(&mut self, e: BackgroundError) -> bool {
        self.soft.get_or_insert(e);
        !std::mem::replace(&mut self.polling, true)
    }

    /// Whether `free` bytes free clear the soft error (`ClearError`).
    pub(crate) fn clears(&self, free: u64) -> bool {
        free >= self.trigger
    }

    /// Ends the soft error (and the poller), returning it.
    pub(crate) fn clear(&mut self) -> Option<BackgroundError> {
        self.polling = false;
        self.soft.take()
    }
}

/// A compaction (job `job`) failed for lack of space with `e`: its outputs and the files
/// only its version held are deleted, the soft error is recorded (and the recovery poller started), and the job's slot waits one
/// second before it is given back.
///
/// # Errors
/// Deleting an output failed.
pub(super) async fn compaction_failed<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
    e: LsmError,
) -> Result<(), LsmError> {
    let files = inner.lock().space.outputs_of(job);
    for n in files {
        inner.tables.evict(n);
        match inner.fs.delete(&sst_name(n)).await {
            Ok(()) => inner.hint(&Hint::FileDeleted { number: n }),
            Err(zonedb_fs::FsError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    // The version the job held is gone: what only it kept is deleted now (RocksDB purges
    // obsolete files after a failed compaction).
    super::obsolete::delete_obsolete(inner).await?;
    let start = {
        let mut st = inner.lock();
        st.stats.compaction_no_space_errors += 1;
        st.space.set_soft(BackgroundError::from(e))
    };
    if start {
        start_recovery(inner);
    }
    inner.env.sleep(inner.opts.compaction_retry_wait_ns).await;
    Ok(())
}

/// A cancelled compaction's slot: held for one second, then given back.
pub(super) fn hold_cancelled_slot<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let i = inner.clone();
    drop(inner.env.spawn_background("compaction", async move {
        i.env.sleep(i.opts.compaction_retry_wait_ns).await;
        super::schedule::finish_job(&i, Ok(()), |st| st.compactions_running -= 1);
    }));
}

/// The recovery poller: clears the soft error once free space has come back, or turns it
/// into a hard error after [`STALLED_POLLS`] polls without progress.
fn start_recovery<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let i = inner.clone();
    drop(inner.env.spawn_background("sst-file-manager", async move {
        let mut last: Option<(u64, u64, u64)> = None;
        let mut stalled = 0;
        loop {
            let free = i.fs.free_bytes();
            let cleared = {
                let mut st = i.lock();
                if st.closing || st.closed || st.bg_error.is_some() {
                    st.space.clear();
                    return;
                }
                if st.space.clears(free) {
                    st.space.clear();
                    st.stats.no_space_recoveries += 1;
                    true
                } else {
                    let done = st.stats.flushes + st.stats.compactions;
                    let cancelled = st.stats.compactions_cancelled;
                    stalled = match last {
                        Some((f, d, c)) if free <= f && done == d && cancelled > c => stalled + 1,
                        _ => 0,
                    };
                    last = Some((free, done, cancelled));
                    if stalled >= STALLED_POLLS {
                        let soft = st.space.clear();
                        st.bg_error = Some(BackgroundError {
                            kind: LsmErrorKind::NoSpace,
                            what: format!(
                                "no space left on the zoned device for compactions: {free} \
                                 bytes free, {} needed to clear the soft error, no progress \
                                 in {} s",
                                st.space.trigger,
                                u64::from(STALLED_POLLS) * i.opts.sst_file_manager_poll_ns
                                    / 1_000_000_000
                            ),
                            source: soft.and_then(|s| s.source),
                        });
                    }
                    false
                }
            };
            if cleared {
                maybe_schedule(&i);
                return;
            }
            if i.lock().bg_error.is_some() {
                i.bg_done.notify_waiters();
                return;
            }
            i.env.sleep(i.opts.sst_file_manager_poll_ns).await;
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn soft() -> BackgroundError {
        BackgroundError::new(LsmErrorKind::NoSpace, "full")
    }

    #[test]
    fn without_a_soft_error_every_compaction_fits_and_reserves_its_inputs() {
        let mut s = SpaceManager::new(64 * MIB);
        assert!(s.admit(800 * MIB, None));
        assert!(s.admit(200 * MIB, None));
        assert_eq!((s.reserved, s.trigger), (1000 * MIB, 1000 * MIB));
        s.completed(1, 800 * MIB);
        assert_eq!((s.reserved, s.trigger), (200 * MIB, 1000 * MIB));
    }

    #[test]
    fn under_a_soft_error_the_inputs_count_twice_with_the_disk_buffer() {
        let mut s = SpaceManager::new(64 * MIB);
        assert!(s.admit(100 * MIB, None));
        assert!(s.set_soft(soft()));
        // Needed: 100 reserved + 50 + 64 buffer, plus 50 again = 264 MiB.
        assert!(!s.admit(50 * MIB, Some(263 * MIB)));
        assert_eq!(
            s.reserved,
            100 * MIB,
            "a cancelled compaction reserves nothing"
        );
        assert!(s.admit(50 * MIB, Some(264 * MIB)));
        assert_eq!((s.reserved, s.trigger), (150 * MIB, 150 * MIB));
    }

    #[test]
    fn bytes_running_compactions_wrote_come_off_the_headroom() {
        let mut s = SpaceManager::new(64 * MIB);
        assert!(s.admit(100 * MIB, None));
        s.output_started(7, 11);
        s.output_written(7, 40 * MIB);
        s.set_soft(soft());
        // 100 + 50 + 64 - 40 written, plus 50 = 224 MiB.
        assert!(!s.admit(50 * MIB, Some(223 * MIB)));
        assert!(s.admit(50 * MIB, Some(224 * MIB)));
        assert_eq!(s.outputs_of(7), vec![11]);
        s.completed(7, 100 * MIB);
        assert!(s.outputs_of(7).is_empty());
    }

    #[test]
    fn the_soft_error_clears_at_the_reserved_bytes_of_the_last_admission() {
        let mut s = SpaceManager::new(64 * MIB);
        assert!(s.admit(300 * MIB, None));
        s.completed(1, 300 * MIB);
        assert!(s.set_soft(soft()));
        assert!(!s.set_soft(soft()), "one poller at a time");
        assert!(!s.clears(300 * MIB - 1));
        assert!(s.clears(300 * MIB));
        assert!(s.clear().is_some());
        assert!(!s.soft_error());
        assert!(s.set_soft(soft()), "a later error starts a new poller");
    }
}
