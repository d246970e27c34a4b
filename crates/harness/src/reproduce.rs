//! The papers' zone-aware experiments as ready-made scenario matrices, their figures per
//! scheme, and tables that put our figures beside the papers' numbers.
//!
//! - **same-zone** (Same-Zone Compaction paper, §VII): Baseline (LIZA + SICA), A-LIZA
//!   (LIZA + ACC), CAZA (CAZA + SICA) and A-CAZA (CAZA + ACC) on db_bench fillrandom and
//!   YCSB zipfian / latest / uniform (16 B keys in db_bench, 1 KiB values) on `caza-paper`;
//!   then ACC's turning-point sweep (0, 25, 30, 50, 70) with and without the level
//!   constraint, on fillrandom with LIZA placement.
//! - **oaza** (OAZA slides): LIZA, CAZA and OAZA on random writes of 8 KiB values with 32 MiB
//!   SSTs on `oaza-paper`.
//!
//! `small` scales the device by 1/64 and the engine's sizes with it (memtable, SST and level
//! sizes keep their ratios to the zone size). The datasets are sized so that zone cleaning
//! runs at a pressure like the papers' (see `docs/results/same-zone.md`), not to the papers'
//! byte counts, which at 1/64 overfill the device (our tree and the 14 active zones hold more
//! space per byte stored than the paper reports). `paper` uses the papers' own sizes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::db_bench::HarnessError;
use crate::experiment::RunReport;
use crate::scenario::{Override, Scenario, WorkloadSection};

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Study {
    /// ZACA / ACC / CAZA.
    SameZone,
    /// OAZA vs LIZA and CAZA.
    Oaza,
}

/// How big.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReproScale {
    /// 1/64 of the papers' devices; minutes.
    Small,
    /// The papers' sizes (hours, and the device's payload in RAM).
    Paper,
}

impl ReproScale {
    /// From `small` / `paper`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for anything else.
    pub fn parse(s: &str) -> Result<Self, HarnessError> {
        match s {
            "small" => Ok(Self::Small),
            "paper" => Ok(Self::Paper),
            other => Err(HarnessError::Config(format!(
                "scale '{other}': small or paper"
            ))),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Small => "small",
            Self::Paper => "paper",
        }
    }

    /// Divisor of sizes and counts.
    fn div(self) -> u64 {
        match self {
            Self::Small => 64,
            Self::Paper => 1,
        }
    }
}

/// One scheme: a placement policy and a victim-selection scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scheme {
    /// The papers' name (`Baseline`, `A-LIZA`, ...).
    pub name: &'static str,
    /// `fs.placement`.
    pub placement: &'static str,
    /// `engine.compaction_scheme`.
    pub compaction: &'static str,
}

/// The same-zone paper's four schemes.
pub const SAME_ZONE_SCHEMES: [Scheme; 4] = [
    Scheme {
        name: "Baseline",
        placement: "liza",
        compaction: "sica",
    },
    Scheme {
        name: "A-LIZA",
        placement: "liza",
        compaction: "acc",
    },
    Scheme {
        name: "CAZA",
        placement: "caza",
        compaction: "sica",
    },
    Scheme {
        name: "A-CAZA",
        placement: "caza",
        compaction: "acc",
    },
];

/// The OAZA slides' three schemes (RocksDB's own picker underneath).
pub const OAZA_SCHEMES: [Scheme; 3] = [
    Scheme {
        name: "LIZA",
        placement: "liza",
        compaction: "rocksdb",
    },
    Scheme {
        name: "CAZA",
        placement: "caza",
        compaction: "rocksdb",
    },
    Scheme {
        name: "OAZA",
        placement: "oaza",
        compaction: "rocksdb",
    },
];

/// The same-zone paper's workloads.
pub const SAME_ZONE_WORKLOADS: [&str; 4] = ["fillrandom", "zipfian", "latest", "uniform"];

/// ACC turning points swept (percent free space).
pub const TURNING_POINTS: [u32; 5] = [0, 25, 30, 50, 70];

/// One simulation of the matrix.
#[derive(Debug, Clone)]
pub struct Cell {
    /// What it measures: `scheme`, or `sweep`.
    pub group: &'static str,
    /// Scheme name.
    pub scheme: &'static str,
    /// Workload name.
    pub workload: String,
    /// Turning point (sweep only).
    pub turning_point: Option<u32>,
    /// ACC level constraint on (sweep only).
    pub level_constraint: Option<bool>,
    /// The configuration.
    pub scenario: Scenario,
}

/// The same-zone study's base: Baseline on fillrandom at 1/64 (its `[[compare]]` variants
/// are the other schemes; the study sets them itself).
const SAME_ZONE_BASE: &str = include_str!("../../../scenarios/same-zone.toml");

/// The OAZA study's base: LIZA on 8 KiB random writes at 1/64.
const OAZA_BASE: &str = include_str!("../../../scenarios/oaza.toml");

const MIB: u64 = 1 << 20;

/// What every configuration of a study at `scale` shares: the seed, the device scale and the
/// engine's sizes (memtable, SST, level 1) divided with it, given in MiB at paper scale.
fn scaled(
    scale: ReproScale,
    seed: u64,
    (write_buffer_mib, sst_mib, l1_mib): (u64, u64, u64),
) -> Result<Vec<Override>, HarnessError> {
    let d = scale.div();
    Ok(vec![
        Override::Seed(seed),
        Override::Scale(format!("1/{d}")),
        Override::engine_int("write_buffer_size", write_buffer_mib * MIB / d)?,
        Override::engine_int("target_file_size_base", sst_mib * MIB / d)?,
        Override::engine_int("max_bytes_for_level_base", l1_mib * MIB / d)?,
    ])
}

/// A scheme's placement and victim selection.
fn scheme(s: &Scheme) -> [Override; 2] {
    [
        Override::Placement(s.placement.to_owned()),
        Override::engine_str("compaction_scheme", s.compaction),
    ]
}

/// The same-zone paper's workload `w` at `scale`.
fn same_zone_workload(w: &str, scale: ReproScale) -> Override {
    // Puts of 16 + 1024 bytes: 72 GB in the paper's fillrandom (36 GB loaded by YCSB, then as
    // many updates); 500 K at 1/64 (see the module note), YCSB half loaded, half updated.
    let puts: u64 = if scale == ReproScale::Small {
        500_000
    } else {
        69_000_000
    };
    if w == "fillrandom" {
        // The base file's workload: fillrandom, 16-byte keys, 1 KiB values.
        return Override::Num(puts);
    }
    let n = i64::try_from(puts / 2).unwrap_or(i64::MAX);
    let int = toml::Value::Integer;
    let ycsb: toml::Table = [
        ("recordcount", int(n)),
        ("operationcount", int(n)),
        ("readproportion", int(0)),
        ("updateproportion", int(1)),
        ("scanproportion", int(0)),
        ("insertproportion", int(0)),
        ("fieldcount", int(1)),
        ("fieldlength", int(1024)),
        ("requestdistribution", toml::Value::String(w.to_owned())),
        ("zipfianconstant", toml::Value::Float(0.99)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Override::Workload(WorkloadSection {
        kind: "ycsb".into(),
        ycsb,
        ..WorkloadSection::default()
    })
}

/// Every simulation of a study.
///
/// # Errors
/// [`HarnessError::Config`] if a derived scenario is invalid (a bug).
pub fn cells(study: Study, scale: ReproScale, seed: u64) -> Result<Vec<Cell>, HarnessError> {
    let mut out = Vec::new();
    match study {
        Study::SameZone => {
            let base = Scenario::base(SAME_ZONE_BASE)?.with(scaled(scale, seed, (64, 64, 256))?)?;
            for w in SAME_ZONE_WORKLOADS {
                for s in &SAME_ZONE_SCHEMES {
                    let scenario = base.clone().with(scheme(s).into_iter().chain([
                        same_zone_workload(w, scale),
                        Override::Name(format!("{} {w}", s.name)),
                    ]))?;
                    out.push(Cell {
                        group: "scheme",
                        scheme: s.name,
                        workload: w.to_owned(),
                        turning_point: None,
                        level_constraint: None,
                        scenario,
                    });
                }
            }
            let a_liza = SAME_ZONE_SCHEMES[1];
            for constraint in [false, true] {
                for tp in TURNING_POINTS {
                    let scenario = base.clone().with(scheme(&a_liza).into_iter().chain([
                        Override::engine_int("acc_turning_point", u64::from(tp))?,
                        Override::engine_int(
                            "acc_min_start_level",
                            if constraint { 2 } else { 0 },
                        )?,
                        same_zone_workload("fillrandom", scale),
                        Override::Name(format!(
                            "ACC tp={tp} {}",
                            if constraint { "L>=2" } else { "all levels" }
                        )),
                    ]))?;
                    out.push(Cell {
                        group: "sweep",
                        scheme: a_liza.name,
                        workload: "fillrandom".into(),
                        turning_point: Some(tp),
                        level_constraint: Some(constraint),
                        scenario,
                    });
                }
            }
        }
        Study::Oaza => {
            // 6 M puts of 8 KiB at paper scale; at 1/64 the count is calibrated like the
            // same-zone study's (see the module note).
            let num = if scale == ReproScale::Small {
                40_000
            } else {
                6_000_000
            };
            let mut common = scaled(scale, seed, (64, 32, 256))?;
            common.push(Override::Num(num));
            let base = Scenario::base(OAZA_BASE)?.with(common)?;
            for s in &OAZA_SCHEMES {
                let scenario = base.clone().with(
                    scheme(s)
                        .into_iter()
                        .chain([Override::Name(s.name.to_owned())]),
                )?;
                out.push(Cell {
                    group: "scheme",
                    scheme: s.name,
                    workload: "fillrandom-8k".into(),
                    turning_point: None,
                    level_constraint: None,
                    scenario,
                });
            }
        }
    }
    Ok(out)
}

/// What one simulation measured, under the names the issue and the papers use.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    /// Zone resets.
    pub zone_resets: u64,
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
    /// I/O blocking time on zone cleaning, s.
    pub io_blocking_s: f64,
    /// Flushes per second and compactions per second of virtual time.
    pub flushes_per_s: f64,
    /// Compactions per second.
    pub compactions_per_s: f64,
    /// Share of SST zone allocations that CAZA's or OAZA's own rules placed (the rest fell
    /// back to LIZA), percent; 0 for LIZA.
    pub context_placement_pct: f64,
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
        }
    }
}

/// A finished cell.
#[derive(Debug, Clone, Serialize)]
pub struct CellResult {
    /// Scheme name.
    pub scheme: String,
    /// Workload.
    pub workload: String,
    /// Turning point (sweep).
    pub turning_point: Option<u32>,
    /// Level constraint (sweep).
    pub level_constraint: Option<bool>,
    /// Figures, or why the run failed.
    pub figures: Result<Figures, String>,
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One scheme over every workload: sums of counts, means of rates and scores.
fn aggregate(per_workload: &BTreeMap<String, Figures>) -> serde_json::Value {
    let f: Vec<&Figures> = per_workload.values().collect();
    serde_json::json!({
        "gc_copied_bytes": f.iter().map(|x| x.gc_copied_bytes).sum::<u64>(),
        "zone_resets": f.iter().map(|x| x.zone_resets).sum::<u64>(),
        "ops_per_s": mean(f.iter().map(|x| x.ops_per_s)),
        "mb_per_s": mean(f.iter().map(|x| x.mb_per_s)),
        "write_amplification": mean(f.iter().map(|x| x.write_amplification)),
        "zone_write_amplification": mean(f.iter().map(|x| x.zone_write_amplification)),
        "s_same_avg": mean(f.iter().map(|x| x.s_same_avg)),
        "s_inval_avg": mean(f.iter().map(|x| x.s_inval_avg)),
        "compaction_read_latency_us": mean(f.iter().map(|x| x.compaction_read_latency_us)),
        "compaction_read_mb_per_s": mean(f.iter().map(|x| x.compaction_read_mb_per_s)),
        "victim_bytes_avg": mean(f.iter().map(|x| x.victim_bytes_avg)),
        "stall_s": mean(f.iter().map(|x| x.stall_s)),
        "io_blocking_s": mean(f.iter().map(|x| x.io_blocking_s)),
        "context_placement_pct": mean(f.iter().map(|x| x.context_placement_pct)),
        "workloads": per_workload,
    })
}

/// The study's JSON: one object per scheme under `schemes` (the papers' names), the sweep,
/// and failures.
pub fn json(study: Study, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let order: Vec<&str> = match study {
        Study::SameZone => SAME_ZONE_SCHEMES.iter().map(|s| s.name).collect(),
        Study::Oaza => OAZA_SCHEMES.iter().map(|s| s.name).collect(),
    };
    let mut schemes = serde_json::Map::new();
    for name in &order {
        let per: BTreeMap<String, Figures> = results
            .iter()
            .filter(|r| r.scheme == *name && r.turning_point.is_none())
            .filter_map(|r| {
                r.figures
                    .as_ref()
                    .ok()
                    .map(|f| (r.workload.clone(), f.clone()))
            })
            .collect();
        schemes.insert((*name).to_owned(), aggregate(&per));
    }
    let sweep: Vec<serde_json::Value> = results
        .iter()
        .filter(|r| r.turning_point.is_some())
        .map(|r| {
            serde_json::json!({
                "turning_point": r.turning_point,
                "level_constraint": r.level_constraint,
                "figures": r.figures.as_ref().ok(),
                "error": r.figures.as_ref().err(),
            })
        })
        .collect();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.figures
                .as_ref()
                .err()
                .map(|e| format!("{} {}: {e}", r.scheme, r.workload))
        })
        .collect();
    serde_json::json!({
        "study": match study { Study::SameZone => "same-zone", Study::Oaza => "oaza" },
        "scale": scale.name(),
        "schemes": schemes,
        "turning_point_sweep": sweep,
        "failed": failed,
    })
}

fn pct(ours: f64, base: f64) -> String {
    if base == 0.0 {
        "n/a".into()
    } else {
        format!("{:+.1}%", 100.0 * (ours - base) / base)
    }
}

fn find<'a>(results: &'a [CellResult], scheme: &str, workload: &str) -> Option<&'a Figures> {
    results
        .iter()
        .find(|r| r.scheme == scheme && r.workload == workload && r.turning_point.is_none())
        .and_then(|r| r.figures.as_ref().ok())
}

fn mib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 20)
}

/// The per-workload table of every scheme.
fn scheme_table(results: &[CellResult], schemes: &[Scheme], workload: &str, base: &str) -> String {
    let mut t = format!(
        "### {workload}\n\n| scheme | GC copy MiB | vs {base} | zone resets | vs {base} | PUT ops/s | vs {base} | WA | S_same | S_inval | CompactionRead µs | CompactionRead MB/s | victim MiB | stall s | I/O blocking s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let b = find(results, base, workload);
    for s in schemes {
        match find(results, s.name, workload) {
            Some(f) => {
                let (gc_b, rs_b, ops_b) = b.map_or((0.0, 0.0, 0.0), |b| {
                    (b.gc_copied_bytes as f64, b.zone_resets as f64, b.ops_per_s)
                });
                let _ = writeln!(
                    t,
                    "| {} | {:.1} | {} | {} | {} | {:.0} | {} | {:.2} | {:.3} | {:.3} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} |",
                    s.name,
                    mib(f.gc_copied_bytes),
                    pct(f.gc_copied_bytes as f64, gc_b),
                    f.zone_resets,
                    pct(f.zone_resets as f64, rs_b),
                    f.ops_per_s,
                    pct(f.ops_per_s, ops_b),
                    f.write_amplification,
                    f.s_same_avg,
                    f.s_inval_avg,
                    f.compaction_read_latency_us,
                    f.compaction_read_mb_per_s,
                    f.victim_bytes_avg / f64::from(1u32 << 20),
                    f.stall_s,
                    f.io_blocking_s,
                );
            }
            None => {
                let _ = writeln!(t, "| {} | failed | | | | | | | | | | | | | |", s.name);
            }
        }
    }
    t.push('\n');
    t
}

/// Markdown: our figures per workload, then the papers' headline numbers beside ours.
pub fn markdown(study: Study, scale: ReproScale, results: &[CellResult]) -> String {
    match study {
        Study::SameZone => same_zone_markdown(scale, results),
        Study::Oaza => oaza_markdown(scale, results),
    }
}

#[allow(clippy::too_many_lines, reason = "one table after another")]
fn same_zone_markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    {
        {
            let _ = write!(
                md,
                "## Same-Zone Compaction: four schemes ({} scale)\n\n",
                scale.name()
            );
            for w in SAME_ZONE_WORKLOADS {
                md.push_str(&scheme_table(results, &SAME_ZONE_SCHEMES, w, "Baseline"));
            }
            md.push_str("### A-CAZA vs Baseline, beside the paper\n\n| measure | paper | ours |\n|---|---|---|\n");
            let change = |w: &str, f: &dyn Fn(&Figures) -> f64| -> Option<f64> {
                let b = f(find(results, "Baseline", w)?);
                let a = f(find(results, "A-CAZA", w)?);
                (b != 0.0).then(|| 100.0 * (a - b) / b)
            };
            let avg = |f: &dyn Fn(&Figures) -> f64| -> String {
                let v: Vec<f64> = SAME_ZONE_WORKLOADS
                    .iter()
                    .filter_map(|w| change(w, f))
                    .collect();
                if v.is_empty() {
                    "n/a".into()
                } else {
                    format!("{:+.1}%", v.iter().sum::<f64>() / v.len() as f64)
                }
            };
            let one = |w: &str, f: &dyn Fn(&Figures) -> f64| -> String {
                change(w, f).map_or("n/a".into(), |c| format!("{c:+.1}%"))
            };
            let gc = |f: &Figures| f.gc_copied_bytes as f64;
            let resets = |f: &Figures| f.zone_resets as f64;
            let put = |f: &Figures| f.ops_per_s;
            let diff = |f: &dyn Fn(&Figures) -> f64| -> String {
                let v: Vec<f64> = SAME_ZONE_WORKLOADS
                    .iter()
                    .filter_map(|w| {
                        Some(f(find(results, "A-CAZA", w)?) - f(find(results, "Baseline", w)?))
                    })
                    .collect();
                if v.is_empty() {
                    "n/a".into()
                } else {
                    format!("{:+.3}", v.iter().sum::<f64>() / v.len() as f64)
                }
            };
            let rows = [
                (
                    "cleaning copy, average over workloads",
                    "-70%".to_owned(),
                    avg(&gc),
                ),
                (
                    "cleaning copy, fillrandom",
                    "-80%".to_owned(),
                    one("fillrandom", &gc),
                ),
                ("zone resets, average", "-8.6%".to_owned(), avg(&resets)),
                (
                    "zone resets, fillrandom / zipfian / latest / uniform",
                    "-12% / -13% / -5% / -13%".to_owned(),
                    SAME_ZONE_WORKLOADS
                        .iter()
                        .map(|w| one(w, &resets))
                        .collect::<Vec<_>>()
                        .join(" / "),
                ),
                ("PUT throughput, average", "+16%".to_owned(), avg(&put)),
                (
                    "S_same (A-CAZA minus Baseline)",
                    "+0.05".to_owned(),
                    diff(&|f| f.s_same_avg),
                ),
                (
                    "S_inval (A-CAZA minus Baseline)",
                    "+0.10".to_owned(),
                    diff(&|f| f.s_inval_avg),
                ),
                (
                    "CompactionRead latency",
                    "-10% (-3.82 µs)".to_owned(),
                    avg(&|f| f.compaction_read_latency_us),
                ),
                (
                    "CompactionRead throughput",
                    "+16%".to_owned(),
                    avg(&|f| f.compaction_read_mb_per_s),
                ),
                (
                    "I/O blocking time, average",
                    "-68%".to_owned(),
                    avg(&|f| f.io_blocking_s),
                ),
            ];
            for (m, p, o) in rows {
                let _ = writeln!(md, "| {m} | {p} | {o} |");
            }
            md.push_str(&sweep_table(results));
            md.push_str("\nPaper (figure 13, with the level constraint): turning point 25 vs 0 cuts I/O blocking by 23.6 s and stall time by 22 s, +2 KOPS/s; 30 and above grow victims and stalls. Without the constraint, any turning point above 0 lowers PUT throughput.\n");
        }
    }
    md
}

fn sweep_table(results: &[CellResult]) -> String {
    let mut md = String::new();
    md.push_str("\n### ACC turning point (fillrandom, A-LIZA), beside figures 13 and 14\n\n| level constraint | turning point | PUT ops/s | stall s | I/O blocking s | victim MiB | GC copy MiB |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for r in results.iter().filter(|r| r.turning_point.is_some()) {
        let c = if r.level_constraint == Some(true) {
            "L >= 2"
        } else {
            "none"
        };
        match &r.figures {
            Ok(f) => drop(writeln!(
                md,
                "| {c} | {} | {:.0} | {:.1} | {:.1} | {:.2} | {:.1} |",
                r.turning_point.unwrap_or(0),
                f.ops_per_s,
                f.stall_s,
                f.io_blocking_s,
                f.victim_bytes_avg / f64::from(1u32 << 20),
                mib(f.gc_copied_bytes)
            )),
            Err(e) => drop(writeln!(
                md,
                "| {c} | {} | failed: {e} | | | | |",
                r.turning_point.unwrap_or(0)
            )),
        }
    }
    md
}

fn oaza_markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = String::new();
    {
        {
            let _ = write!(
                md,
                "## OAZA vs LIZA and CAZA ({} scale; OAZA reconstructed from the slides)\n\n",
                scale.name()
            );
            md.push_str(&scheme_table(
                results,
                &OAZA_SCHEMES,
                "fillrandom-8k",
                "LIZA",
            ));
            let f = |s: &str| find(results, s, "fillrandom-8k");
            let ratio = |a: Option<&Figures>, b: Option<&Figures>| -> String {
                match (a, b) {
                    (Some(a), Some(b)) if b.gc_copied_bytes > 0 => {
                        format!(
                            "{:.2}x",
                            a.gc_copied_bytes as f64 / b.gc_copied_bytes as f64
                        )
                    }
                    _ => "n/a".into(),
                }
            };
            let wa = |s: &str| {
                f(s).map_or("n/a".into(), |x| {
                    format!("{:.2}", x.zone_write_amplification)
                })
            };
            let mbs = |s: &str| f(s).map_or("n/a".into(), |x| format!("{:.1}", x.mb_per_s));
            md.push_str("### Beside the slides\n\n| measure | paper | ours |\n|---|---|---|\n");
            let _ = writeln!(
                md,
                "| cleaning copy, LIZA / OAZA | 2.7x | {} |",
                ratio(f("LIZA"), f("OAZA"))
            );
            let _ = writeln!(
                md,
                "| cleaning copy, CAZA / OAZA | 1.7x | {} |",
                ratio(f("CAZA"), f("OAZA"))
            );
            let _ = writeln!(
                md,
                "| zone-layer write amplification LIZA / CAZA / OAZA | 1.3 / 1.2 / 1.1 | {} / {} / {} |",
                wa("LIZA"),
                wa("CAZA"),
                wa("OAZA")
            );
            let _ = writeln!(
                md,
                "| write throughput MB/s LIZA / CAZA / OAZA | 67 / 68 / 69 | {} / {} / {} |",
                mbs("LIZA"),
                mbs("CAZA"),
                mbs("OAZA")
            );
            let resets = match (f("LIZA"), f("OAZA")) {
                (Some(l), Some(o)) => pct(o.zone_resets as f64, l.zone_resets as f64),
                _ => "n/a".into(),
            };
            let _ = writeln!(md, "| zone resets, OAZA vs LIZA | -10% | {resets} |");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_zone_matrix_is_four_schemes_by_four_workloads_plus_the_sweep() {
        let c = cells(Study::SameZone, ReproScale::Small, 1).unwrap();
        assert_eq!(c.len(), 16 + 10);
        let a_caza_zipf = c
            .iter()
            .find(|c| c.scheme == "A-CAZA" && c.workload == "zipfian")
            .unwrap();
        let s = &a_caza_zipf.scenario;
        assert_eq!(s.fs.placement, "caza");
        assert_eq!(s.engine["compaction_scheme"].as_str(), Some("acc"));
        assert_eq!(s.workload.kind, "ycsb");
        assert_eq!(s.device.profile, "caza-paper");
        let o = s.db_options().unwrap();
        assert_eq!(o.write_buffer_size, 1 << 20);
        assert!(!o.level_compaction_dynamic_level_bytes);
        let w = s.workload.ycsb_workload().unwrap();
        assert_eq!(w.recordcount, 250_000);
        let sweep: Vec<_> = c.iter().filter(|c| c.group == "sweep").collect();
        assert_eq!(sweep.len(), 10);
        let tp25 = sweep
            .iter()
            .find(|c| c.turning_point == Some(25) && c.level_constraint == Some(true))
            .unwrap();
        let o = tp25.scenario.db_options().unwrap();
        assert_eq!((o.acc_turning_point, o.acc_min_start_level), (25, 2));
    }

    #[test]
    fn oaza_matrix_names_the_slides_schemes() {
        let c = cells(Study::Oaza, ReproScale::Small, 1).unwrap();
        let names: Vec<&str> = c.iter().map(|c| c.scheme).collect();
        assert_eq!(names, ["LIZA", "CAZA", "OAZA"]);
        let o = c[2].scenario.db_options().unwrap();
        assert_eq!(o.target_file_size_base, 512 << 10);
        assert_eq!(c[2].scenario.workload.value_size, 8192);
    }

    #[test]
    fn json_has_one_object_per_scheme_with_the_issue_keys() {
        let f = Figures {
            ops: 10,
            ops_per_s: 5.0,
            gc_copied_bytes: 100,
            zone_resets: 3,
            ..Figures::default()
        };
        let results: Vec<CellResult> = OAZA_SCHEMES
            .iter()
            .map(|s| CellResult {
                scheme: s.name.into(),
                workload: "fillrandom-8k".into(),
                turning_point: None,
                level_constraint: None,
                figures: Ok(f.clone()),
            })
            .collect();
        let j = json(Study::Oaza, ReproScale::Small, &results);
        for s in ["LIZA", "CAZA", "OAZA"] {
            let o = &j["schemes"][s];
            for k in [
                "gc_copied_bytes",
                "zone_resets",
                "ops_per_s",
                "write_amplification",
                "s_same_avg",
                "s_inval_avg",
            ] {
                assert!(o.get(k).is_some(), "{s}.{k}");
            }
            assert_eq!(o["gc_copied_bytes"], 100);
        }
        let md = markdown(Study::Oaza, ReproScale::Small, &results);
        assert!(
            md.contains("| cleaning copy, LIZA / OAZA | 2.7x | 1.00x |"),
            "{md}"
        );
    }
}
