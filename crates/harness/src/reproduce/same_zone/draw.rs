//! The same-zone paper's figures in the paper's own form, drawn from the study's JSON (see
//! [`crate::reproduce::plots`] for what a bar, a whisker and a paper marker are).

use serde_json::Value;

use super::paper;
use crate::db_bench::HarnessError;
use crate::figure::{Axis, Bar, BarPanel, PaperValue, Unit};
use crate::reproduce::forms::{SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS};
use crate::reproduce::plots::{Out, bar, bar_figure, note, one_line, stat, strs};

/// Same-zone: Baseline, A-LIZA, CAZA, A-CAZA per workload, normalised to Baseline: PUT
/// throughput, cleaning copy, zone resets by cleaning.
#[allow(clippy::too_many_lines, reason = "one figure after another")]
pub(crate) fn draw(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
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
            (w == "mean").then_some(paper::ratio(paper::PUT_MEAN_PCT))
        }),
        panel("cleaning copy (fig. 10)", "gc_copied_bytes", &|w| match w {
            "fillrandom" => Some(paper::ratio(paper::COPY_FILLRANDOM_PCT)),
            "mean" => Some(paper::ratio(paper::COPY_MEAN_PCT)),
            _ => None,
        }),
        panel(
            "zone resets by cleaning (fig. 12)",
            "gc_zone_resets",
            &|w| {
                if w == "mean" {
                    Some(paper::ratio(paper::ZC_RESETS_MEAN_PCT))
                } else {
                    at(w).map(|i| paper::ratio(paper::ZC_RESETS_PCT[i]))
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
