//! Flushes: the oldest immutable memtable written as an L0 SST (leaving out what no snapshot
//! can see), installed with the new log number; WALs below it are deleted.

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::SstContext;

use super::super::Inner;
use super::super::zones::NewSst;
use super::build_ahead;
use super::install::install;
use super::obsolete::{delete_obsolete, delete_wals, schedule_purge};
use super::output::{builder_for, give_buffer, placement_context, take_buffer, write_built};
use crate::LsmError;
use crate::compaction::calculate_sst_write_hint;
use crate::compaction::drop_rule::DropRule;
use crate::cost;
use crate::db::stats::FlushPhases;
use crate::hints::{Hint, HintListener};
use crate::key;
use crate::memtable::MemTable;
use crate::sst::{BuiltTable, TableBuilder};
use crate::version::{FileMeta, VersionEdit};

/// Writes memtable `mem` as L0 table `number` through builder `b`, leaving out versions no
/// snapshot at or after `smallest_snapshot` can see (0 keeps everything). Returns the file,
/// or `None` if nothing was left, and the builder's buffer for reuse. Used by flushes and by
/// recovery.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn write_memtable<E: Env, D: ZonedDevice>(
    env: &E,
    fs: &Arc<ZoneFs<E, D>>,
    hints: &dyn HintListener,
    b: TableBuilder,
    mem: &MemTable,
    smallest_snapshot: u64,
    (number, job): (u64, u64),
    place: &(dyn Fn(&NewSst<'_>) -> Option<SstContext> + Sync),
) -> Result<(Option<(u32, FileMeta)>, Vec<u8>), LsmError> {
    let built = build_memtable(b, mem, smallest_snapshot);
    let mut phases = FlushPhases::default();
    write_built_memtable(env, fs, hints, built, (number, job), place, &mut phases).await
}

/// Memtable `mem` built into a table by `b`, leaving out versions no snapshot at or after
/// `smallest_snapshot` can see; with its number of entries.
pub(crate) fn build_memtable(
    mut b: TableBuilder,
    mem: &MemTable,
    smallest_snapshot: u64,
) -> (Result<BuiltTable, LsmError>, u64) {
    let mut filter = DropRule::new(smallest_snapshot, false);
    mem.for_each(|k, v| {
        if filter.keep(k) {
            b.add(k, v);
        }
    });
    let n = b.num_entries();
    (b.finish_elided(), n)
}

/// Several memtables (oldest first) merged into one table: their entries in internal key
/// order (their sequence ranges are disjoint, so no two entries are equal), through the same
/// drop rule as one memtable.
pub(crate) fn build_memtables(
    mut b: TableBuilder,
    mems: &[Arc<MemTable>],
    smallest_snapshot: u64,
) -> (Result<BuiltTable, LsmError>, u64) {
    let lists: Vec<Vec<(Vec<u8>, Vec<u8>)>> = mems.iter().map(|m| m.entries()).collect();
    let mut heads = vec![0usize; lists.len()];
    let mut filter = DropRule::new(smallest_snapshot, false);
    loop {
        let mut best: Option<usize> = None;
        for (i, list) in lists.iter().enumerate() {
            let Some((k, _)) = list.get(heads[i]) else {
                continue;
            };
            if best.is_none_or(|j| key::compare(k, &lists[j][heads[j]].0).is_lt()) {
                best = Some(i);
            }
        }
        let Some(i) = best else { break };
        let (k, v) = &lists[i][heads[i]];
        heads[i] += 1;
        if filter.keep(k) {
            b.add(k, v);
        }
    }
    let n = b.num_entries();
    (b.finish_elided(), n)
}

/// A memtable built by [`build_memtable`] written as L0 table `number` (see
/// [`write_memtable`]); the time its build and its write took go to `phases`.
async fn write_built_memtable<E: Env, D: ZonedDevice>(
    env: &E,
    fs: &Arc<ZoneFs<E, D>>,
    hints: &dyn HintListener,
    (built, n): (Result<BuiltTable, LsmError>, u64),
    (number, job): (u64, u64),
    place: &(dyn Fn(&NewSst<'_>) -> Option<SstContext> + Sync),
    phases: &mut FlushPhases,
) -> Result<(Option<(u32, FileMeta)>, Vec<u8>), LsmError> {
    let built = built?;
    let compression = built.compression;
    let (bytes, props) = (&built.bytes, &built.props);
    if n == 0 {
        return Ok((None, take_buffer(built)));
    }
    let t0 = env.now();
    env.cpu(
        n * cost::MERGE_ENTRY_NS
            + bytes.len() / 1024 * cost::BUILD_NS_PER_KIB
            + cost::compress_ns(compression, props.raw_key_size + props.raw_value_size),
    )
    .await;
    let t1 = env.now();
    phases.build_ns += t1 - t0;
    let context = place(&NewSst {
        number,
        level: 0,
        size: bytes.len(),
        smallest: key::user_key(&props.smallest_key),
        largest: key::user_key(&props.largest_key),
        temp: false,
    });
    let nf = write_built(
        fs,
        hints,
        (number, 0),
        calculate_sst_write_hint(0, 1),
        bytes,
        props,
        job,
        context,
    )
    .await?;
    phases.write_ns += env.now() - t1;
    Ok((Some((0, nf)), take_buffer(built)))
}

pub(super) async fn flush_one<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
) -> Result<(), LsmError> {
    // With `min_write_buffer_number_to_merge` above 1, every immutable memtable (RocksDB's
    // PickMemtablesToFlush), merged into one SST.
    let (mems, log, number, smallest_snapshot) = {
        let mut st = inner.lock();
        let Some(&(_, log)) = st.imm.first() else {
            return Ok(());
        };
        // One at a time without merging (the engine's behaviour before the option existed).
        let take = if inner.opts.min_write_buffer_number_to_merge <= 1 {
            1
        } else {
            st.imm.len()
        };
        let mems: Vec<Arc<MemTable>> = st.imm.iter().take(take).map(|(m, _)| m.clone()).collect();
        let n = st.new_file_number();
        (mems, log, n, st.smallest_snapshot())
    };
    let memtable_bytes: u64 = mems.iter().map(|m| m.approximate_bytes()).sum();
    inner.hint(&Hint::FlushStarted {
        job,
        memtable_bytes,
    });
    // One memtable: built straight from the skiplist (no copy of the memtable), or taken from
    // the build started on another thread when the memtable became immutable, if it is the
    // same. Several: merged.
    let built = match &mems[..] {
        [mem] => match build_ahead::take(inner, mem, smallest_snapshot) {
            Some(built) => built,
            None => build_memtable(builder_for(inner, memtable_bytes), mem, smallest_snapshot),
        },
        _ => build_memtables(builder_for(inner, memtable_bytes), &mems, smallest_snapshot),
    };
    let mut phases = FlushPhases::default();
    let (nf, buf) = write_built_memtable(
        &inner.env,
        &inner.fs,
        &*inner.hints,
        built,
        (number, job),
        &|sst| placement_context(inner, sst),
        &mut phases,
    )
    .await?;
    let t_install = inner.env.now();
    give_buffer(inner, buf);
    let flushed = mems.len();
    let next_log = {
        let st = inner.lock();
        st.imm.get(flushed).map_or(st.mem_log, |(_, l)| *l)
    };
    let mut edit = VersionEdit {
        log_number: Some(next_log),
        ..VersionEdit::default()
    };
    let written = nf.as_ref().map_or(0, |(_, f)| f.file_size);
    let outputs: Vec<u64> = nf.iter().map(|(_, f)| f.number).collect();
    edit.new_files.extend(nf);
    install(inner, edit, |st| {
        st.imm.drain(..flushed);
        if st.imm.is_empty() {
            st.flush_requested = false;
        }
        st.wal_bytes.retain(|&n, _| n >= next_log);
        st.stats.flushes += 1;
        st.stats.flush_bytes_written += written;
    })
    .await?;
    let t_delete = inner.env.now();
    phases.install_ns = t_delete - t_install;
    // WALs below the new log number are no longer needed.
    let wals = log..next_log;
    let in_background = inner.opts.avoid_unnecessary_blocking_io;
    if !in_background {
        delete_wals(inner, wals.clone()).await?;
    }
    inner.hint(&Hint::FlushFinished { job, outputs });
    for mem in mems {
        if Arc::strong_count(&mem) == 1 {
            // Freeing a memtable's entries takes a while and changes nothing the simulation
            // sees: another thread does it when the environment has one.
            inner.env.spawn_compute("drop-memtable", move || drop(mem));
        }
    }
    let r = if in_background {
        schedule_purge(inner, Some(wals));
        Ok(())
    } else {
        delete_obsolete(inner).await
    };
    phases.delete_ns = inner.env.now() - t_delete;
    inner.lock().stats.flush_phases.add(&phases);
    r
}
