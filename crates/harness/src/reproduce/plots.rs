//! The machinery of each study's figures in the paper's own form, drawn from the study's JSON (what
//! `zonedb reproduce NAME` writes as `reproduce-NAME.json`), so `zonedb report DIR` redraws
//! them from checked-in JSON without running a simulation. Grouped bars per workload or
//! experiment, one bar per scheme, normalised as the paper normalises; with two or more seeds a
//! whisker is the 95% interval of the scheme's mean (over the reference's mean where the bars
//! are normalised); the paper's value for a bar, where the code holds one, is a black diamond
//! (a floor the paper states: a triangle on a tick). No value is drawn that the paper does not
//! give or that two of its numbers do not imply (the caption says which are implied).
//! Each study draws its own figures (`<study>/draw.rs`) with the paper's values from its
//! `<study>/paper.rs`; this file holds what they share and picks the study by the JSON's name.

use std::path::Path;

use serde_json::Value;

use crate::db_bench::HarnessError;
use crate::figure::{self, Bar, BarFigure, BarPanel, BarsDrawn, Figure, PaperValue, RefLine};

/// One figure written: its SVG's file name and what it holds.
#[derive(Debug, Clone)]
pub struct Drawn {
    /// `reproduce-<study>-<figure>.svg` (a PNG at twice the size beside it).
    pub file: String,
    /// Bars, paper markers and whiskers (zero for a line figure).
    pub bars: BarsDrawn,
}

/// A figure with its mean and the half-width of its 95% interval when two or more seeds ran.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stat {
    pub(crate) mean: f64,
    pub(crate) ci95: Option<f64>,
}

/// `key` of a workload object whose `spread` (if any) holds the same key's spread.
pub(crate) fn stat(o: &Value, spread: Option<&Value>, key: &str) -> Option<Stat> {
    let mean = o.get(key)?.as_f64().filter(|v| v.is_finite())?;
    let ci95 = spread
        .and_then(|s| s.get(key))
        .filter(|s| s["n"].as_u64().unwrap_or(0) >= 2)
        .and_then(|s| s["ci95"].as_f64());
    Some(Stat { mean, ci95 })
}

/// `a` as a bar, over `by`'s mean when given (its interval scaled alike).
pub(crate) fn bar(a: Option<Stat>, by: Option<Stat>, paper: Option<PaperValue>) -> Option<Bar> {
    let a = a?;
    let d = match by {
        Some(b) if b.mean > 0.0 => b.mean,
        Some(_) => return None,
        None => 1.0,
    };
    Some(Bar {
        value: a.mean / d,
        ci95: a.ci95.map(|c| c / d),
        paper,
    })
}

/// The note under a title: what a bar and a whisker are.
pub(crate) fn note(j: &Value, over: Option<&str>, extra: &str) -> String {
    let n = j["seeds"].as_array().map_or(1, Vec::len);
    let mut s = match (n, over) {
        (1, _) => "Bars: one seed.".to_owned(),
        (n, None) => format!("Bars: mean of {n} seeds; whiskers: 95% intervals (Student's t)."),
        (n, Some(r)) => format!(
            "Bars: mean of {n} seeds; whiskers: 95% interval of each scheme's mean over {r}'s mean."
        ),
    };
    if !extra.is_empty() {
        s.push(' ');
        s.push_str(extra);
    }
    s
}

pub(crate) fn one_line() -> Vec<RefLine> {
    vec![RefLine {
        y: 1.0,
        label: None,
    }]
}

pub(crate) fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// Keys of an object in `order` first, then the rest in the object's order.
pub(crate) fn ordered(o: &Value, order: &[&str]) -> Vec<String> {
    let Some(m) = o.as_object() else {
        return Vec::new();
    };
    let mut out: Vec<String> = order
        .iter()
        .filter(|k| m.contains_key(**k))
        .map(|k| (*k).to_owned())
        .collect();
    out.extend(m.keys().filter(|k| !order.contains(&k.as_str())).cloned());
    out
}

pub(crate) struct Out<'a> {
    dir: &'a Path,
    /// The name tag of the JSON (`paper` for `reproduce-splitzns-paper.json`), put after the
    /// study in every figure's file name so the runs of one study do not overwrite each other.
    tag: Option<&'a str>,
    /// The study's name, as in its JSON's `"study"`.
    study: &'a str,
    fonts: resvg::usvg::Options<'static>,
    drawn: Vec<Drawn>,
}

impl Out<'_> {
    /// `reproduce-<study>-<figure>.svg`, with the tag after the study when there is one.
    fn named(&self, file: &str, study: &str) -> String {
        match self.tag {
            Some(t) => {
                let head = format!("reproduce-{study}-");
                file.strip_prefix(&head)
                    .map_or_else(|| file.to_owned(), |rest| format!("{head}{t}-{rest}"))
            }
            None => file.to_owned(),
        }
    }

    pub(crate) fn bars(&mut self, file: &str, fig: &BarFigure) -> Result<(), HarnessError> {
        let file = &self.named(file, self.study);
        let path = self.dir.join(file);
        let bars = figure::draw_bars(&path, fig)?;
        crate::report::png_of(&path, &self.fonts)?;
        self.drawn.push(Drawn {
            file: file.to_owned(),
            bars,
        });
        Ok(())
    }

    pub(crate) fn lines(&mut self, file: &str, fig: &Figure) -> Result<(), HarnessError> {
        let file = &self.named(file, self.study);
        let path = self.dir.join(file);
        figure::draw(&path, fig)?;
        crate::report::png_of(&path, &self.fonts)?;
        self.drawn.push(Drawn {
            file: file.to_owned(),
            bars: BarsDrawn::default(),
        });
        Ok(())
    }
}

/// Draws the figures of the study whose JSON is `j` into `dir` (SVG, and PNG at 2x).
///
/// # Errors
/// [`HarnessError::Config`] when a figure cannot be drawn or written, or `j` names no study.
pub fn render(dir: &Path, j: &Value) -> Result<Vec<Drawn>, HarnessError> {
    render_tagged(dir, j, None)
}

/// [`render`], each figure's file named with `tag` after the study
/// (`reproduce-splitzns-paper-fig9.svg` for the tag `paper`): the figures of another run of
/// the study, such as `reproduce-splitzns-paper.json` beside `reproduce-splitzns.json`.
///
/// # Errors
/// As [`render`].
pub fn render_tagged(dir: &Path, j: &Value, tag: Option<&str>) -> Result<Vec<Drawn>, HarnessError> {
    let study = j["study"].as_str().unwrap_or_default();
    let mut out = Out {
        dir,
        tag,
        study,
        fonts: crate::report::font_options(),
        drawn: Vec::new(),
    };
    match j["study"].as_str() {
        Some("splitzns") => super::splitzns::draw::draw(&mut out, j)?,
        Some("same-zone") => super::same_zone::draw::draw(&mut out, j)?,
        Some("oaza") => super::oaza::draw::draw(&mut out, j)?,
        Some("hhzs") => super::hhzs::draw::draw(&mut out, j)?,
        Some("znsplus") => super::znsplus::draw::draw(&mut out, j)?,
        other => {
            return Err(HarnessError::config(
                "study",
                format!("no figures for {other:?}"),
            ));
        }
    }
    Ok(out.drawn)
}

/// A figure of `panels`, the series no panel has a bar of left out.
pub(crate) fn bar_figure(
    title: &str,
    note: String,
    series: Vec<String>,
    mut panels: Vec<BarPanel>,
) -> BarFigure {
    let keep: Vec<bool> = (0..series.len())
        .map(|k| {
            panels
                .iter()
                .any(|p| p.bars.iter().any(|r| r.get(k).is_some_and(Option::is_some)))
        })
        .collect();
    for p in &mut panels {
        for r in &mut p.bars {
            let mut k = 0;
            r.retain(|_| {
                k += 1;
                keep.get(k - 1).copied().unwrap_or(false)
            });
        }
    }
    let series: Vec<String> = series
        .into_iter()
        .zip(&keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect();
    let widest = panels
        .iter()
        .map(|p| BarFigure::width_for(&p.groups, series.len()))
        .max()
        .unwrap_or(400);
    BarFigure {
        title: title.into(),
        note,
        columns: panels.len().min(3),
        panel_size: (widest, 360),
        series,
        panels,
    }
}
