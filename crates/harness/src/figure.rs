//! Figures in a paper's style for the compare/run and sweep reports: SI tick labels with their
//! units (`300 K`, `1 GiB`, `250 µs`), a colour-blind-safe palette (Okabe-Ito) with a dash
//! pattern and a marker per series so overlapping lines stay visible, log axes, vertical
//! marks (phase boundaries), small multiples (a grid of panels) and a legend below the data.
//! Drawn with plotters' SVG backend; `report::png_of` renders each SVG to a 2x PNG.
#![allow(
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::many_single_char_names,
    clippy::similar_names,
    clippy::too_many_lines,
    reason = "pixel arithmetic on figure sizes of a few hundred px; a chart reads best as one function with x, y, p"
)]

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use crate::db_bench::HarnessError;

/// Okabe & Ito's colour-blind-safe palette, yellow last (weak on white).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
    RGBColor(0xB0, 0xA0, 0x00),
];

/// Dash and gap lengths (px) per series; `(0, 0)` is solid.
const DASHES: [(i32, i32); 4] = [(0, 0), (9, 4), (3, 3), (14, 4)];

/// Font sizes (px): legible when a 560 px figure is printed at a 3.3 in column.
/// (plotters writes an SVG font size at 0.8 of the size asked: 20 comes out as 16 px.)
pub const TITLE_PX: u32 = 20;
/// Axis descriptions.
pub const LABEL_PX: u32 = 19;
/// Tick labels and legend.
pub const TICK_PX: u32 = 17;

/// How an axis' tick labels are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A plain number, up to three significant digits (the unit in the axis description).
    Number,
    /// SI prefixes: `300 K`, `1.5 M`.
    Count,
    /// Binary prefixes: `512 MiB`, `1 GiB` (values in bytes).
    Bytes,
    /// Seconds and their SI parts: `250 µs`, `10 ms`, `2 s` (values in seconds).
    Seconds,
    /// Microseconds, written as time: `250 µs`, `10 ms` (values in µs).
    Micros,
    /// A fraction written as a percentage: `99.9%`.
    Percent,
}

impl Unit {
    /// The tick label of `v`.
    pub fn format(self, v: f64) -> String {
        match self {
            Self::Number => short(v),
            Self::Count => si(v),
            Self::Bytes => bytes(v),
            Self::Seconds => seconds(v),
            Self::Micros => seconds(v / 1e6),
            Self::Percent => percent(v),
        }
    }
}

/// Up to three significant digits, trailing zeros dropped: `1.5`, `300`, `0.25`.
fn short(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor();
    let decimals = (2.0 - mag).clamp(0.0, 6.0) as usize;
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    if s == "-0" { "0".into() } else { s }
}

fn scaled(v: f64, steps: &[(f64, &str)], base: &str) -> String {
    if v == 0.0 {
        return "0".into();
    }
    for &(f, name) in steps {
        if v.abs() >= f * 0.9995 {
            return format!("{} {name}", short(v / f));
        }
    }
    if base.is_empty() {
        short(v)
    } else {
        format!("{} {base}", short(v))
    }
}

/// `300 K`, `1.5 M`, `2 G`, `0.25`.
pub fn si(v: f64) -> String {
    scaled(v, &[(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")], "")
}

/// `1 GiB`, `512 MiB`, `4 KiB`, `12 B`.
pub fn bytes(v: f64) -> String {
    const K: f64 = 1024.0;
    scaled(
        v,
        &[
            (K * K * K * K, "TiB"),
            (K * K * K, "GiB"),
            (K * K, "MiB"),
            (K, "KiB"),
        ],
        "B",
    )
}

/// `2 s`, `10 ms`, `250 µs`, `40 ns`.
pub fn seconds(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 0.9995 {
        format!("{} s", short(v))
    } else if a >= 0.9995e-3 {
        format!("{} ms", short(v * 1e3))
    } else if a >= 0.9995e-6 {
        format!("{} µs", short(v * 1e6))
    } else {
        format!("{} ns", short(v * 1e9))
    }
}

/// The binary unit to plot bytes up to `max` in, as a divisor and a name (`GiB`): the axis
/// then gets round ticks (2, 4, 6 GiB) instead of decimal ones in binary units (1.86 GiB).
pub fn byte_scale(max: f64) -> (f64, &'static str) {
    let mut out = (1.0, "bytes");
    for (f, name) in [
        (1024.0, "KiB"),
        (1024.0 * 1024.0, "MiB"),
        (1024.0 * 1024.0 * 1024.0, "GiB"),
        (1024.0 * 1024.0 * 1024.0 * 1024.0, "TiB"),
    ] {
        if max >= f {
            out = (f, name);
        }
    }
    out
}

/// `100%`, `99.9%`, `0.01%`.
pub fn percent(v: f64) -> String {
    format!("{}%", short(v * 100.0))
}

/// An axis: its description, scale, tick unit and range.
#[derive(Debug, Clone)]
pub struct Axis {
    /// Description (with the unit when the ticks do not carry it).
    pub label: String,
    /// Logarithmic.
    pub log: bool,
    /// Tick labels.
    pub unit: Unit,
    /// Range (for a log axis, both positive).
    pub range: (f64, f64),
}

impl Axis {
    /// A linear axis from 0 to `max` (× 1.05 headroom).
    pub fn linear(label: &str, unit: Unit, max: f64) -> Self {
        // Nothing to show (no stalls): a unit range, not ticks in nanoseconds.
        let hi = if max.is_finite() && max > 0.0 {
            max * 1.05
        } else {
            1.0
        };
        Self {
            label: label.into(),
            log: false,
            unit,
            range: (0.0, hi),
        }
    }

    /// A log axis over whole decades around `[lo, hi]`.
    pub fn log(label: &str, unit: Unit, lo: f64, hi: f64) -> Self {
        let lo = lo.max(1e-12);
        let hi = hi.max(lo * 10.0);
        Self {
            label: label.into(),
            log: true,
            unit,
            range: (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil()),
            ),
        }
    }
}

/// One line: its style index (colour, dash, marker) and points.
#[derive(Debug, Clone)]
pub struct Line {
    /// Index into the palette, dashes and markers.
    pub style: usize,
    /// Points in axis units.
    pub points: Vec<(f64, f64)>,
}

/// A vertical mark (a phase boundary).
#[derive(Debug, Clone)]
pub struct Mark {
    /// Where.
    pub x: f64,
    /// Style index (its colour).
    pub style: usize,
    /// Text at the top, if any.
    pub label: Option<String>,
}

/// One chart of a figure.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Its title (empty: none).
    pub title: String,
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// Lines.
    pub lines: Vec<Line>,
    /// Vertical marks.
    pub marks: Vec<Mark>,
}

/// A figure: panels in a grid, one legend below them.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Title.
    pub title: String,
    /// Panels, row by row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
    /// Size of one panel, px.
    pub panel_size: (u32, u32),
    /// Legend entries: text and style index (`None`: a dotted vertical mark).
    pub legend: Vec<(String, Option<usize>)>,
}

/// Colour of style `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn dash(i: usize) -> (i32, i32) {
    DASHES[(i / PALETTE.len() + i) % DASHES.len()]
}

/// Draws marker `i % 5` (circle, square, triangle, cross, diamond) at `c`.
fn marker<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    c: CT::From,
    i: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    CT::From: Clone,
{
    let col = color(i);
    let at = EmptyElement::at(c);
    match i % 5 {
        0 => area.draw(&(at + Circle::new((0, 0), 4, col.filled()))),
        1 => area.draw(&(at + Rectangle::new([(-4, -4), (4, 4)], col.filled()))),
        2 => area.draw(&(at + TriangleMarker::new((0, 0), 5, col.filled()))),
        3 => area.draw(&(at + Cross::new((0, 0), 5, col.stroke_width(2)))),
        _ => area.draw(&(at + Polygon::new(vec![(0, -5), (5, 0), (0, 5), (-5, 0)], col.filled()))),
    }
}

/// Legend rows: entries per row and row count for a figure `width` px wide.
fn legend_grid(fig: &Figure, width: u32) -> (usize, usize) {
    legend_layout(fig.legend.iter().map(|(t, _)| t.as_str()), width)
}

/// Entries per row and row count of a legend of `texts` under a figure `width` px wide.
fn legend_layout<'a>(texts: impl Iterator<Item = &'a str>, width: u32) -> (usize, usize) {
    let (mut n, mut longest) = (0, 0);
    for t in texts {
        n += 1;
        longest = longest.max(t.chars().count());
    }
    let entry_px = 52 + longest as u32 * TICK_PX * 6 / 10;
    let per_row = ((width.saturating_sub(20)) / entry_px.max(1)).max(1) as usize;
    let per_row = per_row.min(n.max(1));
    (per_row, n.div_ceil(per_row))
}

/// Writes `fig` as an SVG at `path` (never through a symbolic link).
///
/// # Errors
/// [`HarnessError::Config`] if it cannot be drawn or written.
pub fn draw(path: &Path, fig: &Figure) -> Result<(), HarnessError> {
    let err = |e: &dyn std::fmt::Display| HarnessError::plot(path, e);
    let cols = fig.columns.clamp(1, fig.panels.len().max(1));
    let rows = fig.panels.len().div_ceil(cols).max(1);
    let width = fig.panel_size.0 * cols as u32;
    let (per_row, legend_rows) = legend_grid(fig, width);
    let legend_h = if fig.legend.is_empty() {
        0
    } else {
        legend_rows as u32 * (TICK_PX + 8) + 12
    };
    let title_h = TITLE_PX + 14;
    let height = title_h + fig.panel_size.1 * rows as u32 + legend_h;
    crate::output::refuse_link(path)?;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, rest) = root.split_vertically(title_h);
    top.draw(&Text::new(
        fig.title.clone(),
        (10, 6),
        ("sans-serif", TITLE_PX).into_font().style(FontStyle::Bold),
    ))
    .map_err(|e| err(&e))?;
    let (grid, legend) = rest.split_vertically(fig.panel_size.1 * rows as u32);
    let cells = grid.split_evenly((rows, cols));
    for (p, cell) in fig.panels.iter().zip(&cells) {
        let r = match (p.x.log, p.y.log) {
            (false, false) => panel(cell, p, p.x.range.0..p.x.range.1, p.y.range.0..p.y.range.1),
            (true, false) => panel(
                cell,
                p,
                (p.x.range.0..p.x.range.1).log_scale(),
                p.y.range.0..p.y.range.1,
            ),
            (false, true) => panel(
                cell,
                p,
                p.x.range.0..p.x.range.1,
                (p.y.range.0..p.y.range.1).log_scale(),
            ),
            (true, true) => panel(
                cell,
                p,
                (p.x.range.0..p.x.range.1).log_scale(),
                (p.y.range.0..p.y.range.1).log_scale(),
            ),
        };
        r.map_err(|e| err(&e))?;
    }
    let col_w = (width.saturating_sub(20)) / per_row.max(1) as u32;
    for (k, (text, style)) in fig.legend.iter().enumerate() {
        let x = 14 + (k % per_row) as i32 * col_w as i32;
        let y = 6 + (k / per_row) as i32 * (TICK_PX as i32 + 8) + TICK_PX as i32 / 2;
        match style {
            Some(s) => {
                let (d, g) = dash(*s);
                let st = color(*s).stroke_width(2);
                if d == 0 {
                    legend
                        .draw(&PathElement::new(vec![(x, y), (x + 40, y)], st))
                        .map_err(|e| err(&e))?;
                } else {
                    for e in DashedLineSeries::new(vec![(x, y), (x + 40, y)], d, g, st) {
                        legend.draw(&e).map_err(|e| err(&e))?;
                    }
                }
                marker(&legend, (x + 20, y), *s).map_err(|e| err(&e))?;
            }
            None => {
                for e in DashedLineSeries::new(
                    vec![(x + 20, y - 7), (x + 20, y + 7)],
                    2,
                    3,
                    RGBColor(0x55, 0x55, 0x55).stroke_width(1),
                ) {
                    legend.draw(&e).map_err(|e| err(&e))?;
                }
            }
        }
        legend
            .draw(&Text::new(
                text.clone(),
                (x + 48, y - TICK_PX as i32 / 2 - 1),
                ("sans-serif", TICK_PX),
            ))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// One panel on `area` with coordinates `xr` × `yr`.
fn panel<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    p: &Panel,
    xr: X,
    yr: Y,
) -> Result<(), Box<dyn std::error::Error>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut b = ChartBuilder::on(area);
    b.margin_top(10)
        .margin_right(34)
        .margin_left(6)
        .x_label_area_size(LABEL_PX + TICK_PX + 22)
        .y_label_area_size(LABEL_PX + TICK_PX * 4 + 18);
    if !p.title.is_empty() {
        b.caption(&p.title, ("sans-serif", LABEL_PX));
    }
    let mut chart = b.build_cartesian_2d(xr, yr)?;
    let (xu, yu) = (p.x.unit, p.y.unit);
    let xf = move |v: &f64| xu.format(*v);
    let yf = move |v: &f64| yu.format(*v);
    chart
        .configure_mesh()
        .x_desc(p.x.label.as_str())
        .y_desc(p.y.label.as_str())
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_labels(6)
        .y_labels(6)
        .label_style(("sans-serif", TICK_PX))
        .axis_desc_style(("sans-serif", LABEL_PX))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .bold_line_style(RGBColor(0xd8, 0xd8, 0xd8))
        .draw()?;
    let (ylo, yhi) = p.y.range;
    for m in &p.marks {
        if m.x <= p.x.range.0 || m.x > p.x.range.1 {
            continue;
        }
        chart.draw_series(DashedLineSeries::new(
            vec![(m.x, ylo), (m.x, yhi)],
            2,
            3,
            color(m.style).mix(0.8).stroke_width(1),
        ))?;
        if let Some(t) = &m.label {
            chart.plotting_area().draw(
                &(EmptyElement::at((m.x, yhi))
                    + Text::new(
                        t.clone(),
                        (3, 2),
                        ("sans-serif", TICK_PX - 2).into_font().color(&BLACK),
                    )),
            )?;
        }
    }
    let n_lines = p.lines.len().max(1);
    for l in &p.lines {
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .copied()
            .filter(|&(x, y)| {
                x.is_finite() && y.is_finite() && (!p.x.log || x > 0.0) && (!p.y.log || y > 0.0)
            })
            .collect();
        if pts.is_empty() {
            continue;
        }
        let st = color(l.style).stroke_width(2);
        // plotters writes every dash as its own SVG element: a dense line (a time series of
        // hundreds of samples) is drawn solid, told apart by colour and markers, to keep the
        // SVG small.
        let (d, g) = if pts.len() > 150 {
            (0, 0)
        } else {
            dash(l.style)
        };
        if d == 0 {
            chart.draw_series(LineSeries::new(pts.clone(), st))?;
        } else {
            chart.draw_series(DashedLineSeries::new(pts.clone(), d, g, st))?;
        }
        // About eight markers a line, staggered by series so identical lines show each one.
        let step = (pts.len() / 8).max(1);
        let offset = step * (l.style % n_lines) / n_lines;
        let mut i = offset.min(pts.len() - 1);
        while i < pts.len() {
            marker(chart.plotting_area(), pts[i], l.style)?;
            i += step;
        }
    }
    Ok(())
}

/// What a paper gives for one bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PaperValue {
    /// Its number: a black diamond at it.
    Value(f64),
    /// A floor ("at least"): a black triangle standing on a tick at it.
    AtLeast(f64),
}

impl PaperValue {
    /// The number.
    pub fn value(self) -> f64 {
        match self {
            Self::Value(v) | Self::AtLeast(v) => v,
        }
    }
}

/// One bar: our value, the half-width of its 95% interval (two or more seeds), the paper's.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bar {
    /// Ours (the mean over seeds).
    pub value: f64,
    /// Half-width of the 95% interval, drawn as a whisker (`None` or 0: none).
    pub ci95: Option<f64>,
    /// The paper's value for this bar, if it gives one.
    pub paper: Option<PaperValue>,
}

/// A horizontal reference line: the 1 of a normalisation, a bound a paper states.
#[derive(Debug, Clone)]
pub struct RefLine {
    /// Where.
    pub y: f64,
    /// Text at its right end, if any.
    pub label: Option<String>,
}

/// One chart of grouped bars: per group (a workload, an experiment) one bar per series.
#[derive(Debug, Clone)]
pub struct BarPanel {
    /// Title (empty: none).
    pub title: String,
    /// Group names, under their bars.
    pub groups: Vec<String>,
    /// Vertical axis; its top is raised to hold every bar, whisker and paper value.
    pub y: Axis,
    /// `bars[group][series]`; `None`: not run.
    pub bars: Vec<Vec<Option<Bar>>>,
    /// Reference lines.
    pub lines: Vec<RefLine>,
}

/// Grouped-bar panels sharing their series (one colour each), one legend below the data.
#[derive(Debug, Clone)]
pub struct BarFigure {
    /// Title.
    pub title: String,
    /// One line under the title: what the bars, whiskers and markers are.
    pub note: String,
    /// Series names (the bars' parameters: schemes), in the legend.
    pub series: Vec<String>,
    /// Panels, row by row.
    pub panels: Vec<BarPanel>,
    /// Panels per row.
    pub columns: usize,
    /// Size of one panel, px.
    pub panel_size: (u32, u32),
}

/// What [`draw_bars`] drew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BarsDrawn {
    /// Bars.
    pub bars: usize,
    /// Paper markers (diamonds and floors).
    pub paper_marks: usize,
    /// 95% interval whiskers.
    pub whiskers: usize,
}

impl std::ops::AddAssign for BarsDrawn {
    fn add_assign(&mut self, o: Self) {
        self.bars += o.bars;
        self.paper_marks += o.paper_marks;
        self.whiskers += o.whiskers;
    }
}

/// The legend text of a paper's value marker.
pub const PAPER_LEGEND: &str = "paper";
/// The legend text of a paper's floor marker.
pub const PAPER_FLOOR_LEGEND: &str = "paper: at least";
/// The legend text of a whisker.
pub const INTERVAL_LEGEND: &str = "95% interval";

impl BarFigure {
    /// A panel width giving each bar about 20 px and each group room for its name.
    pub fn width_for(groups: &[String], series: usize) -> u32 {
        let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as u32;
        let group_px = (series as u32 * 20 + 24).max(longest * TICK_PX * 6 / 10 + 12);
        (130 + groups.len() as u32 * group_px).max(400)
    }
}

#[derive(Debug, Clone, Copy)]
enum Glyph {
    Swatch(usize),
    Paper,
    Floor,
    Whisker,
}

/// Draws a paper marker at `c`: a black diamond (a value) or a triangle on a tick (a floor),
/// each on a white halo so it reads over any bar.
fn paper_mark<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    c: CT::From,
    floor: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    CT::From: Clone,
{
    let at = || EmptyElement::at(c.clone());
    if floor {
        area.draw(&(at() + Rectangle::new([(-10, -2), (10, 2)], WHITE.filled())))?;
        area.draw(&(at() + Polygon::new(vec![(-8, 0), (8, 0), (0, -13)], WHITE.filled())))?;
        area.draw(&(at() + PathElement::new(vec![(-8, 0), (8, 0)], BLACK.stroke_width(2))))?;
        area.draw(&(at() + Polygon::new(vec![(-5, -1), (5, -1), (0, -10)], BLACK.filled())))
    } else {
        area.draw(&(at() + Polygon::new(vec![(0, -8), (8, 0), (0, 8), (-8, 0)], WHITE.filled())))?;
        area.draw(&(at() + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], BLACK.filled())))
    }
}

/// Writes `fig` as an SVG at `path` (never through a symbolic link); returns what it drew.
///
/// # Errors
/// [`HarnessError::Config`] if it cannot be drawn or written.
pub fn draw_bars(path: &Path, fig: &BarFigure) -> Result<BarsDrawn, HarnessError> {
    let err = |e: &dyn std::fmt::Display| HarnessError::plot(path, e);
    let all = || {
        fig.panels
            .iter()
            .flat_map(|p| p.bars.iter().flatten().flatten())
    };
    let mut legend: Vec<(String, Glyph)> = fig
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), Glyph::Swatch(i)))
        .collect();
    if all().any(|b| matches!(b.paper, Some(PaperValue::Value(_)))) {
        legend.push((PAPER_LEGEND.into(), Glyph::Paper));
    }
    if all().any(|b| matches!(b.paper, Some(PaperValue::AtLeast(_)))) {
        legend.push((PAPER_FLOOR_LEGEND.into(), Glyph::Floor));
    }
    if all().any(|b| b.ci95.is_some_and(|c| c > 0.0)) {
        legend.push((INTERVAL_LEGEND.into(), Glyph::Whisker));
    }
    let cols = fig.columns.clamp(1, fig.panels.len().max(1));
    let rows = fig.panels.len().div_ceil(cols).max(1);
    let width = fig.panel_size.0 * cols as u32;
    let (per_row, legend_rows) = legend_layout(legend.iter().map(|(t, _)| t.as_str()), width);
    let legend_h = if legend.is_empty() {
        0
    } else {
        legend_rows as u32 * (TICK_PX + 8) + 12
    };
    let note = wrap(
        &fig.note,
        (width.saturating_sub(20) / (TICK_PX * 11 / 20)) as usize,
    );
    let note_h = note.len() as u32 * (TICK_PX + 3);
    let title_h = TITLE_PX + 14 + note_h;
    let height = title_h + fig.panel_size.1 * rows as u32 + legend_h;
    crate::output::refuse_link(path)?;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, rest) = root.split_vertically(title_h);
    top.draw(&Text::new(
        fig.title.clone(),
        (10, 6),
        ("sans-serif", TITLE_PX).into_font().style(FontStyle::Bold),
    ))
    .map_err(|e| err(&e))?;
    for (k, line) in note.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (10, TITLE_PX as i32 + 8 + k as i32 * (TICK_PX as i32 + 3)),
            ("sans-serif", TICK_PX - 1)
                .into_font()
                .color(&RGBColor(0x33, 0x33, 0x33)),
        ))
        .map_err(|e| err(&e))?;
    }
    let (grid, legend_area) = rest.split_vertically(fig.panel_size.1 * rows as u32);
    let cells = grid.split_evenly((rows, cols));
    let mut drawn = BarsDrawn::default();
    for (p, cell) in fig.panels.iter().zip(&cells) {
        drawn += bar_panel(cell, p, fig.series.len()).map_err(|e| err(&e))?;
    }
    let col_w = (width.saturating_sub(20)) / per_row.max(1) as u32;
    for (k, (text, glyph)) in legend.iter().enumerate() {
        let x = 14 + (k % per_row) as i32 * col_w as i32;
        let y = 6 + (k / per_row) as i32 * (TICK_PX as i32 + 8) + TICK_PX as i32 / 2;
        let r = match glyph {
            Glyph::Swatch(s) => legend_area.draw(&Rectangle::new(
                [(x + 8, y - 7), (x + 32, y + 7)],
                color(*s).filled(),
            )),
            Glyph::Paper => paper_mark(&legend_area, (x + 20, y), false),
            Glyph::Floor => paper_mark(&legend_area, (x + 20, y + 5), true),
            Glyph::Whisker => {
                let st = BLACK.stroke_width(2);
                legend_area
                    .draw(&PathElement::new(
                        vec![(x + 20, y - 8), (x + 20, y + 8)],
                        st,
                    ))
                    .and_then(|()| {
                        legend_area.draw(&PathElement::new(
                            vec![(x + 15, y - 8), (x + 25, y - 8)],
                            st,
                        ))
                    })
                    .and_then(|()| {
                        legend_area.draw(&PathElement::new(
                            vec![(x + 15, y + 8), (x + 25, y + 8)],
                            st,
                        ))
                    })
            }
        };
        r.map_err(|e| err(&e))?;
        legend_area
            .draw(&Text::new(
                text.clone(),
                (x + 48, y - TICK_PX as i32 / 2 - 1),
                ("sans-serif", TICK_PX),
            ))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(drawn)
}

/// `text` in lines of at most `chars` characters, broken at spaces.
fn wrap(text: &str, chars: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match out.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= chars.max(10) => {
                l.push(' ');
                l.push_str(word);
            }
            _ => out.push(word.to_owned()),
        }
    }
    out
}

/// One grouped-bar panel on `area`.
fn bar_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    p: &BarPanel,
    n_series: usize,
) -> Result<BarsDrawn, Box<dyn std::error::Error>> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let top = p
        .bars
        .iter()
        .flatten()
        .flatten()
        .map(|b| (b.value + b.ci95.unwrap_or(0.0)).max(b.paper.map_or(0.0, PaperValue::value)))
        .chain(p.lines.iter().map(|l| l.y))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let lo = p.y.range.0;
    let hi = p.y.range.1.max(top * 1.1).max(lo + 1e-9);
    let n_groups = p.groups.len().max(1);
    let mut b = ChartBuilder::on(area);
    b.margin_top(10)
        .margin_right(16)
        .margin_left(6)
        .x_label_area_size(TICK_PX + 18)
        .y_label_area_size(LABEL_PX + TICK_PX * 4 + 18);
    if !p.title.is_empty() {
        b.caption(&p.title, ("sans-serif", LABEL_PX));
    }
    let mut chart = b.build_cartesian_2d(0.0..n_groups as f64, lo..hi)?;
    let yu = p.y.unit;
    let yf = move |v: &f64| yu.format(*v);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(p.y.label.as_str())
        .y_label_formatter(&yf)
        .y_labels(6)
        .label_style(("sans-serif", TICK_PX))
        .axis_desc_style(("sans-serif", LABEL_PX))
        .light_line_style(RGBColor(0xf2, 0xf2, 0xf2))
        .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
        .draw()?;
    let base = area.get_base_pixel();
    for (i, g) in p.groups.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, lo));
        area.draw(&Text::new(
            g.clone(),
            (px - base.0, py - base.1 + 5),
            ("sans-serif", TICK_PX)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    for l in &p.lines {
        chart.draw_series(DashedLineSeries::new(
            vec![(0.0, l.y), (n_groups as f64, l.y)],
            5,
            4,
            RGBColor(0x66, 0x66, 0x66).stroke_width(1),
        ))?;
        if let Some(t) = &l.label {
            let (px, py) = chart.backend_coord(&(n_groups as f64, l.y));
            area.draw(&Text::new(
                t.clone(),
                (px - base.0 - 4, py - base.1 - 3),
                ("sans-serif", TICK_PX - 2)
                    .into_font()
                    .color(&RGBColor(0x44, 0x44, 0x44))
                    .pos(Pos::new(HPos::Right, VPos::Bottom)),
            ))?;
        }
    }
    let n = n_series.max(1) as f64;
    let w = 0.8 / n;
    let mut drawn = BarsDrawn::default();
    let mut marks = Vec::new();
    for (i, row) in p.bars.iter().enumerate() {
        for (j, bar) in row.iter().enumerate() {
            let Some(bar) = bar else { continue };
            if !bar.value.is_finite() {
                continue;
            }
            let x0 = i as f64 + 0.1 + w * j as f64;
            let xc = x0 + w / 2.0;
            let v = bar.value.clamp(lo, hi);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, lo), (x0 + w, v)],
                color(j).filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, lo), (x0 + w, v)],
                WHITE.stroke_width(1),
            )))?;
            drawn.bars += 1;
            if let Some(c) = bar.ci95.filter(|c| *c > 0.0 && c.is_finite()) {
                let (a, z) = ((bar.value - c).max(lo), (bar.value + c).min(hi));
                let cap = w * 0.22;
                let st = BLACK.stroke_width(1);
                chart.draw_series([
                    PathElement::new(vec![(xc, a), (xc, z)], st),
                    PathElement::new(vec![(xc - cap, a), (xc + cap, a)], st),
                    PathElement::new(vec![(xc - cap, z), (xc + cap, z)], st),
                ])?;
                drawn.whiskers += 1;
            }
            if let Some(pv) = bar.paper.filter(|pv| pv.value().is_finite()) {
                marks.push((xc, pv));
            }
        }
    }
    // Paper markers last, over every bar and whisker.
    for (xc, pv) in marks {
        paper_mark(
            chart.plotting_area(),
            (xc, pv.value().clamp(lo, hi)),
            matches!(pv, PaperValue::AtLeast(_)),
        )?;
        drawn.paper_marks += 1;
    }
    Ok(drawn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_carry_si_units_and_no_dot_zero() {
        assert_eq!(si(300_000.0), "300 K");
        assert_eq!(si(1_000_000_000.0), "1 G");
        assert_eq!(si(1_500_000.0), "1.5 M");
        assert_eq!(si(0.0), "0");
        assert_eq!(si(0.25), "0.25");
        assert_eq!(si(12.0), "12");
        assert_eq!(bytes(1024.0 * 1024.0 * 1024.0), "1 GiB");
        assert_eq!(bytes(512.0 * 1024.0 * 1024.0), "512 MiB");
        assert_eq!(seconds(0.01), "10 ms");
        assert_eq!(seconds(250e-6), "250 µs");
        assert_eq!(seconds(2.0), "2 s");
        assert_eq!(Unit::Micros.format(1000.0), "1 ms");
        assert_eq!(percent(0.999), "99.9%");
        assert_eq!(percent(1e-4), "0.01%");
    }
}
