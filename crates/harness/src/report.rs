//! Reports of a comparison: a side-by-side table normalized to the first configuration (as the
//! papers present results), Markdown and HTML reports, the JSON of every run, CSV time series
//! and plots as SVG and 2x PNG (throughput, free space, write-stall time and level sizes over
//! virtual time with the benchmark phases marked; latency CDF and tail from the full histogram;
//! SST lifetime CDF).
//!
//! Everything but `compare.json` is rendered from that JSON ([`render`]), so `zonedb report
//! DIR` ([`rerender`]) rewrites the same Markdown, HTML, CSV and plots from a report directory.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::db_bench::HarnessError;
use crate::experiment::RunReport;
use crate::figure::{self, Axis, Figure, Line, Mark, Panel, Unit};
use crate::output;

/// What the report reads of one configuration's JSON (a [`RunReport`]); unknown keys ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Run {
    scenario: ScenarioView,
    profile: String,
    benchmarks: Vec<Bench>,
    /// Added by [`write_with_failures`]: when each benchmark phase began and ended.
    phases: Vec<Phase>,
    db: DbView,
    fs: FsView,
    device: DeviceView,
    series: Vec<Point>,
    sst_lifetimes_ns: BTreeMap<String, Vec<u64>>,
    end_ns: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct ScenarioView {
    name: String,
    seed: u64,
    device: DeviceSectionView,
    fs: FsSectionView,
    workload: WorkloadView,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct DeviceSectionView {
    chips_per_zone: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct FsSectionView {
    cleaner: String,
    placement: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct WorkloadView {
    benchmarks: String,
    num: u64,
    value_size: u64,
    threads: u32,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Bench {
    name: String,
    ops: u64,
    wall_ns: u64,
    latency: LatencyView,
    latency_cdf: Vec<[f64; 2]>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct LatencyView {
    count: u64,
    p50_us: f64,
    p75_us: f64,
    p99_us: f64,
    p999_us: f64,
    p9999_us: f64,
    max_us: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct DbView {
    user_bytes_written: u64,
    flush_bytes_written: u64,
    compaction_bytes_written: u64,
    stall_stop_ns: u64,
    stall_delay_ns: u64,
    compactions: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct FsView {
    device_bytes_written: u64,
    gc_copied_bytes: u64,
    zone_resets: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct DeviceView {
    block_erases: u64,
}

/// One sample of the time series (or a phase mark).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Point {
    t_ns: u64,
    ops: u64,
    user_bytes: u64,
    device_bytes: u64,
    gc_copied_bytes: u64,
    free_bytes: u64,
    stall_ns: u64,
    level_bytes: Vec<u64>,
}

/// A benchmark phase of a run (`phases` in `compare.json`, from the run's phase marks).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Phase {
    name: String,
    start_ns: u64,
}

/// `compare.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct Doc {
    title: String,
    configurations: Vec<Run>,
    failed: Vec<String>,
}

impl Run {
    fn ops_per_sec(b: &Bench) -> f64 {
        b.ops.max(1) as f64 / (b.wall_ns.max(1) as f64 / 1e9)
    }

    /// Device bytes written / user bytes written ([`RunReport::write_amplification`]).
    fn write_amplification(&self) -> f64 {
        if self.db.user_bytes_written == 0 {
            0.0
        } else {
            self.fs.device_bytes_written as f64 / self.db.user_bytes_written as f64
        }
    }

    /// The engine's (flush + compaction) / user bytes (`DbStats::write_amplification`).
    fn lsm_write_amplification(&self) -> f64 {
        if self.db.user_bytes_written == 0 {
            0.0
        } else {
            (self.db.flush_bytes_written + self.db.compaction_bytes_written) as f64
                / self.db.user_bytes_written as f64
        }
    }
}

fn runs_of(runs: &[RunReport]) -> Vec<Run> {
    serde_json::to_value(runs)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

/// One column of the comparison table.
struct Column {
    label: String,
    value: Box<dyn Fn(&Run) -> f64>,
    /// Printed decimals.
    decimals: usize,
}

fn columns(runs: &[Run]) -> Vec<Column> {
    let mut cols: Vec<Column> = Vec::new();
    if let Some(first) = runs.first() {
        for (i, b) in first.benchmarks.iter().enumerate() {
            cols.push(Column {
                label: format!("{} ops/s", b.name),
                value: Box::new(move |r: &Run| r.benchmarks.get(i).map_or(0.0, Run::ops_per_sec)),
                decimals: 0,
            });
            cols.push(Column {
                label: format!("{} p99 us", b.name),
                value: Box::new(move |r: &Run| {
                    r.benchmarks.get(i).map_or(0.0, |b| b.latency.p99_us)
                }),
                decimals: 1,
            });
        }
    }
    cols.push(Column {
        label: "WA (device/user)".into(),
        value: Box::new(Run::write_amplification),
        decimals: 2,
    });
    cols.push(Column {
        label: "LSM WA".into(),
        value: Box::new(Run::lsm_write_amplification),
        decimals: 2,
    });
    cols.push(Column {
        label: "GC copied MiB".into(),
        value: Box::new(|r: &Run| r.fs.gc_copied_bytes as f64 / 1_048_576.0),
        decimals: 1,
    });
    cols.push(Column {
        label: "zone resets".into(),
        value: Box::new(|r: &Run| r.fs.zone_resets as f64),
        decimals: 0,
    });
    cols.push(Column {
        label: "block erases".into(),
        value: Box::new(|r: &Run| r.device.block_erases as f64),
        decimals: 0,
    });
    cols.push(Column {
        label: "stall s".into(),
        value: Box::new(|r: &Run| (r.db.stall_stop_ns + r.db.stall_delay_ns) as f64 / 1e9),
        decimals: 3,
    });
    cols.push(Column {
        label: "compactions".into(),
        value: Box::new(|r: &Run| r.db.compactions as f64),
        decimals: 0,
    });
    cols
}

/// The comparison table in Markdown: each cell is the value and its ratio to the first row.
pub fn table(runs: &[RunReport]) -> String {
    table_of(&runs_of(runs))
}

fn table_of(runs: &[Run]) -> String {
    let cols = columns(runs);
    let mut t = String::from("| configuration |");
    for c in &cols {
        let _ = write!(t, " {} |", c.label);
    }
    t.push_str("\n|---|");
    for _ in &cols {
        t.push_str("---:|");
    }
    t.push('\n');
    for r in runs {
        let _ = write!(t, "| {} |", r.scenario.name);
        for c in &cols {
            let v = (c.value)(r);
            let b = runs.first().map_or(0.0, |f| (c.value)(f));
            // A zero baseline has no ratio: "n/a", never a division by zero.
            if b > 0.0 {
                let _ = write!(t, " {v:.prec$} ({:.2}x) |", v / b, prec = c.decimals);
            } else {
                let _ = write!(t, " {v:.prec$} (n/a) |", prec = c.decimals);
            }
        }
        t.push('\n');
    }
    t
}

fn rate(x: &Point, p: Option<&Point>) -> f64 {
    p.map_or(0.0, |p| {
        let dt = x.t_ns.saturating_sub(p.t_ns) as f64 / 1e9;
        if dt > 0.0 {
            x.ops.saturating_sub(p.ops) as f64 / dt
        } else {
            0.0
        }
    })
}

/// `series-N.csv`: the columns and units of the Python package's `RunResult.series`
/// (`t_s` in seconds of virtual time, `ops_per_s` since the previous sample, bytes per level
/// `;`-joined), the phase last: the benchmark begun at or before the sample (empty before
/// the first).
fn csv(r: &Run) -> String {
    let mut s = String::from(
        "t_s,ops,ops_per_s,user_bytes,device_bytes,gc_copied_bytes,free_bytes,stall_ns,level_bytes,phase\n",
    );
    let mut prev: Option<&Point> = None;
    for x in &r.series {
        let levels: Vec<String> = x.level_bytes.iter().map(u64::to_string).collect();
        let phase = r
            .phases
            .iter()
            .rev()
            .find(|p| p.start_ns <= x.t_ns)
            .map_or("", |p| p.name.as_str());
        let _ = writeln!(
            s,
            "{:.3},{},{:.0},{},{},{},{},{},{},{phase}",
            x.t_ns as f64 / 1e9,
            x.ops,
            rate(x, prev),
            x.user_bytes,
            x.device_bytes,
            x.gc_copied_bytes,
            x.free_bytes,
            x.stall_ns,
            levels.join(";")
        );
        prev = Some(x);
    }
    s
}

type Extract = fn(&Point, Option<&Point>) -> f64;

fn max_of<'a>(it: impl Iterator<Item = &'a (f64, f64)>, y: bool) -> f64 {
    it.map(|p| if y { p.1 } else { p.0 })
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

fn min_positive<'a>(it: impl Iterator<Item = &'a (f64, f64)>, y: bool) -> f64 {
    it.map(|p| if y { p.1 } else { p.0 })
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(f64::INFINITY, f64::min)
}

fn names(runs: &[Run]) -> Vec<(String, Option<usize>)> {
    runs.iter()
        .enumerate()
        .map(|(i, r)| (r.scenario.name.clone(), Some(i)))
        .collect()
}

/// Byte values of every panel's lines in the binary unit their maximum calls for, the y axis
/// described as `label (GiB)`.
fn bytes_in_units(panels: &mut [Panel], label: &str) {
    let max = panels
        .iter()
        .flat_map(|p| p.lines.iter().flat_map(|l| l.points.iter()))
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let (div, name) = figure::byte_scale(max);
    for p in panels.iter_mut() {
        for l in &mut p.lines {
            for pt in &mut l.points {
                pt.1 /= div;
            }
        }
        p.y = Axis::linear(&format!("{label} ({name})"), Unit::Number, max / div);
    }
}

/// Single-panel figures: 600 × 360 px.
const ONE: (u32, u32) = (600, 360);
/// Panels of small multiples.
const SMALL: (u32, u32) = (420, 280);

/// Where each benchmark after the first began, per configuration (its colour); the first
/// configuration's marks carry the benchmark's name.
fn phase_marks(runs: &[Run]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        for p in r.phases.iter().skip(1) {
            marks.push(Mark {
                x: p.start_ns as f64 / 1e9,
                style: i,
                label: (i == 0).then(|| format!("{} ▸", p.name)),
            });
        }
    }
    marks
}

/// A time-series figure: `f` of each sample (and the one before it) over virtual time, the
/// benchmark phases marked.
fn time_figure(title: &str, (y_label, unit): (&str, Unit), runs: &[Run], f: Extract) -> Figure {
    let lines: Vec<Line> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut prev = None;
            Line {
                style: i,
                points: r
                    .series
                    .iter()
                    .map(|x| {
                        let p = (x.t_ns as f64 / 1e9, f(x, prev));
                        prev = Some(x);
                        p
                    })
                    .collect(),
            }
        })
        .collect();
    let marks = phase_marks(runs);
    let mut legend = names(runs);
    if !marks.is_empty() {
        legend.push(("start of a benchmark phase".into(), None));
    }
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let x = Axis::linear("virtual time", Unit::Seconds, max_of(all(), false));
    let y = Axis::linear(y_label, unit, max_of(all(), true));
    if runs.len() >= CROWDED {
        // Small multiples: one panel per configuration, every panel on the same scales.
        let panels = runs
            .iter()
            .zip(lines)
            .map(|(r, l)| Panel {
                title: r.scenario.name.clone(),
                x: x.clone(),
                y: y.clone(),
                lines: vec![l],
                marks: phase_marks(std::slice::from_ref(r))
                    .into_iter()
                    .map(|m| Mark { style: 6, ..m })
                    .collect(),
            })
            .collect();
        return Figure {
            title: format!("{title} (one panel per configuration, one scale)"),
            panels,
            columns: 2,
            panel_size: SMALL,
            legend,
        };
    }
    Figure {
        title: title.into(),
        panels: vec![Panel {
            title: String::new(),
            x,
            y,
            lines,
            marks,
        }],
        columns: 1,
        panel_size: ONE,
        legend,
    }
}

/// Series in one plot from which a time series is drawn as small multiples instead.
const CROWDED: usize = 6;

/// CDF of SST lifetimes (all levels) per configuration, on a log time axis.
fn lifetime_figure(runs: &[Run]) -> Figure {
    let lines: Vec<Line> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut v: Vec<u64> = r.sst_lifetimes_ns.values().flatten().copied().collect();
            v.sort_unstable();
            let n = v.len().max(1) as f64;
            Line {
                style: i,
                points: v
                    .iter()
                    .enumerate()
                    .map(|(k, &ns)| (ns as f64 / 1e9, (k + 1) as f64 / n))
                    .collect(),
            }
        })
        .collect();
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let lo = min_positive(all(), false);
    let hi = max_of(all(), false);
    let (lo, hi) = if lo.is_finite() {
        (lo, hi)
    } else {
        (1e-3, 1.0)
    };
    Figure {
        title: "SST lifetime CDF (all levels)".into(),
        panels: vec![Panel {
            title: String::new(),
            x: Axis::log(
                "SST lifetime (virtual time, log scale)",
                Unit::Seconds,
                lo,
                hi,
            ),
            y: Axis {
                label: "SSTs with a shorter lifetime".into(),
                log: false,
                unit: Unit::Percent,
                range: (0.0, 1.0),
            },
            lines,
            marks: Vec::new(),
        }],
        columns: 1,
        panel_size: ONE,
        legend: names(runs),
    }
}

/// `[µs, fraction]` points of a benchmark's latency CDF: the histogram's (`latency_cdf`) or,
/// in a report written before it was kept, the percentiles.
fn cdf_of(b: &Bench) -> Vec<(f64, f64)> {
    if !b.latency_cdf.is_empty() {
        return b.latency_cdf.iter().map(|p| (p[0], p[1])).collect();
    }
    let l = &b.latency;
    [
        (l.p50_us, 0.5),
        (l.p75_us, 0.75),
        (l.p99_us, 0.99),
        (l.p999_us, 0.999),
        (l.p9999_us, 0.9999),
        (l.max_us, 1.0),
    ]
    .into_iter()
    .filter(|(us, _)| *us > 0.0)
    .collect()
}

/// Latency CDF (left) and tail, 1 − CDF on a log scale (right): one row per benchmark, one
/// line per configuration, on a log latency axis.
fn latency_figure(runs: &[Run]) -> Figure {
    let mut benches: Vec<&str> = Vec::new();
    for r in runs {
        for b in &r.benchmarks {
            if b.latency.count > 0 && !benches.contains(&b.name.as_str()) {
                benches.push(&b.name);
            }
        }
    }
    let mut panels = Vec::new();
    for name in benches {
        let cdfs: Vec<Line> = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let b = r.benchmarks.iter().find(|b| b.name == name)?;
                Some(Line {
                    style: i,
                    points: cdf_of(b),
                })
            })
            .collect();
        let tails: Vec<Line> = cdfs
            .iter()
            .map(|l| Line {
                style: l.style,
                points: l.points.iter().map(|&(x, q)| (x, 1.0 - q)).collect(),
            })
            .collect();
        let all = || cdfs.iter().flat_map(|l| l.points.iter());
        let (lo, hi) = (min_positive(all(), false), max_of(all(), false));
        let (lo, hi) = if lo.is_finite() {
            (lo, hi)
        } else {
            (1.0, 10.0)
        };
        let x = Axis::log("latency (virtual time, log scale)", Unit::Micros, lo, hi);
        let tail_lo = min_positive(tails.iter().flat_map(|l| l.points.iter()), true);
        let tail_lo = if tail_lo.is_finite() { tail_lo } else { 1e-4 };
        panels.push(Panel {
            title: format!("{name}: CDF"),
            x: x.clone(),
            y: Axis {
                label: "operations ≤ latency".into(),
                log: false,
                unit: Unit::Percent,
                range: (0.0, 1.0),
            },
            lines: cdfs,
            marks: Vec::new(),
        });
        panels.push(Panel {
            title: format!("{name}: tail (1 − CDF)"),
            x,
            y: Axis {
                range: (10f64.powf(tail_lo.log10().floor()).min(0.1), 1.0),
                ..Axis::log("operations > latency", Unit::Percent, tail_lo, 1.0)
            },
            lines: tails,
            marks: Vec::new(),
        });
    }
    Figure {
        title: "Latency CDF and tail (from the full histogram)".into(),
        panels,
        columns: 2,
        panel_size: SMALL,
        legend: names(runs),
    }
}

/// Bytes of each level over virtual time: one panel per configuration (small multiples, one
/// scale), one line per non-empty level.
fn level_figure(runs: &[Run]) -> Figure {
    let levels = runs
        .iter()
        .flat_map(|r| r.series.iter().map(|x| x.level_bytes.len()))
        .max()
        .unwrap_or(0);
    let mut used = vec![false; levels];
    let mut panels = Vec::new();
    let mut x_max = 0.0f64;
    for r in runs {
        let mut lines = Vec::new();
        for (l, u) in used.iter_mut().enumerate() {
            let pts: Vec<(f64, f64)> = r
                .series
                .iter()
                .map(|x| {
                    (
                        x.t_ns as f64 / 1e9,
                        x.level_bytes.get(l).copied().unwrap_or(0) as f64,
                    )
                })
                .collect();
            if pts.iter().all(|p| p.1 == 0.0) {
                continue;
            }
            *u = true;
            x_max = x_max.max(max_of(pts.iter(), false));
            lines.push(Line {
                style: l,
                points: pts,
            });
        }
        panels.push(Panel {
            title: r.scenario.name.clone(),
            x: Axis::linear("virtual time", Unit::Seconds, 0.0),
            y: Axis::linear("level size", Unit::Bytes, 0.0),
            lines,
            marks: phase_marks(std::slice::from_ref(r))
                .into_iter()
                .map(|m| Mark { style: 6, ..m })
                .collect(),
        });
    }
    for p in &mut panels {
        p.x = Axis::linear("virtual time", Unit::Seconds, x_max);
    }
    bytes_in_units(&mut panels, "level size");
    let legend = used
        .iter()
        .enumerate()
        .filter(|(_, u)| **u)
        .map(|(l, _)| (format!("L{l}"), Some(l)))
        .collect();
    Figure {
        title: "Level sizes over time (one panel per configuration)".into(),
        columns: if panels.len() > 1 { 2 } else { 1 },
        panel_size: if panels.len() > 1 { SMALL } else { ONE },
        panels,
        legend,
    }
}

/// Renders an SVG chart to a PNG next to it at twice its size (text needs a system font;
/// without one the PNG has the lines and no text).
pub(crate) fn png_of(svg: &Path, fonts: &resvg::usvg::Options<'_>) -> Result<(), HarnessError> {
    let err = |e: &dyn std::fmt::Display| {
        HarnessError::config(
            svg.display().to_string(),
            format!("cannot render as PNG: {e}"),
        )
    };
    let data = std::fs::read(svg).map_err(HarnessError::io(svg))?;
    let tree = resvg::usvg::Tree::from_data(&data, fonts).map_err(|e| err(&e))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2)
        .ok_or_else(|| err(&"empty image"))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    let png = pixmap.encode_png().map_err(|e| err(&e))?;
    crate::output::write(&svg.with_extension("png"), png)
}
/// SVG rendering options with the system's fonts, `sans-serif` mapped to a sans face found.
pub(crate) fn font_options() -> resvg::usvg::Options<'static> {
    let mut opt = resvg::usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let sans = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .find(|n| n.contains("Sans") && !n.contains("Mono"));
    if let Some(name) = sans {
        db.set_sans_serif_family(name);
    }
    opt
}

/// The charts of a report (each as `NAME.svg` and `NAME.png`).
pub const PLOTS: [&str; 6] = [
    "throughput",
    "free-space",
    "stalls",
    "sst-lifetimes",
    "latency-cdf",
    "level-sizes",
];

/// One line under each chart of [`PLOTS`]: what to look at.
const CAPTIONS: [&str; 6] = [
    "Throughput over virtual time; dotted lines mark where each benchmark phase began. Look for dips (stalls, cleaning) and which configuration sustains the highest rate.",
    "Free space of the zone layer over virtual time. A steeper fall means more space per write; rises are cleaning reclaiming zones.",
    "Cumulative write-stall time. The lower and flatter the line, the less the engine stalled writers.",
    "CDF of SST lifetimes on a log time axis. A curve further left means SSTs die sooner (what lifetime-aware placement exploits).",
    "Latency CDF per benchmark (left) and its tail, 1 − CDF on a log scale (right), from the full histogram. Compare medians on the left, p99 to p99.99 on the right.",
    "Bytes per LSM level over virtual time, one panel per configuration on a shared scale. Compare how each configuration's levels grow.",
];

/// The table's caption.
const TABLE_CAPTION: &str = "Each cell is the value and, in parentheses, its ratio to the first configuration; look for ratios far from 1.00x. Throughput and latency are in virtual time.";

fn free_bytes(x: &Point, _: Option<&Point>) -> f64 {
    x.free_bytes as f64
}

fn stall_s(x: &Point, _: Option<&Point>) -> f64 {
    x.stall_ns as f64 / 1e9
}

/// Writes `compare.md`, `compare.html`, `compare.json`, `series-N.csv` and the plots into
/// `dir`; returns the Markdown. No file is written through a symbolic link
/// ([`crate::output`]).
///
/// # Errors
/// [`HarnessError::Io`] when a file cannot be written, [`HarnessError::LinkRefused`] when
/// one is a symbolic link, [`HarnessError::Config`] when a plot cannot be drawn.
pub fn write(
    dir: &Path,
    title: &str,
    runs: &[RunReport],
    host: &Value,
) -> Result<String, HarnessError> {
    write_with_failures(dir, title, runs, host, &[])
}

/// [`write()`], with the configurations that failed (each `name: error`) listed in the report
/// and kept in `compare.json` under `failed`.
///
/// # Errors
/// As [`write()`].
pub fn write_with_failures(
    dir: &Path,
    title: &str,
    runs: &[RunReport],
    host: &Value,
    failed: &[String],
) -> Result<String, HarnessError> {
    std::fs::create_dir_all(dir).map_err(HarnessError::io(dir))?;
    let mut configurations = serde_json::to_value(runs).map_err(|e| report_json(&e))?;
    // The phase boundaries the time-series plots mark (the run's phase marks are not part of
    // its JSON): one entry per benchmark.
    for (c, r) in configurations
        .as_array_mut()
        .into_iter()
        .flatten()
        .zip(runs)
    {
        let phases: Vec<Value> = r
            .phase_marks
            .iter()
            .zip(&r.benchmarks)
            .map(|((start, end), b)| {
                serde_json::json!({ "name": b.name, "start_ns": start.t_ns, "end_ns": end.t_ns })
            })
            .collect();
        if let Some(o) = c.as_object_mut() {
            o.insert("phases".into(), Value::Array(phases));
        }
    }
    let json = serde_json::json!({
        "title": title,
        "configurations": configurations,
        "host": host,
        "failed": failed,
    });
    output::write(
        &dir.join("compare.json"),
        serde_json::to_string_pretty(&json).map_err(|e| report_json(&e))?,
    )?;
    render(dir, &json)
}

/// A report's JSON that does not convert (to or from the runs).
fn report_json(e: &serde_json::Error) -> HarnessError {
    HarnessError::config("report JSON", e.to_string())
}

/// Re-renders the report in `dir` from its `compare.json` (what `zonedb report DIR` does):
/// `compare.md`, `compare.html`, `series-N.csv` and the plots; returns the Markdown.
///
/// # Errors
/// [`HarnessError::Io`] when `compare.json` cannot be read or a file cannot be written,
/// [`HarnessError::Config`] naming it when it does not parse.
pub fn rerender(dir: &Path) -> Result<String, HarnessError> {
    let path = dir.join("compare.json");
    let text = crate::input::read_to_string(&path).map_err(HarnessError::io(&path))?;
    let json: Value = serde_json::from_str(&text)
        .map_err(|e| HarnessError::config(path.display().to_string(), e.to_string()))?;
    if json
        .get("configurations")
        .and_then(Value::as_array)
        .is_none()
    {
        return Err(HarnessError::config(
            path.display().to_string(),
            "no \"configurations\" array (not a compare/run report)",
        ));
    }
    render(dir, &json)
}

/// Writes everything but `compare.json` from that JSON's value; returns the Markdown.
///
/// # Errors
/// As [`write()`]; [`HarnessError::Config`] if the JSON is not a report's.
pub fn render(dir: &Path, json: &Value) -> Result<String, HarnessError> {
    let doc: Doc = serde_json::from_value(json.clone()).map_err(|e| report_json(&e))?;
    let runs = &doc.configurations;
    let title = doc.title.as_str();
    let tbl = table_of(runs);
    let mut md = format!("# {title}\n\n");
    let _ = writeln!(md, "{TABLE_CAPTION}\n");
    md.push_str(&tbl);
    md.push_str("\n## Configurations\n\n");
    for r in runs {
        let _ = writeln!(
            md,
            "- **{}**: device `{}`{}, cleaner `{}`, placement `{}`, workload `{}` (num {}, value {} B, {} thread(s)), seed {}; virtual end {:.3} s",
            r.scenario.name,
            r.profile,
            r.scenario
                .device
                .chips_per_zone
                .map(|c| format!(" ({c} chips/zone)"))
                .unwrap_or_default(),
            r.scenario.fs.cleaner,
            r.scenario.fs.placement,
            r.scenario.workload.benchmarks,
            r.scenario.workload.num,
            r.scenario.workload.value_size,
            r.scenario.workload.threads,
            r.scenario.seed,
            r.end_ns as f64 / 1e9
        );
    }
    md.push_str(
        "\n## Plots\n\nEach as SVG and as a PNG at twice the size (same name, `.png`).\n\n",
    );
    for (k, (name, caption)) in PLOTS.iter().zip(CAPTIONS).enumerate() {
        let _ = write!(
            md,
            "![{name}]({name}.svg)\n\n*Figure {}. {caption}*\n\n",
            k + 1
        );
    }
    md.push_str(
        "Time series: `series-N.csv` (N = configuration, from 0). Everything: `compare.json` (`zonedb report DIR` re-renders this report from it).\n",
    );
    if !doc.failed.is_empty() {
        md.push_str("\n## Failed configurations\n\n");
        for f in &doc.failed {
            let _ = writeln!(md, "- {f}");
        }
    }
    let figures = [
        time_figure(
            "Throughput",
            ("throughput (ops/s)", Unit::Count),
            runs,
            rate,
        ),
        {
            let mut f = time_figure("Free space", ("free space", Unit::Bytes), runs, free_bytes);
            bytes_in_units(&mut f.panels, "free space");
            f
        },
        time_figure(
            "Write-stall time (cumulative)",
            ("stall time", Unit::Seconds),
            runs,
            stall_s,
        ),
        lifetime_figure(runs),
        latency_figure(runs),
        level_figure(runs),
    ];
    for (name, fig) in PLOTS.iter().zip(&figures) {
        figure::draw(&dir.join(format!("{name}.svg")), fig)?;
    }
    let fonts = font_options();
    for name in PLOTS {
        png_of(&dir.join(format!("{name}.svg")), &fonts)?;
    }
    for (i, r) in runs.iter().enumerate() {
        output::write(&dir.join(format!("series-{i}.csv")), csv(r))?;
    }
    output::write(&dir.join("compare.md"), &md)?;
    output::write(
        &dir.join("compare.html"),
        html(title, &tbl, runs, &doc.failed),
    )?;
    Ok(md)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTML report: readable from a phone's width to 1400 px and wider (the table scrolls
/// sideways in its own box, figures shrink to the page), each table and figure captioned. The
/// table's caption is a `<figcaption>` above its scrolling box, so it wraps at the window's
/// width instead of the table's; cells wrap (a value above its ratio) before the table
/// scrolls, so the default comparison's 13 columns fit at 1400 px. `tests/browser/check_report.py` checks it in Chromium.
fn html(title: &str, md_table: &str, runs: &[Run], failed: &[String]) -> String {
    let mut h = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{t}</title>\n<style>\nbody{{font-family:sans-serif;max-width:1400px;margin:0 auto;padding:1em;line-height:1.4;overflow-wrap:break-word}}\n.scroll{{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}}\ntable{{border-collapse:collapse;font-size:0.9em}}\ntd,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}\nth{{vertical-align:bottom}}\ntd:first-child,th:first-child{{text-align:left;position:sticky;left:0;background:#fff;min-width:6em}}\nfigure{{margin:1.5em 0}}\nfigure img{{max-width:100%;height:auto;display:block}}\nfigcaption{{color:#444;margin-top:0.4em}}\nfigure.table figcaption{{margin:0 0 0.4em}}\n</style></head><body>\n<h1>{t}</h1>\n<figure class=\"table\"><figcaption id=\"table-1\">Table 1. {c}</figcaption>\n<div class=\"scroll\">\n<table aria-labelledby=\"table-1\">\n",
        t = esc(title),
        c = esc(TABLE_CAPTION)
    );
    for (i, line) in md_table.lines().enumerate() {
        if i == 1 {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let tag = if i == 0 { "th" } else { "td" };
        h.push_str("<tr>");
        for c in cells {
            let _ = write!(h, "<{tag}>{}</{tag}>", esc(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n</div>\n</figure>\n<h2>Plots</h2>\n");
    for (k, (name, caption)) in PLOTS.iter().zip(CAPTIONS).enumerate() {
        let _ = writeln!(
            h,
            "<figure><a href=\"{name}.png\"><img src=\"{name}.svg\" alt=\"{name}\"></a><figcaption>Figure {}. {}</figcaption></figure>",
            k + 1,
            esc(caption)
        );
    }
    h.push_str("<h2>Configurations</h2>\n<ul>\n");
    for r in runs {
        let _ = writeln!(
            h,
            "<li><b>{}</b>: {} / {} / {}</li>",
            esc(&r.scenario.name),
            esc(&r.profile),
            esc(&r.scenario.fs.cleaner),
            esc(&r.scenario.workload.benchmarks)
        );
    }
    h.push_str("</ul>\n");
    if !failed.is_empty() {
        h.push_str("<h2>Failed configurations</h2>\n<ul>\n");
        for f in failed {
            let _ = writeln!(h, "<li>{}</li>", esc(f));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body></html>\n");
    h
}
