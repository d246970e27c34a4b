//! What one simulation of a study measured ([`Figures`]), its place in the study
//! ([`CellResult`]), and the mean and spread of a figure over seeds.

use serde::{Deserialize, Serialize};

use crate::experiment::{RunReport, Sample};

/// What one simulation measured, under the names the issue and the papers use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Operations (puts) of the measured phases.
    pub ops: u64,
    /// PUT throughput, virtual time.
    pub ops_per_s: f64,
    /// User bytes written per second (MB/s).
    pub mb_per_s: f64,
    /// Device bytes written / user bytes written (the tree's and the zone layer's).
    pub write_amplification: f64,
    /// The zone layer's alone: device bytes written / bytes the engine wrote to files
    /// (what the OAZA slides call the write amplification factor).
    pub zone_write_amplification: f64,
    /// Bytes copied by zone cleaning.
    pub gc_copied_bytes: u64,
    /// Zone resets (all: cleaning victims, zones emptied by deletes, metadata).
    pub zone_resets: u64,
    /// Zone resets of cleaning victims ("reclaimed by ZC"; the paper's figure 12).
    #[serde(default)]
    pub gc_zone_resets: u64,
    /// Mean of the per-level mean `S_same`.
    pub s_same_avg: f64,
    /// Mean `S_same` per start level.
    pub s_same_by_level: Vec<Option<f64>>,
    /// Mean `S_inval`.
    pub s_inval_avg: f64,
    /// CompactionRead: mean wait per input read, µs.
    pub compaction_read_latency_us: f64,
    /// CompactionRead: MB/s.
    pub compaction_read_mb_per_s: f64,
    /// Mean compaction victim (input) bytes.
    pub victim_bytes_avg: f64,
    /// Write stall time, s.
    pub stall_s: f64,
    /// I/O blocking time on zone allocation and cleaning, s.
    pub io_blocking_s: f64,
    /// Flushes per second and compactions per second of virtual time.
    pub flushes_per_s: f64,
    /// Compactions per second.
    pub compactions_per_s: f64,
    /// Share of SST zone allocations that CAZA's or OAZA's own rules placed (the rest fell
    /// back to LIZA), percent; 0 for LIZA.
    pub context_placement_pct: f64,
    /// Virtual seconds of the measured phases.
    #[serde(default)]
    pub run_s: f64,
    /// The last phase alone, and the tree at the end (studies that measure one phase after a
    /// load: [`Self::with_measured`]). Left out of JSON when not taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// On a hybrid device: each phase's traffic per device ([`HybridPhase`]), first the load,
    /// last the measured phase, and the tree's bytes per level and device at the end. Left out
    /// of JSON on one device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridFigures>,
}

/// One phase of a run on a hybrid device.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HybridPhase {
    /// Operations.
    pub ops: u64,
    /// Throughput, virtual time.
    pub ops_per_s: f64,
    /// P99 latency, µs.
    pub latency_us_p99: f64,
    /// P99.9.
    pub latency_us_p999: f64,
    /// P99.99.
    pub latency_us_p9999: f64,
    /// Bytes written to the SSD.
    pub ssd_write_bytes: u64,
    /// Bytes written to the HDD.
    pub hdd_write_bytes: u64,
    /// Bytes read from the SSD.
    pub ssd_read_bytes: u64,
    /// Bytes read from the HDD.
    pub hdd_read_bytes: u64,
    /// The SSD's share of the bytes read (0 when nothing was read).
    pub ssd_read_share: f64,
    /// Bytes migration copied between the devices.
    pub migrated_bytes: u64,
    /// How the phase's query reads spread over SSTs (the paper's O4).
    #[serde(default)]
    pub sst_reads: SstReadSkew,
}

/// How a phase's query reads (reads reaching the zone layer on behalf of a query: block-cache
/// misses, mostly data blocks) spread over SSTs: the paper's O4, some SSTs far hotter than
/// others. The hottest `p`% are the `ceil(p% x ssts_read)` SSTs with the most reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SstReadSkew {
    /// SSTs read at least once in the phase.
    pub ssts_read: u64,
    /// Query reads of SSTs in the phase.
    pub reads: u64,
    /// Share of the reads the hottest SST took.
    pub top_sst_share: f64,
    /// Share of the reads the hottest 1% of the SSTs read took.
    pub top1pct_share: f64,
    /// Share of the reads the hottest 10% took.
    pub top10pct_share: f64,
}

impl SstReadSkew {
    /// From each SST's reads so far at the start (`before`) and at the end (`after`) of a
    /// phase, by file id.
    pub fn between(
        before: &std::collections::BTreeMap<u64, u64>,
        after: &std::collections::BTreeMap<u64, u64>,
    ) -> Self {
        let per: Vec<u64> = after
            .iter()
            .map(|(id, n)| n.saturating_sub(before.get(id).copied().unwrap_or(0)))
            .filter(|&n| n > 0)
            .collect();
        Self::of(per)
    }

    /// From each SST's reads in a phase (SSTs without reads may be left out).
    pub fn of(mut per: Vec<u64>) -> Self {
        per.retain(|&n| n > 0);
        per.sort_unstable_by(|a, b| b.cmp(a));
        let reads: u64 = per.iter().sum();
        let n = per.len() as u64;
        let share = |pct: u64| {
            if reads == 0 {
                return 0.0;
            }
            // ceil(pct% of n), at least one SST.
            let k = usize::try_from(n.saturating_mul(pct).div_ceil(100).max(1)).unwrap_or(0);
            per.iter().take(k).sum::<u64>() as f64 / reads as f64
        };
        Self {
            ssts_read: n,
            reads,
            top_sst_share: per.first().map_or(0.0, |&m| m as f64 / reads.max(1) as f64),
            top1pct_share: share(1),
            top10pct_share: share(10),
        }
    }
}

/// A run on a hybrid device.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HybridFigures {
    /// Each phase (benchmark), in order.
    pub phases: Vec<HybridPhase>,
    /// SST bytes of each level at the end, `(on the SSD, on the HDD)`.
    pub level_tier_bytes: Vec<(u64, u64)>,
    /// The largest bytes each level held over the run (sampled).
    pub level_max_bytes: Vec<u64>,
    /// Reads the SSD cache served.
    pub ssd_cache_hits: u64,
    /// The SSD cache over the run: evicted blocks offered, of those refused because their
    /// SST was not on the HDD, blocks written to cache zones, queued blocks dropped for want
    /// of a cache zone, query reads that looked the cache up.
    #[serde(default)]
    pub ssd_cache: SsdCacheTrace,
}

/// What the SSD cache did over a run (HHZS's caching; all 0 without it).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SsdCacheTrace {
    /// Evicted blocks the engine offered.
    pub offered: u64,
    /// Of those, refused: their SST not on the HDD.
    pub offered_not_on_hdd: u64,
    /// Blocks written to cache zones.
    pub admissions: u64,
    /// Queued blocks dropped for want of a cache zone.
    pub dropped_no_zone: u64,
    /// Query reads of SSTs that looked the cache up.
    pub lookups: u64,
    /// Reads it served.
    pub hits: u64,
}

impl HybridFigures {
    /// From a run on a hybrid device (`None` on one device).
    pub fn of(r: &RunReport) -> Option<Self> {
        r.hybrid_device?;
        let phases = r
            .benchmarks
            .iter()
            .zip(&r.phase_marks)
            .map(|(b, (before, after))| {
                let (h0, h1) = (
                    before.hybrid.unwrap_or_default(),
                    after.hybrid.unwrap_or_default(),
                );
                let d = |a: u64, b: u64| b.saturating_sub(a);
                let ssd_read = d(h0.ssd.bytes_read, h1.ssd.bytes_read);
                let hdd_read = d(h0.hdd.bytes_read, h1.hdd.bytes_read);
                HybridPhase {
                    ops: b.ops,
                    ops_per_s: b.ops_per_sec(),
                    latency_us_p99: b.latency.p99_us,
                    latency_us_p999: b.latency.p999_us,
                    latency_us_p9999: b.latency.p9999_us,
                    ssd_write_bytes: d(h0.ssd.bytes_written, h1.ssd.bytes_written),
                    hdd_write_bytes: d(h0.hdd.bytes_written, h1.hdd.bytes_written),
                    ssd_read_bytes: ssd_read,
                    hdd_read_bytes: hdd_read,
                    ssd_read_share: if ssd_read + hdd_read == 0 {
                        0.0
                    } else {
                        ssd_read as f64 / (ssd_read + hdd_read) as f64
                    },
                    migrated_bytes: d(before.migrated_bytes, after.migrated_bytes),
                    sst_reads: SstReadSkew::between(&before.sst_reads, &after.sst_reads),
                }
            })
            .collect();
        let levels = r
            .series
            .iter()
            .map(|s| s.level_bytes.len())
            .max()
            .unwrap_or(0);
        let level_max_bytes = (0..levels)
            .map(|l| {
                r.series
                    .iter()
                    .filter_map(|s| s.level_bytes.get(l).copied())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        Some(Self {
            phases,
            level_tier_bytes: r.level_tier_bytes.clone().unwrap_or_default(),
            level_max_bytes,
            ssd_cache_hits: r.fs.hybrid.ssd_cache_hits,
            ssd_cache: SsdCacheTrace {
                offered: r.fs.hybrid.ssd_cache_offered,
                offered_not_on_hdd: r.fs.hybrid.ssd_cache_offered_not_on_hdd,
                admissions: r.fs.hybrid.ssd_cache_admissions,
                dropped_no_zone: r.fs.hybrid.ssd_cache_dropped_no_zone,
                lookups: r.fs.hybrid.ssd_cache_lookups,
                hits: r.fs.hybrid.ssd_cache_hits,
            },
        })
    }
}

/// What the last phase of a run (the measured workload after its load) did, and the tree at
/// the end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Operations of the phase.
    pub ops: u64,
    /// Its throughput, virtual time.
    pub ops_per_s: f64,
    /// Latency percentiles of its operations, µs.
    pub latency_us_p50: f64,
    /// P99.
    pub latency_us_p99: f64,
    /// P99.9.
    pub latency_us_p999: f64,
    /// P99 per operation type, µs, by the type's name in lower case (`read`, `update`, ...
    /// for YCSB; `read`, `write`, ... for db_bench).
    #[serde(default)]
    pub latency_us_p99_by_op: std::collections::BTreeMap<String, f64>,
    /// P99.9 per operation type, µs.
    #[serde(default)]
    pub latency_us_p999_by_op: std::collections::BTreeMap<String, f64>,
    /// Bytes the device was written during the phase (the paper's "-D").
    pub device_write_bytes: u64,
    /// Of those, what the tree wrote (flushes, compactions, WAL, metadata: the device's
    /// bytes less cleaning's copies; the paper's "-U").
    pub user_write_bytes: u64,
    /// Bytes zone cleaning copied during the phase.
    pub gc_copied_bytes: u64,
    /// Write-stall time during the phase, ns.
    pub stall_ns: u64,
    /// Bytes the device was written over the whole run (load included).
    pub run_device_write_bytes: u64,
    /// Bytes of SSTs in the tree at the end.
    pub tree_bytes: u64,
    /// SSTs in the tree at the end.
    pub tree_files: u64,
    /// Compaction output bytes per second of compaction job time (MB/s).
    pub compaction_mb_per_s: f64,
    /// SSTs written into subzones over the run (SplitZNS's selective allocator).
    #[serde(default)]
    pub subzone_ssts: u64,
    /// Trivial moves over the run (files that changed level without being rewritten, so
    /// without a new placement).
    #[serde(default)]
    pub trivial_moves: u64,
    /// Lifetimes of the SSTs deleted during the run, seconds, per level written to: the
    /// 10th, 25th, 50th, 75th and 90th percentiles (empty for a level without one).
    pub sst_lifetime_s_by_level: Vec<Vec<f64>>,
    /// The same lifetimes as a CDF: per level, the 0th, 5th, ..., 100th percentiles
    /// (21 points; empty for a level without one). SplitZNS's figure 4.
    #[serde(default)]
    pub sst_lifetime_cdf_s_by_level: Vec<Vec<f64>>,
}

impl Measured {
    /// From a run's last phase with operations and its end state.
    pub fn of(r: &RunReport) -> Self {
        let skip = trailing_empty_phases(r);
        let last = r.benchmarks.iter().rev().nth(skip);
        let (before, after) = r
            .phase_marks
            .iter()
            .rev()
            .nth(skip)
            .cloned()
            .unwrap_or_else(|| (Sample::default(), Sample::default()));
        let device = after.device_bytes.saturating_sub(before.device_bytes);
        let gc = after.gc_copied_bytes.saturating_sub(before.gc_copied_bytes);
        let mut lifetimes = r
            .sst_lifetimes_ns
            .iter()
            .map(|(&level, ns)| {
                let mut s: Vec<u64> = ns.clone();
                s.sort_unstable();
                let q = |p: f64| {
                    #[allow(
                        clippy::cast_sign_loss,
                        clippy::cast_possible_truncation,
                        reason = "a rank in 0..len"
                    )]
                    let i = ((s.len() as f64 - 1.0) * p).round() as usize;
                    s.get(i).map_or(0.0, |&v| v as f64 / 1e9)
                };
                if s.is_empty() {
                    (level, (Vec::new(), Vec::new()))
                } else {
                    let cdf = (0..=20).map(|i| q(f64::from(i) / 20.0)).collect();
                    (level, ([0.1, 0.25, 0.5, 0.75, 0.9].map(q).to_vec(), cdf))
                }
            })
            .collect::<std::collections::BTreeMap<u32, (Vec<f64>, Vec<f64>)>>();
        let levels = lifetimes.keys().next_back().map_or(0, |&l| l + 1);
        let (percentiles, cdfs): (Vec<_>, Vec<_>) = (0..levels)
            .map(|l| lifetimes.remove(&l).unwrap_or_default())
            .unzip();
        Self {
            ops: last.map_or(0, |b| b.ops),
            ops_per_s: last.map_or(0.0, crate::db_bench::BenchResult::ops_per_sec),
            latency_us_p50: last.map_or(0.0, |b| b.latency.p50_us),
            latency_us_p99: last.map_or(0.0, |b| b.latency.p99_us),
            latency_us_p999: last.map_or(0.0, |b| b.latency.p999_us),
            latency_us_p99_by_op: by_op(last, |l| l.p99_us),
            latency_us_p999_by_op: by_op(last, |l| l.p999_us),
            device_write_bytes: device,
            user_write_bytes: device.saturating_sub(gc),
            gc_copied_bytes: gc,
            stall_ns: after.stall_ns.saturating_sub(before.stall_ns),
            run_device_write_bytes: r.fs.device_bytes_written,
            tree_bytes: r.db.level_bytes.iter().sum(),
            tree_files: r.db.level_files.iter().sum(),
            compaction_mb_per_s: if r.db.compaction_ns == 0 {
                0.0
            } else {
                r.db.compaction_bytes_written as f64 / 1e6 / (r.db.compaction_ns as f64 / 1e9)
            },
            subzone_ssts: r.fs.split.subzone_allocations,
            trivial_moves: r.db.trivial_moves,
            sst_lifetime_s_by_level: percentiles,
            sst_lifetime_cdf_s_by_level: cdfs,
        }
    }
}

/// One latency figure of each operation type of phase `b`, by the type's name in lower case.
fn by_op(
    b: Option<&crate::db_bench::BenchResult>,
    figure: impl Fn(&crate::db_bench::Latency) -> f64,
) -> std::collections::BTreeMap<String, f64> {
    b.into_iter()
        .flat_map(|b| &b.latency_by_op)
        .map(|(op, l)| (op.to_lowercase(), figure(l)))
        .collect()
}

/// Phases at the end of `r` that did no operation (a YCSB load with `operationcount = 0`
/// has one): the measured phase is the last one with operations, if any has.
fn trailing_empty_phases(r: &RunReport) -> usize {
    let empty = r.benchmarks.iter().rev().take_while(|b| b.ops == 0).count();
    if empty == r.benchmarks.len() {
        0
    } else {
        empty
    }
}

impl Figures {
    /// From a run.
    pub fn of(r: &RunReport) -> Self {
        let ops: u64 = r.benchmarks.iter().map(|b| b.ops).sum();
        let secs: f64 = r
            .benchmarks
            .iter()
            .map(|b| {
                let rate = b.ops_per_sec();
                if rate > 0.0 { b.ops as f64 / rate } else { 0.0 }
            })
            .sum();
        let z = &r.db.zone_compaction;
        let end_s = r.end_ns.max(1) as f64 / 1e9;
        Self {
            ops,
            ops_per_s: if secs > 0.0 { ops as f64 / secs } else { 0.0 },
            mb_per_s: if secs > 0.0 {
                r.db.user_bytes_written as f64 / 1e6 / secs
            } else {
                0.0
            },
            write_amplification: r.write_amplification(),
            zone_write_amplification: r.fs.write_amplification,
            gc_copied_bytes: r.fs.gc_copied_bytes,
            zone_resets: r.fs.zone_resets,
            gc_zone_resets: r.fs.gc_zone_resets,
            s_same_avg: z.s_same_avg(),
            s_same_by_level: z.s_same_per_level(),
            s_inval_avg: z.s_inval_avg(),
            compaction_read_latency_us: z.read_latency_ns() / 1e3,
            compaction_read_mb_per_s: z.read_mb_per_s(),
            victim_bytes_avg: z.avg_victim_bytes(),
            stall_s: (r.db.stall_stop_ns + r.db.stall_delay_ns) as f64 / 1e9,
            io_blocking_s: r.fs.io_blocking_ns as f64 / 1e9,
            flushes_per_s: r.db.flushes as f64 / end_s,
            compactions_per_s: r.db.compactions as f64 / end_s,
            context_placement_pct: if r.fs.sst_context_allocations == 0 {
                0.0
            } else {
                100.0 * r.fs.sst_context_placements as f64 / r.fs.sst_context_allocations as f64
            },
            run_s: secs,
            measured: None,
            hybrid: None,
        }
    }

    /// A study cell's figures: [`Self::with_measured`] when the study counts the measured
    /// phase alone (`measured`: splitzns, hhzs), else [`Self::of`].
    pub fn of_cell(r: &RunReport, measured: bool) -> Self {
        if measured {
            Self::with_measured(r)
        } else {
            Self::of(r)
        }
    }

    /// [`Self::of`] with the last phase's figures ([`Measured`]).
    pub fn with_measured(r: &RunReport) -> Self {
        Self {
            measured: Some(Measured::of(r)),
            hybrid: HybridFigures::of(r),
            ..Self::of(r)
        }
    }

    /// The mean of `runs` (one per seed), field by field; counts are rounded. `None` for no
    /// runs.
    pub fn mean(runs: &[&Self]) -> Option<Self> {
        let values: Vec<serde_json::Value> = runs
            .iter()
            .filter_map(|f| serde_json::to_value(f).ok())
            .collect();
        if values.is_empty() {
            return None;
        }
        serde_json::from_value(mean_value(&values)).ok()
    }
}

/// The field-by-field mean of JSON values of one shape: numbers averaged (rounded when every
/// input is an integer), arrays element by element, objects key by key, `null` where any
/// input is `null`.
fn mean_value(values: &[serde_json::Value]) -> serde_json::Value {
    use serde_json::Value;
    let Some(first) = values.first() else {
        return Value::Null;
    };
    match first {
        Value::Number(_) => {
            let nums: Option<Vec<f64>> = values.iter().map(Value::as_f64).collect();
            let Some(nums) = nums else {
                return Value::Null;
            };
            let m = nums.iter().sum::<f64>() / nums.len() as f64;
            if values.iter().all(Value::is_u64) {
                #[allow(clippy::cast_sign_loss, reason = "a mean of u64s is non-negative")]
                let rounded = m.round() as u64;
                serde_json::json!(rounded)
            } else {
                serde_json::json!(m)
            }
        }
        Value::Array(a) => {
            let n = a.len();
            let cols: Vec<Value> = (0..n)
                .map(|i| {
                    let col: Option<Vec<Value>> = values
                        .iter()
                        .map(|v| v.as_array().and_then(|a| a.get(i)).cloned())
                        .collect();
                    col.map_or(Value::Null, |c| mean_value(&c))
                })
                .collect();
            Value::Array(cols)
        }
        Value::Object(_) => {
            // Keys of every input, each averaged over the inputs that have it: a map keyed by
            // what a run saw (latency by operation type) may lack a key in one seed.
            let keys: std::collections::BTreeSet<&String> = values
                .iter()
                .filter_map(Value::as_object)
                .flat_map(serde_json::Map::keys)
                .collect();
            let mut out = serde_json::Map::new();
            for k in keys {
                let col: Vec<Value> = values.iter().filter_map(|v| v.get(k)).cloned().collect();
                out.insert(k.clone(), mean_value(&col));
            }
            Value::Object(out)
        }
        _ => {
            if values.iter().any(Value::is_null) {
                Value::Null
            } else {
                first.clone()
            }
        }
    }
}

/// The spread over `runs` (one per seed) of every figure they hold (numbers, and those of
/// [`Measured`]): a [`crate::stats::Summary`] each (`n`, `mean`, `min`, `max`, `stddev`,
/// `ci95`, `ci95_low`, `ci95_high`).
pub fn spread(runs: &[&Figures]) -> serde_json::Value {
    let values: Vec<serde_json::Value> = runs
        .iter()
        .filter_map(|f| serde_json::to_value(f).ok())
        .collect();
    super::seeds::summaries(&values)
}

/// A finished simulation of a study.
#[derive(Debug, Clone, Serialize)]
pub struct CellResult {
    /// `scheme`, `sweep` or `ablation`.
    pub group: String,
    /// Scheme name.
    pub scheme: String,
    /// `code` or `text`.
    pub form: String,
    /// Workload.
    pub workload: String,
    /// Turning point (sweep).
    pub turning_point: Option<u32>,
    /// Level constraint (sweep).
    pub level_constraint: Option<bool>,
    /// Row of the ablation (ablation).
    pub ablation_step: Option<usize>,
    /// Seed.
    pub seed: u64,
    /// Figures, or why the run failed.
    pub figures: Result<Figures, String>,
}

#[cfg(test)]
impl CellResult {
    /// A finished run in the code's forms, for tests.
    pub(crate) fn test_run(
        group: &str,
        scheme: &str,
        workload: &str,
        seed: u64,
        figures: Figures,
    ) -> Self {
        Self {
            group: group.into(),
            scheme: scheme.into(),
            form: "code".into(),
            workload: workload.into(),
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed,
            figures: Ok(figures),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sst_read_skew_takes_the_hottest_ssts_share_of_a_phases_reads() {
        // 200 SSTs read in the phase: one with 100 reads, one with 50, 198 with 1 each (and
        // one SST unread). Hottest 1% = 2 SSTs, 10% = 20.
        let mut before = std::collections::BTreeMap::new();
        let mut after = std::collections::BTreeMap::new();
        before.insert(1, 40);
        after.insert(1, 140);
        after.insert(2, 50);
        for id in 3..201 {
            before.insert(id, 7);
            after.insert(id, 8);
        }
        before.insert(500, 9);
        after.insert(500, 9);
        let s = SstReadSkew::between(&before, &after);
        assert_eq!((s.ssts_read, s.reads), (200, 348));
        assert!((s.top_sst_share - 100.0 / 348.0).abs() < 1e-12);
        assert!((s.top1pct_share - 150.0 / 348.0).abs() < 1e-12);
        assert!((s.top10pct_share - 168.0 / 348.0).abs() < 1e-12);
        // Even reads: the hottest p% take p% (rounded up to whole SSTs).
        let even = SstReadSkew::of(vec![5; 50]);
        assert!((even.top10pct_share - 0.1).abs() < 1e-12);
        assert!((even.top1pct_share - 0.02).abs() < 1e-12);
        assert_eq!(SstReadSkew::of(Vec::new()), SstReadSkew::default());
        assert_eq!(SstReadSkew::of(vec![0, 3]).ssts_read, 1);
    }

    #[test]
    fn a_key_one_seed_lacks_is_averaged_over_the_seeds_that_have_it() {
        let a = serde_json::json!({"p99": {"read": 10.0, "update": 20.0}, "n": 2});
        let b = serde_json::json!({"p99": {"read": 30.0}, "n": 4});
        let c = serde_json::json!({"p99": {"insert": 5.0}, "n": 6});
        assert_eq!(
            mean_value(&[a, b, c]),
            serde_json::json!({"p99": {"insert": 5.0, "read": 20.0, "update": 20.0}, "n": 4})
        );
    }

    #[test]
    fn the_mean_of_seeds_averages_every_field_and_rounds_counts() {
        let a = Figures {
            gc_copied_bytes: 100,
            zone_resets: 3,
            ops_per_s: 10.0,
            s_same_by_level: vec![Some(0.5), None],
            ..Figures::default()
        };
        let b = Figures {
            gc_copied_bytes: 201,
            zone_resets: 4,
            ops_per_s: 20.0,
            s_same_by_level: vec![Some(0.7), Some(0.1)],
            ..Figures::default()
        };
        let m = Figures::mean(&[&a, &b]).unwrap();
        assert_eq!(m.gc_copied_bytes, 151);
        assert_eq!(m.zone_resets, 4);
        assert!((m.ops_per_s - 15.0).abs() < 1e-9);
        assert!((m.s_same_by_level[0].unwrap() - 0.6).abs() < 1e-9);
        assert_eq!(m.s_same_by_level[1], None);
        assert_eq!(Figures::mean(&[&a]).unwrap(), a);
        assert!(Figures::mean(&[]).is_none());
    }

    #[test]
    fn spread_summarizes_every_figure_with_its_interval() {
        let a = Figures {
            gc_copied_bytes: 1,
            stall_s: 2.0,
            ..Figures::default()
        };
        let b = Figures {
            gc_copied_bytes: 3,
            stall_s: 4.0,
            ..Figures::default()
        };
        let s = spread(&[&a, &b]);
        let want = crate::stats::Summary::of(&[1.0, 3.0]).unwrap();
        let g = &s["gc_copied_bytes"];
        assert_eq!(
            (g["min"].as_f64(), g["max"].as_f64()),
            (Some(1.0), Some(3.0))
        );
        assert!((g["stddev"].as_f64().unwrap() - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(g["ci95"].as_f64(), Some(want.ci95));
        assert_eq!(g["ci95_low"].as_f64(), Some(want.ci95_low));
        assert_eq!(g["ci95_high"].as_f64(), Some(want.ci95_high));
        assert_eq!(g["n"], 2);
        assert_eq!(s["stall_s"]["mean"].as_f64(), Some(3.0));
        assert_eq!(s["io_blocking_s"]["ci95"].as_f64(), Some(0.0));
        assert_eq!(
            spread(&[&a])["gc_copied_bytes"]["stddev"].as_f64(),
            Some(0.0)
        );
        assert_eq!(spread(&[]), serde_json::json!({}));
    }
}
