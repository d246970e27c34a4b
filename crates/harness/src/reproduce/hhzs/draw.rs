//! HHZS's figures in the paper's own form, drawn from the study's JSON (see
//! [`crate::reproduce::plots`] for what a bar, a whisker and a paper marker are).

use serde_json::Value;

use super::paper;
use crate::db_bench::HarnessError;
use crate::figure::{Axis, BarPanel, PaperValue, Unit};
use crate::reproduce::plots::{Out, bar, bar_figure, note, one_line, ordered, stat};

/// HHZS: each experiment's throughput normalised to B3 (to P+M where B3 did not run).
pub(crate) fn draw(out: &mut Out<'_>, j: &Value) -> Result<(), HarnessError> {
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
            ("exp1", "HHZS", w, "B3") if super::YCSB.contains(&w) => {
                Some(PaperValue::AtLeast(1.0 + paper::OVER_B3_MARGIN))
            }
            ("exp2", "P+M+C", "W4", "P+M") => Some(PaperValue::Value(paper::CACHING_W4)),
            ("exp3", "HHZS", w, "B3") if w != "load" => {
                Some(PaperValue::AtLeast(paper::SKEW_OVER_B3_AT_LEAST))
            }
            ("exp4", "HHZS", w, "B3") if w != "load" => paper::READS_OVER_B3_AT_LEAST
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
