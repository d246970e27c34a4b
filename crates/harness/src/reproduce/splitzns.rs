//! The SplitZNS paper's experiments (TACO'23 §5, `shared/papers/000_…`): its schemes on its
//! workloads, on the SplitZNS device model of Table 1.
//!
//! - **Schemes** (§5.1.3): `LDP` (LIZA + `kMinOverlappingRatio` + greedy cleaning below 20 %
//!   free, on the plain ZNS SSD), `Gear` (dedicated zones per level, `level-zones`, with
//!   LevelDB's round-robin picking, `kRoundRobin`), `LLC` (dedicated zones per level with the
//!   lifetime-leveling picker, `compaction_scheme = "llc"`), `SplitZNS` (the selective
//!   allocator on the SplitZNS device with every acceleration). Zone cleaning is on for all
//!   (greedy, 20 %), as §5.1.3 says; the selective allocator's cleaning skips subzones.
//! - **Breakdown** (§5.4): `native` (subzones for every level, with the subzone and chip
//!   allocators, no acceleration), `+diff` (subzones for L4 and deeper only), `+SZR` (and the
//!   SubZone Ring), `+RP` (and the Read Prefetcher), `+RS` (and the Read Scheduler: SplitZNS).
//! - **Workloads** (Table 2): `fillrandom` (the load, ~50 GiB of 16 B keys and 1 KiB values),
//!   `overwrite` and `readrandom` (4 threads x 1 M operations after the load), `ycsb-l` (the
//!   same number of writes with zipfian 0.99 keys: a skewed load, as updates so keys repeat),
//!   `ycsb-a` ... `ycsb-f` (4 threads x 1 M operations after `ycsb-l`).
//!
//! Every figure of a workload is its measured phase's (the last): throughput, latency
//! percentiles, and the bytes the device wrote, the tree wrote and cleaning copied during it.
//! `small` divides the device (zone and subzone sizes), the engine's sizes and the operation
//! counts by 64; `tiny` by 256 (checks only); `paper` is the paper's own set-up.
//!
//! Gear and LLC here are their zone layout and picking rules; Gear's cascading "gear
//! compaction" and LLC's relocation of skipped files and its temporary zone group are not
//! modeled (see `docs/results/splitzns.md`).

use std::fmt::Write as _;

use super::figures::{CellResult, Figures, Measured};
use super::seeds::{BySeed, summaries};
use super::{Cell, Form, ReproScale};
use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

/// The schemes of figures 9-12, in the paper's order.
pub const MAIN_SCHEMES: [&str; 4] = ["LDP", "Gear", "LLC", "SplitZNS"];

/// The breakdown of figures 13-15, one technique added at a time; then `LDP+prio`, an
/// ablation row that is not the paper's: LDP on the per-die priority scheduler that the Read
/// Scheduler switches on for the whole device (queries before compaction reads, programs and
/// erases), to separate the scheduler's share of SplitZNS's gain from the subzones'.
///
/// `+diff L3` and `SplitZNS L3` are ablation rows too: subzones from L3 on instead of L4, with
/// no acceleration and with all of them. At the paper's load L4 is filled by trivial moves
/// (kMinOverlappingRatio takes L3 files without L4 overlap first), so no SST is ever written
/// to L4 and the L4 rule places nothing in subzones; these rows show what subzones do when
/// they are written.
pub const BREAKDOWN_SCHEMES: [&str; 8] = [
    "native",
    "+diff",
    "+SZR",
    "+RP",
    "+RS",
    "LDP+prio",
    "+diff L3",
    "SplitZNS L3",
];

/// Every workload of Table 2, in the paper's order.
pub const WORKLOADS: [&str; 10] = [
    "fillrandom",
    "overwrite",
    "readrandom",
    "ycsb-l",
    "ycsb-a",
    "ycsb-b",
    "ycsb-c",
    "ycsb-d",
    "ycsb-e",
    "ycsb-f",
];

/// The keys the issue names for every scheme and workload of the JSON (there are more).
pub const ISSUE_KEYS: [&str; 7] = [
    "ops_per_s",
    "latency_us_p99",
    "latency_us_p999",
    "device_write_bytes",
    "user_write_bytes",
    "gc_copied_bytes",
    "stall_ns",
];

/// The breakdown's workloads (§5.4: "the overwrite and read random workload").
pub const BREAKDOWN_WORKLOADS: [&str; 2] = ["overwrite", "readrandom"];

/// Puts of the load at paper scale: §5.1.4 loads "approximately 50 GiB" of 1 KiB values
/// (52,428,800 puts); we load 90 % of that, 45 GiB: with the full 50 GiB uncompressed and 16
/// compactions at once, LDP and SplitZNS run the device out of space at `small` (measured;
/// the paper notes the "space spike during compactions" that kept its load at 50 GiB).
pub const PAPER_LOAD_PUTS: u64 = 47_185_920;

/// Operations per thread of a measured workload at paper scale (§5.1.4: 4 threads x 1 M).
pub const PAPER_OPS_PER_THREAD: u64 = 1_000_000;

/// Client threads of a measured workload.
pub const THREADS: u64 = 4;

const MIB: u64 = 1 << 20;

/// The divisor of sizes and counts at `scale` (the device's `1/N`).
pub fn divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 64,
        ReproScale::Paper => 1,
        // 1/1024 does not divide the profile's 512 pages per block.
        ReproScale::Tiny => 256,
    }
}

/// Device, placement and engine lines of `scheme` (TOML).
fn scheme_toml(scheme: &str) -> Result<(String, String, &'static str), HarnessError> {
    // (device lines, fs lines, engine lines)
    let selective = |min_level: u32, max_pct: u32| {
        format!(
            "placement = \"selective\"\nselective_min_level = {min_level}\nselective_max_split_pct = {max_pct}\n"
        )
    };
    let split = |ring: bool, prefetcher: bool, read_scheduler: bool| {
        format!(
            "kind = \"splitzns\"\n[device.splitzns]\nring = {ring}\nprefetcher = {prefetcher}\nread_scheduler = {read_scheduler}\n"
        )
    };
    Ok(match scheme {
        "LDP" => (String::new(), "placement = \"liza\"\n".into(), ""),
        "LDP+prio" => (
            "scheduler = \"priority\"\n".into(),
            "placement = \"liza\"\n".into(),
            "",
        ),
        "Gear" => (
            String::new(),
            "placement = \"level-zones\"\n".into(),
            "compaction_pri = \"kRoundRobin\"\n",
        ),
        "LLC" => (
            String::new(),
            "placement = \"level-zones\"\n".into(),
            "compaction_scheme = \"llc\"\n",
        ),
        "SplitZNS" | "+RS" => (split(true, true, true), selective(4, 60), ""),
        "native" => (split(false, false, false), selective(0, 100), ""),
        "+diff" => (split(false, false, false), selective(4, 60), ""),
        "+SZR" => (split(true, false, false), selective(4, 60), ""),
        "+RP" => (split(true, true, false), selective(4, 60), ""),
        "+diff L3" => (split(false, false, false), selective(3, 60), ""),
        "SplitZNS L3" => (split(true, true, true), selective(3, 60), ""),
        other => {
            return Err(HarnessError::Config(format!(
                "splitzns scheme '{other}'; known: {}, {}",
                MAIN_SCHEMES.join(", "),
                BREAKDOWN_SCHEMES.join(", ")
            )));
        }
    })
}

/// The YCSB mix of `ycsb-a` ... `ycsb-f` (YCSB's core workload files).
pub(crate) fn ycsb_mix(w: &str) -> Option<&'static str> {
    Some(match w {
        "ycsb-a" => "readproportion = 0.5\nupdateproportion = 0.5\n",
        "ycsb-b" => "readproportion = 0.95\nupdateproportion = 0.05\n",
        "ycsb-c" => "readproportion = 1.0\nupdateproportion = 0.0\n",
        "ycsb-d" => {
            "readproportion = 0.95\nupdateproportion = 0.0\ninsertproportion = 0.05\nrequestdistribution = \"latest\"\n"
        }
        "ycsb-e" => {
            "readproportion = 0.0\nupdateproportion = 0.0\nscanproportion = 0.95\ninsertproportion = 0.05\nmaxscanlength = 100\n"
        }
        "ycsb-f" => {
            "readproportion = 0.5\nupdateproportion = 0.0\nreadmodifywriteproportion = 0.5\n"
        }
        _ => return None,
    })
}

/// One point of figure 16's sweeps: what differs from the study's set-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Variant {
    /// The study's own set-up.
    Base,
    /// Values of this many bytes (the load keeps its bytes: fewer, larger puts).
    ValueSize(u64),
    /// The skewed load and YCSB's requests with this zipfian constant; `None`: uniform.
    Skew(Option<f64>),
    /// RocksDB's `compaction_pri`.
    Pri(&'static str),
}

/// Percent of the study's load the sweeps load: at the full load, 8 of the 26 sweep runs at
/// `small` ran the device out of space (128 B and 4 KiB values, and `compaction_pri` other
/// than kMinOverlappingRatio use more space than the study's set-up; measured).
pub const SWEEP_LOAD_PCT: u64 = 70;

/// Figure 16's sweeps: (sweep name, workload, points). Value size and `compaction_pri` on
/// overwrite, skew on YCSB-A (after a load of the same skew). The paper's chip-count sweep
/// (figure 16b) is not here: it needs a profile per chip count.
pub const SWEEPS: [(&str, &str, &[Variant]); 3] = [
    (
        "value_size",
        "overwrite",
        &[
            Variant::ValueSize(128),
            Variant::ValueSize(512),
            Variant::ValueSize(1024),
            Variant::ValueSize(4096),
        ],
    ),
    (
        "skew",
        "ycsb-a",
        &[
            Variant::Skew(None),
            Variant::Skew(Some(0.8)),
            Variant::Skew(Some(0.9)),
            Variant::Skew(Some(0.95)),
            Variant::Skew(Some(0.99)),
        ],
    ),
    (
        "compaction_pri",
        "overwrite",
        &[
            Variant::Pri("kByCompensatedSize"),
            Variant::Pri("kMinOverlappingRatio"),
            Variant::Pri("kOldestLargestSeqFirst"),
            Variant::Pri("kOldestSmallestSeqFirst"),
        ],
    ),
];

impl Variant {
    /// The point's label (`128`, `uniform`, `0.99`, `kMinOverlappingRatio`).
    pub fn label(self) -> String {
        match self {
            Self::Base => "base".into(),
            Self::ValueSize(v) => v.to_string(),
            Self::Skew(None) => "uniform".into(),
            Self::Skew(Some(c)) => c.to_string(),
            Self::Pri(p) => p.to_owned(),
        }
    }
}

/// The paper's SplitZNS over LDP at a sweep point (figure 16, §5.5), where the text gives it.
fn paper_sweep(v: Variant) -> Option<f64> {
    match v {
        Variant::Pri("kByCompensatedSize") => Some(1.50),
        Variant::Pri("kMinOverlappingRatio") => Some(1.72),
        Variant::Pri("kOldestLargestSeqFirst") => Some(1.37),
        Variant::Pri("kOldestSmallestSeqFirst") => Some(1.91),
        Variant::Skew(Some(c)) if (c - 0.99).abs() < 1e-9 => Some(1.66),
        _ => None,
    }
}

/// The `[workload]` section (and its phases) of workload `w` with `load` puts and `ops`
/// operations per thread, values of `value` bytes and the skewed load's distribution `dist`.
fn workload_toml(
    w: &str,
    (load, ops, value): (u64, u64, u64),
    dist: &str,
) -> Result<String, HarnessError> {
    let db_bench = |then: &str| {
        format!(
            "[workload]\nbenchmarks = \"fillrandom\"\nnum = {load}\nkey_size = 16\nvalue_size = {value}\n{then}"
        )
    };
    // The skewed load: `load` writes (upserts) of zipfian keys over `load` records, without
    // YCSB's load phase.
    let ycsb_load = format!(
        "[workload]\nkind = \"ycsb\"\nycsb_load = false\n[workload.ycsb]\nrecordcount = {load}\noperationcount = {load}\nreadproportion = 0.0\nupdateproportion = 1.0\nupsert = true\n{dist}fieldcount = 1\nfieldlength = {value}\n"
    );
    Ok(match w {
        "fillrandom" => db_bench(""),
        "overwrite" | "readrandom" => db_bench(&format!(
            "[[workload.then]]\nbenchmarks = \"{w}\"\nnum = {n}\nreads = {ops}\nthreads = {THREADS}\n",
            n = if w == "overwrite" { ops } else { load },
        )),
        "ycsb-l" => ycsb_load,
        other => {
            let mix = ycsb_mix(other).ok_or_else(|| {
                HarnessError::Config(format!(
                    "splitzns workload '{other}'; known: {}",
                    WORKLOADS.join(", ")
                ))
            })?;
            let mut t = ycsb_load;
            let _ = write!(
                t,
                "[[workload.then]]\n[workload.then.ycsb]\noperationcount = {}\nthreadcount = {THREADS}\n{mix}",
                ops * THREADS
            );
            t
        }
    })
}

/// The scenario of `scheme` on workload `w` at `scale` with `seed`.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown scheme or workload.
pub fn scenario(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
) -> Result<Scenario, HarnessError> {
    scenario_at(scheme, w, scale, seed, Variant::Base)
}

/// [`scenario`] at a point of figure 16's sweeps.
///
/// # Errors
/// As [`scenario`].
pub fn scenario_at(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
    variant: Variant,
) -> Result<Scenario, HarnessError> {
    let d = divisor(scale);
    let (device, fs, engine) = scheme_toml(scheme)?;
    let value = match variant {
        Variant::ValueSize(v) => v,
        _ => 1024,
    };
    // The same bytes loaded whatever the value size; the sweeps load less (see
    // [`SWEEP_LOAD_PCT`]).
    let pct = if variant == Variant::Base {
        100
    } else {
        SWEEP_LOAD_PCT
    };
    let load = PAPER_LOAD_PUTS * (16 + 1024) / (16 + value) * pct / 100 / d;
    let dist = match variant {
        Variant::Skew(None) => "requestdistribution = \"uniform\"\n".to_owned(),
        Variant::Skew(Some(c)) => {
            format!("requestdistribution = \"zipfian\"\nzipfianconstant = {c}\n")
        }
        _ => "requestdistribution = \"zipfian\"\nzipfianconstant = 0.99\n".to_owned(),
    };
    let pri = match variant {
        // The default is left unset, so that point is the study's own configuration.
        Variant::Pri(p) if p != "kMinOverlappingRatio" => {
            format!("compaction_pri = \"{p}\"\n")
        }
        _ => String::new(),
    };
    let ops = PAPER_OPS_PER_THREAD / d;
    // The paper's RocksDB (v7.6.0: static level sizes by default), values stored
    // uncompressed (the paper's LDP cleans heavily at 50 GiB on 80: its data was not halved
    // by compression): 64 MiB memtables, SSTs the size of a subzone (32 MiB; 30 MiB here
    // so that an SST, which ends a little past its target, still fits one), 256 MiB L1, 16
    // compactions at once (21 jobs: 5 flushes + 16 compactions); the guest's 32 vCPUs.
    let text = format!(
        "name = \"{scheme} {w}\"\nseed = {seed}\nsample_interval_ms = 1000\nhost_cores = 32\n\
         [device]\nprofile = \"splitzns-paper\"\nscale = \"1/{d}\"\n{device}\
         [fs]\ncleaner = \"greedy\"\ngc_threshold = 20\n{fs}\
         [engine]\nwrite_buffer_size = {wb}\ntarget_file_size_base = {sst}\nmax_bytes_for_level_base = {l1}\nmax_background_jobs = 21\nlevel_compaction_dynamic_level_bytes = false\ncompression = \"none\"\n{engine}{pri}\
         {workload}",
        wb = 64 * MIB / d,
        sst = 30 * MIB / d,
        l1 = 256 * MIB / d,
        workload = workload_toml(w, (load, ops, value), &dist)?,
    );
    Scenario::base(&text)
}

/// What of the study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPlan {
    /// Seeds (figures are their means).
    pub seeds: Vec<u64>,
    /// Workloads of the main matrix (empty: all of [`WORKLOADS`]).
    pub workloads: Vec<String>,
    /// Also the breakdown (figures 13-15).
    pub breakdown: bool,
    /// Also figure 16's sweeps ([`SWEEPS`], LDP and SplitZNS).
    pub sweeps: bool,
}

/// Every simulation of the study: per seed, the main schemes on the workloads, then the
/// breakdown on overwrite and readrandom.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown workload.
pub fn cells(scale: ReproScale, plan: &SplitPlan) -> Result<Vec<Cell>, HarnessError> {
    if let Some(w) = plan
        .workloads
        .iter()
        .find(|w| !WORKLOADS.contains(&w.as_str()))
    {
        return Err(HarnessError::Config(format!(
            "workload '{w}'; known: {}",
            WORKLOADS.join(", ")
        )));
    }
    let runs = |w: &str| plan.workloads.is_empty() || plan.workloads.iter().any(|x| x == w);
    let mut out = Vec::new();
    let cell = |group: &'static str, scheme: &'static str, w: &str, seed: u64| {
        Ok::<_, HarnessError>(Cell {
            group,
            scheme,
            form: Form::Code,
            workload: w.to_owned(),
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed,
            scenario: scenario(scheme, w, scale, seed)?,
        })
    };
    for &seed in &plan.seeds {
        for w in WORKLOADS.iter().filter(|w| runs(w)) {
            for s in MAIN_SCHEMES {
                out.push(cell("scheme", s, w, seed)?);
            }
        }
        if plan.sweeps {
            for (sweep, w, points) in SWEEPS {
                for &v in points {
                    for scheme in ["LDP", "SplitZNS"] {
                        out.push(Cell {
                            group: "sweep",
                            scheme,
                            form: Form::Code,
                            workload: format!("{w}@{sweep}={}", v.label()),
                            turning_point: None,
                            level_constraint: None,
                            ablation_step: None,
                            seed,
                            scenario: scenario_at(scheme, w, scale, seed, v)?,
                        });
                    }
                }
            }
        }
        if plan.breakdown {
            for w in BREAKDOWN_WORKLOADS.iter().filter(|w| runs(w)) {
                for s in BREAKDOWN_SCHEMES {
                    out.push(cell("breakdown", s, w, seed)?);
                }
            }
        }
    }
    Ok(out)
}

/// The mean figures of `scheme` on `w` over the seeds run.
fn mean_of(results: &[CellResult], scheme: &str, w: &str) -> Option<Figures> {
    let runs: Vec<&Figures> = results
        .iter()
        .filter(|r| r.scheme == scheme && r.workload == w)
        .filter_map(|r| r.figures.as_ref().ok())
        .collect();
    Figures::mean(&runs)
}

/// The issue's keys for one scheme and workload, from the measured phase.
fn workload_json(f: &Figures) -> serde_json::Value {
    let p = f.measured.clone().unwrap_or_default();
    serde_json::json!({
        "ops": p.ops,
        "ops_per_s": p.ops_per_s,
        "latency_us_p50": p.latency_us_p50,
        "latency_us_p99": p.latency_us_p99,
        "latency_us_p999": p.latency_us_p999,
        "device_write_bytes": p.device_write_bytes,
        "user_write_bytes": p.user_write_bytes,
        "gc_copied_bytes": p.gc_copied_bytes,
        "stall_ns": p.stall_ns,
        "run_device_write_bytes": p.run_device_write_bytes,
        "run_gc_copied_bytes": f.gc_copied_bytes,
        "tree_bytes": p.tree_bytes,
        "tree_files": p.tree_files,
        "compaction_read_mb_per_s": f.compaction_read_mb_per_s,
        "compaction_mb_per_s": p.compaction_mb_per_s,
        "subzone_ssts": p.subzone_ssts,
        "trivial_moves": p.trivial_moves,
        "sst_lifetime_s_by_level": p.sst_lifetime_s_by_level,
    })
}

/// The study's JSON: an object per scheme (the paper's names), each with an object per
/// workload run.
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let seeds = super::seeds::seeds_of(results);
    let by_seed = BySeed::new(results);
    let mut schemes = serde_json::Map::new();
    for s in MAIN_SCHEMES.iter().chain(&BREAKDOWN_SCHEMES) {
        let mut per = serde_json::Map::new();
        for w in WORKLOADS {
            if let Some(f) = mean_of(results, s, w) {
                let mut o = workload_json(&f);
                if by_seed.many() {
                    let each: Vec<serde_json::Value> = by_seed
                        .each()
                        .iter()
                        .filter_map(|rs| mean_of(rs, s, w).map(|f| workload_json(&f)))
                        .collect();
                    o["spread"] = summaries(&each);
                }
                per.insert(w.to_owned(), o);
            }
        }
        if !per.is_empty() {
            schemes.insert((*s).to_owned(), serde_json::Value::Object(per));
        }
    }
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.figures
                .as_ref()
                .err()
                .map(|e| format!("{} {} (seed {}): {e}", r.scheme, r.workload, r.seed))
        })
        .collect();
    let mut sweeps = serde_json::Map::new();
    for (sweep, w, points) in SWEEPS {
        let mut per = serde_json::Map::new();
        for &v in points {
            let key = format!("{w}@{sweep}={}", v.label());
            let (Some(l), Some(z)) = (
                mean_of(results, "LDP", &key),
                mean_of(results, "SplitZNS", &key),
            ) else {
                continue;
            };
            per.insert(
                v.label(),
                serde_json::json!({
                    "LDP": workload_json(&l),
                    "SplitZNS": workload_json(&z),
                    "splitzns_over_ldp": ratio(results, "SplitZNS", "LDP", &key, ops_per_s),
                    "paper": paper_sweep(v),
                }),
            );
        }
        if !per.is_empty() {
            sweeps.insert(sweep.to_owned(), serde_json::Value::Object(per));
        }
    }
    serde_json::json!({
        "study": "splitzns",
        "scale": scale.name(),
        "seeds": seeds,
        "schemes": schemes,
        "sweeps": sweeps,
        "must_show": must_show_json(results, &by_seed),
        "failed": failed,
    })
}

/// One of the issue's "must show" comparisons.
struct Check {
    what: &'static str,
    paper: f64,
    /// The bar at small scale (half the paper's gain), or `None`: direction only.
    bar: Option<f64>,
    ours: Option<f64>,
    /// Lower is better (latency).
    lower: bool,
}

impl Check {
    fn met(&self) -> Option<bool> {
        let ours = self.ours?;
        Some(match (self.bar, self.lower) {
            (Some(b), false) => ours >= b,
            (Some(b), true) => ours <= b,
            (None, false) => ours > 1.0,
            (None, true) => ours < 1.0,
        })
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "what": self.what,
            "paper": self.paper,
            "bar": self.bar,
            "ours": self.ours,
            "met": self.met(),
        })
    }
}

/// The must-show list as JSON; with more than one seed each check's `ours_interval` (the
/// summary of each seed's ratio).
fn must_show_json(
    results: &[CellResult],
    by_seed: &BySeed<'_, CellResult>,
) -> Vec<serde_json::Value> {
    must_show(results)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut o = c.json();
            if by_seed.many() {
                o["ours_interval"] = serde_json::json!(by_seed.summary(|rs| must_show(rs)[i].ours));
            }
            o
        })
        .collect()
}

/// Ratio of `key` of the measured phase: `scheme` over `base` on `workload`.
fn ratio(
    results: &[CellResult],
    scheme: &str,
    base: &str,
    workload: &str,
    key: fn(&Figures) -> f64,
) -> Option<f64> {
    let ours = key(&mean_of(results, scheme, workload)?);
    let theirs = key(&mean_of(results, base, workload)?);
    (theirs > 0.0).then(|| ours / theirs)
}

fn ops_per_s(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.ops_per_s)
}

fn p99(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p99)
}

fn p999(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p999)
}

/// The issue's must-show list: gains of at least half the paper's over LDP, direction over
/// Gear and LLC, the breakdown's two write gains, lower P99 on overwrite.
fn must_show(r: &[CellResult]) -> Vec<Check> {
    let gain = |what, paper: f64, half: bool, a, b, w| Check {
        what,
        paper,
        bar: half.then(|| 1.0 + (paper - 1.0) / 2.0),
        ours: ratio(r, a, b, w, ops_per_s),
        lower: false,
    };
    vec![
        gain(
            "overwrite, SplitZNS / LDP",
            2.77,
            true,
            "SplitZNS",
            "LDP",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / LDP",
            1.79,
            true,
            "SplitZNS",
            "LDP",
            "ycsb-a",
        ),
        gain(
            "overwrite, SplitZNS / Gear",
            3.55,
            false,
            "SplitZNS",
            "Gear",
            "overwrite",
        ),
        gain(
            "overwrite, SplitZNS / LLC",
            2.68,
            false,
            "SplitZNS",
            "LLC",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / Gear",
            1.63,
            false,
            "SplitZNS",
            "Gear",
            "ycsb-a",
        ),
        gain(
            "YCSB-A, SplitZNS / LLC",
            1.23,
            false,
            "SplitZNS",
            "LLC",
            "ycsb-a",
        ),
        gain(
            "overwrite, +diff / native",
            1.43,
            true,
            "+diff",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / native",
            1.88,
            true,
            "+SZR",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / +diff",
            1.88,
            true,
            "+SZR",
            "+diff",
            "overwrite",
        ),
        Check {
            what: "overwrite P99, SplitZNS / LDP",
            paper: 1.0 - 0.572,
            bar: None,
            ours: ratio(r, "SplitZNS", "LDP", "overwrite", p99),
            lower: true,
        },
    ]
}

/// The paper's throughput of SplitZNS over each competitor (figure 9), where §5.2 gives it.
fn paper_gain(competitor: &str, w: &str) -> Option<f64> {
    Some(match (competitor, w) {
        ("LDP", "overwrite") => 2.77,
        ("LDP", "ycsb-a") => 1.79,
        ("Gear", "overwrite") => 3.55,
        ("LLC", "overwrite") => 2.68,
        ("Gear", "ycsb-a") => 1.63,
        ("LLC", "ycsb-a") => 1.23,
        ("LDP", "readrandom") => 1.16,
        ("Gear", "readrandom") => 2.05,
        ("LLC", "readrandom") => 1.11,
        ("LDP", "ycsb-c") => 1.29,
        ("Gear", "ycsb-c") => 1.21,
        ("LLC", "ycsb-c") => 1.07,
        _ => return None,
    })
}

fn mib(b: u64) -> f64 {
    b as f64 / MIB as f64
}

/// The study's tables, our figures beside the paper's.
#[allow(
    clippy::too_many_lines,
    reason = "one table per figure of the paper, in its order"
)]
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# SplitZNS (TACO'23) at `--scale {}`\n\nEvery figure is the measured phase's (the last of the workload), the mean over the seeds run.{}\n",
        scale.name(),
        by_seed.note(" Ours: ", ".")
    );
    // A figure of `scheme` on `w` (`g` of its mean figures), and a ratio, over seeds.
    let fig = |scheme: &str, w: &str, g: &dyn Fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| mean_of(rs, scheme, w).map(|f| g(&f)),
            |v| format!("{v:.digits$}"),
            digits,
            "-",
        )
    };
    let times = |a: &str, b: &str, w: &str, key: fn(&Figures) -> f64| {
        by_seed.show(|rs| ratio(rs, a, b, w, key), |x| format!("{x:.2}x"), 2, "-")
    };
    // Figure 9: throughput normalized to LDP.
    let _ = writeln!(
        md,
        "## Throughput (figure 9): ops/s, and SplitZNS over each scheme (paper in brackets)\n"
    );
    let _ = writeln!(
        md,
        "| workload | LDP | Gear | LLC | SplitZNS | SplitZNS / LDP | / Gear | / LLC |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if MAIN_SCHEMES
            .iter()
            .all(|s| mean_of(results, s, w).is_none())
        {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            let _ = write!(md, " {} |", fig(s, w, &ops_per_s, 0));
        }
        for c in ["LDP", "Gear", "LLC"] {
            let ours = times("SplitZNS", c, w, ops_per_s);
            let paper = paper_gain(c, w).map_or(String::new(), |p| format!(" ({p:.2}x)"));
            let _ = write!(md, " {ours}{paper} |");
        }
        md.push('\n');
    }
    // Figure 10: tail latency.
    let _ = writeln!(
        md,
        "\n## Tail latency (figure 10): P99 / P99.9, µs\n\n| workload | LDP | Gear | LLC | SplitZNS | SplitZNS P99 vs LDP |\n|---|---:|---:|---:|---:|---:|"
    );
    for w in WORKLOADS {
        if mean_of(results, "LDP", w).is_none() {
            continue;
        }
        let _ = write!(md, "| {w} |");
        for s in MAIN_SCHEMES {
            if mean_of(results, s, w).is_some() {
                let _ = write!(md, " {} / {} |", fig(s, w, &p99, 0), fig(s, w, &p999, 0));
            } else {
                md.push_str(" - |");
            }
        }
        let d = by_seed.show(
            |rs| ratio(rs, "SplitZNS", "LDP", w, p99).map(|x| (x - 1.0) * 100.0),
            |c| format!("{c:+.1}%"),
            1,
            "-",
        );
        let _ = writeln!(md, " {d} |");
    }
    md.push_str("\nPaper: SplitZNS vs LDP P99 / P99.9 -57.2% / -52.8% on overwrite, -43.1% / -43% on readrandom.\n");
    // Figures 11-12: writes on YCSB-A, tree after YCSB-L.
    let _ = writeln!(
        md,
        "\n## Writes during YCSB-A (figure 11) and the tree after YCSB-L (figure 12)\n\n| scheme | device writes MiB (-D) | tree writes MiB (-U) | cleaning copy MiB | tree after YCSB-L MiB | SSTs |\n|---|---:|---:|---:|---:|---:|"
    );
    for s in MAIN_SCHEMES {
        let a = mean_of(results, s, "ycsb-a").and_then(|f| f.measured);
        let l = mean_of(results, s, "ycsb-l");
        if a.is_none() && l.is_none() {
            continue;
        }
        let cell = |w: &str, g: fn(&Measured) -> f64, digits: usize| {
            by_seed.show(
                |rs| mean_of(rs, s, w)?.measured.as_ref().map(g),
                |v| format!("{v:.digits$}"),
                digits,
                "-",
            )
        };
        let _ = writeln!(
            md,
            "| {s} | {} | {} | {} | {} | {} |",
            cell("ycsb-a", |p| mib(p.device_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.user_write_bytes), 1),
            cell("ycsb-a", |p| mib(p.gc_copied_bytes), 1),
            cell("ycsb-l", |m| mib(m.tree_bytes), 1),
            cell("ycsb-l", |m| m.tree_files as f64, 0),
        );
    }
    md.push_str("\nPaper (after YCSB-L): Gear 37.38 GiB / 2509 SSTs, LLC 36.41 / 2451, LDP 41.95 / 2953, SplitZNS 41.97 / 2873; equal tree writes for LDP and SplitZNS, more for Gear and LLC.\n");
    // Figures 13-15: the breakdown.
    if results.iter().any(|r| r.group == "breakdown") {
        let _ = writeln!(
            md,
            "\n## Breakdown (figures 13-15), normalized to native\n\n| workload | scheme | ops/s | x native | x previous | P99 µs | P99.9 µs | stall s | compaction MB/s | SSTs in subzones | trivial moves |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for w in BREAKDOWN_WORKLOADS {
            let mut prev: Option<&str> = None;
            for s in BREAKDOWN_SCHEMES {
                let Some(f) = mean_of(results, s, w) else {
                    continue;
                };
                let x = |b: &str| times(s, b, w, ops_per_s);
                let p = f.measured.clone().unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {w} | {s} | {} | {} | {} | {} | {} | {:.2} | {:.1} | {} | {} |",
                    fig(s, w, &ops_per_s, 0),
                    x("native"),
                    if s == "LDP+prio" {
                        format!("{} (x LDP)", x("LDP"))
                    } else if s == "+diff L3" {
                        format!("{} (x +diff)", x("+diff"))
                    } else if s == "SplitZNS L3" {
                        format!("{} (x +diff L3)", x("+diff L3"))
                    } else {
                        prev.map_or("-".into(), x)
                    },
                    fig(s, w, &p99, 0),
                    fig(s, w, &p999, 0),
                    p.stall_ns as f64 / 1e9,
                    p.compaction_mb_per_s,
                    p.subzone_ssts,
                    p.trivial_moves,
                );
                prev = Some(s);
            }
        }
        md.push_str("\nPaper (over native, write workload): +diff 1.43x, +SZR 1.88x, +RP 1.11x; +RS lowers read P99 by 33% and P99.9 by 27%. `LDP+prio` is not the paper's: LDP on the priority scheduler the Read Scheduler turns on for the whole device; its `x previous` is over LDP. `+diff L3` and `SplitZNS L3` (not the paper's either) put SSTs in subzones from L3 on.\n");
    }
    if results.iter().any(|r| r.group == "sweep") {
        let _ = writeln!(
            md,
            "\n## Sweeps (figure 16): SplitZNS over LDP\n\n| sweep | workload | point | LDP ops/s | SplitZNS ops/s | SplitZNS / LDP | paper |\n|---|---|---|---:|---:|---:|---:|"
        );
        for (sweep, w, points) in SWEEPS {
            for &v in points {
                let key = format!("{w}@{sweep}={}", v.label());
                let ops = |s: &str| fig(s, &key, &ops_per_s, 0);
                let _ = writeln!(
                    md,
                    "| {sweep} | {w} | {} | {} | {} | {} | {} |",
                    v.label(),
                    ops("LDP"),
                    ops("SplitZNS"),
                    times("SplitZNS", "LDP", &key, ops_per_s),
                    paper_sweep(v).map_or("-".into(), |x| format!("{x:.2}x")),
                );
            }
        }
        md.push_str("\nPaper: 1.13x-2.03x over value sizes 128 B-4 KiB (more with larger values); under skew up to 1.66x over LDP, 1.55x-1.9x over the competitors on uniform.\n");
    }
    let _ = writeln!(
        md,
        "\n## Must show (the issue's bars at small scale)\n\n| comparison | paper | bar | ours | met |\n|---|---:|---:|---:|---|"
    );
    for (i, c) in must_show(results).into_iter().enumerate() {
        let ours = by_seed.show(|rs| must_show(rs)[i].ours, |x| format!("{x:.2}"), 2, "-");
        let _ = writeln!(
            md,
            "| {} | {:.2} | {} | {} | {} |",
            c.what,
            c.paper,
            c.bar.map_or_else(
                || if c.lower { "< 1".into() } else { "> 1".into() },
                |b| format!("{} {b:.2}", if c.lower { "<=" } else { ">=" })
            ),
            ours,
            match c.met() {
                Some(true) => "yes",
                Some(false) => "no",
                None => "not run",
            }
        );
    }
    let failed: Vec<&CellResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        md.push_str("\n## Failed runs\n\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} (seed {}): {}",
                r.scheme,
                r.workload,
                r.seed,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}

/// Grouped bars: for each group (workload) one bar per series (scheme), `value(series,
/// group)`; missing values are left out. Written as SVG to `path`.
pub(crate) fn bars(
    path: &std::path::Path,
    title: &str,
    y_desc: &str,
    groups: &[&str],
    series: &[&str],
    value: &dyn Fn(&str, &str) -> Option<f64>,
) -> Result<(), HarnessError> {
    use plotters::prelude::*;
    let err =
        |e: &dyn std::fmt::Display| HarnessError::Config(format!("plot {}: {e}", path.display()));
    let y_max = groups
        .iter()
        .flat_map(|g| series.iter().filter_map(|s| value(s, g)))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.5; // headroom for the legend in the top right corner
    let n = series.len() as f64;
    let root = SVGBackend::new(path, (960, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..groups.len() as f64, -0.08 * y_max..y_max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(&e))?;
    // Group names under their bars, inside the plot (tick positions are the library's).
    chart
        .draw_series(groups.iter().enumerate().map(|(i, g)| {
            Text::new(
                (*g).to_owned(),
                (i as f64 + 0.1, -0.02 * y_max),
                ("sans-serif", 13).into_font(),
            )
        }))
        .map_err(|e| err(&e))?;
    for (j, s) in series.iter().enumerate() {
        let color = Palette99::pick(j).to_rgba();
        let rects: Vec<_> = groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let v = value(s, g)?;
                let x0 = i as f64 + 0.1 + 0.8 * j as f64 / n;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + 0.8 / n, v)],
                    color.filled(),
                ))
            })
            .collect();
        chart
            .draw_series(rects)
            .map_err(|e| err(&e))?
            .label((*s).to_owned())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// The study's plots in `dir`: figure 9 (throughput over LDP per workload), figure 10 (P99 per
/// workload), the breakdown (throughput over native). Returns the files written.
///
/// # Errors
/// [`HarnessError::Config`] when a plot cannot be drawn or written.
pub fn plots(dir: &std::path::Path, results: &[CellResult]) -> Result<Vec<String>, HarnessError> {
    let mut out = Vec::new();
    let ws: Vec<&str> = WORKLOADS
        .iter()
        .copied()
        .filter(|w| mean_of(results, "LDP", w).is_some())
        .collect();
    if !ws.is_empty() {
        let f = "reproduce-splitzns-fig9.svg";
        bars(
            &dir.join(f),
            "Throughput normalized to LDP (figure 9)",
            "x LDP",
            &ws,
            &MAIN_SCHEMES,
            &|s, w| ratio(results, s, "LDP", w, ops_per_s),
        )?;
        out.push(f.to_owned());
        let f = "reproduce-splitzns-fig10.svg";
        bars(
            &dir.join(f),
            "P99 latency, µs (figure 10)",
            "µs",
            &ws,
            &MAIN_SCHEMES,
            &|s, w| mean_of(results, s, w).map(|f| p99(&f)),
        )?;
        out.push(f.to_owned());
    }
    let bw: Vec<&str> = BREAKDOWN_WORKLOADS
        .iter()
        .copied()
        .filter(|w| mean_of(results, "native", w).is_some())
        .collect();
    if !bw.is_empty() {
        let f = "reproduce-splitzns-breakdown.svg";
        bars(
            &dir.join(f),
            "Breakdown: throughput normalized to native (figures 13-14)",
            "x native",
            &bw,
            &BREAKDOWN_SCHEMES,
            &|s, w| ratio(results, s, "native", w, ops_per_s),
        )?;
        out.push(f.to_owned());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    #[test]
    fn every_scheme_and_workload_makes_a_valid_scenario() {
        for s in MAIN_SCHEMES.iter().chain(&BREAKDOWN_SCHEMES) {
            for w in WORKLOADS {
                let sc = scenario(s, w, ReproScale::Small, 1).unwrap();
                sc.db_options().unwrap();
            }
        }
        let sz = scenario("SplitZNS", "ycsb-a", ReproScale::Small, 1).unwrap();
        assert_eq!(sz.device.kind.as_deref(), Some("splitzns"));
        assert_eq!(sz.fs.placement, "selective");
        assert_eq!(sz.fs.gc_threshold, 20);
        let phases = sz.workload.ycsb_phases().unwrap();
        assert_eq!(phases.len(), 2);
        assert!(!sz.workload.ycsb_load);
        assert!(phases[0].upsert);
        assert_eq!(phases[0].operationcount, PAPER_LOAD_PUTS / 64);
        assert_eq!(phases[1].operationcount, 4 * (PAPER_OPS_PER_THREAD / 64));
        assert_eq!(phases[1].threadcount, 4);
        let native = scenario("native", "overwrite", ReproScale::Small, 1).unwrap();
        assert_eq!(native.fs.selective_min_level, 0);
        assert!(!native.device.splitzns.unwrap().ring);
        let ldp = scenario("LDP", "overwrite", ReproScale::Small, 1).unwrap();
        assert_eq!(ldp.device.kind, None);
        assert_eq!(ldp.fs.placement, "liza");
        assert_eq!(ldp.workload.phases().unwrap()[1].threads, 4);
    }

    #[test]
    fn the_matrix_is_main_schemes_by_workloads_plus_the_breakdown() {
        let plan = SplitPlan {
            seeds: vec![1],
            workloads: Vec::new(),
            breakdown: true,
            sweeps: true,
        };
        let c = cells(ReproScale::Small, &plan).unwrap();
        assert_eq!(c.len(), 4 * 10 + 8 * 2 + 2 * (4 + 5 + 4));
        // A sweep's base point is the study's own configuration.
        let named = |scheme: &str, w: &str| {
            let mut x = c
                .iter()
                .find(|c| c.scheme == scheme && c.workload == w)
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        let mor = named("LDP", "overwrite@compaction_pri=kMinOverlappingRatio");
        let base = named("LDP", "overwrite");
        assert_eq!(mor.engine, base.engine);
        assert_eq!(mor.workload.num, base.workload.num * SWEEP_LOAD_PCT / 100);
        let zipf = named("SplitZNS", "ycsb-a@skew=0.99");
        assert_eq!(
            zipf.workload.ycsb,
            named("SplitZNS", "ycsb-a")
                .workload
                .ycsb
                .clone()
                .into_iter()
                .map(|(k, v)| {
                    if k == "recordcount" || k == "operationcount" {
                        (k, toml::Value::Integer(v.as_integer().unwrap() * 70 / 100))
                    } else {
                        (k, v)
                    }
                })
                .collect()
        );
        let v128 = named("SplitZNS", "overwrite@value_size=128");
        assert_eq!(v128.workload.value_size, 128);
        assert_eq!(
            v128.workload.num,
            PAPER_LOAD_PUTS * 1040 / 144 * SWEEP_LOAD_PCT / 100 / 64
        );
        let uni = named("LDP", "ycsb-a@skew=uniform");
        assert_eq!(
            uni.workload.ycsb["requestdistribution"].as_str(),
            Some("uniform")
        );
        // +RS is SplitZNS: one configuration, run once.
        let pick = |s: &str| {
            let mut x = c
                .iter()
                .find(|c| c.scheme == s && c.workload == "overwrite")
                .unwrap()
                .scenario
                .clone();
            x.name.clear();
            x
        };
        assert_eq!(pick("+RS"), pick("SplitZNS"));
        let bad = SplitPlan {
            workloads: vec!["ycsb-z".into()],
            ..plan
        };
        assert!(cells(ReproScale::Small, &bad).is_err());
    }

    fn run(scheme: &str, w: &str, seed: u64, ops_per_s: f64, p99: f64) -> CellResult {
        let measured = Some(Measured {
            ops_per_s,
            latency_us_p99: p99,
            ..Measured::default()
        });
        let f = Figures {
            measured,
            ..Figures::default()
        };
        CellResult::test_run("scheme", scheme, w, seed, f)
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_papers_figures() {
        use crate::stats::Summary;
        let results = vec![
            run("LDP", "overwrite", 1, 100.0, 50.0),
            run("SplitZNS", "overwrite", 1, 200.0, 40.0),
            run("LDP", "overwrite", 2, 100.0, 50.0),
            run("SplitZNS", "overwrite", 2, 260.0, 30.0),
        ];
        let md = markdown(ReproScale::Small, &results);
        assert_has(&md, "mean of 2 seeds, ± 95% interval (Student's t)");
        let gain = Summary::of(&[2.0, 2.6]).unwrap();
        let ops = Summary::of(&[200.0, 260.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| overwrite | 100 | - | - | {:.0} ± {:.0} | {:.2}x ± {:.2} (2.77x) |",
                ops.mean, ops.ci95, gain.mean, gain.ci95
            ),
        );
        let p99 = Summary::of(&[-20.0, -40.0]).unwrap();
        assert_has(&md, &format!("{:+.1}% ± {:.1} |", p99.mean, p99.ci95));
        assert_has(
            &md,
            &format!(
                "| overwrite, SplitZNS / LDP | 2.77 | >= 1.89 | {:.2} ± {:.2} |",
                gain.mean, gain.ci95
            ),
        );
        let j = json(ReproScale::Small, &results);
        let iv = &j["must_show"][0]["ours_interval"];
        assert_eq!(iv["ci95"].as_f64(), Some(gain.ci95));
        assert_eq!(iv["n"], 2);
        let sp = &j["schemes"]["SplitZNS"]["overwrite"]["spread"]["ops_per_s"];
        assert_eq!(sp["ci95_high"].as_f64(), Some(ops.ci95_high));
        // One seed: no interval, the figures alone.
        let one: Vec<CellResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Small, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, "| overwrite | 100 | - | - | 200 | 2.00x (2.77x) |");
        let j = json(ReproScale::Small, &one);
        assert!(j["must_show"][0].get("ours_interval").is_none());
        assert!(j["schemes"]["LDP"]["overwrite"].get("spread").is_none());
    }
}
