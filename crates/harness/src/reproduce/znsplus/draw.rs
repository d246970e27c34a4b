//! ZNS+'s figures in the paper's own form, drawn from the study's JSON (see
//! [`crate::reproduce::plots`] for what a bar, a whisker and a paper marker are).

use serde_json::Value;

use super::paper;
use crate::db_bench::HarnessError;
use crate::figure::{Axis, Bar, BarPanel, RefLine, Unit};
use crate::reproduce::plots::{Out, bar, bar_figure, note, one_line, stat, strs};

/// ZNS+: throughput over ZNS per experiment, and IZC's copyback share by chip count. The
/// slides give ranges over their own experiments, not a value per bar: no markers; the
/// copyback share's floor ("over 80%") is a reference line.
pub(crate) fn draw(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    use super::{EXPERIMENTS, SCHEMES};
    let s = &j["schemes"];
    let series: Vec<&str> = SCHEMES
        .iter()
        .copied()
        .filter(|x| s.get(*x).is_some())
        .collect();
    let run: Vec<&str> = EXPERIMENTS
        .iter()
        .copied()
        .filter(|e| series.iter().any(|x| s[*x].get(*e).is_some()))
        .collect();
    if run.is_empty() {
        return Ok(());
    }
    let cell = |x: &str, e: &str, key: &str| {
        let o = &s[x][e];
        stat(o, o.get("spread"), key)
    };
    let bars = run
        .iter()
        .map(|e| {
            series
                .iter()
                .map(|x| bar(cell(x, e, "ops_per_s"), cell("ZNS", e, "ops_per_s"), None))
                .collect()
        })
        .collect();
    let fig = bar_figure(
        "ZNS+: throughput normalised to ZNS (host copy)",
        note(
            j,
            Some("ZNS"),
            "The slides give ranges over their own runs (IZC 1.3-1.9x, ZNS+ 1.3-2.9x), not per bar.",
        ),
        strs(&series),
        vec![BarPanel {
            title: String::new(),
            groups: strs(&run),
            y: Axis::linear("throughput (× ZNS)", Unit::Number, 1.0),
            bars,
            lines: one_line(),
        }],
    );
    out.bars("reproduce-znsplus-throughput.svg", &fig)?;
    let chips: Vec<&str> = run
        .iter()
        .copied()
        .filter(|e| e.starts_with("chips-"))
        .collect();
    if chips.is_empty() {
        return Ok(());
    }
    let with_izc: Vec<&str> = series.iter().copied().filter(|x| *x != "ZNS").collect();
    let bars = chips
        .iter()
        .map(|e| {
            with_izc
                .iter()
                .map(|x| {
                    let c = s[*x][*e]["izc_copyback_pages"].as_f64()?;
                    let r = s[*x][*e]["read_program_pages"].as_f64()?;
                    (c + r > 0.0).then(|| Bar {
                        value: c / (c + r),
                        ci95: None,
                        paper: None,
                    })
                })
                .collect()
        })
        .collect();
    let fig = bar_figure(
        "ZNS+: copyback share of IZC's copied pages by chip count",
        "Bars: the mean over seeds of each scheme's copyback and read-program pages (fill and delete at 80%).".into(),
        strs(&with_izc),
        vec![BarPanel {
            title: String::new(),
            groups: strs(&chips),
            y: Axis {
                label: "copyback share".into(),
                log: false,
                unit: Unit::Percent,
                range: (0.0, 1.0),
            },
            bars,
            lines: vec![RefLine {
                y: paper::COPYBACK_SHARE_AT_LEAST,
                label: Some("slides: over 80% (under CAB)".into()),
            }],
        }],
    );
    out.bars("reproduce-znsplus-copyback.svg", &fig)
}
