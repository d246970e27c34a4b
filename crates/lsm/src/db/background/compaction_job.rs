//! A compaction job: trivial moves edit only the MANIFEST; merges read the inputs through a
//! merging iterator, leave out entries by the drop rule, cut outputs by output cutting, and
//! install the outputs in place of the inputs. Close stops a running merge and deletes its
//! outputs. With `max_subcompactions` > 1 a merge from L0 into a non-empty level is split at
//! [`subcompaction_boundaries`] into key ranges, each merged by its own task with its own
//! outputs; all outputs are installed together in one version edit.

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::placement::Lifetime;

use super::super::iter::{Child, MergingIter, Tables};
use super::super::zones::{NewSst, zone_layout};
use super::super::{Inner, State};
use super::install::install;
use super::level_view;
use super::merge_ahead;
use super::obsolete::{delete_obsolete, delete_sst, schedule_purge};
use super::output::{builder_for, give_buffer, placement_context, take_buffer, write_built};
use crate::compaction::drop_rule::DropRule;
use crate::compaction::output_cutting::{Grandparent, OutputCutter};
use crate::compaction::subcompaction::{
    SubcompactionLevel, should_form_subcompactions, subcompaction_boundaries,
};
use crate::compaction::{CompactionPlan, calculate_sst_write_hint, level_targets};
use crate::cost;
use crate::db::stats::CompactionRecord;
use crate::hints::{Hint, LevelFiles};
use crate::key;
use crate::sst::TableBuilder;
use crate::version::manifest::sst_name;
use crate::version::{FileMeta, LiveFile, Version, VersionEdit};
use crate::{CorruptionKind, LsmError, LsmErrorKind};

/// How a compaction ended without a hard error.
pub(super) enum Compacted {
    /// Installed (or stopped by a close).
    Done,
    /// Its merge found the device full: nothing installed, its outputs still to delete
    /// (a soft error; [`super::no_space`]).
    OutOfSpace(LsmError),
}

pub(super) async fn compact<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
    plan: &CompactionPlan,
) -> Result<Compacted, LsmError> {
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
        let levels = level_view(&st.version, &st.being_compacted);
        let base = level_targets(&levels, &inner.opts).base_level;
        (st.version.clone(), st.smallest_snapshot(), base)
    };
    let mut edit = VersionEdit::default();
    let done = if plan.trivial_move {
        let mut outputs = Vec::new();
        for i in &plan.inputs {
            for &n in &i.files {
                let f = find_input(&version, i.level, n)?;
                edit.deleted_files.push((i.level, n));
                edit.new_files.push((plan.output_level, f.meta.clone()));
                outputs.push((plan.output_level, n));
            }
        }
        MergeDone {
            outputs,
            ..MergeDone::default()
        }
    } else {
        let at = (smallest_snapshot, base_level);
        let merged = if plan.cascade.is_empty() {
            merge_plan(inner, job, &version, plan, at, &mut edit).await
        } else {
            super::cascade::compact_cascade(inner, job, &version, plan, at, &mut edit).await
        };
        let Some(done) = (match merged {
            Err(e) if e.kind() == LsmErrorKind::NoSpace => return Ok(Compacted::OutOfSpace(e)),
            r => r?,
        }) else {
            return Ok(Compacted::Done);
        };
        done
    };
    let MergeDone {
        read_bytes,
        written,
        record,
        outputs,
    } = done;
    // RocksDB's order: the compaction lets go of its input version as it installs its
    // result, and deletes what that left without a version at its end (its own purge, held
    // until then).
    let _purge = inner.graveyard.hold_purge();
    drop(version);
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
        outputs: by_level(plan.output_level, outputs),
    });
    if inner.opts.avoid_unnecessary_blocking_io {
        schedule_purge(inner, None);
        return Ok(Compacted::Done);
    }
    delete_obsolete(inner).await?;
    Ok(Compacted::Done)
}

/// A merging compaction's result: what the job records and installs.
#[derive(Default)]
pub(super) struct MergeDone {
    pub(super) read_bytes: u64,
    pub(super) written: u64,
    pub(super) record: Option<CompactionRecord>,
    /// (level, file number) of every output.
    pub(super) outputs: Vec<(u32, u64)>,
}

/// Outputs grouped by level, the output level first (as the finished-compaction hint gives
/// them).
fn by_level(output_level: u32, outputs: Vec<(u32, u64)>) -> Vec<LevelFiles> {
    let mut out = vec![LevelFiles {
        level: output_level,
        files: Vec::new(),
    }];
    for (level, n) in outputs {
        match out.iter_mut().find(|l| l.level == level) {
            Some(l) => l.files.push(n),
            None => out.push(LevelFiles {
                level,
                files: vec![n],
            }),
        }
    }
    out
}

/// What every merge does first: the inputs recorded as deleted in `edit` (their bytes
/// returned), the merge's context, and the Same-Zone measures of the inputs.
pub(super) fn begin_merge<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    job: u64,
    version: &Version,
    plan: &CompactionPlan,
    (smallest_snapshot, base_level): (u64, u32),
    edit: &mut VersionEdit,
    grandparents: Vec<Grandparent>,
) -> Result<(u64, MergeContext, CompactionRecord), LsmError> {
    let read_bytes = take_inputs(version, plan, edit)?;
    let ctx = MergeContext {
        job,
        smallest_snapshot,
        base_level,
        grandparents,
        hard_cap: inner.opts.target_file_size_hard_cap,
    };
    Ok((read_bytes, ctx, zone_record(inner, job, plan, read_bytes)))
}

/// Merges a two-level plan (in subcompactions when it is split): its inputs recorded as
/// deleted and its outputs as new files in `edit`. `None` when a close stopped it (its outputs
/// deleted).
async fn merge_plan<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    job: u64,
    version: &Arc<Version>,
    plan: &CompactionPlan,
    (smallest_snapshot, base_level): (u64, u32),
    edit: &mut VersionEdit,
) -> Result<Option<MergeDone>, LsmError> {
    let (read_bytes, ctx, record) = begin_merge(
        inner,
        job,
        version,
        plan,
        (smallest_snapshot, base_level),
        edit,
        grandparent_files(version, plan),
    )?;
    let boundaries = boundaries_of(inner, version, plan)?;
    let (plan, ctx) = (Arc::new(plan.clone()), Arc::new(ctx));
    let snapshot = merge_ahead::Snapshot::take(inner, &plan, read_bytes);
    let merged = if boundaries.is_empty() {
        merge_inputs(inner, version, &plan, &ctx, snapshot.as_ref(), (None, None)).await
    } else {
        run_subcompactions(inner, version, &plan, &ctx, snapshot, boundaries).await
    };
    let (files, written, (read_ns, read_ops)) = match merged {
        Err(LsmError::Closed) => return Ok(None),
        r => r?,
    };
    let level = plan.output_level;
    Ok(Some(finish_merge(
        &mut inner.lock(),
        edit,
        (read_bytes, written, (read_ns, read_ops)),
        record,
        files.into_iter().map(|f| (level, f)),
    )))
}

/// What every merge does last: its read waits counted, its outputs recorded as new files (each
/// at its level) in `edit`.
pub(super) fn finish_merge(
    st: &mut State,
    edit: &mut VersionEdit,
    (read_bytes, written, (read_ns, read_ops)): (u64, u64, (u64, u64)),
    record: CompactionRecord,
    files: impl IntoIterator<Item = (u32, FileMeta)>,
) -> MergeDone {
    let z = &mut st.stats.zone_compaction;
    (z.read_ns, z.read_ops) = (z.read_ns + read_ns, z.read_ops + read_ops);
    let mut outputs = Vec::new();
    for (level, nf) in files {
        outputs.push((level, nf.number));
        edit.new_files.push((level, nf));
    }
    MergeDone {
        read_bytes,
        written,
        record: Some(record),
        outputs,
    }
}

/// Where the plan's merge is split (empty: one merge), as RocksDB's
/// `ShouldFormSubcompactions` and `GenSubcompactionBoundaries` decide.
fn boundaries_of<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    version: &Version,
    plan: &CompactionPlan,
) -> Result<Vec<Vec<u8>>, LsmError> {
    let output_has_inputs = plan
        .inputs
        .iter()
        .any(|i| i.level == plan.output_level && !i.files.is_empty());
    if !should_form_subcompactions(
        inner.opts.max_subcompactions,
        plan.start_level,
        plan.output_level,
        output_has_inputs,
    ) {
        return Ok(Vec::new());
    }
    let mut levels = Vec::new();
    for i in &plan.inputs {
        let mut files = Vec::new();
        for &n in &i.files {
            files.push(find_input(version, i.level, n)?);
        }
        files.sort_by(|a, b| key::compare(&a.meta.smallest, &b.meta.smallest));
        levels.push((i.level, files));
    }
    let metas: Vec<(u32, Vec<&FileMeta>)> = levels
        .iter()
        .map(|(l, f)| (*l, f.iter().map(|f| &f.meta).collect()))
        .collect();
    let inputs: Vec<SubcompactionLevel<'_>> = metas
        .iter()
        .map(|(level, files)| SubcompactionLevel {
            level: *level,
            files,
        })
        .collect();
    Ok(subcompaction_boundaries(
        &inputs,
        plan.output_level,
        inner.opts.max_subcompactions,
        plan.max_output_file_size,
    ))
}

/// Merges the key ranges between `boundaries` in parallel, one task each (RocksDB's
/// subcompactions), and returns their outputs in key order as one merge would. If any range
/// fails, the outputs of the others are deleted and the first failure is returned.
async fn run_subcompactions<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Arc<Version>,
    plan: &Arc<CompactionPlan>,
    ctx: &Arc<MergeContext>,
    snapshot: Option<Arc<merge_ahead::Snapshot>>,
    boundaries: Vec<Vec<u8>>,
) -> Result<MergeOutcome, LsmError> {
    let mut lows: Vec<Option<Vec<u8>>> = vec![None];
    lows.extend(boundaries.iter().cloned().map(Some));
    let mut highs: Vec<Option<Vec<u8>>> = boundaries.into_iter().map(Some).collect();
    highs.push(None);
    inner.lock().stats.subcompactions += highs.len() as u64;
    let mut handles = Vec::new();
    for (lo, hi) in lows.into_iter().zip(highs) {
        let (i, v, p, c) = (inner.clone(), version.clone(), plan.clone(), ctx.clone());
        let snap = snapshot.clone();
        handles.push(inner.env.spawn_background("subcompaction", async move {
            merge_inputs(
                &i,
                &v,
                &p,
                &c,
                snap.as_ref(),
                (lo.as_deref(), hi.as_deref()),
            )
            .await
        }));
    }
    let mut results = Vec::with_capacity(handles.len());
    for h in handles {
        // A task the environment stopped ends the compaction as a close does.
        results.push(h.await.unwrap_or(Err(LsmError::Closed)));
    }
    let mut out = (Vec::new(), 0, (0, 0));
    let mut failed = None;
    for r in results {
        match r {
            Ok((files, w, (ns, ops))) => {
                out.0.extend(files);
                out.1 += w;
                out.2 = (out.2.0 + ns, out.2.1 + ops);
            }
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    if let Some(e) = failed {
        abandon_outputs(inner, &out.0).await?;
        return Err(e);
    }
    Ok(out)
}

/// Input file `n` of `level` in `version`.
pub(super) fn find_input(version: &Version, level: u32, n: u64) -> Result<Arc<LiveFile>, LsmError> {
    version.levels[level as usize]
        .iter()
        .find(|f| f.meta.number == n)
        .cloned()
        .ok_or_else(|| {
            LsmError::corrupt(
                CorruptionKind::Missing,
                &sst_name(n),
                0,
                "compaction input not in the version",
            )
        })
}

/// The inputs' bytes; the inputs are recorded as deleted in `edit`.
pub(super) fn take_inputs(
    version: &Version,
    plan: &CompactionPlan,
    edit: &mut VersionEdit,
) -> Result<u64, LsmError> {
    let mut read_bytes = 0;
    for i in &plan.inputs {
        for &n in &i.files {
            read_bytes += find_input(version, i.level, n)?.meta.file_size;
            edit.deleted_files.push((i.level, n));
        }
    }
    Ok(read_bytes)
}

/// A merge's sources, the level each reads from, and the inputs' bytes.
pub(super) type MergeSources<T> = (Vec<Child<T>>, Vec<u32>, u64);

/// The merge's sources over `tables` (one per L0 file, one per deeper level, each reading
/// through `readahead_bytes` of readahead), the level each reads from, and the inputs' bytes.
pub(super) fn children_of<T: Tables>(
    version: &Version,
    plan: &CompactionPlan,
    tables: &Arc<T>,
    readahead_bytes: u64,
) -> Result<MergeSources<T>, LsmError> {
    let (mut children, mut sources) = (Vec::new(), Vec::new());
    let mut read_bytes = 0;
    for i in &plan.inputs {
        let mut files = Vec::new();
        for &n in &i.files {
            let f = find_input(version, i.level, n)?;
            read_bytes += f.meta.file_size;
            files.push(f);
        }
        if i.level == 0 {
            for f in files {
                children.push(Child::compaction_input(
                    vec![f],
                    tables.clone(),
                    readahead_bytes,
                ));
                sources.push(0);
            }
        } else if !files.is_empty() {
            files.sort_by(|a, b| key::compare(&a.meta.smallest, &b.meta.smallest));
            children.push(Child::compaction_input(
                files,
                tables.clone(),
                readahead_bytes,
            ));
            sources.push(i.level);
        }
    }
    Ok((children, sources, read_bytes))
}

/// The Same-Zone measures of a merging compaction, taken as it starts.
pub(super) fn zone_record<E: Env, D: ZonedDevice>(
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

pub(super) fn record_compaction(st: &mut State, plan: &CompactionPlan, read: u64, written: u64) {
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

/// The plan's grandparents, in key order.
pub(super) fn grandparent_files(
    version: &crate::version::Version,
    plan: &CompactionPlan,
) -> Vec<Grandparent> {
    let mut g: Vec<Grandparent> = version
        .all_files()
        .filter(|(l, f)| *l > plan.output_level && plan.grandparents.contains(&f.meta.number))
        .map(|(_, f)| Grandparent {
            largest: f.meta.largest.clone(),
            size: f.meta.file_size,
        })
        .collect();
    g.sort_by(|a, b| key::compare(&a.largest, &b.largest));
    g
}

/// What a compaction's merge needs besides the plan.
pub(super) struct MergeContext {
    pub(super) job: u64,
    pub(super) smallest_snapshot: u64,
    pub(super) base_level: u32,
    /// Grandparent files, in key order.
    pub(super) grandparents: Vec<Grandparent>,
    /// `target_file_size_hard_cap`: outputs end before they would pass their target.
    pub(super) hard_cap: bool,
}

/// A merge's outputs, their bytes, and the time it waited for input reads (ns, waits).
pub(super) type MergeOutcome = (Vec<FileMeta>, u64, (u64, u64));

/// Time a compaction waited for its input blocks, and how many waits there were.
#[derive(Default)]
pub(super) struct ReadWait {
    ns: u64,
    ops: u64,
}

impl ReadWait {
    /// Counts a step of the merge that took `dt` (one that read nothing takes no time in
    /// simulation).
    pub(super) fn add(&mut self, dt: u64) {
        if dt > 0 {
            self.ns += dt;
            self.ops += 1;
        }
    }

    /// (ns, waits).
    pub(super) fn pair(&self) -> (u64, u64) {
        (self.ns, self.ops)
    }
}

/// The open output's size as output cutting judges it before `k` is added: with `hard_cap`,
/// what the finished file would take with the entry in it; otherwise its estimate so far.
pub(super) fn open_size(b: &TableBuilder, k: &[u8], value_len: u64, hard_cap: bool) -> u64 {
    if hard_cap {
        b.final_size_with(k, value_len)
    } else {
        b.estimated_file_size()
    }
}

/// The CPU cost of the last 256 merged entries, their blocks decompressed with `compression`
/// (`input_bytes`, merged since the last charge, keeps its remainder below 1 KiB).
pub(super) fn merge_charge_ns(
    compression: crate::options::Compression,
    input_bytes: &mut u64,
) -> u64 {
    let decompress = cost::decompress_ns(compression, *input_bytes);
    *input_bytes %= 1024;
    256 * cost::MERGE_ENTRY_NS + decompress
}

/// Merges the inputs with user keys in `range` (from the first, inclusive, to the second,
/// exclusive; `None`: unbounded), drops what no snapshot can see, and writes outputs cut at
/// the plan's file size (only between user keys). Returns the outputs and their bytes. With a
/// `snapshot` of the inputs and an environment that computes beside its executor, the merge
/// runs ahead on another thread and this task replays its I/O ([`merge_ahead`]).
pub(super) async fn merge_inputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Arc<Version>,
    plan: &Arc<CompactionPlan>,
    ctx: &Arc<MergeContext>,
    snapshot: Option<&Arc<merge_ahead::Snapshot>>,
    range: (Option<&[u8]>, Option<&[u8]>),
) -> Result<MergeOutcome, LsmError> {
    let lifetime = calculate_sst_write_hint(plan.output_level, ctx.base_level);
    if let Some(snap) = snapshot {
        let owned = (range.0.map(<[u8]>::to_vec), range.1.map(<[u8]>::to_vec));
        if let Some(rx) = merge_ahead::start(inner, version, plan, ctx, snap, owned) {
            let sink = ReplaySink::new(inner, plan.output_level, lifetime, ctx.job)
                .with_temp_after(plan.temp_after.clone());
            return merge_ahead::replay(inner, rx, sink).await;
        }
    }
    let (children, _, _) = children_of(
        version,
        plan,
        &inner.tables,
        inner.opts.compaction_readahead_size,
    )?;
    let mut it = MergingIter::new(children);
    let mut sink = ReplaySink::new(inner, plan.output_level, lifetime, ctx.job)
        .with_temp_after(plan.temp_after.clone());
    merge_loop(&mut it, &mut sink, plan, ctx, range, inner.opts.compression).await?;
    Ok(sink.outcome())
}

/// What a merge does besides moving through entries: the merge loop calls these in order,
/// and a compaction either does them at once ([`ReplaySink`]) or records them on a worker
/// thread for its task to replay ([`merge_ahead`]).
pub(super) trait MergeSink {
    /// A builder for the next output, sized for about `bytes`.
    fn builder(&mut self, bytes: u64) -> TableBuilder;
    /// Before a seek or step of the merging iterator.
    fn before_io(&mut self);
    /// After it.
    fn after_io(&mut self);
    /// An output is complete.
    fn cut(&mut self, b: TableBuilder) -> impl Future<Output = Result<(), LsmError>> + Send;
    /// CPU work of `cost_ns` for `entries` merged entries; `Err(Closed)` stops the merge.
    fn charge(
        &mut self,
        cost_ns: u64,
        entries: u64,
    ) -> impl Future<Output = Result<(), LsmError>> + Send;
}

/// The merge: entries of `it` with user keys in `range`, filtered by the drop rule, cut into
/// outputs by output cutting, with a CPU charge every 256 entries.
pub(super) async fn merge_loop<T: Tables, K: MergeSink>(
    it: &mut MergingIter<T>,
    sink: &mut K,
    plan: &CompactionPlan,
    ctx: &MergeContext,
    range: (Option<&[u8]>, Option<&[u8]>),
    compression: crate::options::Compression,
) -> Result<(), LsmError> {
    let mut cutter = OutputCutter::new(
        &ctx.grandparents,
        plan.max_output_file_size,
        plan.max_compaction_bytes,
    )
    .with_split_at(plan.split_at.as_deref())
    .with_split_also(plan.temp_after.as_deref())
    .with_hard_cap(ctx.hard_cap);
    // CompactionRead: time spent waiting for input blocks.
    sink.before_io();
    match range.0 {
        Some(lo) => it.seek(&key::lookup_key(lo, key::MAX_SEQUENCE)).await?,
        None => it.seek(&[]).await?,
    }
    sink.after_io();
    let mut filter = DropRule::new(ctx.smallest_snapshot, plan.bottommost);
    let mut builder: Option<TableBuilder> = None;
    let mut entries = 0u64;
    // Input bytes (keys and values) merged since the last CPU charge: their blocks were
    // decompressed (as the inputs were written with the same codec).
    let mut input_bytes = 0u64;
    let out_bytes = plan.max_output_file_size + plan.max_output_file_size / 8;
    while let Some((k, v)) = it.current() {
        if range.1.is_some_and(|hi| key::user_key(k) >= hi) {
            break;
        }
        entries += 1;
        let value_len = crate::elided::logical_entry_value_len(k, v);
        input_bytes += k.len() as u64 + value_len;
        if filter.keep(k) {
            let open = builder
                .as_ref()
                .map(|b| open_size(b, k, value_len, ctx.hard_cap));
            if cutter.cut_before(k, open)
                && let Some(b) = builder.take()
            {
                sink.cut(b).await?;
            }
            builder
                .get_or_insert_with(|| sink.builder(out_bytes))
                .add(k, v);
        }
        if entries.is_multiple_of(256) {
            sink.charge(merge_charge_ns(compression, &mut input_bytes), 256)
                .await?;
        }
        sink.before_io();
        it.next().await?;
        sink.after_io();
    }
    if let Some(b) = builder.take() {
        sink.cut(b).await?;
    }
    Ok(())
}

/// The compaction task's side of a merge: outputs numbered, placed and written, CPU charged,
/// input read waits timed.
pub(super) struct ReplaySink<'a, E: Env, D: ZonedDevice> {
    inner: &'a Arc<Inner<E, D>>,
    level: u32,
    lifetime: Lifetime,
    job: u64,
    out: Vec<FileMeta>,
    written: u64,
    reads: ReadWait,
    io_started: u64,
    /// Outputs whose keys all lie past this user key are temporary ([`CompactionPlan::temp_after`]).
    temp_after: Option<Vec<u8>>,
}

impl<'a, E: Env, D: ZonedDevice> ReplaySink<'a, E, D> {
    pub(super) fn new(
        inner: &'a Arc<Inner<E, D>>,
        level: u32,
        lifetime: Lifetime,
        job: u64,
    ) -> Self {
        Self {
            inner,
            level,
            lifetime,
            job,
            out: Vec::new(),
            written: 0,
            reads: ReadWait::default(),
            io_started: 0,
            temp_after: None,
        }
    }

    /// Marks outputs past `temp_after` temporary.
    pub(super) fn with_temp_after(mut self, temp_after: Option<Vec<u8>>) -> Self {
        self.temp_after = temp_after;
        self
    }

    /// An output built (or failed to build) elsewhere: numbered, placed and written now.
    pub(super) async fn cut_built(
        &mut self,
        built: Result<crate::sst::BuiltTable, LsmError>,
    ) -> Result<(), LsmError> {
        let number = self.inner.lock().new_file_number();
        let built = built?;
        let temp = self
            .temp_after
            .as_deref()
            .is_some_and(|t| key::user_key(&built.props.smallest_key) > t);
        let nf = finish_built(
            self.inner,
            number,
            built,
            (self.level, temp),
            self.lifetime,
            self.job,
        )
        .await?;
        if temp {
            self.inner.lock().stats.temp_ssts_written += 1;
        }
        self.written += nf.file_size;
        self.out.push(nf);
        Ok(())
    }

    /// The outputs, their bytes and the read waits.
    pub(super) fn outcome(self) -> MergeOutcome {
        (self.out, self.written, (self.reads.ns, self.reads.ops))
    }
}

impl<E: Env, D: ZonedDevice> MergeSink for ReplaySink<'_, E, D> {
    fn builder(&mut self, bytes: u64) -> TableBuilder {
        builder_for(self.inner, bytes)
    }

    fn before_io(&mut self) {
        self.io_started = self.inner.env.now();
    }

    fn after_io(&mut self) {
        self.reads.add(self.inner.env.now() - self.io_started);
    }

    async fn cut(&mut self, b: TableBuilder) -> Result<(), LsmError> {
        // Building touches nothing the simulation sees: numbering after it is as before it.
        self.cut_built(b.finish_elided()).await
    }

    async fn charge(&mut self, cost_ns: u64, _entries: u64) -> Result<(), LsmError> {
        self.inner.env.cpu(cost_ns).await;
        if self.inner.lock().closing {
            // RocksDB's close: a running compaction stops (ShutdownInProgress) and its
            // finished outputs, never installed, are deleted; the inputs stay live.
            abandon_outputs(self.inner, &self.out).await?;
            return Err(LsmError::Closed);
        }
        Ok(())
    }
}

/// Deletes a stopped compaction's finished outputs (not in any version).
pub(super) async fn abandon_outputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    outputs: &[FileMeta],
) -> Result<(), LsmError> {
    for f in outputs {
        delete_sst(inner, f.number).await?;
    }
    if !outputs.is_empty() {
        inner.fs.reset_unused().await?;
    }
    Ok(())
}

/// A built output numbered `number`: its CPU charged, placed, written; its buffer back in
/// the pool.
pub(super) async fn finish_built<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    number: u64,
    built: crate::sst::BuiltTable,
    (level, temp): (u32, bool),
    lifetime: Lifetime,
    job: u64,
) -> Result<FileMeta, LsmError> {
    let compression = inner.opts.compression;
    let (bytes, props) = (&built.bytes, &built.props);
    inner
        .env
        .cpu(
            bytes.len() / 1024 * cost::BUILD_NS_PER_KIB
                + cost::compress_ns(compression, props.raw_key_size + props.raw_value_size),
        )
        .await;
    let context = placement_context(
        inner,
        &NewSst {
            number,
            level,
            size: bytes.len(),
            smallest: key::user_key(&props.smallest_key),
            largest: key::user_key(&props.largest_key),
            temp,
        },
    );
    inner.lock().space.output_started(job, number);
    let nf = write_built(
        &inner.fs,
        &*inner.hints,
        (number, level),
        lifetime,
        bytes,
        props,
        job,
        context,
    )
    .await?;
    inner.lock().space.output_written(job, nf.file_size);
    give_buffer(inner, take_buffer(built));
    Ok(nf)
}
