//! `zonedb reproduce hhzs`: the HHZS paper's experiments (§2.3 and §4) on a simulated hybrid of
//! a ZNS SSD (`zn540-hhzs`, 20 zones for data) and an HM-SMR HDD (`st14000nm0007`).
//!
//! Set-up (§4.1), divided by the scale's `N` (`small`: 128) where it is a size or a count: 1,011.2 MiB SSTs
//! (one SSD zone, four HDD zones), 512 MiB memtables merged two at a time and at most four,
//! WAL + cache 2.1 GiB (two SSD zones), L0 = L1 = 1 GiB then x10 (the tuning guide's
//! `max_bytes_for_level_base = write_buffer_size x min_write_buffer_number_to_merge x
//! level0_file_num_compaction_trigger`, so the L0 trigger is 1), 12 background jobs, an
//! 8 MiB block cache, 24-byte keys and 1,000-byte values, 200 GiB loaded by YCSB before every
//! workload; zones reset when their files go, no cleaning. Not in the paper, chosen here: 16
//! YCSB client threads (the testbed's 16 cores), no compression (YCSB's values are random).
//!
//! Schemes: the basic schemes `B1`-`B4`, SpanDB's `AUTO`, HHZS (`P+M+C`) and its ablations
//! `P`, `P+M`, `B3+M` (placement names in [`placement_of`]).
//!
//! Every figure is the measured phase of a run (the load's own figures come from the first
//! phase of the same runs: the load is the same for every workload of a scheme).

use std::fmt::Write as _;

use super::figures::{HybridFigures, HybridPhase, SstReadSkew};
use super::seeds::{BySeed, summaries};
use super::splitzns::ycsb_mix;
use super::{Cell, CellResult, Form, ReproScale};
use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

/// Records the paper loads: 200 GiB of 1 KiB objects.
pub const PAPER_RECORDS: u64 = 200 * (1 << 30) / 1024;
/// Operations of an Exp#1 workload (YCSB A-F) and of Exp#5's mixed workload.
pub const PAPER_YCSB_OPS: u64 = 1_000_000;
/// Operations of Exp#2-#4 and #6's workloads.
pub const PAPER_MIX_OPS: u64 = 5_000_000;
/// SSD zones for data (20 of 1,077 MiB: 21.0 GiB); the hybrid's SSD has three metadata
/// zones more.
pub const SSD_ZONES: u32 = 20;
/// Client threads.
pub const THREADS: u64 = 16;

/// The experiments, as the JSON names them.
pub const EXPERIMENTS: [&str; 8] = [
    "motivation",
    "exp1",
    "exp2",
    "exp3",
    "exp4",
    "exp5",
    "exp6",
    "ablation",
];

/// Exp#1's workloads.
pub const YCSB: [&str; 6] = ["A", "B", "C", "D", "E", "F"];

/// Exp#2's workloads: (name, read percent, zipfian constant).
pub const W: [(&str, u32, f64); 4] = [
    ("W1", 10, 0.9),
    ("W2", 50, 0.9),
    ("W3", 50, 1.2),
    ("W4", 100, 1.2),
];

/// The keys every workload object of the JSON holds.
pub const ISSUE_KEYS: [&str; 6] = [
    "ops_per_s",
    "latency_us_p99",
    "ssd_write_bytes",
    "hdd_write_bytes",
    "ssd_read_share",
    "migrated_bytes",
];

const MIB: u64 = 1 << 20;

/// The placement policy of a scheme.
pub fn placement_of(scheme: &str) -> Option<&'static str> {
    Some(match scheme {
        "B1" => "hybrid-b1",
        "B2" => "hybrid-b2",
        "B3" => "hybrid-b3",
        "B4" => "hybrid-b4",
        "B3+M" => "hybrid-b3-m",
        "AUTO" => "spandb-auto",
        "P" | "P/no-demand" => "hhzs-p",
        "P+M" | "P+M/1MiB" => "hhzs-pm",
        "HHZS" | "P+M+C" | "P+M+C/1MiB" | "HHZS/no-demand" => "hhzs",
        _ => return None,
    })
}

/// What a run does after the load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// A YCSB core workload (`A` ... `F`), zipfian 0.9 (D: latest), 1 M operations.
    Ycsb(&'static str),
    /// `read_pct`% reads and the rest updates, zipfian `alpha`, `ops` operations (paper).
    Mix {
        /// Reads, percent.
        read_pct: u32,
        /// Zipfian constant.
        alpha: f64,
        /// Operations at paper scale.
        ops: u64,
    },
}

/// What varies between runs besides the scheme and the workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knobs {
    /// SSD zones for data (Exp#5).
    pub ssd_zones: u32,
    /// Migration rate, MiB/s (Exp#6).
    pub migration_mib_s: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            ssd_zones: SSD_ZONES,
            migration_mib_s: 4,
        }
    }
}

/// The divisor of sizes (device, memtables, SSTs, caches) at `scale`: 1/128 at `small` and
/// `tiny` (not the other studies' 1/64: every run loads the whole dataset, and the study's
/// ~110 runs stay under 10 minutes on 2 cores; `zn540-hhzs` divides by 128 at most).
pub fn divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small | ReproScale::Tiny => 128,
        ReproScale::Paper => 1,
    }
}

/// The divisor of the dataset and operation counts at `scale` (`tiny`: 16 times fewer than
/// `small`, for checks of the machinery, not for figures).
pub fn data_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Tiny => 128 * 16,
        other => divisor(other),
    }
}

fn work_toml(work: Work, d: u64) -> Result<String, HarnessError> {
    let (mix, dist, ops) = match work {
        Work::Ycsb(w) => {
            let key = format!("ycsb-{}", w.to_lowercase());
            let mix = ycsb_mix(&key).ok_or_else(|| {
                HarnessError::Config(format!("hhzs workload '{w}'; known: A ... F"))
            })?;
            let dist = if w == "D" {
                String::new()
            } else {
                "requestdistribution = \"zipfian\"\nzipfianconstant = 0.9\n".to_owned()
            };
            (mix.to_owned(), dist, PAPER_YCSB_OPS)
        }
        Work::Mix {
            read_pct,
            alpha,
            ops,
        } => (
            format!(
                "readproportion = {}\nupdateproportion = {}\n",
                f64::from(read_pct) / 100.0,
                f64::from(100 - read_pct.min(100)) / 100.0
            ),
            format!("requestdistribution = \"zipfian\"\nzipfianconstant = {alpha}\n"),
            ops,
        ),
    };
    Ok(format!(
        "[workload]\nkind = \"ycsb\"\n[workload.ycsb]\nrecordcount = {records}\nfieldcount = 1\nfieldlength = 1000\nthreadcount = {THREADS}\n\
         [[workload.then]]\n[workload.then.ycsb]\noperationcount = {n}\nthreadcount = {THREADS}\n{mix}{dist}",
        records = PAPER_RECORDS / d,
        n = (ops / d).max(1),
    ))
}

/// The scenario of `scheme` running `work` at `scale` with `seed`.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown scheme or workload.
pub fn scenario(
    scheme: &str,
    work: Work,
    scale: ReproScale,
    seed: u64,
    knobs: Knobs,
) -> Result<Scenario, HarnessError> {
    let placement = placement_of(scheme)
        .ok_or_else(|| HarnessError::Config(format!("hhzs scheme '{scheme}'")))?;
    // The ablation's schemes migrate in 1 MiB pieces instead of 128 KiB.
    let chunk_kib = if scheme.ends_with("/1MiB") { 1024 } else { 128 };
    // ... and `/no-demand` leaves the running compactions' demand out of the tiering rule.
    let demand = !scheme.ends_with("/no-demand");
    let d = divisor(scale);
    // 1,011.2 MiB SSTs, block-aligned.
    let sst = (10_112 * MIB / 10 / d) / 4096 * 4096;
    // The HDD: room for the data several times over (the paper does not limit it).
    let hdd_zones = PAPER_RECORDS * 1024 * 6 / (256 * MIB) / data_divisor(scale) * d + 64;
    let text = format!(
        "name = \"{scheme}\"\nseed = {seed}\nsample_interval_ms = 1000\nhost_cores = 16\n\
         [device]\nkind = \"hybrid\"\n\
         [device.ssd]\nprofile = \"zn540-hhzs\"\nscale = \"1/{d}\"\nzone_count = {ssd}\n\
         [device.hdd]\nprofile = \"st14000nm0007\"\nscale = \"1/{d}\"\nzone_count = {hdd_zones}\n\
         [fs]\nplacement = \"{placement}\"\ncleaner = \"none\"\nmigration_rate_mib_s = {rate}\nmigration_chunk_kib = {chunk_kib}\nhhzs_compaction_demand = {demand}\n\
         [engine]\nwrite_buffer_size = {wb}\nmin_write_buffer_number_to_merge = 2\nmax_write_buffer_number = 4\n\
         max_total_wal_size = {wal}\ntarget_file_size_base = {sst}\nmax_bytes_for_level_base = {l1}\n\
         level0_file_num_compaction_trigger = 1\nmax_background_jobs = 12\nblock_cache_size = {bc}\n\
         level_compaction_dynamic_level_bytes = false\ncompression = \"none\"\n{workload}",
        ssd = knobs.ssd_zones + zonedb_fs::META_ZONES,
        rate = knobs.migration_mib_s,
        wb = 512 * MIB / d,
        wal = 21 * (1 << 30) / 10 / d,
        l1 = 1024 * MIB / d,
        bc = (8 * MIB / d).max(64 << 10),
        workload = work_toml(work, data_divisor(scale))?,
    );
    Scenario::base(&text)
}

/// What of the study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HhzsPlan {
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Experiments (empty: all of [`EXPERIMENTS`]).
    pub experiments: Vec<String>,
}

/// A sweep point's label.
fn label(key: &str, v: impl std::fmt::Display) -> String {
    format!("{key}={v}")
}

/// One simulation of the study.
struct CellOf<'a> {
    scale: ReproScale,
    seed: u64,
    out: &'a mut Vec<Cell>,
}

impl CellOf<'_> {
    fn push(
        &mut self,
        (group, scheme): (&'static str, &'static str),
        workload: String,
        work: Work,
        knobs: Knobs,
    ) -> Result<(), HarnessError> {
        self.out.push(Cell {
            group,
            scheme,
            form: Form::Code,
            workload,
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed: self.seed,
            scenario: scenario(scheme, work, self.scale, self.seed, knobs)?,
        });
        Ok(())
    }
}

fn mix(read_pct: u32, alpha: f64, ops: u64) -> Work {
    Work::Mix {
        read_pct,
        alpha,
        ops,
    }
}

/// The motivation and Exp#1-#2 for one seed.
fn main_cells(c: &mut CellOf<'_>, runs: &dyn Fn(&str) -> bool) -> Result<(), HarnessError> {
    let k = Knobs::default();
    if runs("motivation") {
        for s in ["B1", "B2", "B3", "B4"] {
            for alpha in [0.9, 1.2] {
                let w = mix(100, alpha, PAPER_YCSB_OPS);
                c.push(("motivation", s), label("read", alpha), w, k)?;
            }
        }
    }
    if runs("exp1") {
        for s in ["B3", "AUTO", "HHZS"] {
            for w in YCSB {
                c.push(("exp1", s), w.to_owned(), Work::Ycsb(w), k)?;
            }
        }
    }
    if runs("exp2") {
        for s in ["B3", "B3+M", "P", "P+M", "P+M+C"] {
            for (w, read, alpha) in W {
                c.push(
                    ("exp2", s),
                    w.to_owned(),
                    mix(read, alpha, PAPER_MIX_OPS),
                    k,
                )?;
            }
        }
    }
    Ok(())
}

/// Exp#3-#6 and the ablation for one seed.
fn sweep_cells(c: &mut CellOf<'_>, runs: &dyn Fn(&str) -> bool) -> Result<(), HarnessError> {
    let k = Knobs::default();
    if runs("exp3") {
        for s in ["B3", "AUTO", "HHZS"] {
            // YCSB's zipfian is undefined at exactly 1 (its 1 / (1 - theta)): 0.99.
            for alpha in [0.8, 0.9, 0.99, 1.1, 1.2] {
                let w = mix(50, alpha, PAPER_MIX_OPS);
                c.push(("exp3", s), label("alpha", alpha), w, k)?;
            }
        }
    }
    if runs("exp4") {
        for s in ["B3", "AUTO", "HHZS"] {
            for read in [10, 30, 50, 70, 90] {
                let w = mix(read, 0.9, PAPER_MIX_OPS);
                c.push(("exp4", s), label("read", read), w, k)?;
            }
        }
    }
    if runs("exp5") {
        for s in ["B1", "B2", "B3", "B4", "AUTO", "P", "HHZS"] {
            for zones in [20, 40, 60, 80] {
                let knobs = Knobs {
                    ssd_zones: zones,
                    ..k
                };
                c.push(("exp5", s), label("zones", zones), Work::Ycsb("A"), knobs)?;
            }
        }
    }
    if runs("exp6") {
        for rate in [1, 2, 4, 8, 16, 32, 64] {
            let knobs = Knobs {
                migration_mib_s: rate,
                ..k
            };
            let w = mix(50, 0.9, PAPER_MIX_OPS);
            c.push(("exp6", "P+M"), label("rate", rate), w, knobs)?;
        }
    }
    if runs("ablation") {
        // One difference at a time from exp2's schemes: migration's copy size (P+M, P+M+C),
        // the compactions' storage demand in the tiering rule (P, HHZS).
        for s in [
            "B3",
            "P",
            "P/no-demand",
            "P+M",
            "P+M/1MiB",
            "P+M+C",
            "P+M+C/1MiB",
            "HHZS/no-demand",
        ] {
            for (w, read, alpha) in [W[1], W[3]] {
                c.push(
                    ("ablation", s),
                    w.to_owned(),
                    mix(read, alpha, PAPER_MIX_OPS),
                    k,
                )?;
            }
        }
    }
    Ok(())
}

/// Every simulation of the study.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown experiment.
pub fn cells(scale: ReproScale, plan: &HhzsPlan) -> Result<Vec<Cell>, HarnessError> {
    if let Some(e) = plan
        .experiments
        .iter()
        .find(|e| !EXPERIMENTS.contains(&e.as_str()))
    {
        return Err(HarnessError::Config(format!(
            "hhzs experiment '{e}'; known: {}",
            EXPERIMENTS.join(", ")
        )));
    }
    let runs = |e: &str| plan.experiments.is_empty() || plan.experiments.iter().any(|x| x == e);
    let mut out = Vec::new();
    for &seed in &plan.seeds {
        let mut c = CellOf {
            scale,
            seed,
            out: &mut out,
        };
        main_cells(&mut c, &runs)?;
        sweep_cells(&mut c, &runs)?;
    }
    Ok(out)
}

/// The hybrid figures of `scheme` on `workload` in `group`, over the seeds run: the mean of
/// each phase's figures.
fn runs_of<'a>(
    results: &'a [CellResult],
    group: &str,
    scheme: &str,
    workload: &str,
) -> Vec<&'a HybridFigures> {
    results
        .iter()
        .filter(|r| r.group == group && r.scheme == scheme && r.workload == workload)
        .filter_map(|r| r.figures.as_ref().ok()?.hybrid.as_ref())
        .collect()
}

/// The mean of phase `i` (negative: from the end) over `runs`.
fn phase_mean(runs: &[&HybridFigures], last: bool) -> Option<HybridPhase> {
    let phases: Vec<&HybridPhase> = runs
        .iter()
        .filter_map(|h| {
            if last {
                h.phases.last()
            } else {
                h.phases.first()
            }
        })
        .collect();
    if phases.is_empty() {
        return None;
    }
    let n = phases.len() as f64;
    let f = |g: fn(&HybridPhase) -> f64| phases.iter().map(|p| g(p)).sum::<f64>() / n;
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "means of byte counts"
    )]
    let u = |g: fn(&HybridPhase) -> u64| {
        (phases.iter().map(|p| g(p) as f64).sum::<f64>() / n).round() as u64
    };
    Some(HybridPhase {
        ops: u(|p| p.ops),
        ops_per_s: f(|p| p.ops_per_s),
        latency_us_p99: f(|p| p.latency_us_p99),
        latency_us_p999: f(|p| p.latency_us_p999),
        latency_us_p9999: f(|p| p.latency_us_p9999),
        ssd_write_bytes: u(|p| p.ssd_write_bytes),
        hdd_write_bytes: u(|p| p.hdd_write_bytes),
        ssd_read_bytes: u(|p| p.ssd_read_bytes),
        hdd_read_bytes: u(|p| p.hdd_read_bytes),
        ssd_read_share: f(|p| p.ssd_read_share),
        migrated_bytes: u(|p| p.migrated_bytes),
        sst_reads: SstReadSkew {
            ssts_read: u(|p| p.sst_reads.ssts_read),
            reads: u(|p| p.sst_reads.reads),
            top_sst_share: f(|p| p.sst_reads.top_sst_share),
            top1pct_share: f(|p| p.sst_reads.top1pct_share),
            top10pct_share: f(|p| p.sst_reads.top10pct_share),
        },
    })
}

/// The measured phase (or, for `load`, the load) of `scheme` on `workload` in `group`.
fn phase(results: &[CellResult], group: &str, scheme: &str, workload: &str) -> Option<HybridPhase> {
    // The load before one point (Exp#5: each SSD size loads on its own).
    if let Some(point) = workload.strip_prefix("load@") {
        return phase_mean(&runs_of(results, group, scheme, point), false);
    }
    // The load of a group: the first phase of its first workload's runs.
    if workload == "load" {
        let first = results
            .iter()
            .find(|r| r.group == group && r.scheme == scheme)?;
        return phase_mean(&runs_of(results, group, scheme, &first.workload), false);
    }
    phase_mean(&runs_of(results, group, scheme, workload), true)
}

fn phase_json(p: &HybridPhase) -> serde_json::Value {
    serde_json::json!({
        "ops": p.ops,
        "ops_per_s": p.ops_per_s,
        "latency_us_p99": p.latency_us_p99,
        "latency_us_p999": p.latency_us_p999,
        "latency_us_p9999": p.latency_us_p9999,
        "ssd_write_bytes": p.ssd_write_bytes,
        "hdd_write_bytes": p.hdd_write_bytes,
        "ssd_read_bytes": p.ssd_read_bytes,
        "hdd_read_bytes": p.hdd_read_bytes,
        "ssd_read_share": p.ssd_read_share,
        "migrated_bytes": p.migrated_bytes,
        "sst_reads": p.sst_reads,
    })
}

/// The rows of `group`: `load`, then its workloads (Exp#5: the load before each SSD size
/// too, `load@zones=N`).
fn rows(group: &str, workloads: &[String]) -> Vec<String> {
    let mut out = vec!["load".to_owned()];
    if group == "exp5" {
        out.extend(workloads.iter().map(|w| format!("load@{w}")));
    }
    out.extend(workloads.iter().cloned());
    out
}

/// The schemes and workloads of `group` present in `results`, in run order.
fn matrix(results: &[CellResult], group: &str) -> (Vec<String>, Vec<String>) {
    let mut schemes: Vec<String> = Vec::new();
    let mut workloads: Vec<String> = Vec::new();
    for r in results.iter().filter(|r| r.group == group) {
        if !schemes.contains(&r.scheme) {
            schemes.push(r.scheme.clone());
        }
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload.clone());
        }
    }
    (schemes, workloads)
}

/// Throughput of `a` over `b` (a ratio) on `workload` of `group`.
fn gain(results: &[CellResult], group: &str, a: &str, b: &str, workload: &str) -> Option<f64> {
    let x = phase(results, group, a, workload)?.ops_per_s;
    let y = phase(results, group, b, workload)?.ops_per_s;
    (y > 0.0).then(|| x / y)
}

/// One of the issue's must-show comparisons: `ours` (a ratio) against `bar`.
struct Check {
    what: String,
    paper: String,
    bar: f64,
    ours: Option<f64>,
}

impl Check {
    fn met(&self) -> Option<bool> {
        self.ours.map(|o| o >= self.bar)
    }
}

/// The headline claims ([`super::claims`]): HHZS over B3 and AUTO on YCSB A-F (the paper's
/// smallest margins, +21.0% and +28.0%, as floors) and caching on W4 (+173.7%, an effect).
pub fn claim_specs() -> Vec<super::claims::Spec<CellResult>> {
    use super::claims::{Judge, Spec, Unit};
    let mut out = Vec::new();
    for w in YCSB {
        for (base, paper) in [("B3", 0.210), ("AUTO", 0.280)] {
            out.push(Spec::new(
                format!("exp1 YCSB-{w} throughput, HHZS / {base}"),
                1.0 + paper,
                format!("{:.2}x or more", 1.0 + paper),
                Judge::AtLeast,
                Unit::Times,
                Box::new(move |rs: &[CellResult]| gain(rs, "exp1", "HHZS", base, w)),
            ));
        }
    }
    out.push(Spec::new(
        "exp2 W4 throughput, P+M+C / P+M (caching)",
        2.737,
        "2.74x",
        Judge::Effect,
        Unit::Times,
        Box::new(|rs: &[CellResult]| gain(rs, "exp2", "P+M+C", "P+M", "W4")),
    ));
    out
}

/// The issue's must-show list at small scale: HHZS over B3 and AUTO on A-F by at least half the
/// paper's smallest margin (+21.0% and +28.0%), caching at least +87% on W4.
fn must_show(results: &[CellResult]) -> Vec<Check> {
    let mut out = Vec::new();
    for w in YCSB {
        for (base, paper) in [("B3", 0.210), ("AUTO", 0.280)] {
            out.push(Check {
                what: format!("exp1 {w}: HHZS / {base}"),
                paper: format!("+{:.1}% or more", paper * 100.0),
                bar: 1.0 + paper / 2.0,
                ours: gain(results, "exp1", "HHZS", base, w),
            });
        }
    }
    out.push(Check {
        what: "exp2 W4: P+M+C / P+M (caching)".into(),
        paper: "+173.7%".into(),
        bar: 1.87,
        ours: gain(results, "exp2", "P+M+C", "P+M", "W4"),
    });
    out
}

/// The study's JSON: an object per experiment, per scheme, per workload (with `load`).
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let mut root = serde_json::Map::new();
    root.insert("study".into(), "hhzs".into());
    root.insert("scale".into(), scale.name().into());
    let seeds = super::seeds::seeds_of(results);
    let many = seeds.len() > 1;
    root.insert("seeds".into(), seeds.into());
    let by_seed = BySeed::new(results);
    for group in EXPERIMENTS {
        let (schemes, workloads) = matrix(results, group);
        if schemes.is_empty() {
            continue;
        }
        let mut g = serde_json::Map::new();
        for s in &schemes {
            let mut sm = serde_json::Map::new();
            for w in &rows(group, &workloads) {
                let w = w.as_str();
                if let Some(p) = phase(results, group, s, w) {
                    let mut v = phase_json(&p);
                    if many {
                        let each: Vec<serde_json::Value> = by_seed
                            .each()
                            .iter()
                            .filter_map(|rs| phase(rs, group, s, w).map(|p| phase_json(&p)))
                            .collect();
                        v["spread"] = summaries(&each);
                    }
                    if !w.starts_with("load")
                        && let Some(h) = runs_of(results, group, s, w).first()
                    {
                        v["level_tier_bytes"] = serde_json::json!(h.level_tier_bytes);
                        v["level_max_bytes"] = serde_json::json!(h.level_max_bytes);
                        v["ssd_cache_hits"] = serde_json::json!(h.ssd_cache_hits);
                        v["ssd_cache"] = serde_json::json!(h.ssd_cache);
                    }
                    sm.insert(w.to_owned(), v);
                }
            }
            g.insert(s.clone(), sm.into());
        }
        root.insert(group.into(), g.into());
    }
    root.insert(
        "must_show".into(),
        must_show(results)
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut o = serde_json::json!({
                    "what": c.what, "paper": c.paper, "bar": c.bar, "ours": c.ours, "met": c.met(),
                });
                if many {
                    o["ours_interval"] =
                        serde_json::json!(by_seed.summary(|rs| must_show(rs)[i].ours));
                }
                o
            })
            .collect::<Vec<_>>()
            .into(),
    );
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            let e = r.figures.as_ref().err()?;
            Some(format!(
                "{} {} {} (seed {}): {e}",
                r.group, r.scheme, r.workload, r.seed
            ))
        })
        .collect();
    root.insert("failed".into(), failed.into());
    root.into()
}

/// The paper's number for a row of a table, where the text gives one.
fn paper_note(group: &str, scheme: &str, workload: &str) -> &'static str {
    match (group, scheme, workload) {
        ("exp1", "HHZS", "load") => "+7.8% vs B3, +18.3% vs AUTO",
        ("exp1", "HHZS", _) => "+21.0-56.4% vs B3, +28.0-69.3% vs AUTO",
        ("exp1", "AUTO", _) => "below B3 everywhere",
        ("exp2", "P", "load") => "+5.5% vs B3",
        ("exp2", "P", "W1") => "+18.0% vs B3",
        ("exp2", "P", "W2") => "+18.8% vs B3",
        ("exp2", "P", "W3") => "-1.4% vs B3",
        ("exp2", "P", "W4") => "-5.9% vs B3",
        ("exp2", "P+M", "W1") => "+14.5% vs B3+M",
        ("exp2", "P+M", "W2") => "+8.8% vs B3+M",
        ("exp2", "P+M", "W3") => "+9.4% vs B3+M",
        ("exp2", "P+M", "W4") => "+5.9% vs B3+M",
        ("exp2", "P+M+C", "W1") => "+5.3% vs P+M",
        ("exp2", "P+M+C", "W2") => "+6.8% vs P+M",
        ("exp2", "P+M+C", "W3") => "+7.4% vs P+M",
        ("exp2", "P+M+C", "W4") => "+173.7% vs P+M",
        ("exp3", "HHZS", _) => "+27.3-43.3% vs B3, +51.6-77.1% vs AUTO",
        ("exp4", "HHZS", "read=10") => "+40.4% vs B3, +67.7% vs AUTO",
        ("exp4", "HHZS", "read=30") => "+42.4% vs B3, +68.4% vs AUTO",
        ("exp4", "HHZS", _) => "+42.5-60.0% vs B3, +54.1-65.3% vs AUTO",
        ("motivation", "B4", "load") => "11.3% below B3",
        ("motivation", _, "read=0.9") => "HDD read share 79.7-98.2%",
        ("motivation", _, "read=1.2") => "HDD read share 35.8-49.5%",
        _ => "",
    }
}

/// The base scheme a group's table normalizes to.
fn base_of(group: &str) -> &'static str {
    match group {
        "exp6" => "P+M",
        _ => "B3",
    }
}

fn gib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 30)
}

/// Figure 5b: the SSD's share of each level's bytes at the end of workload A.
fn level_shares(results: &[CellResult], schemes: &[String]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "SSD share of each level's bytes at the end of workload A (figure 5b):\n\n| scheme | L0 | L1 | L2 | L3 | L4 |\n|---|---:|---:|---:|---:|---:|"
    );
    for s in schemes {
        if let Some(h) = runs_of(results, "exp1", s, "A").first() {
            let cells: Vec<String> = (0..5)
                .map(|l| {
                    h.level_tier_bytes.get(l).map_or("-".into(), |&(ssd, hdd)| {
                        if ssd + hdd == 0 {
                            "-".into()
                        } else {
                            format!("{:.0}%", ssd as f64 * 100.0 / (ssd + hdd) as f64)
                        }
                    })
                })
                .collect();
            let _ = writeln!(md, "| {s} | {} |", cells.join(" | "));
        }
    }
    md.push('\n');
    md
}

/// O1: the largest level sizes over the run against their targets.
fn level_maxima(scale: ReproScale, results: &[CellResult], schemes: &[String]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "O1, largest level sizes over the load against their targets (the paper's B4: L0 40.3x, L1 29.7x, L2 4.9x):\n\n| scheme | L0 | L1 | L2 |\n|---|---:|---:|---:|"
    );
    let d = divisor(scale);
    let targets = [1024 * MIB / d, 1024 * MIB / d, 10 * 1024 * MIB / d];
    for s in schemes {
        if let Some(h) = runs_of(results, "motivation", s, "read=0.9").first() {
            let cells: Vec<String> = targets
                .iter()
                .enumerate()
                .map(|(l, t)| {
                    let m = h.level_max_bytes.get(l).copied().unwrap_or(0);
                    format!("{:.1}x", m as f64 / *t as f64)
                })
                .collect();
            let _ = writeln!(md, "| {s} | {} |", cells.join(" | "));
        }
    }
    md.push('\n');
    md
}

/// O4 and the SSD cache: how the measured phase's query reads spread over SSTs (the hottest
/// SST's, 1%'s and 10%'s share; mean over the seeds), and what the SSD cache did over the run
/// (first seed).
fn read_skew(
    results: &[CellResult],
    group: &str,
    schemes: &[String],
    workloads: &[String],
) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Per-SST read skew of the measured phase (O4: query reads reaching the zone layer, by SST; the hottest 1% / 10% of the SSTs read) and the SSD cache over the run (blocks offered on eviction, admitted, cache lookups, hits):\n\n| scheme | workload | SSTs read | reads | hottest SST | hottest 1% | hottest 10% | offered | admitted | lookups | hits |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for w in workloads {
        for s in schemes {
            let Some(p) = phase(results, group, s, w) else {
                continue;
            };
            let k = p.sst_reads;
            let c = runs_of(results, group, s, w)
                .first()
                .map(|h| h.ssd_cache)
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "| {s} | {w} | {} | {} | {:.1}% | {:.1}% | {:.1}% | {} | {} | {} | {} |",
                k.ssts_read,
                k.reads,
                k.top_sst_share * 100.0,
                k.top1pct_share * 100.0,
                k.top10pct_share * 100.0,
                c.offered,
                c.admissions,
                c.lookups,
                c.hits,
            );
        }
    }
    md.push('\n');
    md
}

/// One row of a group's table: `s` on `w`, each figure over the seeds.
fn table_row(by_seed: &BySeed<'_, CellResult>, group: &str, s: &str, w: &str) -> String {
    let base = base_of(group);
    let x = by_seed.show(
        |rs| gain(rs, group, s, base, w),
        |g| format!("{g:.2}"),
        2,
        "-",
    );
    let cell = |g: fn(&HybridPhase) -> f64, digits: usize| {
        by_seed.show(
            |rs| phase(rs, group, s, w).map(|p| g(&p)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    format!(
        "| {s} | {w} | {} | {x} | {} | {} | {} | {} | {} | {} | {} |\n",
        cell(|p| p.ops_per_s, 0),
        cell(|p| p.latency_us_p99, 0),
        cell(|p| p.latency_us_p9999, 0),
        by_seed.show(
            |rs| phase(rs, group, s, w).map(|p| p.ssd_read_share * 100.0),
            |v| format!("{v:.1}%"),
            1,
            "-"
        ),
        cell(|p| gib(p.ssd_write_bytes), 2),
        cell(|p| gib(p.hdd_write_bytes), 2),
        cell(|p| p.migrated_bytes as f64 / MIB as f64, 1),
        paper_note(group, s, w),
    )
}

/// The study's tables, with the paper's numbers beside ours.
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# HHZS on a simulated ZNS SSD + HM-SMR HDD ({} scale)\n\nThroughput in ops/s of the measured phase (virtual time), its ratio to the group's base scheme, P99 latency, the SSD's share of the bytes read, bytes written to each device and migrated during the phase.{}\n",
        scale.name(),
        by_seed.note(" Figures: ", ".")
    );
    for group in EXPERIMENTS {
        let (schemes, workloads) = matrix(results, group);
        if schemes.is_empty() {
            continue;
        }
        let base = base_of(group);
        let _ = writeln!(
            md,
            "## {group}\n\n| scheme | workload | ops/s | x {base} | P99 µs | P99.99 µs | SSD read share | SSD GiB written | HDD GiB written | migrated MiB | paper |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for w in &rows(group, &workloads) {
            let w = w.as_str();
            for s in &schemes {
                if phase(results, group, s, w).is_none() {
                    continue;
                }
                md.push_str(&table_row(&by_seed, group, s, w));
            }
        }
        md.push('\n');
        if group == "exp1" {
            md.push_str(&level_shares(results, &schemes));
        }
        if matches!(group, "exp1" | "exp2" | "ablation") {
            md.push_str(&read_skew(results, group, &schemes, &workloads));
        }
        if group == "motivation" {
            md.push_str(&level_maxima(scale, results, &schemes));
        }
    }
    let _ = writeln!(
        md,
        "## Must show (small scale)\n\n| check | paper | bar | ours | met |\n|---|---|---:|---:|---|"
    );
    for (i, c) in must_show(results).into_iter().enumerate() {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} | {} |",
            c.what,
            c.paper,
            c.bar,
            by_seed.show(|rs| must_show(rs)[i].ours, |o| format!("{o:.2}"), 2, "-"),
            match c.met() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
        );
    }
    let failed: Vec<&CellResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} {}: {}",
                r.group,
                r.scheme,
                r.workload,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    fn named_chunk(c: &[Cell], scheme: &str) -> u64 {
        c.iter()
            .find(|x| x.scheme == scheme)
            .unwrap()
            .scenario
            .fs
            .migration_chunk_kib
    }

    #[test]
    fn every_cell_is_a_valid_hybrid_scenario() {
        let plan = HhzsPlan {
            seeds: vec![1],
            experiments: Vec::new(),
        };
        let c = cells(ReproScale::Small, &plan).unwrap();
        assert_eq!(c.len(), 8 + 18 + 20 + 15 + 15 + 28 + 7 + 16);
        assert_eq!(named_chunk(&c, "P+M/1MiB"), 1024);
        assert_eq!(named_chunk(&c, "P+M"), 128);
        let demand = |scheme: &str| {
            c.iter()
                .find(|x| x.scheme == scheme)
                .unwrap()
                .scenario
                .fs
                .hhzs_compaction_demand
        };
        assert!(demand("P"));
        assert!(!demand("P/no-demand"));
        assert!(!demand("HHZS/no-demand"));
        for cell in &c {
            cell.scenario.db_options().unwrap();
            assert_eq!(cell.scenario.device.kind.as_deref(), Some("hybrid"));
        }
        let a = scenario(
            "HHZS",
            Work::Ycsb("A"),
            ReproScale::Small,
            1,
            Knobs::default(),
        )
        .unwrap();
        assert_eq!(a.fs.placement, "hhzs");
        let o = a.db_options().unwrap();
        assert_eq!(o.min_write_buffer_number_to_merge, 2);
        assert_eq!(o.write_buffer_size, 4 * MIB);
        assert_eq!(o.target_file_size_base % 4096, 0);
        let phases = a.workload.ycsb_phases().unwrap();
        assert_eq!(phases[0].recordcount, PAPER_RECORDS / 128);
        assert_eq!(phases[1].operationcount, PAPER_YCSB_OPS / 128);
        // Exp#5 at 20 zones with workload A is Exp#1's A: one configuration.
        let named = |g: &str, s: &str, w: &str| {
            let mut x = c
                .iter()
                .find(|x| x.group == g && x.scheme == s && x.workload == w)
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        assert_eq!(named("exp5", "B3", "zones=20"), named("exp1", "B3", "A"));
        assert_eq!(
            named("exp3", "HHZS", "alpha=0.9"),
            named("exp2", "P+M+C", "W2")
        );
        assert!(
            cells(
                ReproScale::Small,
                &HhzsPlan {
                    experiments: vec!["exp9".into()],
                    ..plan
                }
            )
            .is_err()
        );
    }

    fn run(scheme: &str, seed: u64, load: f64, ops_per_s: f64) -> CellResult {
        let phase = |ops_per_s: f64| HybridPhase {
            ops_per_s,
            ssd_read_share: 0.5,
            ..HybridPhase::default()
        };
        let hybrid = Some(HybridFigures {
            phases: vec![phase(load), phase(ops_per_s)],
            ..HybridFigures::default()
        });
        let f = crate::reproduce::Figures {
            hybrid,
            ..crate::reproduce::Figures::default()
        };
        CellResult::test_run("exp1", scheme, "A", seed, f)
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_papers_figures() {
        use crate::stats::Summary;
        let results = vec![
            run("B3", 1, 50.0, 100.0),
            run("HHZS", 1, 55.0, 120.0),
            run("B3", 2, 50.0, 100.0),
            run("HHZS", 2, 57.0, 150.0),
            run("B3", 3, 50.0, 100.0),
            run("HHZS", 3, 56.0, 130.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "mean of 3 seeds, ± 95% interval (Student's t)");
        let ops = Summary::of(&[120.0, 150.0, 130.0]).unwrap();
        let x = Summary::of(&[1.2, 1.5, 1.3]).unwrap();
        assert_has(
            &md,
            &format!(
                "| HHZS | A | {:.0} ± {:.0} | {:.2} ± {:.2} | 0 | 0 | 50.0% |",
                ops.mean, ops.ci95, x.mean, x.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| exp1 A: HHZS / B3 | +21.0% or more | 1.10 | {:.2} ± {:.2} | yes |",
                x.mean, x.ci95
            ),
        );
        let j = json(ReproScale::Small, &results);
        assert_eq!(
            j["must_show"][0]["ours_interval"]["ci95"].as_f64(),
            Some(x.ci95)
        );
        assert_eq!(
            j["exp1"]["HHZS"]["A"]["spread"]["ops_per_s"]["ci95"].as_f64(),
            Some(ops.ci95)
        );
        let one: Vec<CellResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Small, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, "| HHZS | A | 120 | 1.20 | 0 | 0 | 50.0% |");
    }
}
