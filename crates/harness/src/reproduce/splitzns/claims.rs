//! The headline claims and the must-show checks, from the results.

use super::paper;
use super::*;

/// One of the "must show" comparisons.
pub(super) struct Check {
    pub(super) what: &'static str,
    pub(super) paper: f64,
    /// The bar at small scale (half the paper's gain), or `None`: direction only.
    pub(super) bar: Option<f64>,
    pub(super) ours: Option<f64>,
    /// Lower is better (latency).
    pub(super) lower: bool,
}

impl Check {
    pub(super) fn met(&self) -> Option<bool> {
        let ours = self.ours?;
        Some(match (self.bar, self.lower) {
            (Some(b), false) => ours >= b,
            (Some(b), true) => ours <= b,
            (None, false) => ours > 1.0,
            (None, true) => ours < 1.0,
        })
    }

    pub(super) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "what": self.what,
            "paper": self.paper,
            "bar": self.bar,
            "ours": self.ours,
            "met": self.met(),
        })
    }
}

/// The must-show list as JSON; with more than one seed each check's `ours_interval` (the
/// summary of each seed's ratio).
pub(super) fn must_show_json(
    results: &[CellResult],
    by_seed: &BySeed<'_, CellResult>,
) -> Vec<serde_json::Value> {
    must_show(results)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut o = c.json();
            if by_seed.many() {
                o["ours_interval"] = serde_json::json!(by_seed.summary(|rs| must_show(rs)[i].ours));
            }
            o
        })
        .collect()
}

/// Ratio of `key` of the measured phase: `scheme` over `base` on `workload`.
pub(super) fn ratio(
    results: &[CellResult],
    scheme: &str,
    base: &str,
    workload: &str,
    key: fn(&Figures) -> f64,
) -> Option<f64> {
    let ours = key(&mean_of(results, scheme, workload)?);
    let theirs = key(&mean_of(results, base, workload)?);
    (theirs > 0.0).then(|| ours / theirs)
}

pub(super) fn ops_per_s(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.ops_per_s)
}

pub(super) fn p99(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p99)
}

pub(super) fn p999(f: &Figures) -> f64 {
    f.measured.as_ref().map_or(0.0, |p| p.latency_us_p999)
}

/// The headline claims ([`crate::reproduce::claims`]): the must-show list's ratios, each judged as an
/// effect against the paper's (P99: a ratio below 1).
pub fn claim_specs() -> Vec<crate::reproduce::claims::Spec<CellResult>> {
    use crate::reproduce::claims::{Judge, Spec, Unit};
    must_show(&[])
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Spec::new(
                c.what,
                c.paper,
                format!("{:.2}x", c.paper),
                Judge::Effect,
                Unit::Times,
                Box::new(move |rs: &[CellResult]| must_show(rs)[i].ours),
            )
        })
        .collect()
}

/// The must-show list: gains of at least half the paper's over LDP, direction over
/// Gear and LLC, the breakdown's two write gains, lower P99 on overwrite.
pub(super) fn must_show(r: &[CellResult]) -> Vec<Check> {
    let paper_gain = |competitor, w| paper::gain(competitor, w).unwrap_or(f64::NAN);
    let paper_breakdown = |scheme| paper::breakdown(scheme).unwrap_or(f64::NAN);
    let gain = |what, paper: f64, half: bool, a, b, w| Check {
        what,
        paper,
        bar: half.then(|| 1.0 + (paper - 1.0) / 2.0),
        ours: ratio(r, a, b, w, ops_per_s),
        lower: false,
    };
    vec![
        gain(
            "overwrite, SplitZNS / LDP",
            paper_gain("LDP", "overwrite"),
            true,
            "SplitZNS",
            "LDP",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / LDP",
            paper_gain("LDP", "ycsb-a"),
            true,
            "SplitZNS",
            "LDP",
            "ycsb-a",
        ),
        gain(
            "overwrite, SplitZNS / Gear",
            paper_gain("Gear", "overwrite"),
            false,
            "SplitZNS",
            "Gear",
            "overwrite",
        ),
        gain(
            "overwrite, SplitZNS / LLC",
            paper_gain("LLC", "overwrite"),
            false,
            "SplitZNS",
            "LLC",
            "overwrite",
        ),
        gain(
            "YCSB-A, SplitZNS / Gear",
            paper_gain("Gear", "ycsb-a"),
            false,
            "SplitZNS",
            "Gear",
            "ycsb-a",
        ),
        gain(
            "YCSB-A, SplitZNS / LLC",
            paper_gain("LLC", "ycsb-a"),
            false,
            "SplitZNS",
            "LLC",
            "ycsb-a",
        ),
        gain(
            "overwrite, +diff / native",
            paper_breakdown("+diff"),
            true,
            "+diff",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / native",
            paper_breakdown("+SZR"),
            true,
            "+SZR",
            "native",
            "overwrite",
        ),
        gain(
            "overwrite, +SZR / +diff",
            paper::SZR_OVER_DIFF,
            true,
            "+SZR",
            "+diff",
            "overwrite",
        ),
        Check {
            what: "overwrite P99, SplitZNS / LDP",
            paper: 1.0 + paper::OVERWRITE_P99_CHANGE,
            bar: None,
            ours: ratio(r, "SplitZNS", "LDP", "overwrite", p99),
            lower: true,
        },
    ]
}
