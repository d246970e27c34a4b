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

use super::super::iter::{Child, MergingIter};
use super::super::zones::{NewSst, zone_layout};
use super::super::{Inner, State};
use super::install::install;
use super::level_view;
use super::obsolete::{delete_obsolete, delete_sst};
use super::output::{builder_for, give_buffer, placement_context, take_buffer, write_built};
use crate::LsmError;
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

pub(super) async fn compact<E: Env, D: ZonedDevice>(
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
        let levels = level_view(&st.version, &st.being_compacted);
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
                edit.new_files.push((plan.output_level, f.meta.clone()));
            }
        }
        outputs = edit.new_files.iter().map(|(_, f)| f.number).collect();
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
        let boundaries = boundaries_of(inner, &version, plan)?;
        let merged = if boundaries.is_empty() {
            merge_inputs(inner, plan, children, &ctx, (None, None)).await
        } else {
            drop(children);
            run_subcompactions(inner, &version, plan, ctx, boundaries).await
        };
        let (files, w, (read_ns, read_ops)) = match merged {
            Err(LsmError::Closed) => return Ok(()),
            r => r?,
        };
        written = w;
        let z = &mut inner.lock().stats.zone_compaction;
        (z.read_ns, z.read_ops) = (z.read_ns + read_ns, z.read_ops + read_ops);
        for nf in files {
            outputs.push(nf.number);
            edit.new_files.push((plan.output_level, nf));
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
    plan: &CompactionPlan,
    ctx: MergeContext,
    boundaries: Vec<Vec<u8>>,
) -> Result<(Vec<FileMeta>, u64, (u64, u64)), LsmError> {
    let (plan, ctx) = (Arc::new(plan.clone()), Arc::new(ctx));
    let mut lows: Vec<Option<Vec<u8>>> = vec![None];
    lows.extend(boundaries.iter().cloned().map(Some));
    let mut highs: Vec<Option<Vec<u8>>> = boundaries.into_iter().map(Some).collect();
    highs.push(None);
    inner.lock().stats.subcompactions += highs.len() as u64;
    let mut handles = Vec::new();
    for (lo, hi) in lows.into_iter().zip(highs) {
        let (i, v, p, c) = (inner.clone(), version.clone(), plan.clone(), ctx.clone());
        handles.push(inner.env.spawn_background("subcompaction", async move {
            let (children, _) = input_children(&i, &v, &p, &mut VersionEdit::default())?;
            merge_inputs(&i, &p, children, &c, (lo.as_deref(), hi.as_deref())).await
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
        .ok_or_else(|| LsmError::corruption(&sst_name(n), 0, "compaction input not in the version"))
}

/// The merge's sources (one per L0 file, one per deeper level) and their bytes; the inputs
/// are recorded as deleted in `edit`.
pub(super) fn input_children<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Version,
    plan: &CompactionPlan,
    edit: &mut VersionEdit,
) -> Result<(Vec<Child<E, D>>, u64), LsmError> {
    let mut children = Vec::new();
    let mut read_bytes = 0;
    let ra = inner.opts.compaction_readahead_size;
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
                children.push(Child::compaction_input(vec![f], inner.tables.clone(), ra));
            }
        } else if !files.is_empty() {
            files.sort_by(|a, b| key::compare(&a.meta.smallest, &b.meta.smallest));
            children.push(Child::compaction_input(files, inner.tables.clone(), ra));
        }
    }
    Ok((children, read_bytes))
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
    job: u64,
    smallest_snapshot: u64,
    base_level: u32,
    /// Grandparent files, in key order.
    grandparents: Vec<Grandparent>,
}

/// Time a compaction waited for its input blocks, and how many waits there were.
#[derive(Default)]
pub(super) struct ReadWait {
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

/// Merges the inputs with user keys in `range` (from the first, inclusive, to the second,
/// exclusive; `None`: unbounded), drops what no snapshot can see, and writes outputs cut at
/// the plan's file size (only between user keys). Returns the outputs and their bytes.
pub(super) async fn merge_inputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    plan: &CompactionPlan,
    children: Vec<Child<E, D>>,
    ctx: &MergeContext,
    range: (Option<&[u8]>, Option<&[u8]>),
) -> Result<(Vec<FileMeta>, u64, (u64, u64)), LsmError> {
    let (job, smallest_snapshot, base_level) = (ctx.job, ctx.smallest_snapshot, ctx.base_level);
    let mut cutter = OutputCutter::new(
        &ctx.grandparents,
        plan.max_output_file_size,
        plan.max_compaction_bytes,
    );
    let mut it = MergingIter::new(children);
    // CompactionRead: time spent waiting for input blocks.
    let mut reads = ReadWait::default();
    let t = inner.env.now();
    match range.0 {
        Some(lo) => it.seek(&key::lookup_key(lo, key::MAX_SEQUENCE)).await?,
        None => it.seek(&[]).await?,
    }
    reads.add(inner.env.now() - t);
    let mut filter = DropRule::new(smallest_snapshot, plan.bottommost);
    let lifetime = calculate_sst_write_hint(plan.output_level, base_level);
    let mut builder: Option<TableBuilder> = None;
    let mut entries = 0u64;
    // Input bytes (keys and values) merged since the last CPU charge: their blocks were
    // decompressed (as the inputs were written with the same codec).
    let mut input_bytes = 0u64;
    let mut out = Vec::new();
    let mut written = 0;
    while let Some((k, v)) = it.current() {
        if range.1.is_some_and(|hi| key::user_key(k) >= hi) {
            break;
        }
        entries += 1;
        input_bytes += k.len() as u64 + crate::elided::logical_entry_value_len(k, v);
        if filter.keep(k) {
            let open = builder.as_ref().map(TableBuilder::estimated_file_size);
            if cutter.cut_before(k, open)
                && let Some(b) = builder.take()
            {
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
        }
        if entries.is_multiple_of(256) {
            let decompress = cost::decompress_ns(inner.opts.compression, input_bytes);
            input_bytes %= 1024;
            inner.env.cpu(256 * cost::MERGE_ENTRY_NS + decompress).await;
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
pub(super) async fn abandon_outputs<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    outputs: &[FileMeta],
) -> Result<(), LsmError> {
    for f in outputs {
        delete_sst(inner, f.number).await?;
    }
    Ok(())
}

pub(super) async fn finish_output<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    b: TableBuilder,
    level: u32,
    lifetime: Lifetime,
    job: u64,
) -> Result<FileMeta, LsmError> {
    let number = inner.lock().new_file_number();
    let compression = b.compression();
    let built = b.finish_elided()?;
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
        },
    );
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
    give_buffer(inner, take_buffer(built));
    Ok(nf)
}
