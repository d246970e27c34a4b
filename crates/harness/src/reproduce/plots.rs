//! Each study's figures in the paper's own form, drawn from the study's JSON (what
//! `zonedb reproduce NAME` writes as `reproduce-NAME.json`), so `zonedb report DIR` redraws
//! them from checked-in JSON without running a simulation. Grouped bars per workload or
//! experiment, one bar per scheme, normalised as the paper normalises; with two or more seeds a
//! whisker is the 95% interval of the scheme's mean (over the reference's mean where the bars
//! are normalised); the paper's value for a bar, where the code holds one, is a black diamond
//! (a floor the paper states: a triangle on a tick). No value is drawn that the paper does not
//! give or that two of its numbers do not imply (the caption says which are implied).

use std::path::Path;

use serde_json::Value;

use super::forms::{OAZA_MATRIX, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS};
use super::{OAZA_WORKLOAD, splitzns};
use crate::db_bench::HarnessError;
use crate::figure::{
    self, Axis, Bar, BarFigure, BarPanel, BarsDrawn, Figure, Line, Panel, PaperValue, RefLine, Unit,
};

/// Same-zone paper (§VII), A-CAZA against Baseline: PUT throughput, mean of the four
/// workloads (+16%).
pub const SAME_ZONE_PUT_MEAN: f64 = 1.16;
/// Cleaning copy, A-CAZA over Baseline: fillrandom (-80%) and the mean of the four (-70%).
pub const SAME_ZONE_COPY: (f64, f64) = (0.20, 0.30);
/// Zone resets by cleaning (figure 12), A-CAZA over Baseline, per workload (fillrandom,
/// zipfian, latest, uniform: -12%, -13%, -5%, -13%) and their mean (-8.6%).
pub const SAME_ZONE_ZC_RESETS: ([f64; 4], f64) = ([0.88, 0.87, 0.95, 0.87], 0.914);
/// OAZA slides: cleaning copy of LIZA and CAZA over OAZA's (2.7x, 1.7x).
pub const OAZA_COPY: [(&str, f64); 2] = [("LIZA", 2.7), ("CAZA", 1.7)];
/// OAZA slides: zone-layer write amplification of LIZA, CAZA, OAZA.
pub const OAZA_WA: [(&str, f64); 3] = [("LIZA", 1.3), ("CAZA", 1.2), ("OAZA", 1.1)];
/// OAZA slides: write throughput, MB/s, of LIZA, CAZA, OAZA.
pub const OAZA_MB_S: [(&str, f64); 3] = [("LIZA", 67.0), ("CAZA", 68.0), ("OAZA", 69.0)];
/// HHZS (Exp#1, figure 5a): HHZS over B3 on each of YCSB A-F, at least (its smallest margin).
pub const HHZS_OVER_B3_AT_LEAST: f64 = 1.21;
/// HHZS (Exp#3, figure 7): HHZS over B3 at each skew, at least (+27.3-43.3%).
pub const HHZS_SKEW_OVER_B3_AT_LEAST: f64 = 1.273;
/// HHZS (Exp#4, figure 8): HHZS over B3 by read share, at least: 10% reads +40.4%, 30%
/// +42.4%, the others +42.5-60.0%.
pub const HHZS_READS_OVER_B3_AT_LEAST: [(&str, f64); 3] =
    [("read=10", 1.404), ("read=30", 1.424), ("", 1.425)];
/// HHZS (Exp#2, figure 6): P+M+C over P+M on W4 (+173.7%).
pub const HHZS_CACHING_W4: f64 = 2.737;
/// SplitZNS (figures 13-14, overwrite): +diff and +SZR over native.
pub const SPLITZNS_BREAKDOWN: [(&str, f64); 2] = [("+diff", 1.43), ("+SZR", 1.88)];

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
struct Stat {
    mean: f64,
    ci95: Option<f64>,
}

/// `key` of a workload object whose `spread` (if any) holds the same key's spread.
fn stat(o: &Value, spread: Option<&Value>, key: &str) -> Option<Stat> {
    let mean = o.get(key)?.as_f64().filter(|v| v.is_finite())?;
    let ci95 = spread
        .and_then(|s| s.get(key))
        .filter(|s| s["n"].as_u64().unwrap_or(0) >= 2)
        .and_then(|s| s["ci95"].as_f64());
    Some(Stat { mean, ci95 })
}

/// `a` as a bar, over `by`'s mean when given (its interval scaled alike).
fn bar(a: Option<Stat>, by: Option<Stat>, paper: Option<PaperValue>) -> Option<Bar> {
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
fn note(j: &Value, over: Option<&str>, extra: &str) -> String {
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

fn one_line() -> Vec<RefLine> {
    vec![RefLine {
        y: 1.0,
        label: None,
    }]
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// Keys of an object in `order` first, then the rest in the object's order.
fn ordered(o: &Value, order: &[&str]) -> Vec<String> {
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

struct Out<'a> {
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

    fn bars(&mut self, file: &str, fig: &BarFigure) -> Result<(), HarnessError> {
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

    fn lines(&mut self, file: &str, fig: &Figure) -> Result<(), HarnessError> {
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
        Some("splitzns") => splitzns_figures(&mut out, j)?,
        Some("same-zone") => same_zone(&mut out, j)?,
        Some("oaza") => oaza(&mut out, j)?,
        Some("hhzs") => hhzs(&mut out, j)?,
        Some("znsplus") => znsplus(&mut out, j)?,
        other => {
            return Err(HarnessError::Config(format!(
                "no figures for study {other:?}"
            )));
        }
    }
    Ok(out.drawn)
}

/// A figure of `panels`, the series no panel has a bar of left out.
fn bar_figure(
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

#[allow(clippy::too_many_lines, reason = "one figure after another")]
fn splitzns_figures(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let s = &j["schemes"];
    let cell = |scheme: &str, w: &str, key: &str| {
        let o = &s[scheme][w];
        stat(o, o.get("spread"), key)
    };
    let ws: Vec<&str> = splitzns::WORKLOADS
        .iter()
        .copied()
        .filter(|w| s["LDP"].get(*w).is_some())
        .collect();
    let groups = strs(&ws);
    if !ws.is_empty() {
        // The paper gives SplitZNS over each scheme: SplitZNS over LDP is its bar; Gear's and
        // LLC's over LDP are implied (SplitZNS / LDP over SplitZNS / Gear).
        let paper = |scheme: &str, w: &str| -> Option<PaperValue> {
            let over_ldp = splitzns::paper_gain("LDP", w)?;
            match scheme {
                "SplitZNS" => Some(PaperValue::Value(over_ldp)),
                "LDP" => None,
                other => Some(PaperValue::Value(
                    over_ldp / splitzns::paper_gain(other, w)?,
                )),
            }
        };
        let bars = ws
            .iter()
            .map(|w| {
                splitzns::MAIN_SCHEMES
                    .iter()
                    .map(|sc| {
                        bar(
                            cell(sc, w, "ops_per_s"),
                            cell("LDP", w, "ops_per_s"),
                            paper(sc, w),
                        )
                    })
                    .collect()
            })
            .collect();
        let fig = bar_figure(
            "Figure 9: throughput normalised to LDP",
            note(
                j,
                Some("LDP"),
                "Paper: SplitZNS over LDP (§5.2); Gear and LLC implied by SplitZNS over each.",
            ),
            strs(&splitzns::MAIN_SCHEMES),
            vec![BarPanel {
                title: String::new(),
                groups: groups.clone(),
                y: Axis::linear("throughput (× LDP)", Unit::Number, 1.0),
                bars,
                lines: one_line(),
            }],
        );
        out.bars("reproduce-splitzns-fig9.svg", &fig)?;
        let bars = ws
            .iter()
            .map(|w| {
                splitzns::MAIN_SCHEMES
                    .iter()
                    .map(|sc| bar(cell(sc, w, "latency_us_p99"), None, None))
                    .collect()
            })
            .collect();
        let fig = bar_figure(
            "Figure 10: P99 latency of the measured phase",
            note(
                j,
                None,
                "The paper gives no per-bar P99 (its overwrite P99: -57.2% vs LDP).",
            ),
            strs(&splitzns::MAIN_SCHEMES),
            vec![BarPanel {
                title: String::new(),
                groups,
                y: Axis::linear("P99 latency", Unit::Micros, 0.0),
                bars,
                lines: Vec::new(),
            }],
        );
        out.bars("reproduce-splitzns-fig10.svg", &fig)?;
    }
    let bw: Vec<&str> = splitzns::BREAKDOWN_WORKLOADS
        .iter()
        .copied()
        .filter(|w| s["native"].get(*w).is_some())
        .collect();
    if !bw.is_empty() {
        let series: Vec<&str> = splitzns::BREAKDOWN_SCHEMES
            .iter()
            .copied()
            .filter(|sc| bw.iter().any(|w| s[*sc].get(*w).is_some()))
            .collect();
        let bars = bw
            .iter()
            .map(|w| {
                series
                    .iter()
                    .map(|sc| {
                        let p = SPLITZNS_BREAKDOWN
                            .iter()
                            .find(|(n, _)| n == sc && *w == "overwrite")
                            .map(|(_, v)| PaperValue::Value(*v));
                        bar(cell(sc, w, "ops_per_s"), cell("native", w, "ops_per_s"), p)
                    })
                    .collect()
            })
            .collect();
        let fig = bar_figure(
            "Figures 13-14: breakdown, throughput normalised to native",
            note(
                j,
                Some("native"),
                "Paper: +diff 1.43x, +SZR 1.88x on overwrite.",
            ),
            strs(&series),
            vec![BarPanel {
                title: String::new(),
                groups: strs(&bw),
                y: Axis::linear("throughput (× native)", Unit::Number, 1.0),
                bars,
                lines: one_line(),
            }],
        );
        out.bars("reproduce-splitzns-breakdown.svg", &fig)?;
    }
    fig3(out, j)?;
    fig4(out, j)
}

/// Figure 3: LDP's overwrite at each zone size, normalised to the smallest.
fn fig3(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let zone_size = &j["zone_size"];
    let Some(m) = zone_size.as_object() else {
        return Ok(());
    };
    let mut sizes: Vec<(u64, &Value)> = m
        .iter()
        .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
        .collect();
    sizes.sort_by_key(|(k, _)| *k);
    let Some(&(first, base)) = sizes.first() else {
        return Ok(());
    };
    let paper_sizes = &zone_size["paper"];
    // The paper's 1024 MiB over 128 MiB: throughput -73% (its figure 3(c)'s two ends, GC
    // count and MiB per GC, are in the subtitle: the smallest zone may never clean here).
    let paper = |metric: &str, mib: u64| -> Option<f64> {
        if first != 128 || mib != 1024 {
            return None;
        }
        match metric {
            "ops_per_s" => paper_sizes["ops_per_s_1024_vs_128"].as_f64(),
            _ => None,
        }
    };
    // Figure 3(a)-(b): throughput and migration WA over the smallest zone's; 3(c): the
    // cleaning's own figures as they are (the smallest zone may never clean, so no ratio).
    let relative = [
        ("throughput", "ops_per_s"),
        ("migration WA", "migration_wa"),
    ];
    let bars = relative
        .iter()
        .map(|(_, key)| {
            sizes
                .iter()
                .map(|(mib, v)| {
                    let d = base[*key].as_f64().filter(|d| *d > 0.0)?;
                    Some(Bar {
                        value: v[*key].as_f64()? / d,
                        ci95: None,
                        paper: paper(key, *mib).map(PaperValue::Value),
                    })
                })
                .collect()
        })
        .collect();
    let absolute = |key: &str| -> Vec<Vec<Option<Bar>>> {
        vec![
            sizes
                .iter()
                .map(|(_, v)| {
                    Some(Bar {
                        value: v[key].as_f64()?,
                        ci95: None,
                        paper: None,
                    })
                })
                .collect(),
        ]
    };
    let series: Vec<String> = sizes
        .iter()
        .map(|(m, _)| format!("{m} MiB zones"))
        .collect();
    let fig = bar_figure(
        "Figure 3: LDP by zone size",
        format!(
            "Bars: one run per zone size (seed 1); (a) over {first} MiB zones, (b) and (c) as \
             measured (scaled zones, so the paper's MiB are not comparable: it gives 1024 MiB \
             zones {} of 128 MiB's GC count and {} times the MiB per GC). Paper marker: \
             1024 MiB over 128 MiB (§3, figure 3).",
            paper_ratio(paper_sizes, "gc_count").map_or("-".into(), |r| format!("{r:.2}")),
            paper_ratio(paper_sizes, "migrated_mib_per_gc")
                .map_or("-".into(), |r| format!("{r:.1}")),
        ),
        series,
        vec![
            BarPanel {
                title: format!("(a) over {first} MiB zones"),
                groups: relative.iter().map(|(n, _)| (*n).to_owned()).collect(),
                y: Axis::linear(&format!("× {first} MiB"), Unit::Number, 1.0),
                bars,
                lines: one_line(),
            },
            BarPanel {
                title: "(b) cleaning runs".into(),
                groups: strs(&["GC count"]),
                y: Axis::linear("zone cleanings", Unit::Count, 0.0),
                bars: absolute("gc_count"),
                lines: Vec::new(),
            },
            BarPanel {
                title: "(c) data migrated per cleaning".into(),
                groups: strs(&["migrated per GC"]),
                y: Axis::linear("MiB per cleaning", Unit::Number, 0.0),
                bars: absolute("migrated_mib_per_gc"),
                lines: Vec::new(),
            },
        ],
    );
    out.bars("reproduce-splitzns-fig3.svg", &fig)
}

/// The paper's 1024 MiB figure over its 128 MiB one, for `metric` (figure 3(c)).
fn paper_ratio(paper_sizes: &Value, metric: &str) -> Option<f64> {
    Some(paper_sizes[metric]["1024"].as_f64()? / paper_sizes[metric]["128"].as_f64()?)
}

/// Figure 4: CDF of SST lifetimes per level, one panel per workload.
fn fig4(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let Some(m) = j["sst_lifetimes"].as_object().filter(|m| !m.is_empty()) else {
        return Ok(());
    };
    let mut levels = 0;
    let mut lo = f64::MAX;
    let mut hi = 0.0f64;
    let mut panels = Vec::new();
    for (name, v) in m {
        let pcts: Vec<f64> = v["percentiles"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let mut lines = Vec::new();
        for (level, cdf) in v["cdf_s_by_level"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let xs: Vec<f64> = cdf
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            if xs.len() != pcts.len() || xs.is_empty() {
                continue;
            }
            levels = levels.max(level + 1);
            let points: Vec<(f64, f64)> = xs
                .iter()
                .zip(&pcts)
                .filter(|(x, _)| **x > 0.0)
                .map(|(x, p)| (*x, p / 100.0))
                .collect();
            for (x, _) in &points {
                lo = lo.min(*x);
                hi = hi.max(*x);
            }
            lines.push(Line {
                style: level,
                points,
            });
        }
        panels.push(Panel {
            title: format!("{name} ({})", v["workload"].as_str().unwrap_or("")),
            x: Axis::linear("", Unit::Seconds, 1.0),
            y: Axis {
                label: "SSTs".into(),
                log: false,
                unit: Unit::Percent,
                range: (0.0, 1.0),
            },
            lines,
            marks: Vec::new(),
        });
    }
    if levels == 0 {
        return Ok(());
    }
    for p in &mut panels {
        p.x = Axis::log("SST lifetime", Unit::Seconds, lo, hi);
    }
    let fig = Figure {
        title: "Figure 4: CDF of SST lifetimes by level (LDP)".into(),
        columns: panels.len().min(2),
        panel_size: (560, 380),
        panels,
        legend: (0..levels).map(|l| (format!("L{l}"), Some(l))).collect(),
    };
    out.lines("reproduce-splitzns-fig4.svg", &fig)
}

/// Same-zone: Baseline, A-LIZA, CAZA, A-CAZA per workload, normalised to Baseline: PUT
/// throughput, cleaning copy, zone resets by cleaning.
#[allow(clippy::too_many_lines, reason = "one figure after another")]
fn same_zone(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let s = &j["schemes"];
    let names: Vec<&str> = SAME_ZONE_SCHEMES
        .iter()
        .map(|x| x.name)
        .filter(|n| s.get(*n).is_some())
        .collect();
    let ws: Vec<&str> = SAME_ZONE_WORKLOADS
        .iter()
        .copied()
        .filter(|w| s["Baseline"]["workloads"].get(*w).is_some())
        .collect();
    if names.is_empty() || ws.is_empty() {
        return Ok(());
    }
    let cell = |scheme: &str, w: &str, key: &str| {
        stat(
            &s[scheme]["workloads"][w],
            s[scheme].get("spread").and_then(|sp| sp.get(w)),
            key,
        )
    };
    let all_four = ws.len() == SAME_ZONE_WORKLOADS.len();
    let mut groups = strs(&ws);
    if all_four {
        groups.push("mean".into());
    }
    let panel = |title: &str, key: &str, paper: &dyn Fn(&str) -> Option<f64>| {
        let mut bars: Vec<Vec<Option<Bar>>> = ws
            .iter()
            .map(|w| {
                names
                    .iter()
                    .map(|n| {
                        let p = (*n == "A-CAZA").then(|| paper(w)).flatten();
                        bar(
                            cell(n, w, key),
                            cell("Baseline", w, key),
                            p.map(PaperValue::Value),
                        )
                    })
                    .collect()
            })
            .collect();
        if all_four {
            // The paper's "average": the mean over the workloads of each one's ratio.
            let mean = names
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    let v: Vec<f64> = bars.iter().filter_map(|r| r[k].map(|b| b.value)).collect();
                    (v.len() == ws.len()).then(|| Bar {
                        value: v.iter().sum::<f64>() / v.len() as f64,
                        ci95: None,
                        paper: (*n == "A-CAZA")
                            .then(|| paper("mean"))
                            .flatten()
                            .map(PaperValue::Value),
                    })
                })
                .collect();
            bars.push(mean);
        }
        BarPanel {
            title: title.into(),
            groups: groups.clone(),
            y: Axis::linear("× Baseline", Unit::Number, 1.0),
            bars,
            lines: one_line(),
        }
    };
    let at = |w: &str| SAME_ZONE_WORKLOADS.iter().position(|x| *x == w);
    let panels = vec![
        panel("PUT throughput (fig. 15)", "ops_per_s", &|w| {
            (w == "mean").then_some(SAME_ZONE_PUT_MEAN)
        }),
        panel("cleaning copy (fig. 10)", "gc_copied_bytes", &|w| match w {
            "fillrandom" => Some(SAME_ZONE_COPY.0),
            "mean" => Some(SAME_ZONE_COPY.1),
            _ => None,
        }),
        panel(
            "zone resets by cleaning (fig. 12)",
            "gc_zone_resets",
            &|w| {
                if w == "mean" {
                    Some(SAME_ZONE_ZC_RESETS.1)
                } else {
                    at(w).map(|i| SAME_ZONE_ZC_RESETS.0[i])
                }
            },
        ),
    ];
    let mut fig = bar_figure(
        "Same-zone compaction: the schemes normalised to Baseline",
        note(
            j,
            Some("Baseline"),
            "mean: of the workloads' ratios. Paper: A-CAZA (§VII).",
        ),
        strs(&names),
        panels,
    );
    fig.columns = 1;
    out.bars("reproduce-same-zone-schemes.svg", &fig)
}

/// OAZA: LIZA, CAZA, OAZA (and OAZA-band) on 8 KiB random writes, beside the slides.
fn oaza(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let s = &j["schemes"];
    let names: Vec<&str> = OAZA_MATRIX
        .iter()
        .map(|x| x.name)
        .filter(|n| s[*n]["workloads"].get(OAZA_WORKLOAD).is_some())
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    let w = OAZA_WORKLOAD;
    let cell = |scheme: &str, key: &str| {
        stat(
            &s[scheme]["workloads"][w],
            s[scheme].get("spread").and_then(|sp| sp.get(w)),
            key,
        )
    };
    let find = |t: &[(&str, f64)], n: &str| {
        t.iter()
            .find(|(x, _)| *x == n)
            .map(|(_, v)| PaperValue::Value(*v))
    };
    let group = vec!["8 KiB random writes".to_owned()];
    let panel =
        |title: &str, y: Axis, by: Option<&str>, key: &str, paper: &[(&str, f64)], lines| {
            BarPanel {
                title: title.into(),
                groups: group.clone(),
                y,
                bars: vec![
                    names
                        .iter()
                        .map(|n| bar(cell(n, key), by.and_then(|b| cell(b, key)), find(paper, n)))
                        .collect(),
                ],
                lines,
            }
        };
    let panels = vec![
        panel(
            "cleaning copy",
            Axis::linear("cleaning copy (× OAZA)", Unit::Number, 1.0),
            Some("OAZA"),
            "gc_copied_bytes",
            &OAZA_COPY,
            one_line(),
        ),
        panel(
            "zone-layer WA",
            Axis::linear("write amplification", Unit::Number, 1.0),
            None,
            "zone_write_amplification",
            &OAZA_WA,
            one_line(),
        ),
        panel(
            "write throughput",
            Axis::linear("write throughput (MB/s)", Unit::Number, 0.0),
            None,
            "mb_per_s",
            &OAZA_MB_S,
            Vec::new(),
        ),
    ];
    let fig = bar_figure(
        "OAZA: cleaning copy, write amplification and throughput beside the slides",
        note(
            j,
            None,
            "Cleaning copy over OAZA's mean. Paper: the OAZA slides (MB/s on their device).",
        ),
        strs(&names),
        panels,
    );
    out.bars("reproduce-oaza-schemes.svg", &fig)
}

/// HHZS: each experiment's throughput normalised to B3 (to P+M where B3 did not run).
fn hhzs(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let exps = [
        ("exp1", "Exp#1 (figure 5a)", "reproduce-hhzs-exp1.svg"),
        ("exp2", "Exp#2 (figure 6)", "reproduce-hhzs-exp2.svg"),
        (
            "exp3",
            "Exp#3 by skew (figure 7)",
            "reproduce-hhzs-exp3.svg",
        ),
        (
            "exp4",
            "Exp#4 by read share (figure 8)",
            "reproduce-hhzs-exp4.svg",
        ),
    ];
    let order = ["B1", "B2", "B3", "B4", "AUTO", "HHZS", "P", "P+M", "P+M+C"];
    for (group, title, file) in exps {
        let g = &j[group];
        let schemes = ordered(g, &order);
        if schemes.is_empty() {
            continue;
        }
        let reference = if schemes.iter().any(|s| s == "B3") {
            "B3"
        } else {
            schemes[0].as_str()
        };
        let mut ws: Vec<String> = Vec::new();
        for s in &schemes {
            for w in ordered(&g[s], &["load"]) {
                if !ws.contains(&w) {
                    ws.push(w);
                }
            }
        }
        let cell = |s: &str, w: &str| {
            let o = &g[s][w];
            stat(o, o.get("spread"), "ops_per_s")
        };
        let paper = |s: &str, w: &str| match (group, s, w, reference) {
            ("exp1", "HHZS", w, "B3") if super::hhzs::YCSB.contains(&w) => {
                Some(PaperValue::AtLeast(HHZS_OVER_B3_AT_LEAST))
            }
            ("exp2", "P+M+C", "W4", "P+M") => Some(PaperValue::Value(HHZS_CACHING_W4)),
            ("exp3", "HHZS", w, "B3") if w != "load" => {
                Some(PaperValue::AtLeast(HHZS_SKEW_OVER_B3_AT_LEAST))
            }
            ("exp4", "HHZS", w, "B3") if w != "load" => HHZS_READS_OVER_B3_AT_LEAST
                .iter()
                .find(|(point, _)| *point == w || point.is_empty())
                .map(|(_, v)| PaperValue::AtLeast(*v)),
            _ => None,
        };
        let bars = ws
            .iter()
            .map(|w| {
                schemes
                    .iter()
                    .map(|s| bar(cell(s, w), cell(reference, w), paper(s, w)))
                    .collect()
            })
            .collect();
        let extra = match group {
            "exp1" => "Paper: HHZS at least +21% over B3 on each of A-F (its smallest gain).",
            "exp2" => "Paper: P+M+C +173.7% over P+M on W4.",
            "exp3" => {
                "Paper: HHZS +27.3-43.3% over B3 across the skews (its smallest gain as a floor)."
            }
            "exp4" => {
                "Paper: HHZS +40.4% over B3 at 10% reads, +42.4% at 30%, +42.5-60.0% at the others (floors)."
            }
            _ => "",
        };
        let fig = bar_figure(
            &format!("HHZS {title}: throughput normalised to {reference}"),
            note(j, Some(reference), extra),
            schemes.clone(),
            vec![BarPanel {
                title: String::new(),
                groups: ws,
                y: Axis::linear(&format!("throughput (× {reference})"), Unit::Number, 1.0),
                bars,
                lines: one_line(),
            }],
        );
        out.bars(file, &fig)?;
    }
    Ok(())
}

/// ZNS+: throughput over ZNS per experiment, and IZC's copyback share by chip count. The
/// slides give ranges over their own experiments, not a value per bar: no markers; the
/// copyback share's floor ("over 80%") is a reference line.
fn znsplus(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    use super::znsplus::{EXPERIMENTS, SCHEMES};
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
                y: 0.8,
                label: Some("slides: over 80% (under CAB)".into()),
            }],
        }],
    );
    out.bars("reproduce-znsplus-copyback.svg", &fig)
}
