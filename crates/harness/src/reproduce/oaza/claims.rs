//! The OAZA slides' headline claims, ours from the code forms' matrix.

use super::paper;
use super::*;

/// The OAZA slides: cleaning copy of LIZA and CAZA over OAZA's, OAZA's resets against LIZA's.
pub(crate) fn oaza_claims() -> Vec<Spec<CellResult>> {
    let form = Form::Code;
    let copy_ratio = |a: &'static str, b: &'static str| -> ValueFn<CellResult> {
        Box::new(move |rs: &[CellResult]| {
            let a = get(rs, &Key::scheme(form, a, OAZA_WORKLOAD))?.gc_copied_bytes as f64;
            let b = get(rs, &Key::scheme(form, b, OAZA_WORKLOAD))?.gc_copied_bytes as f64;
            (b > 0.0).then(|| a / b)
        })
    };
    vec![
        Spec::new(
            "cleaning copy, LIZA / OAZA",
            paper::COPY_OVER_OAZA[0].1,
            "2.7x",
            Judge::Effect,
            Unit::Times,
            copy_ratio("LIZA", "OAZA"),
        ),
        Spec::new(
            "cleaning copy, CAZA / OAZA",
            paper::COPY_OVER_OAZA[1].1,
            "1.7x",
            Judge::Effect,
            Unit::Times,
            copy_ratio("CAZA", "OAZA"),
        ),
        Spec::new(
            "zone resets, OAZA vs LIZA",
            paper::RESETS_VS_LIZA_PCT,
            "-10%",
            Judge::Effect,
            Unit::Change,
            Box::new(move |rs| {
                change(rs, form, ("OAZA", "LIZA"), OAZA_WORKLOAD, &|f| {
                    f.zone_resets as f64
                })
            }),
        ),
    ]
}

/// The headline claims ([`crate::reproduce::claims`]), ours from the code forms' matrix.
pub fn claim_specs() -> Vec<Spec<CellResult>> {
    oaza_claims()
}
