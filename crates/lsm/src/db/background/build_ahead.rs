//! Flushes built ahead on another OS thread (simulation only).
//!
//! The table a flush writes is a pure function of the memtable and the smallest snapshot. When
//! a memtable becomes immutable and the environment computes beside its executor
//! ([`Env::spawn_compute`]), a worker thread builds that table at once; the flush job, when
//! it runs, takes the result if it is what it would build itself: the same memtable, not
//! written to since (its byte count unchanged), and a smallest snapshot that drops the same
//! versions (equal, or both at or above every sequence in the memtable). Otherwise the flush
//! builds as before. Everything the flush does in virtual time (its CPU charge, placement,
//! the write) is unchanged, so results are byte-identical; the building runs on the second
//! core while the simulation goes on.

use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, PoisonError, Weak};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::Inner;
use super::flush::build_memtable;
use super::output::builder_for;
use crate::LsmError;
use crate::memtable::MemTable;
use crate::sst::BuiltTable;

/// Smallest memtable built ahead: below it a thread costs more than the build.
const MIN_MEMTABLE_BYTES: u64 = 4 << 20;

/// A built table and its number of entries, or the worker's panic.
type Built = std::thread::Result<(Result<BuiltTable, LsmError>, u64)>;

/// A build running ahead.
#[derive(Debug)]
pub(crate) struct Pending {
    mem: Weak<MemTable>,
    bytes_at_start: u64,
    smallest_snapshot: u64,
    rx: Receiver<Built>,
}

/// Starts building immutable memtable `mem` on another thread, when the environment can.
pub(crate) fn start<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    mem: &Arc<MemTable>,
    smallest_snapshot: u64,
) {
    if !inner.env.parallel_compute() || mem.approximate_bytes() < MIN_MEMTABLE_BYTES {
        return;
    }
    let b = builder_for(inner, mem.approximate_bytes());
    let (tx, rx) = sync_channel(1);
    let m = mem.clone();
    let work = move || {
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            build_memtable(b, &m, smallest_snapshot)
        }));
        let _ = tx.send(built);
    };
    let pending = Pending {
        mem: Arc::downgrade(mem),
        bytes_at_start: mem.approximate_bytes(),
        smallest_snapshot,
        rx,
    };
    if inner.env.spawn_compute("flush-ahead", work) {
        let mut list = inner
            .built_ahead
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        list.retain(|p| p.mem.strong_count() > 0);
        list.push(pending);
    }
}

/// The table built ahead for `mem`, if one was started and it is what a flush with
/// `smallest_snapshot` would build now.
pub(super) fn take<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    mem: &Arc<MemTable>,
    smallest_snapshot: u64,
) -> Option<(Result<BuiltTable, LsmError>, u64)> {
    let pending = {
        let mut list = inner
            .built_ahead
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let i = list
            .iter()
            .position(|p| p.mem.upgrade().is_some_and(|m| Arc::ptr_eq(&m, mem)))?;
        list.remove(i)
    };
    // Waits in wall time only: the result does not depend on when it comes.
    let built = match pending.rx.recv().ok()? {
        Ok(built) => built,
        Err(payload) => std::panic::resume_unwind(payload),
    };
    if mem.approximate_bytes() != pending.bytes_at_start {
        return None;
    }
    if pending.smallest_snapshot != smallest_snapshot {
        // The drop rule compares sequences with the snapshot: two snapshots at or above every
        // sequence in the memtable drop the same versions.
        let largest = built.0.as_ref().ok()?.props.largest_seq;
        if pending.smallest_snapshot < largest || smallest_snapshot < largest {
            return None;
        }
    }
    Some(built)
}
