//! OAZA's figures in the paper's own form, drawn from the study's JSON (see
//! [`crate::reproduce::plots`] for what a bar, a whisker and a paper marker are).

use serde_json::Value;

use super::paper;
use crate::db_bench::HarnessError;
use crate::figure::{Axis, BarPanel, PaperValue, Unit};
use crate::reproduce::OAZA_WORKLOAD;
use crate::reproduce::forms::OAZA_MATRIX;
use crate::reproduce::plots::{Out, bar, bar_figure, note, one_line, stat, strs};

/// OAZA: LIZA, CAZA, OAZA (and OAZA-band) on 8 KiB random writes, beside the slides.
pub(crate) fn draw(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
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
            &paper::COPY_OVER_OAZA,
            one_line(),
        ),
        panel(
            "zone-layer WA",
            Axis::linear("write amplification", Unit::Number, 1.0),
            None,
            "zone_write_amplification",
            &paper::WA,
            one_line(),
        ),
        panel(
            "write throughput",
            Axis::linear("write throughput (MB/s)", Unit::Number, 0.0),
            None,
            "mb_per_s",
            &paper::MB_S,
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
