//! A sweep's plots: one bar chart per shown metric, a bar per configuration at its mean over
//! seeds with the 95% interval as an error bar (SVG and PNG, in the reports' style).

use std::path::Path;

use super::results::ConfigSummary;
use crate::db_bench::HarnessError;

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
        bars(&path, &format!("{title}: {m}"), m, summaries)?;
        crate::report::png_of(&path, &fonts)?;
        out.push(file);
    }
    Ok(out)
}

fn bars(
    path: &Path,
    title: &str,
    metric: &str,
    summaries: &[ConfigSummary],
) -> Result<(), HarnessError> {
    use plotters::prelude::*;
    let err =
        |e: &dyn std::fmt::Display| HarnessError::Config(format!("plot {}: {e}", path.display()));
    let y_max = summaries
        .iter()
        .filter_map(|s| s.metrics.get(metric))
        .map(|x| x.ci95_high.max(x.mean))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.15;
    let y_min = summaries
        .iter()
        .filter_map(|s| s.metrics.get(metric))
        .map(|x| x.ci95_low.min(x.mean))
        .fold(0.0, f64::min);
    let n = summaries.len().max(1) as f64;
    crate::output::refuse_link(path)?;
    let root = SVGBackend::new(path, (960, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n, y_min - 0.08 * y_max..y_max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(metric)
        .draw()
        .map_err(|e| err(&e))?;
    let color = Palette99::pick(0).to_rgba();
    for (i, s) in summaries.iter().enumerate() {
        let x = i as f64;
        chart
            .draw_series(std::iter::once(Text::new(
                s.config.clone(),
                (x + 0.35, y_min - 0.04 * y_max),
                ("sans-serif", 13).into_font(),
            )))
            .map_err(|e| err(&e))?;
        let Some(v) = s.metrics.get(metric) else {
            continue;
        };
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x + 0.2, 0.0), (x + 0.8, v.mean)],
                color.filled(),
            )))
            .map_err(|e| err(&e))?;
        if v.n > 1 {
            chart
                .draw_series(std::iter::once(ErrorBar::new_vertical(
                    x + 0.5,
                    v.ci95_low,
                    v.mean,
                    v.ci95_high,
                    BLACK.stroke_width(2),
                    12,
                )))
                .map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))
}
