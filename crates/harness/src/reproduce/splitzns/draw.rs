//! SplitZNS's figures in the paper's own form, drawn from the study's JSON (see
//! [`crate::reproduce::plots`] for what a bar, a whisker and a paper marker are).

use serde_json::Value;

use super::paper;
use crate::db_bench::HarnessError;
use crate::figure::{Axis, Bar, BarPanel, Figure, Line, Panel, PaperValue, Unit};
use crate::reproduce::plots::{Out, bar, bar_figure, note, one_line, stat, strs};

#[allow(clippy::too_many_lines, reason = "one figure after another")]
pub(crate) fn draw(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
    let s = &j["schemes"];
    let cell = |scheme: &str, w: &str, key: &str| {
        let o = &s[scheme][w];
        stat(o, o.get("spread"), key)
    };
    let ws: Vec<&str> = super::WORKLOADS
        .iter()
        .copied()
        .filter(|w| s["LDP"].get(*w).is_some())
        .collect();
    let groups = strs(&ws);
    if !ws.is_empty() {
        // The paper gives SplitZNS over each scheme: SplitZNS over LDP is its bar; Gear's and
        // LLC's over LDP are implied (SplitZNS / LDP over SplitZNS / Gear).
        let paper = |scheme: &str, w: &str| -> Option<PaperValue> {
            let over_ldp = paper::gain("LDP", w)?;
            match scheme {
                "SplitZNS" => Some(PaperValue::Value(over_ldp)),
                "LDP" => None,
                other => Some(PaperValue::Value(over_ldp / paper::gain(other, w)?)),
            }
        };
        let bars = ws
            .iter()
            .map(|w| {
                super::MAIN_SCHEMES
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
            strs(&super::MAIN_SCHEMES),
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
                super::MAIN_SCHEMES
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
            strs(&super::MAIN_SCHEMES),
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
    let bw: Vec<&str> = super::BREAKDOWN_WORKLOADS
        .iter()
        .copied()
        .filter(|w| s["native"].get(*w).is_some())
        .collect();
    if !bw.is_empty() {
        let series: Vec<&str> = super::BREAKDOWN_SCHEMES
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
                        let p = paper::BREAKDOWN
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
