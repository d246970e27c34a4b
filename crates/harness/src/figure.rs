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
    let longest = fig
        .legend
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(0);
    let entry_px = 52 + longest as u32 * TICK_PX * 6 / 10;
    let per_row = ((width.saturating_sub(20)) / entry_px.max(1)).max(1) as usize;
    let per_row = per_row.min(fig.legend.len().max(1));
    (per_row, fig.legend.len().div_ceil(per_row))
}

/// Writes `fig` as an SVG at `path` (never through a symbolic link).
///
/// # Errors
/// [`HarnessError::Config`] if it cannot be drawn or written.
pub fn draw(path: &Path, fig: &Figure) -> Result<(), HarnessError> {
    let err =
        |e: &dyn std::fmt::Display| HarnessError::Config(format!("plot {}: {e}", path.display()));
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
