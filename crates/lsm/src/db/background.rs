//! Background work: scheduling (one flush at a time, up to
//! `max(1, max_background_jobs − max(1, max_background_jobs / 4))` compactions in parallel, as
//! RocksDB splits its job budget), flushes, compactions (trivial moves edit only the
//! MANIFEST), installing version edits, and deleting files no version uses.
//!
//! Compaction drops a version when a newer version of its key is visible to every snapshot,
//! and a tombstone when it is visible to every snapshot and no deeper level overlaps the
//! compaction (LevelDB's rule, which is exact with one snapshot and conservative with more).

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::{Lifetime, SstContext};

use super::iter::{Child, MergingIter};
use super::zones::{NewSst, TreeShape, sst_context, zone_layout};
use super::{Inner, State};
use crate::LsmError;
use crate::compaction::{
    CompactionPlan, FileInfo, PickerInput, RunningCompaction as PickerRunning,
    calculate_sst_write_hint, compaction_scores, estimated_pending_compaction_bytes, level_targets,
};
use crate::cost;
use crate::db::stats::CompactionRecord;
use crate::hints::{FileKindHint, Hint, HintListener, LevelFiles};
use crate::key::{self, ValueType};
use crate::memtable::MemTable;
use crate::options::DbOptions;
use crate::sst::{TableBuilder, TableOptions};
use crate::version::manifest::{ManifestWriter, sst_name};
use crate::version::{LiveFile, NewFile, Version, VersionEdit};

/// A compaction registered as running.
#[derive(Debug, Clone)]
pub(crate) struct RunningCompaction {
    pub(crate) job: u64,
    pub(crate) view: PickerRunning,
}

fn max_compactions(opts: &DbOptions) -> u32 {
    let flushes = (opts.max_background_jobs / 4).max(1);
    opts.max_background_jobs.saturating_sub(flushes).max(1)
}

/// The picker's view of a version.
pub(crate) fn file_infos(st: &State) -> Vec<Vec<FileInfo>> {
    st.version
        .levels
        .iter()
        .map(|l| {
            l.iter()
                .map(|f| FileInfo {
                    number: f.meta.number,
                    file_size: f.meta.file_size,
                    smallest: f.meta.smallest.clone(),
                    largest: f.meta.largest.clone(),
                    smallest_seq: f.meta.smallest_seq,
                    largest_seq: f.meta.largest_seq,
                    num_entries: f.meta.num_entries,
                    num_deletions: f.meta.num_deletions,
                    being_compacted: st.being_compacted.contains(&f.meta.number),
                })
                .collect()
        })
        .collect()
}

/// Recomputes the pending compaction bytes and tells listeners the level scores.
pub(crate) fn refresh_scores<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let (scores, base) = {
        let mut st = inner.lock();
        let levels = file_infos(&st);
        let t = level_targets(&levels, &inner.opts);
        st.pending_compaction_bytes = estimated_pending_compaction_bytes(&levels, &t, &inner.opts);
        (compaction_scores(&levels, &t, &inner.opts), t.base_level)
    };
    inner.hint(&Hint::LevelScores {
        scores,
        base_level: base,
    });
}

/// Waits until `cond` holds (or a background error).
pub(crate) async fn wait_until<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    cond: impl Fn(&State) -> bool,
) -> Result<(), LsmError> {
    loop {
        let notified = inner.bg_done.notified();
        let mut notified = std::pin::pin!(notified);
        notified.as_mut().enable();
        {
            let st = inner.lock();
            if let Some(e) = &st.bg_error {
                return Err(LsmError::Background(e.clone()));
            }
            if cond(&st) {
                return Ok(());
            }
        }
        notified.await;
    }
}

/// Starts whatever background work is due and allowed.
pub(crate) fn maybe_schedule<E: Env, D: ZonedDevice>(inner: &Arc<Inner<E, D>>) {
    let mut st = inner.lock();
    if st.bg_error.is_some() || st.closing || st.closed {
        return;
    }
    if !st.flush_running && !st.imm.is_empty() {
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
    while st.compactions_running < max_compactions(&inner.opts) {
        let levels = file_infos(&st);
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
        let inputs: Vec<u64> = plan.inputs.iter().flat_map(|i| i.files.clone()).collect();
        let (mut lo, mut hi): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
        for (level, files) in levels.iter().enumerate() {
            let _ = level;
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
        st.running.push(RunningCompaction {
            job,
            view: PickerRunning {
                start_level: plan.start_level,
                output_level: plan.output_level,
                smallest_user_key: lo.unwrap_or_default(),
                largest_user_key: hi.unwrap_or_default(),
            },
        });
        st.compactions_running += 1;
        let i = inner.clone();
        drop(inner.env.spawn_background("compaction", async move {
            let t0 = i.env.now();
            let r = compact(&i, job, &plan).await;
            let dt = i.env.now() - t0;
            finish_job(&i, r, |st| {
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

fn finish_job<E: Env, D: ZonedDevice>(
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

/// Writes memtable `mem` as L0 table `number` through builder `b`, leaving out versions no
/// snapshot at or after `smallest_snapshot` can see (0 keeps everything). Returns the file,
/// or `None` if nothing was left, and the builder's buffer for reuse. Used by flushes and by
/// recovery.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn write_memtable<E: Env, D: ZonedDevice>(
    env: &E,
    fs: &Arc<ZoneFs<E, D>>,
    hints: &dyn HintListener,
    mut b: TableBuilder,
    mem: &MemTable,
    smallest_snapshot: u64,
    (number, job): (u64, u64),
    place: &(dyn Fn(&NewSst<'_>) -> Option<SstContext> + Sync),
) -> Result<(Option<NewFile>, Vec<u8>), LsmError> {
    let mut filter = DropFilter::new(smallest_snapshot, false);
    mem.for_each(|k, v| {
        if filter.keep(k) {
            b.add(k, v);
        }
    });
    let n = b.num_entries();
    let (bytes, props) = b.finish();
    if n == 0 {
        return Ok((None, bytes));
    }
    env.cpu(n * cost::MERGE_ENTRY_NS + bytes.len() as u64 / 1024 * cost::BUILD_NS_PER_KIB)
        .await;
    let context = place(&NewSst {
        number,
        level: 0,
        size: bytes.len() as u64,
        smallest: key::user_key(&props.smallest_key),
        largest: key::user_key(&props.largest_key),
    });
    let nf = write_built(
        fs,
        hints,
        (number, 0),
        calculate_sst_write_hint(0, 1),
        &bytes,
        &props,
        job,
        context,
    )
    .await?;
    Ok((Some(nf), bytes))
}

pub(crate) fn table_options(opts: &DbOptions) -> TableOptions {
    TableOptions {
        block_size: usize::try_from(opts.block_size).unwrap_or(4096),
        restart_interval: opts.block_restart_interval as usize,
        bloom_bits_per_key: opts.bloom_bits_per_key,
        compression: opts.compression,
    }
}

#[allow(clippy::too_many_arguments)]
async fn write_built<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    hints: &dyn HintListener,
    (number, level): (u64, u32),
    lifetime: Lifetime,
    bytes: &[u8],
    props: &crate::sst::Properties,
    job: u64,
    context: Option<SstContext>,
) -> Result<NewFile, LsmError> {
    hints.on_hint(&Hint::FileCreated {
        number,
        kind: FileKindHint::Sst,
        level: Some(level),
        smallest: key::user_key(&props.smallest_key).to_vec(),
        largest: key::user_key(&props.largest_key).to_vec(),
        size: bytes.len() as u64,
        lifetime,
        job,
    });
    let mut f = match context {
        Some(c) => fs.create_sst(&sst_name(number), lifetime, c).await?,
        None => fs.create(&sst_name(number), lifetime).await?,
    };
    f.append(bytes).await?;
    f.close().await?;
    Ok(NewFile {
        level,
        number,
        file_size: bytes.len() as u64,
        smallest: props.smallest_key.clone(),
        largest: props.largest_key.clone(),
        smallest_seq: props.smallest_seq,
        largest_seq: props.largest_seq,
        num_entries: props.num_entries,
        num_deletions: props.num_deletions,
    })
}

/// Logs `edit` to the MANIFEST and makes it the current version.
async fn install<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    mut edit: VersionEdit,
    after: impl FnOnce(&mut State),
) -> Result<(), LsmError> {
    let mut m = inner.manifest.lock().await;
    let Some(mw) = m.as_mut() else {
        return Err(LsmError::Closed);
    };
    let v = {
        let st = inner.lock();
        edit.next_file_number = Some(st.next_file);
        edit.last_sequence = Some(st.last_seq);
        st.version.apply(&edit, &inner.graveyard)?
    };
    mw.append(&edit).await?;
    if mw.len() > inner.opts.max_manifest_file_size {
        // Start a new MANIFEST holding a snapshot of the new version (RocksDB's roll).
        let (number, snap) = {
            let mut st = inner.lock();
            let n = st.new_file_number();
            let mut snap = v.snapshot_edit();
            snap.log_number = edit
                .log_number
                .or(Some(st.imm.first().map_or(st.mem_log, |(_, l)| *l)));
            snap.next_file_number = Some(st.next_file);
            snap.last_sequence = Some(st.last_seq);
            (n, snap)
        };
        // The old MANIFEST is complete (the edit above is in it): close it first, so the
        // roll holds one open zone, not three (old, new and CURRENT's temporary file), which
        // on a device with few open zones waited forever for a token the roll itself held.
        // Until CURRENT names the new one, the old one stays the database's MANIFEST.
        let old = m.take().ok_or(LsmError::Closed)?;
        let old_name = crate::version::manifest::manifest_name(old.number);
        old.close().await?;
        *m = Some(ManifestWriter::create(&inner.fs, number, &snap).await?);
        inner.fs.delete(&old_name).await?;
    }
    {
        let now = inner.env.now();
        let mut lt = inner
            .lifetimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for f in &edit.new_files {
            lt.born.entry(f.number).or_insert((f.level, now));
        }
    }
    let mut st = inner.lock();
    // Re-apply to the version current now (only this task changes versions while it holds
    // the MANIFEST lock, so it is the same one).
    st.version = Arc::new(v);
    // A new version: file scans start over (RocksDB resets NextCompactionIndex).
    st.next_compaction_index.iter_mut().for_each(|i| *i = 0);
    after(&mut st);
    Ok(())
}

/// Deletes SST `n` from the table cache and the zone layer (gone already is fine), and says
/// so in a hint.
async fn delete_sst<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    n: u64,
) -> Result<(), LsmError> {
    inner.tables.evict(n);
    match inner.fs.delete(&sst_name(n)).await {
        Ok(()) | Err(zonedb_fs::FsError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    inner.hint(&Hint::FileDeleted { number: n });
    Ok(())
}

/// Deletes files no version uses any more.
pub(crate) async fn delete_obsolete<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
) -> Result<(), LsmError> {
    let dead: Vec<u64> = std::mem::take(
        &mut *inner
            .graveyard
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    for n in dead {
        delete_sst(inner, n).await?;
        let now = inner.env.now();
        let mut lt = inner
            .lifetimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((level, born)) = lt.born.remove(&n) {
            lt.done.entry(level).or_default().push(now - born);
        }
    }
    Ok(())
}

async fn flush_one<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
) -> Result<(), LsmError> {
    let (mem, log, number, smallest_snapshot) = {
        let mut st = inner.lock();
        let Some((m, log)) = st.imm.first().cloned() else {
            return Ok(());
        };
        let n = st.new_file_number();
        (m, log, n, st.smallest_snapshot())
    };
    inner.hint(&Hint::FlushStarted {
        job,
        memtable_bytes: mem.approximate_bytes(),
    });
    // Built straight from the skiplist (no copy of the memtable).
    let (nf, buf) = write_memtable(
        &inner.env,
        &inner.fs,
        &*inner.hints,
        builder_for(inner, mem.approximate_bytes()),
        &mem,
        smallest_snapshot,
        (number, job),
        &|sst| placement_context(inner, sst),
    )
    .await?;
    give_buffer(inner, buf);
    let next_log = {
        let st = inner.lock();
        st.imm.get(1).map_or(st.mem_log, |(_, l)| *l)
    };
    let mut edit = VersionEdit {
        log_number: Some(next_log),
        ..VersionEdit::default()
    };
    let written = nf.as_ref().map_or(0, |f| f.file_size);
    let outputs: Vec<u64> = nf.iter().map(|f| f.number).collect();
    edit.new_files.extend(nf);
    install(inner, edit, |st| {
        st.imm.remove(0);
        st.stats.flushes += 1;
        st.stats.flush_bytes_written += written;
    })
    .await?;
    // WALs below the new log number are no longer needed.
    for n in inner.fs.list() {
        if let Some((num, "log")) = crate::version::manifest::parse_name(&n)
            && num < next_log
            && num >= log
        {
            inner.fs.delete(&n).await?;
        }
    }
    inner.hint(&Hint::FlushFinished { job, outputs });
    delete_obsolete(inner).await
}

struct DropFilter {
    smallest_snapshot: u64,
    drop_tombstones: bool,
    /// The user key seen last (reused buffer; `has_current` says whether it holds one).
    current: Vec<u8>,
    has_current: bool,
    last_seq_for_key: u64,
}

impl DropFilter {
    fn new(smallest_snapshot: u64, drop_tombstones: bool) -> Self {
        Self {
            smallest_snapshot,
            drop_tombstones,
            current: Vec::new(),
            has_current: false,
            last_seq_for_key: u64::MAX,
        }
    }

    fn keep(&mut self, ikey: &[u8]) -> bool {
        let Some(p) = key::parse(ikey) else {
            return true;
        };
        if !self.has_current || self.current != p.user_key {
            self.current.clear();
            self.current.extend_from_slice(p.user_key);
            self.has_current = true;
            self.last_seq_for_key = u64::MAX;
        }
        let drop = if self.last_seq_for_key <= self.smallest_snapshot {
            true
        } else {
            self.drop_tombstones
                && p.value_type == ValueType::Deletion
                && p.seq <= self.smallest_snapshot
        };
        self.last_seq_for_key = p.seq;
        !drop
    }
}

async fn compact<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
    plan: &CompactionPlan,
) -> Result<(), LsmError> {
    let level_files: Vec<LevelFiles> = plan
        .inputs
        .iter()
        .map(|i| LevelFiles {
            level: i.level,
            files: i.files.clone(),
        })
        .collect();
    inner.hint(&Hint::CompactionStarted {
        job,
        start_level: plan.start_level,
        output_level: plan.output_level,
        inputs: level_files.clone(),
        trivial_move: plan.trivial_move,
    });
    let (version, smallest_snapshot, base_level) = {
        let st = inner.lock();
        let levels = file_infos(&st);
        let base = level_targets(&levels, &inner.opts).base_level;
        (st.version.clone(), st.smallest_snapshot(), base)
    };
    let find = |level: u32, n: u64| find_input(&version, level, n);
    let mut edit = VersionEdit::default();
    let mut outputs = Vec::new();
    let mut read_bytes = 0u64;
    let mut written = 0u64;
    let mut record = None;
    if plan.trivial_move {
        for i in &plan.inputs {
            for &n in &i.files {
                let f = find(i.level, n)?;
                edit.deleted_files.push((i.level, n));
                edit.new_files.push(NewFile {
                    level: plan.output_level,
                    ..f.meta.clone()
                });
            }
        }
        outputs = edit.new_files.iter().map(|f| f.number).collect();
    } else {
        let children;
        (children, read_bytes) = input_children(inner, &version, plan, &mut edit)?;
        let ctx = MergeContext {
            job,
            smallest_snapshot,
            base_level,
            grandparents: grandparent_files(&version, plan),
        };
        record = Some(zone_record(inner, job, plan, read_bytes));
        let (files, w, (read_ns, read_ops)) = match merge_inputs(inner, plan, children, &ctx).await
        {
            Err(LsmError::Closed) => return Ok(()),
            r => r?,
        };
        written = w;
        let z = &mut inner.lock().stats.zone_compaction;
        (z.read_ns, z.read_ops) = (z.read_ns + read_ns, z.read_ops + read_ops);
        for nf in files {
            outputs.push(nf.number);
            edit.new_files.push(nf);
        }
    }
    install(inner, edit, |st| {
        record_compaction(st, plan, read_bytes, written);
        if let Some(r) = record {
            st.stats.zone_compaction.record(r);
        }
    })
    .await?;
    inner.hint(&Hint::CompactionFinished {
        job,
        inputs: level_files,
        outputs: vec![LevelFiles {
            level: plan.output_level,
            files: outputs,
        }],
    });
    delete_obsolete(inner).await
}

/// Input file `n` of `level` in `version`.
fn find_input(version: &Version, level: u32, n: u64) -> Result<Arc<LiveFile>, LsmError> {
    version.levels[level as usize]
        .iter()
        .find(|f| f.meta.number == n)
        .cloned()
        .ok_or_else(|| LsmError::corruption(&sst_name(n), 0, "compaction input not in the version"))
}

/// The merge's sources (one per L0 file, one per deeper level) and their bytes; the inputs
/// are recorded as deleted in `edit`.
fn input_children<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Version,
    plan: &CompactionPlan,
    edit: &mut VersionEdit,
) -> Result<(Vec<Child<E, D>>, u64), LsmError> {
    let mut children = Vec::new();
    let mut read_bytes = 0;
    for i in &plan.inputs {
        let mut files = Vec::new();
        for &n in &i.files {
            let f = find_input(version, i.level, n)?;
            read_bytes += f.meta.file_size;
            edit.deleted_files.push((i.level, n));
            files.push(f);
        }
        if i.level == 0 {
            for f in files {
                children.push(Child::compaction_input(vec![f], inner.tables.clone()));
            }
        } else if !files.is_empty() {
            files.sort_by(|a, b| key::compare(&a.meta.smallest, &b.meta.smallest));
            children.push(Child::compaction_input(files, inner.tables.clone()));
        }
    }
    Ok((children, read_bytes))
}

/// The Same-Zone measures of a merging compaction, taken as it starts.
fn zone_record<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    job: u64,
    plan: &CompactionPlan,
    input_bytes: u64,
) -> CompactionRecord {
    let numbers: Vec<u64> = plan.input_files().collect();
    let layout = zone_layout(&inner.fs, &numbers);
    CompactionRecord {
        job,
        start_level: plan.start_level,
        input_bytes,
        s_same: layout.same_zone_score(numbers.iter().copied()),
        s_inval: layout.invalidation_score(numbers.iter().copied()),
        free_pct: layout.free_pct,
    }
}

fn record_compaction(st: &mut State, plan: &CompactionPlan, read: u64, written: u64) {
    let start = plan.start_level as usize;
    st.stats.compactions += 1;
    if plan.trivial_move {
        st.stats.trivial_moves += 1;
    }
    st.stats.compaction_bytes_read += read;
    st.stats.compaction_bytes_written += written;
    if st.stats.compactions_by_level.len() <= start {
        st.stats.compactions_by_level.resize(start + 1, 0);
    }
    st.stats.compactions_by_level[start] += 1;
}

/// The plan's grandparents as (largest internal key, size), in key order.
fn grandparent_files(
    version: &crate::version::Version,
    plan: &CompactionPlan,
) -> Vec<(Vec<u8>, u64)> {
    let mut g: Vec<(Vec<u8>, u64)> = version
        .all_files()
        .filter(|(l, f)| *l > plan.output_level && plan.grandparents.contains(&f.meta.number))
        .map(|(_, f)| (f.meta.largest.clone(), f.meta.file_size))
        .collect();
    g.sort_by(|a, b| key::compare(&a.0, &b.0));
    g
}

/// What a compaction's merge needs besides the plan.
struct MergeContext {
    job: u64,
    smallest_snapshot: u64,
    base_level: u32,
    /// Grandparent files (largest internal key, size), in key order.
    grandparents: Vec<(Vec<u8>, u64)>,
}

/// RocksDB's `ShouldStopBefore`: cut an output once the grandparent bytes it overlaps plus its
/// own size exceed `max_compaction_bytes`, so no later compaction of it gets too large.
struct GrandparentCut<'a> {
    files: &'a [(Vec<u8>, u64)],
    index: usize,
    overlapped: u64,
    seen_key: bool,
    limit: u64,
}

impl<'a> GrandparentCut<'a> {
    fn new(files: &'a [(Vec<u8>, u64)], limit: u64) -> Self {
        Self {
            files,
            index: 0,
            overlapped: 0,
            seen_key: false,
            limit,
        }
    }

    fn should_stop_before(&mut self, ikey: &[u8], output_size: u64) -> bool {
        while self.index < self.files.len()
            && key::compare(ikey, &self.files[self.index].0) == std::cmp::Ordering::Greater
        {
            if self.seen_key {
                self.overlapped += self.files[self.index].1;
            }
            self.index += 1;
        }
        self.seen_key = true;
        if self.overlapped + output_size > self.limit {
            self.overlapped = 0;
            return true;
        }
        false
    }
}

/// Time a compaction waited for its input blocks, and how many waits there were.
#[derive(Default)]
struct ReadWait {
    ns: u64,
    ops: u64,
}

impl ReadWait {
    /// Counts a step of the merge that took `dt` (one that read nothing takes no time in
    /// simulation).
    fn add(&mut self, dt: u64) {
        if dt > 0 {
            self.ns += dt;
            self.ops += 1;
        }
    }
}

/// Merges the inputs, drops what no snapshot can see, and writes outputs cut at the plan's
/// file size (only between user keys). Returns the outputs and their bytes.
async fn merge_inputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    plan: &CompactionPlan,
    children: Vec<Child<E, D>>,
    ctx: &MergeContext,
) -> Result<(Vec<NewFile>, u64, (u64, u64)), LsmError> {
    let (job, smallest_snapshot, base_level) = (ctx.job, ctx.smallest_snapshot, ctx.base_level);
    let mut gp = GrandparentCut::new(&ctx.grandparents, plan.max_compaction_bytes);
    let mut it = MergingIter::new(children);
    // CompactionRead: time spent waiting for input blocks.
    let mut reads = ReadWait::default();
    let t = inner.env.now();
    it.seek(&[]).await?;
    reads.add(inner.env.now() - t);
    let mut filter = DropFilter::new(smallest_snapshot, plan.bottommost);
    let lifetime = calculate_sst_write_hint(plan.output_level, base_level);
    let mut builder: Option<TableBuilder> = None;
    let mut last_user_key: Vec<u8> = Vec::new();
    let mut entries = 0u64;
    let mut out = Vec::new();
    let mut written = 0;
    while let Some((k, v)) = it.current() {
        entries += 1;
        if filter.keep(k) {
            let uk = key::user_key(k);
            let size = builder
                .as_ref()
                .map_or(0, TableBuilder::estimated_file_size);
            let gp_cut = gp.should_stop_before(k, size);
            let cut = builder.is_some()
                && uk != last_user_key
                && (size >= plan.max_output_file_size || gp_cut);
            if cut && let Some(b) = builder.take() {
                let nf = finish_output(inner, b, plan.output_level, lifetime, job).await?;
                written += nf.file_size;
                out.push(nf);
            }
            builder
                .get_or_insert_with(|| {
                    builder_for(
                        inner,
                        plan.max_output_file_size + plan.max_output_file_size / 8,
                    )
                })
                .add(k, v);
            uk.clone_into(&mut last_user_key);
        }
        if entries.is_multiple_of(256) {
            inner.env.cpu(256 * cost::MERGE_ENTRY_NS).await;
            if inner.lock().closing {
                // RocksDB's close: a running compaction stops (ShutdownInProgress) and its
                // finished outputs, never installed, are deleted; the inputs stay live.
                abandon_outputs(inner, &out).await?;
                return Err(LsmError::Closed);
            }
        }
        let t = inner.env.now();
        it.next().await?;
        reads.add(inner.env.now() - t);
    }
    if let Some(b) = builder.take() {
        let nf = finish_output(inner, b, plan.output_level, lifetime, job).await?;
        written += nf.file_size;
        out.push(nf);
    }
    Ok((out, written, (reads.ns, reads.ops)))
}

/// Deletes a stopped compaction's finished outputs (not in any version).
async fn abandon_outputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    outputs: &[NewFile],
) -> Result<(), LsmError> {
    for f in outputs {
        delete_sst(inner, f.number).await?;
    }
    Ok(())
}

async fn finish_output<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    b: TableBuilder,
    level: u32,
    lifetime: Lifetime,
    job: u64,
) -> Result<NewFile, LsmError> {
    let number = inner.lock().new_file_number();
    let (bytes, props) = b.finish();
    inner
        .env
        .cpu(bytes.len() as u64 / 1024 * cost::BUILD_NS_PER_KIB)
        .await;
    let context = placement_context(
        inner,
        &NewSst {
            number,
            level,
            size: bytes.len() as u64,
            smallest: key::user_key(&props.smallest_key),
            largest: key::user_key(&props.largest_key),
        },
    );
    let nf = write_built(
        &inner.fs,
        &*inner.hints,
        (number, level),
        lifetime,
        &bytes,
        &props,
        job,
        context,
    )
    .await?;
    give_buffer(inner, bytes);
    Ok(nf)
}

/// Table buffers kept for reuse (a fresh one costs a page fault per page).
const SPARE_TABLE_BUFFERS: usize = 2;

/// A table builder whose buffer comes from the pool, sized for about `bytes`.
fn builder_for<E: Env, D: ZonedDevice>(inner: &Inner<E, D>, bytes: u64) -> TableBuilder {
    let buf = inner
        .buffers
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop()
        .unwrap_or_default();
    TableBuilder::with_buffer(
        table_options(&inner.opts),
        buf,
        usize::try_from(bytes).unwrap_or(0),
    )
}

fn give_buffer<E: Env, D: ZonedDevice>(inner: &Inner<E, D>, mut buf: Vec<u8>) {
    let mut pool = inner.buffers.lock().unwrap_or_else(PoisonError::into_inner);
    if pool.len() < SPARE_TABLE_BUFFERS {
        buf.clear();
        pool.push(buf);
    }
}

/// What the placement policy needs to know about a complete SST, from the tree as it is now
/// (`None` when the policy decides from lifetimes alone).
pub(crate) fn placement_context<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    sst: &NewSst<'_>,
) -> Option<SstContext> {
    let needs = inner.fs.options().placement.context_needs();
    if needs.none() {
        return None;
    }
    let levels = file_infos(&inner.lock());
    let targets = level_targets(&levels, &inner.opts);
    let scores = compaction_scores(&levels, &targets, &inner.opts);
    let tree = TreeShape {
        levels: &levels,
        scores: &scores,
        base_level: targets.base_level,
    };
    Some(sst_context(&inner.fs, needs, &tree, sst))
}

/// File number → (zone, bytes) for every SST the zone layer holds, in zone order.
pub(crate) fn zone_view<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
) -> BTreeMap<u64, Vec<(u32, u64)>> {
    let ssts: Vec<(u64, String)> = inner
        .fs
        .list()
        .into_iter()
        .filter_map(|name| match crate::version::manifest::parse_name(&name) {
            Some((n, "sst")) => Some((n, name)),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = ssts.iter().map(|(_, name)| name.as_str()).collect();
    let zones = inner.fs.file_zones(&names);
    ssts.into_iter()
        .zip(zones)
        .map(|((n, _), mut z)| {
            z.sort_unstable_by_key(|&(zone, _)| zone);
            (n, z)
        })
        .collect()
}
