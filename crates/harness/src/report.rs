//! Reports of a comparison: a side-by-side table normalized to the first configuration (as the
//! papers present results), Markdown and HTML reports, the JSON of every run, CSV time series
//! and plots as SVG and PNG (throughput, free space, write-stall time and level sizes over
//! virtual time; latency and SST lifetime CDFs).

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::db_bench::HarnessError;
use crate::experiment::RunReport;
use crate::output;

/// One column of the comparison table.
struct Column {
    label: String,
    value: Box<dyn Fn(&RunReport) -> f64>,
    /// Printed decimals.
    decimals: usize,
}

fn columns(runs: &[RunReport]) -> Vec<Column> {
    let mut cols: Vec<Column> = Vec::new();
    if let Some(first) = runs.first() {
        for (i, b) in first.benchmarks.iter().enumerate() {
            cols.push(Column {
                label: format!("{} ops/s", b.name),
                value: Box::new(move |r: &RunReport| {
                    r.benchmarks
                        .get(i)
                        .map_or(0.0, crate::db_bench::BenchResult::ops_per_sec)
                }),
                decimals: 0,
            });
            cols.push(Column {
                label: format!("{} p99 us", b.name),
                value: Box::new(move |r: &RunReport| {
                    r.benchmarks.get(i).map_or(0.0, |b| b.latency.p99_us)
                }),
                decimals: 1,
            });
        }
    }
    cols.push(Column {
        label: "WA (device/user)".into(),
        value: Box::new(RunReport::write_amplification),
        decimals: 2,
    });
    cols.push(Column {
        label: "LSM WA".into(),
        value: Box::new(|r: &RunReport| r.db.write_amplification()),
        decimals: 2,
    });
    cols.push(Column {
        label: "GC copied MiB".into(),
        value: Box::new(|r: &RunReport| r.fs.gc_copied_bytes as f64 / 1_048_576.0),
        decimals: 1,
    });
    cols.push(Column {
        label: "zone resets".into(),
        value: Box::new(|r: &RunReport| r.fs.zone_resets as f64),
        decimals: 0,
    });
    cols.push(Column {
        label: "block erases".into(),
        value: Box::new(|r: &RunReport| r.device.block_erases as f64),
        decimals: 0,
    });
    cols.push(Column {
        label: "stall s".into(),
        value: Box::new(|r: &RunReport| (r.db.stall_stop_ns + r.db.stall_delay_ns) as f64 / 1e9),
        decimals: 3,
    });
    cols.push(Column {
        label: "compactions".into(),
        value: Box::new(|r: &RunReport| r.db.compactions as f64),
        decimals: 0,
    });
    cols
}

/// The comparison table in Markdown: each cell is the value and its ratio to the first row.
pub fn table(runs: &[RunReport]) -> String {
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

fn csv(r: &RunReport) -> String {
    let mut s = String::from(
        "t_s,ops,ops_per_s,user_bytes,device_bytes,gc_copied_bytes,free_bytes,stall_ns,level_bytes\n",
    );
    let mut prev: Option<&crate::experiment::Sample> = None;
    for x in &r.series {
        let rate = prev.map_or(0.0, |p| {
            let dt = (x.t_ns - p.t_ns) as f64 / 1e9;
            if dt > 0.0 {
                (x.ops - p.ops) as f64 / dt
            } else {
                0.0
            }
        });
        let levels: Vec<String> = x.level_bytes.iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "{:.3},{},{:.0},{},{},{},{},{},{}",
            x.t_ns as f64 / 1e9,
            x.ops,
            rate,
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

type Extract = fn(&crate::experiment::Sample, Option<&crate::experiment::Sample>) -> f64;

/// One line per configuration on a white 900×480 SVG chart.
fn draw_lines(
    path: &Path,
    title: &str,
    (x_desc, y_desc): (&str, &str),
    labels: &[String],
    series: Vec<Vec<(f64, f64)>>,
    y_max: f64,
) -> Result<(), HarnessError> {
    let err =
        |e: &dyn std::fmt::Display| HarnessError::Config(format!("plot {}: {e}", path.display()));
    let x_max = series
        .iter()
        .flatten()
        .map(|p| p.0)
        .fold(0.0, f64::max)
        .max(1e-3);
    crate::output::refuse_link(path)?;
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (label, pts)) in labels.iter().zip(series).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// A time-series chart: `f` of each sample (and the one before it) over virtual time.
fn plot(
    path: &Path,
    title: &str,
    y_label: &str,
    runs: &[RunReport],
    f: Extract,
) -> Result<(), HarnessError> {
    let series: Vec<Vec<(f64, f64)>> = runs
        .iter()
        .map(|r| {
            let mut prev = None;
            r.series
                .iter()
                .map(|x| {
                    let p = (x.t_ns as f64 / 1e9, f(x, prev));
                    prev = Some(x);
                    p
                })
                .collect()
        })
        .collect();
    let y_max = series
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.1;
    draw_lines(
        path,
        title,
        ("virtual time (s)", y_label),
        &names(runs),
        series,
        y_max,
    )
}

/// CDF of SST lifetimes (all levels) per configuration.
fn lifetime_cdf(path: &Path, runs: &[RunReport]) -> Result<(), HarnessError> {
    let series: Vec<Vec<(f64, f64)>> = runs
        .iter()
        .map(|r| {
            let mut v: Vec<u64> = r.sst_lifetimes_ns.values().flatten().copied().collect();
            v.sort_unstable();
            let n = v.len().max(1) as f64;
            v.iter()
                .enumerate()
                .map(|(i, &ns)| (ns as f64 / 1e9, (i + 1) as f64 / n))
                .collect()
        })
        .collect();
    draw_lines(
        path,
        "SST lifetime CDF (all levels)",
        ("lifetime, virtual s", "fraction of SSTs"),
        &names(runs),
        series,
        1.0,
    )
}

fn names(runs: &[RunReport]) -> Vec<String> {
    runs.iter().map(|r| r.scenario.name.clone()).collect()
}

/// Latency CDF of every benchmark of every configuration, through its percentiles (p50, p75,
/// p99, p99.9, p99.99, max), over log10 of the latency in µs.
fn latency_cdf(path: &Path, runs: &[RunReport]) -> Result<(), HarnessError> {
    let mut labels = Vec::new();
    let mut series = Vec::new();
    for r in runs {
        for b in &r.benchmarks {
            let l = &b.latency;
            if l.count == 0 {
                continue;
            }
            let pts = [
                (l.p50_us, 0.5),
                (l.p75_us, 0.75),
                (l.p99_us, 0.99),
                (l.p999_us, 0.999),
                (l.p9999_us, 0.9999),
                (l.max_us, 1.0),
            ];
            series.push(
                pts.iter()
                    .filter(|(us, _)| *us > 0.0)
                    .map(|&(us, q)| (us.max(0.01).log10() + 2.0, q))
                    .collect(),
            );
            labels.push(format!("{}: {}", r.scenario.name, b.name));
        }
    }
    draw_lines(
        path,
        "Latency CDF (through the percentiles)",
        ("log10(latency in µs) + 2", "fraction of operations"),
        &labels,
        series,
        1.0,
    )
}

/// Bytes of each level over virtual time, one line per configuration and non-empty level.
fn level_sizes(path: &Path, runs: &[RunReport]) -> Result<(), HarnessError> {
    let mut labels = Vec::new();
    let mut series = Vec::new();
    let mut y_max = 1e-9f64;
    for r in runs {
        let levels = r
            .series
            .iter()
            .map(|x| x.level_bytes.len())
            .max()
            .unwrap_or(0);
        for l in 0..levels {
            let pts: Vec<(f64, f64)> = r
                .series
                .iter()
                .map(|x| {
                    let gib =
                        x.level_bytes.get(l).copied().unwrap_or(0) as f64 / f64::from(1u32 << 30);
                    (x.t_ns as f64 / 1e9, gib)
                })
                .collect();
            if pts.iter().all(|p| p.1 == 0.0) {
                continue;
            }
            y_max = pts.iter().map(|p| p.1).fold(y_max, f64::max);
            series.push(pts);
            labels.push(format!("{}: L{l}", r.scenario.name));
        }
    }
    draw_lines(
        path,
        "Level sizes",
        ("virtual time (s)", "GiB"),
        &labels,
        series,
        y_max * 1.1,
    )
}

/// Renders an SVG chart to PNG next to it (text needs a system font; without one the PNG has
/// the lines and no text).
pub(crate) fn png_of(svg: &Path, fonts: &resvg::usvg::Options<'_>) -> Result<(), HarnessError> {
    let err =
        |e: &dyn std::fmt::Display| HarnessError::Config(format!("png {}: {e}", svg.display()));
    let data = std::fs::read(svg).map_err(|e| err(&e))?;
    let tree = resvg::usvg::Tree::from_data(&data, fonts).map_err(|e| err(&e))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| err(&"empty image"))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
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

fn throughput(x: &crate::experiment::Sample, p: Option<&crate::experiment::Sample>) -> f64 {
    p.map_or(0.0, |p| {
        let dt = (x.t_ns - p.t_ns) as f64 / 1e9;
        if dt > 0.0 {
            (x.ops - p.ops) as f64 / dt
        } else {
            0.0
        }
    })
}

fn free_gib(x: &crate::experiment::Sample, _: Option<&crate::experiment::Sample>) -> f64 {
    x.free_bytes as f64 / (1u64 << 30) as f64
}

fn stall_s(x: &crate::experiment::Sample, _: Option<&crate::experiment::Sample>) -> f64 {
    x.stall_ns as f64 / 1e9
}

/// Writes `compare.md`, `compare.html`, `compare.json`, `series-N.csv` and the SVG plots into
/// `dir`; returns the Markdown. No file is written through a symbolic link
/// ([`crate::output`]).
///
/// # Errors
/// [`HarnessError::Config`] when a file cannot be written, [`HarnessError::LinkRefused`]
/// when one is a symbolic link.
pub fn write(
    dir: &Path,
    title: &str,
    runs: &[RunReport],
    host: &serde_json::Value,
) -> Result<String, HarnessError> {
    let io = |e: std::io::Error| HarnessError::Config(format!("report in {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tbl = table(runs);
    let mut md = format!("# {title}\n\n");
    let _ = writeln!(
        md,
        "Each cell is the value and, in parentheses, its ratio to the first configuration. Throughput and latency are in virtual time.\n"
    );
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
    md.push_str("\n## Plots\n\nEach also as PNG (same name, `.png`).\n\n");
    for name in PLOTS {
        let _ = write!(md, "![{name}]({name}.svg)\n\n");
    }
    md.push_str(
        "Time series: `series-N.csv` (N = configuration, from 0). Everything: `compare.json`.\n",
    );
    plot(
        &dir.join("throughput.svg"),
        "Throughput",
        "ops/s",
        runs,
        throughput,
    )?;
    plot(
        &dir.join("free-space.svg"),
        "Free space",
        "GiB",
        runs,
        free_gib,
    )?;
    plot(
        &dir.join("stalls.svg"),
        "Write-stall time (cumulative)",
        "s",
        runs,
        stall_s,
    )?;
    lifetime_cdf(&dir.join("sst-lifetimes.svg"), runs)?;
    latency_cdf(&dir.join("latency-cdf.svg"), runs)?;
    level_sizes(&dir.join("level-sizes.svg"), runs)?;
    let fonts = font_options();
    for name in PLOTS {
        png_of(&dir.join(format!("{name}.svg")), &fonts)?;
    }
    for (i, r) in runs.iter().enumerate() {
        output::write(&dir.join(format!("series-{i}.csv")), csv(r))?;
    }
    let json = serde_json::json!({ "title": title, "configurations": runs, "host": host });
    output::write(
        &dir.join("compare.json"),
        serde_json::to_string_pretty(&json).map_err(|e| HarnessError::Config(e.to_string()))?,
    )?;
    output::write(&dir.join("compare.md"), &md)?;
    output::write(&dir.join("compare.html"), html(title, &tbl, runs))?;
    Ok(md)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn html(title: &str, md_table: &str, runs: &[RunReport]) -> String {
    let mut h = format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title>\n<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}td:first-child,th:first-child{{text-align:left}}</style></head><body>\n<h1>{t}</h1>\n<p>Each cell is the value and its ratio to the first configuration; virtual time.</p>\n<table>\n",
        t = esc(title)
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
    h.push_str("</table>\n<h2>Plots</h2>\n<img src=\"throughput.svg\"><br><img src=\"free-space.svg\"><br><img src=\"stalls.svg\"><br><img src=\"sst-lifetimes.svg\"><br><img src=\"latency-cdf.svg\"><br><img src=\"level-sizes.svg\">\n<h2>Configurations</h2>\n<ul>\n");
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
    h.push_str("</ul>\n</body></html>\n");
    h
}
