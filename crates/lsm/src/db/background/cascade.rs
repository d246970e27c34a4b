//! A gear compaction's merge (`compaction_scheme = "gear"`, [`crate::compaction::gear`]): one
//! merging iterator over every input, from the start level down to the deepest level the
//! cascade reached; each entry goes to the output stream of the level
//! [`crate::compaction::gear::destination`] names (by the level it was read from and its user
//! key), and each stream has its own drop rule, output cutting and outputs. Runs as one task
//! (no subcompactions, no merge ahead).

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use super::super::Inner;
use super::super::iter::{Child, MergingIter};
use super::super::source::TableCache;
use super::compaction_job::{
    MergeContext, MergeDone, MergeSink, ReadWait, ReplaySink, abandon_outputs, begin_merge,
    children_of, find_input, finish_merge, merge_charge_ns, open_size,
};
use crate::LsmError;
use crate::compaction::CompactionPlan;
use crate::compaction::calculate_sst_write_hint;
use crate::compaction::drop_rule::DropRule;
use crate::compaction::gear::{CascadeLevel, destination};
use crate::compaction::levels::{max_file_size_for_level, overlaps};
use crate::compaction::output_cutting::{Grandparent, OutputCutter};
use crate::key;
use crate::sst::TableBuilder;
use crate::version::{FileMeta, Version, VersionEdit};

/// The outputs by level, their bytes, and the time the merge waited for input reads (ns,
/// waits).
pub(super) type CascadeOutcome = (Vec<(u32, FileMeta)>, u64, (u64, u64));

/// Runs a gear compaction's merge: its inputs recorded as deleted and its outputs as new files
/// (each at its level) in `edit`, the engine's counters updated. `None` when a close stopped it
/// (its outputs deleted).
pub(super) async fn compact_cascade<E: Env, D: ZonedDevice>(
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
        Vec::new(),
    )?;
    let (files, written, (read_ns, read_ops)) =
        match merge_cascade(inner, version, plan, &ctx).await {
            Err(LsmError::Closed) => return Ok(None),
            r => r?,
        };
    let mut st = inner.lock();
    st.stats.gear_cascades += 1;
    st.stats.gear_cascade_levels += plan.cascade.len() as u64;
    st.stats.gear_cascade_bytes_written += files
        .iter()
        .filter(|(level, _)| *level > plan.output_level)
        .map(|(_, f)| f.file_size)
        .sum::<u64>();
    Ok(Some(finish_merge(
        &mut st,
        edit,
        (read_bytes, written, (read_ns, read_ops)),
        record,
        files,
    )))
}

/// One output level's part of the merge.
struct Stream<'a, 'g, E: Env, D: ZonedDevice> {
    /// The level's spans, for a cascade level (`None` at the output level).
    cascade: Option<&'g CascadeLevel>,
    /// The span the open output's keys lie in.
    span: Option<usize>,
    rule: DropRule,
    cutter: OutputCutter<'g>,
    builder: Option<TableBuilder>,
    out_bytes: u64,
    sink: ReplaySink<'a, E, D>,
}

/// Merges a gear compaction's inputs into outputs at the output level and every cascade level.
pub(super) async fn merge_cascade<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Arc<Version>,
    plan: &CompactionPlan,
    ctx: &MergeContext,
) -> Result<CascadeOutcome, LsmError> {
    let (children, sources, _) = children_of(
        version,
        plan,
        &inner.tables,
        inner.opts.compaction_readahead_size,
    )?;
    let (lo, hi) = inputs_range(version, plan)?;
    let deepest = plan.cascade.last().map_or(plan.output_level, |c| c.level);
    let levels: Vec<u32> = (plan.output_level..=deepest).collect();
    let grandparents: BTreeMap<u32, Vec<Grandparent>> = levels
        .iter()
        .map(|&d| (d, grandparents_below(version, d, &lo, &hi)))
        .collect();
    let mut streams: BTreeMap<u32, Stream<'_, '_, E, D>> = BTreeMap::new();
    for &d in &levels {
        let max_file = if d == plan.output_level {
            plan.max_output_file_size
        } else {
            max_file_size_for_level(d, ctx.base_level, &inner.opts)
        };
        let bottommost = version.levels[d as usize + 1..]
            .iter()
            .flatten()
            .all(|f| !overlaps(&f.meta, &lo, &hi));
        let lifetime = calculate_sst_write_hint(d, ctx.base_level);
        streams.insert(
            d,
            Stream {
                cascade: plan.cascade.iter().find(|c| c.level == d),
                span: None,
                rule: DropRule::new(ctx.smallest_snapshot, bottommost),
                cutter: OutputCutter::new(&grandparents[&d], max_file, plan.max_compaction_bytes)
                    .with_hard_cap(ctx.hard_cap),
                builder: None,
                out_bytes: max_file + max_file / 8,
                sink: ReplaySink::new(inner, d, lifetime, ctx.job),
            },
        );
    }
    let reads = match run(inner, &mut streams, children, &sources, plan, ctx).await {
        Ok(r) => r,
        Err(e) => {
            if matches!(e, LsmError::Closed) {
                // RocksDB's close: the finished outputs, never installed, are deleted.
                for s in streams.into_values() {
                    let (files, _, _) = s.sink.outcome();
                    abandon_outputs(inner, &files).await?;
                }
            }
            return Err(e);
        }
    };
    let mut out = (Vec::new(), 0, reads);
    for (d, s) in streams {
        let (files, written, _) = s.sink.outcome();
        out.1 += written;
        out.0.extend(files.into_iter().map(|f| (d, f)));
    }
    Ok(out)
}

/// The merge loop; returns the time it waited for input reads.
async fn run<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    streams: &mut BTreeMap<u32, Stream<'_, '_, E, D>>,
    children: Vec<Child<TableCache<E, D>>>,
    sources: &[u32],
    plan: &CompactionPlan,
    ctx: &MergeContext,
) -> Result<(u64, u64), LsmError> {
    let mut it = MergingIter::new(children);
    let mut reads = ReadWait::default();
    let t0 = inner.env.now();
    it.seek(&[]).await?;
    reads.add(inner.env.now() - t0);
    let compression = inner.opts.compression;
    let (mut entries, mut input_bytes) = (0u64, 0u64);
    while let Some((k, v)) = it.current() {
        let source = it.current_child().map_or(plan.output_level, |c| sources[c]);
        let dest = destination(plan.output_level, &plan.cascade, source, key::user_key(k));
        entries += 1;
        let value_len = crate::elided::logical_entry_value_len(k, v);
        input_bytes += k.len() as u64 + value_len;
        if let Some(s) = streams.get_mut(&dest)
            && s.rule.keep(k)
        {
            let open = s
                .builder
                .as_ref()
                .map(|b| open_size(b, k, value_len, ctx.hard_cap));
            // An output at a cascade level stays within one span (between spans lie files of
            // the level the cascade leaves in place).
            let span = s.cascade.and_then(|c| c.span_of(key::user_key(k)));
            let left_span = s.builder.is_some() && span != s.span;
            if (s.cutter.cut_before(k, open) || left_span)
                && let Some(b) = s.builder.take()
            {
                s.sink.cut(b).await?;
            }
            s.span = span;
            let bytes = s.out_bytes;
            let sink = &mut s.sink;
            s.builder
                .get_or_insert_with(|| sink.builder(bytes))
                .add(k, v);
        }
        if entries.is_multiple_of(256) {
            inner
                .env
                .cpu(merge_charge_ns(compression, &mut input_bytes))
                .await;
            if inner.lock().closing {
                return Err(LsmError::Closed);
            }
        }
        let t0 = inner.env.now();
        it.next().await?;
        reads.add(inner.env.now() - t0);
    }
    for s in streams.values_mut() {
        if let Some(b) = s.builder.take() {
            s.sink.cut(b).await?;
        }
    }
    Ok(reads.pair())
}

/// The smallest and largest user key over every input of `plan`.
fn inputs_range(version: &Version, plan: &CompactionPlan) -> Result<(Vec<u8>, Vec<u8>), LsmError> {
    let mut range: Option<(Vec<u8>, Vec<u8>)> = None;
    for i in &plan.inputs {
        for &n in &i.files {
            let file = find_input(version, i.level, n)?;
            let (first, last) = (
                key::user_key(&file.meta.smallest).to_vec(),
                key::user_key(&file.meta.largest).to_vec(),
            );
            range = Some(match range {
                None => (first, last),
                Some((lo, hi)) => (lo.min(first), hi.max(last)),
            });
        }
    }
    Ok(range.unwrap_or_default())
}

/// The files of level `d + 1` overlapping `[lo, hi]`, as output cutting's grandparents for
/// outputs at `d`, in key order.
fn grandparents_below(version: &Version, d: u32, lo: &[u8], hi: &[u8]) -> Vec<Grandparent> {
    let mut g: Vec<Grandparent> = version
        .levels
        .get(d as usize + 1)
        .into_iter()
        .flatten()
        .filter(|f| overlaps(&f.meta, lo, hi))
        .map(|f| Grandparent {
            largest: f.meta.largest.clone(),
            size: f.meta.file_size,
        })
        .collect();
    g.sort_by(|a, b| key::compare(&a.largest, &b.largest));
    g
}
