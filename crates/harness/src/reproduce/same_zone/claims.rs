//! The same-zone paper's headline claims, ours from the code forms' matrix.

use super::paper;
use super::*;

/// The mean over the same-zone workloads of `per_workload`, only when every workload gives
/// it (a claim averaged over fewer would not be the paper's).
pub(crate) fn over_workloads(per_workload: impl Fn(&str) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = SAME_ZONE_WORKLOADS
        .iter()
        .filter_map(|w| per_workload(w))
        .collect();
    (v.len() == SAME_ZONE_WORKLOADS.len()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A-CAZA against Baseline (§VII): cleaning copy, ZC's resets, PUT, S_inval, I/O blocking.
pub(crate) fn same_zone_claims() -> Vec<Spec<CellResult>> {
    let form = Form::Code;
    let pair = ("A-CAZA", "Baseline");
    let avg = |f: fn(&Figures) -> f64| -> ValueFn<CellResult> {
        Box::new(move |rs: &[CellResult]| over_workloads(|w| change(rs, form, pair, w, &f)))
    };
    let change_of = |claim: &str, paper: f64, value| {
        Spec::new(
            claim,
            paper,
            format!("{paper:+}%"),
            Judge::Effect,
            Unit::Change,
            value,
        )
    };
    let gc = |f: &Figures| f.gc_copied_bytes as f64;
    vec![
        change_of(
            "cleaning copy, A-CAZA vs Baseline, mean of the four workloads",
            paper::COPY_MEAN_PCT,
            avg(gc),
        ),
        change_of(
            "cleaning copy, A-CAZA vs Baseline, fillrandom",
            paper::COPY_FILLRANDOM_PCT,
            Box::new(move |rs| change(rs, form, pair, "fillrandom", &gc)),
        ),
        change_of(
            "zone resets by cleaning (figure 12), A-CAZA vs Baseline, mean",
            paper::ZC_RESETS_MEAN_PCT,
            avg(|f| f.gc_zone_resets as f64),
        ),
        change_of(
            "PUT throughput, A-CAZA vs Baseline, mean",
            paper::PUT_MEAN_PCT,
            avg(|f| f.ops_per_s),
        ),
        change_of(
            "I/O blocking time, A-CAZA vs Baseline, mean",
            paper::IO_BLOCKING_MEAN_PCT,
            avg(|f| f.io_blocking_s),
        ),
        Spec::new(
            "S_inval, A-CAZA minus Baseline, mean",
            paper::S_INVAL_DIFF,
            "+0.10",
            Judge::Effect,
            Unit::Diff,
            Box::new(move |rs| {
                over_workloads(|w| {
                    Some(
                        get(rs, &Key::scheme(form, "A-CAZA", w))?.s_inval_avg
                            - get(rs, &Key::scheme(form, "Baseline", w))?.s_inval_avg,
                    )
                })
            }),
        ),
    ]
}

/// The headline claims ([`crate::reproduce::claims`]), ours from the code forms' matrix.
pub fn claim_specs() -> Vec<Spec<CellResult>> {
    same_zone_claims()
}
