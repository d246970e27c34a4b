//! A sweep's plots: one bar chart per shown metric, a bar per configuration at its mean over
//! seeds with the 95% interval as an error bar (SVG and 2x PNG, in the reports' style: the
//! metric in human units, each bar labelled by its parameter values and keyed below, a
//! caption saying what the error bars are).
#![allow(
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::many_single_char_names,
    clippy::similar_names,
    clippy::too_many_lines,
    reason = "pixel arithmetic on figure sizes of a few hundred px; a chart reads best as one function with x, y, p"
)]

use std::path::Path;

use super::results::ConfigSummary;
use crate::db_bench::HarnessError;
use crate::figure::{self, LABEL_PX, TICK_PX, TITLE_PX, Unit};

/// The caption under every sweep chart (and in `summary.md`).
pub const CAPTION: &str =
    "Bars: mean over the seeds; error bars: 95% confidence interval of the mean (Student's t).";

/// `sweep-<metric>.svg` (and `.png`) for each of `metrics` the summaries have; returns the
/// SVG file names.
///
/// # Errors
/// [`HarnessError::Config`] if a chart cannot be drawn or written.
pub fn write(
    dir: &Path,
    title: &str,
    metrics: &[String],
    summaries: &[ConfigSummary],
) -> Result<Vec<String>, HarnessError> {
    let fonts = crate::report::font_options();
    let mut out = Vec::new();
    for m in metrics {
        if !summaries.iter().any(|s| s.metrics.contains_key(m)) {
            continue;
        }
        let file = format!(
            "sweep-{}.svg",
            m.replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_',
                "-"
            )
        );
        let path = dir.join(&file);
        bars(&path, title, m, summaries)?;
        crate::report::png_of(&path, &fonts)?;
        out.push(file);
    }
    Ok(out)
}

/// A metric's name in words, the factor its values are divided by and the unit of the
/// result: `stall_ns` is "stall time" in seconds, `gc_copied_bytes` "gc copied" in the
/// binary unit its largest value calls for, `fillrandom.ops_per_s` "fillrandom throughput".
pub fn human(metric: &str, max: f64) -> (String, f64, Unit, String) {
    let words = |s: &str| s.replace(['_', '.'], " ").trim().to_owned();
    if let Some(base) = metric.strip_suffix("ops_per_s") {
        return (
            format!("{}throughput", words(base) + " ").trim().to_owned(),
            1.0,
            Unit::Count,
            "ops/s".into(),
        );
    }
    if let Some(base) = metric.strip_suffix("_ns") {
        let name = if base.ends_with("stall") {
            format!("{} time", words(base))
        } else {
            words(base)
        };
        return (name, 1e9, Unit::Seconds, String::new());
    }
    if let Some(base) = metric.strip_suffix("_us") {
        return (words(base), 1e6, Unit::Seconds, String::new());
    }
    if let Some(base) = metric.strip_suffix("_bytes") {
        let (div, name) = figure::byte_scale(max);
        return (words(base), div, Unit::Number, name.into());
    }
    (words(metric), 1.0, Unit::Count, String::new())
}

/// The values of a configuration's label (`fs.cleaner=greedy, x=1` gives `greedy, 1`).
fn values_only(label: &str) -> String {
    label
        .split(", ")
        .map(|kv| kv.split_once('=').map_or(kv, |(_, v)| v))
        .collect::<Vec<_>>()
        .join(", ")
}

fn bars(
    path: &Path,
    title: &str,
    metric: &str,
    summaries: &[ConfigSummary],
) -> Result<(), HarnessError> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| HarnessError::plot(path, e);
    let raw_max = summaries
        .iter()
        .filter_map(|s| s.metrics.get(metric))
        .map(|x| x.ci95_high.max(x.mean).abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let (name, div, unit, unit_name) = human(metric, raw_max);
    let y_label = if unit_name.is_empty() {
        name.clone()
    } else {
        format!("{name} ({unit_name})")
    };
    let v = |x: f64| if x.is_finite() { x / div } else { 0.0 };
    let y_max = (summaries
        .iter()
        .filter_map(|s| s.metrics.get(metric))
        .map(|x| v(x.ci95_high).max(v(x.mean)))
        .fold(0.0, f64::max)
        * 1.1)
        .max(1e-9);
    let y_min = summaries
        .iter()
        .filter_map(|s| s.metrics.get(metric))
        .map(|x| v(x.ci95_low).min(v(x.mean)))
        .fold(0.0, f64::min)
        * 1.1;
    let n = summaries.len().max(1);
    let width = (140 * n as u32).clamp(600, 1200);
    let key_h = (TICK_PX + 8) * n as u32 + 12;
    let caption_h = TICK_PX + 16;
    let chart_h = 380;
    let height = TITLE_PX + 14 + chart_h + key_h + caption_h;
    crate::output::refuse_link(path)?;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, rest) = root.split_vertically(TITLE_PX + 14);
    top.draw(&Text::new(
        format!("{title}: {name}"),
        (10, 6),
        ("sans-serif", TITLE_PX).into_font().style(FontStyle::Bold),
    ))
    .map_err(|e| err(&e))?;
    let (area, below) = rest.split_vertically(chart_h);
    let (key, caption) = below.split_vertically(key_h);
    let mut chart = ChartBuilder::on(&area)
        .margin_top(10)
        .margin_right(20)
        .margin_left(6)
        .x_label_area_size(TICK_PX + 18)
        .y_label_area_size(LABEL_PX + TICK_PX * 4 + 18)
        .build_cartesian_2d(0.0..n as f64, y_min..y_max)
        .map_err(|e| err(&e))?;
    let labels: Vec<String> = summaries
        .iter()
        .map(|s| {
            let t = values_only(&s.label);
            let room = (width as usize / n).saturating_sub(20) * 10 / (TICK_PX as usize * 6);
            if t.chars().count() > room.max(4) {
                format!("{}…", t.chars().take(room.max(4) - 1).collect::<String>())
            } else {
                t
            }
        })
        .collect();
    let xf = |x: &f64| {
        let i = x.floor() as usize;
        if (x - i as f64 - 0.5).abs() < 1e-6 {
            labels.get(i).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let yf = move |y: &f64| unit.format(*y);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * n + 1)
        .x_label_formatter(&xf)
        .y_labels(6)
        .y_label_formatter(&yf)
        .y_desc(y_label.as_str())
        .label_style(("sans-serif", TICK_PX))
        .axis_desc_style(("sans-serif", LABEL_PX))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .bold_line_style(RGBColor(0xd8, 0xd8, 0xd8))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, s) in summaries.iter().enumerate() {
        let x = i as f64;
        let Some(m) = s.metrics.get(metric) else {
            continue;
        };
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x + 0.2, 0.0), (x + 0.8, v(m.mean))],
                figure::color(i).filled(),
            )))
            .map_err(|e| err(&e))?;
        if m.n > 1 {
            chart
                .draw_series(std::iter::once(ErrorBar::new_vertical(
                    x + 0.5,
                    v(m.ci95_low),
                    v(m.mean),
                    v(m.ci95_high),
                    BLACK.stroke_width(2),
                    12,
                )))
                .map_err(|e| err(&e))?;
        }
    }
    for (i, s) in summaries.iter().enumerate() {
        let y = 6 + i as i32 * (TICK_PX as i32 + 8);
        key.draw(&Rectangle::new(
            [(14, y), (30, y + TICK_PX as i32 - 2)],
            figure::color(i).filled(),
        ))
        .map_err(|e| err(&e))?;
        key.draw(&Text::new(
            format!("{} ({} seed(s)): {}", s.config, s.seeds.len(), s.label),
            (38, y - 1),
            ("sans-serif", TICK_PX),
        ))
        .map_err(|e| err(&e))?;
    }
    caption
        .draw(&Text::new(
            CAPTION,
            (14, 4),
            ("sans-serif", TICK_PX).into_font().style(FontStyle::Italic),
        ))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_metrics_read_in_human_units() {
        let (n, d, u, unit) = human("stall_ns", 2e9);
        assert_eq!(
            (n.as_str(), d, u, unit.as_str()),
            ("stall time", 1e9, Unit::Seconds, "")
        );
        let (n, d, _, unit) = human("gc_copied_bytes", 3.0 * 1024.0 * 1024.0 * 1024.0);
        assert_eq!((n.as_str(), unit.as_str()), ("gc copied", "GiB"));
        assert!((d - 1024.0 * 1024.0 * 1024.0).abs() < 1.0);
        let (n, _, u, unit) = human("fillrandom.ops_per_s", 1e5);
        assert_eq!(
            (n.as_str(), u, unit.as_str()),
            ("fillrandom throughput", Unit::Count, "ops/s")
        );
        assert_eq!(values_only("fs.cleaner=greedy, engine.x=2"), "greedy, 2");
    }
}
