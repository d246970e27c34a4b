//! The study's JSON and Markdown: the code forms' tables (the default), the text forms'
//! tables, the papers' headline numbers beside ours, the turning-point sweep and the ablation.
//! Every figure is the mean over the plan's seeds ([`Figures::mean`]); the JSON adds each
//! scheme's spread.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::claims::{self, Judge, Spec, Unit, ValueFn};
use super::figures::{CellResult, Figures, spread};
use super::forms::{Form, OAZA_MATRIX, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS, Scheme};
use super::seeds::{BySeed, interval_note};
use super::{OAZA_WORKLOAD, ReproScale, Study, ablation};

/// Which simulations a figure comes from (all seeds of it).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key<'a> {
    group: &'a str,
    form: Form,
    scheme: &'a str,
    workload: &'a str,
    turning_point: Option<u32>,
    level_constraint: Option<bool>,
    ablation_step: Option<usize>,
}

impl<'a> Key<'a> {
    /// A scheme of the matrix.
    fn scheme(form: Form, scheme: &'a str, workload: &'a str) -> Self {
        Self {
            group: "scheme",
            form,
            scheme,
            workload,
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
        }
    }

    fn matches(&self, r: &CellResult) -> bool {
        r.group == self.group
            && r.form == self.form.name()
            && r.scheme == self.scheme
            && r.workload == self.workload
            && r.turning_point == self.turning_point
            && r.level_constraint == self.level_constraint
            && r.ablation_step == self.ablation_step
    }
}

/// The successful runs (one per seed) of `key`.
fn runs<'r>(results: &'r [CellResult], key: &Key<'_>) -> Vec<&'r Figures> {
    results
        .iter()
        .filter(|r| key.matches(r))
        .filter_map(|r| r.figures.as_ref().ok())
        .collect()
}

/// The mean over seeds of `key`'s runs.
fn get(results: &[CellResult], key: &Key<'_>) -> Option<Figures> {
    Figures::mean(&runs(results, key))
}

/// The first error of `key`'s runs.
fn error<'r>(results: &'r [CellResult], key: &Key<'_>) -> Option<&'r str> {
    results
        .iter()
        .filter(|r| key.matches(r))
        .find_map(|r| r.figures.as_ref().err().map(String::as_str))
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One scheme over every workload: sums of counts, means of rates and scores.
fn aggregate(per_workload: &BTreeMap<String, Figures>) -> serde_json::Value {
    let f: Vec<&Figures> = per_workload.values().collect();
    serde_json::json!({
        "gc_copied_bytes": f.iter().map(|x| x.gc_copied_bytes).sum::<u64>(),
        "zone_resets": f.iter().map(|x| x.zone_resets).sum::<u64>(),
        "gc_zone_resets": f.iter().map(|x| x.gc_zone_resets).sum::<u64>(),
        "ops_per_s": mean(f.iter().map(|x| x.ops_per_s)),
        "mb_per_s": mean(f.iter().map(|x| x.mb_per_s)),
        "write_amplification": mean(f.iter().map(|x| x.write_amplification)),
        "zone_write_amplification": mean(f.iter().map(|x| x.zone_write_amplification)),
        "s_same_avg": mean(f.iter().map(|x| x.s_same_avg)),
        "s_inval_avg": mean(f.iter().map(|x| x.s_inval_avg)),
        "compaction_read_latency_us": mean(f.iter().map(|x| x.compaction_read_latency_us)),
        "compaction_read_mb_per_s": mean(f.iter().map(|x| x.compaction_read_mb_per_s)),
        "victim_bytes_avg": mean(f.iter().map(|x| x.victim_bytes_avg)),
        "stall_s": mean(f.iter().map(|x| x.stall_s)),
        "io_blocking_s": mean(f.iter().map(|x| x.io_blocking_s)),
        "context_placement_pct": mean(f.iter().map(|x| x.context_placement_pct)),
        "workloads": per_workload,
    })
}

fn schemes_of(study: Study) -> &'static [Scheme] {
    match study {
        Study::SameZone => &SAME_ZONE_SCHEMES,
        Study::Oaza | Study::SplitZns | Study::Hhzs => &OAZA_MATRIX,
    }
}

fn workloads_of(study: Study) -> Vec<&'static str> {
    match study {
        Study::SameZone => SAME_ZONE_WORKLOADS.to_vec(),
        Study::Oaza | Study::SplitZns | Study::Hhzs => vec![OAZA_WORKLOAD],
    }
}

/// One object per scheme (the papers' names) of `form`: figures summed or averaged over the
/// workloads (each the mean over seeds), the workloads themselves, and the spread over seeds
/// of every workload's figures.
fn schemes_json(study: Study, form: Form, results: &[CellResult]) -> serde_json::Value {
    let mut schemes = serde_json::Map::new();
    for s in schemes_of(study) {
        let mut per = BTreeMap::new();
        let mut spreads = serde_json::Map::new();
        for w in workloads_of(study) {
            let key = Key::scheme(form, s.name, w);
            if let Some(f) = get(results, &key) {
                per.insert(w.to_owned(), f);
                spreads.insert(w.to_owned(), spread(&runs(results, &key)));
            }
        }
        let mut o = aggregate(&per);
        o["placement"] = serde_json::json!(s.policies(form).placement);
        o["compaction_scheme"] = serde_json::json!(s.policies(form).compaction);
        o["spread"] = serde_json::Value::Object(spreads);
        schemes.insert(s.name.to_owned(), o);
    }
    serde_json::Value::Object(schemes)
}

/// The ablation's rows: what each moved and every compared scheme's figures.
fn ablation_json(study: Study, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let Ok(rows) = ablation::rows(study, scale.div()) else {
        return serde_json::Value::Null;
    };
    let w = workloads_of(study)[0];
    let out: Vec<serde_json::Value> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| results.iter().any(|r| r.ablation_step == Some(*i)))
        .map(|(i, row)| {
            let mut schemes = serde_json::Map::new();
            for (name, pol) in &row.schemes {
                let key = ablation_key(name, w, i);
                schemes.insert(
                    (*name).to_owned(),
                    serde_json::json!({
                        "placement": pol.placement,
                        "compaction_scheme": pol.compaction,
                        "figures": get(results, &key),
                        "error": error(results, &key),
                    }),
                );
            }
            serde_json::json!({
                "step": i,
                "name": row.name,
                "unsplit": row.unsplit,
                "schemes": schemes,
            })
        })
        .collect();
    serde_json::Value::Array(out)
}

fn ablation_key<'a>(scheme: &'a str, workload: &'a str, step: usize) -> Key<'a> {
    Key {
        group: "ablation",
        form: Form::Code,
        scheme,
        workload,
        turning_point: None,
        level_constraint: None,
        ablation_step: Some(step),
    }
}

/// The study's JSON: one object per scheme under `schemes` (the code's forms, the default),
/// the same under `text_forms`, the sweep, the ablation, the seeds and failures.
pub fn json(study: Study, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let mut j = match study {
        Study::SplitZns => super::splitzns::json(scale, results),
        Study::Hhzs => super::hhzs::json(scale, results),
        Study::SameZone | Study::Oaza => matrix_json(study, scale, results),
    };
    claims::insert(&mut j, &claim_specs(study), results, scale.name());
    j
}

/// The headline claims of `study` ([`claims`]), ours from the code forms' matrix.
pub fn claim_specs(study: Study) -> Vec<Spec<CellResult>> {
    match study {
        Study::SameZone => same_zone_claims(),
        Study::Oaza => oaza_claims(),
        Study::SplitZns => super::splitzns::claim_specs(),
        Study::Hhzs => super::hhzs::claim_specs(),
    }
}

/// The mean over the same-zone workloads of `per_workload`, only when every workload gives
/// it (a claim averaged over fewer would not be the paper's).
fn over_workloads(per_workload: impl Fn(&str) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = SAME_ZONE_WORKLOADS
        .iter()
        .filter_map(|w| per_workload(w))
        .collect();
    (v.len() == SAME_ZONE_WORKLOADS.len()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A-CAZA against Baseline (§VII): cleaning copy, ZC's resets, PUT, S_inval, I/O blocking.
fn same_zone_claims() -> Vec<Spec<CellResult>> {
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
            -70.0,
            avg(gc),
        ),
        change_of(
            "cleaning copy, A-CAZA vs Baseline, fillrandom",
            -80.0,
            Box::new(move |rs| change(rs, form, pair, "fillrandom", &gc)),
        ),
        change_of(
            "zone resets by cleaning (figure 12), A-CAZA vs Baseline, mean",
            -8.6,
            avg(|f| f.gc_zone_resets as f64),
        ),
        change_of(
            "PUT throughput, A-CAZA vs Baseline, mean",
            16.0,
            avg(|f| f.ops_per_s),
        ),
        change_of(
            "I/O blocking time, A-CAZA vs Baseline, mean",
            -68.0,
            avg(|f| f.io_blocking_s),
        ),
        Spec::new(
            "S_inval, A-CAZA minus Baseline, mean",
            0.10,
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

/// The OAZA slides: cleaning copy of LIZA and CAZA over OAZA's, OAZA's resets against LIZA's.
fn oaza_claims() -> Vec<Spec<CellResult>> {
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
            2.7,
            "2.7x",
            Judge::Effect,
            Unit::Times,
            copy_ratio("LIZA", "OAZA"),
        ),
        Spec::new(
            "cleaning copy, CAZA / OAZA",
            1.7,
            "1.7x",
            Judge::Effect,
            Unit::Times,
            copy_ratio("CAZA", "OAZA"),
        ),
        Spec::new(
            "zone resets, OAZA vs LIZA",
            -10.0,
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

/// The scheme matrices' JSON (same-zone, oaza).
fn matrix_json(study: Study, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let seeds = super::seeds::seeds_of(results);
    let sweep: Vec<serde_json::Value> = results
        .iter()
        .filter(|r| r.turning_point.is_some())
        .map(|r| {
            serde_json::json!({
                "turning_point": r.turning_point,
                "level_constraint": r.level_constraint,
                "seed": r.seed,
                "figures": r.figures.as_ref().ok(),
                "error": r.figures.as_ref().err(),
            })
        })
        .collect();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.figures.as_ref().err().map(|e| {
                format!(
                    "{} {} {} ({}, seed {}): {e}",
                    r.group, r.scheme, r.workload, r.form, r.seed
                )
            })
        })
        .collect();
    let text = results
        .iter()
        .any(|r| r.form == "text" && r.group == "scheme");
    serde_json::json!({
        "study": match study { Study::SameZone => "same-zone", Study::Oaza => "oaza", Study::SplitZns => "splitzns", Study::Hhzs => "hhzs" },
        "scale": scale.name(),
        "form": "code",
        "seeds": seeds,
        "schemes": schemes_json(study, Form::Code, results),
        "text_forms": if text { schemes_json(study, Form::Text, results) } else { serde_json::Value::Null },
        "turning_point_sweep": sweep,
        "ablation": ablation_json(study, scale, results),
        "failed": failed,
    })
}

fn pct(ours: f64, base: f64) -> String {
    if base == 0.0 {
        "n/a".into()
    } else {
        format!("{:+.1}%", 100.0 * (ours - base) / base)
    }
}

fn mib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 20)
}

/// The per-workload table of every scheme of `form`.
fn scheme_table(
    results: &[CellResult],
    form: Form,
    schemes: &[Scheme],
    workload: &str,
    base: &str,
) -> String {
    let mut t = format!(
        "### {workload} ({} forms)\n\n| scheme | placement + victims | GC copy MiB | vs {base} | zone resets | vs {base} | ZC resets | vs {base} | PUT ops/s | vs {base} | WA | S_same | S_inval | CompactionRead µs | CompactionRead MB/s | victim MiB | stall s | I/O blocking s |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        form.name()
    );
    let b = get(results, &Key::scheme(form, base, workload));
    for s in schemes {
        let pol = s.policies(form);
        let policies = format!("{} + {}", pol.placement, pol.compaction);
        if let Some(f) = get(results, &Key::scheme(form, s.name, workload)) {
            {
                let (gc_b, rs_b, zc_b, ops_b) = b.as_ref().map_or((0.0, 0.0, 0.0, 0.0), |b| {
                    (
                        b.gc_copied_bytes as f64,
                        b.zone_resets as f64,
                        b.gc_zone_resets as f64,
                        b.ops_per_s,
                    )
                });
                let _ = writeln!(
                    t,
                    "| {} | {policies} | {:.1} | {} | {} | {} | {} | {} | {:.0} | {} | {:.2} | {:.3} | {:.3} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} |",
                    s.name,
                    mib(f.gc_copied_bytes),
                    pct(f.gc_copied_bytes as f64, gc_b),
                    f.zone_resets,
                    pct(f.zone_resets as f64, rs_b),
                    f.gc_zone_resets,
                    pct(f.gc_zone_resets as f64, zc_b),
                    f.ops_per_s,
                    pct(f.ops_per_s, ops_b),
                    f.write_amplification,
                    f.s_same_avg,
                    f.s_inval_avg,
                    f.compaction_read_latency_us,
                    f.compaction_read_mb_per_s,
                    f.victim_bytes_avg / f64::from(1u32 << 20),
                    f.stall_s,
                    f.io_blocking_s,
                );
            }
        } else {
            let why = error(results, &Key::scheme(form, s.name, workload)).unwrap_or("not run");
            let _ = writeln!(
                t,
                "| {} | {policies} | failed: {why} | | | | | | | | | | | | | | | |",
                s.name
            );
        }
    }
    t.push('\n');
    t
}

/// Markdown: our figures per workload, then the papers' headline numbers beside ours, for the
/// code's forms and then the text's, the sweep and the ablation.
pub fn markdown(study: Study, scale: ReproScale, results: &[CellResult]) -> String {
    if study == Study::SplitZns {
        return super::splitzns::markdown(scale, results);
    }
    if study == Study::Hhzs {
        return super::hhzs::markdown(scale, results);
    }
    let mut md = String::new();
    let seeds = super::seeds::seeds_of(results);
    let list = seeds
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if seeds.len() > 1 {
        let _ = writeln!(
            md,
            "Seeds: {list}. Every figure is their mean; beside the papers' figures, {}. The JSON has the spread.\n",
            interval_note(seeds.len())
        );
    } else {
        let _ = writeln!(
            md,
            "Seeds: {list} (every figure is their mean; the JSON has the spread).\n"
        );
    }
    for form in Form::ALL {
        if !results
            .iter()
            .any(|r| r.group == "scheme" && r.form == form.name())
        {
            continue;
        }
        match study {
            Study::SameZone => md.push_str(&same_zone_markdown(scale, form, results)),
            Study::Oaza | Study::SplitZns | Study::Hhzs => {
                md.push_str(&oaza_markdown(scale, form, results));
            }
        }
    }
    if study == Study::SameZone && results.iter().any(|r| r.group == "sweep") {
        md.push_str(&sweep_table(results));
        md.push_str("\nPaper (figure 13, with the level constraint): turning point 25 vs 0 cuts I/O blocking by 23.6 s and stall time by 22 s, +2 KOPS/s; 30 and above grow victims and stalls. Without the constraint, any turning point above 0 lowers PUT throughput.\n\n");
        md.push_str(&sweep_directions(results));
    }
    md.push_str(&ablation_table(study, scale, results));
    md
}

/// `ours` relative to `base` for `f` on workload `w` (percent), for schemes of `form`.
fn change(
    results: &[CellResult],
    form: Form,
    (ours, base): (&str, &str),
    w: &str,
    f: &dyn Fn(&Figures) -> f64,
) -> Option<f64> {
    let b = f(&get(results, &Key::scheme(form, base, w))?);
    let a = f(&get(results, &Key::scheme(form, ours, w))?);
    (b != 0.0).then(|| 100.0 * (a - b) / b)
}

#[allow(clippy::too_many_lines, reason = "one row after another")]
fn same_zone_markdown(scale: ReproScale, form: Form, results: &[CellResult]) -> String {
    let mut md = String::new();
    let _ = write!(
        md,
        "## Same-Zone Compaction: four schemes ({} scale, {} forms)\n\n",
        scale.name(),
        form.name()
    );
    for w in SAME_ZONE_WORKLOADS {
        md.push_str(&scheme_table(
            results,
            form,
            &SAME_ZONE_SCHEMES,
            w,
            "Baseline",
        ));
    }
    let _ = write!(
        md,
        "### A-CAZA vs Baseline, beside the paper ({} forms)\n\n| measure | paper | ours |\n|---|---|---|\n",
        form.name()
    );
    let pair = ("A-CAZA", "Baseline");
    let by_seed = BySeed::new(results);
    let signed_pct = |c: f64| format!("{c:+.1}%");
    let avg = |f: &dyn Fn(&Figures) -> f64| -> String {
        by_seed.show(
            |rs| {
                let v: Vec<f64> = SAME_ZONE_WORKLOADS
                    .iter()
                    .filter_map(|w| change(rs, form, pair, w, f))
                    .collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            },
            signed_pct,
            1,
            "n/a",
        )
    };
    let one = |w: &str, f: &dyn Fn(&Figures) -> f64| -> String {
        by_seed.show(|rs| change(rs, form, pair, w, f), signed_pct, 1, "n/a")
    };
    let gc = |f: &Figures| f.gc_copied_bytes as f64;
    let resets = |f: &Figures| f.zone_resets as f64;
    let zc_resets = |f: &Figures| f.gc_zone_resets as f64;
    let put = |f: &Figures| f.ops_per_s;
    let diff = |f: &dyn Fn(&Figures) -> f64| -> String {
        by_seed.show(
            |rs| {
                let v: Vec<f64> = SAME_ZONE_WORKLOADS
                    .iter()
                    .filter_map(|w| {
                        Some(
                            f(&get(rs, &Key::scheme(form, "A-CAZA", w))?)
                                - f(&get(rs, &Key::scheme(form, "Baseline", w))?),
                        )
                    })
                    .collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            },
            |d| format!("{d:+.3}"),
            3,
            "n/a",
        )
    };
    let rows = [
        (
            "cleaning copy, average over workloads",
            "-70%".to_owned(),
            avg(&gc),
        ),
        (
            "cleaning copy, fillrandom",
            "-80%".to_owned(),
            one("fillrandom", &gc),
        ),
        (
            "zone resets by ZC (cleaning victims; figure 12), average",
            "-8.6%".to_owned(),
            avg(&zc_resets),
        ),
        (
            "zone resets by ZC, fillrandom / zipfian / latest / uniform",
            "-12% / -13% / -5% / -13%".to_owned(),
            SAME_ZONE_WORKLOADS
                .iter()
                .map(|w| one(w, &zc_resets))
                .collect::<Vec<_>>()
                .join(" / "),
        ),
        (
            "zone resets, all (victims, zones emptied by deletes), average",
            "n/a".to_owned(),
            avg(&resets),
        ),
        ("PUT throughput, average", "+16%".to_owned(), avg(&put)),
        (
            "S_same (A-CAZA minus Baseline)",
            "+0.05".to_owned(),
            diff(&|f| f.s_same_avg),
        ),
        (
            "S_inval (A-CAZA minus Baseline)",
            "+0.10".to_owned(),
            diff(&|f| f.s_inval_avg),
        ),
        (
            "CompactionRead latency",
            "-10% (-3.82 µs)".to_owned(),
            avg(&|f| f.compaction_read_latency_us),
        ),
        (
            "CompactionRead throughput",
            "+16%".to_owned(),
            avg(&|f| f.compaction_read_mb_per_s),
        ),
        (
            "I/O blocking time, average",
            "-68%".to_owned(),
            avg(&|f| f.io_blocking_s),
        ),
    ];
    for (m, p, o) in rows {
        let _ = writeln!(md, "| {m} | {p} | {o} |");
    }
    md.push('\n');
    md
}

fn sweep_table(results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    md.push_str("### ACC turning point (fillrandom, A-CAZA, code form: `max_compaction_kick`, `max_compaction_start_level`), beside figures 13 and 14\n\n| level constraint | turning point | PUT ops/s | stall s | I/O blocking s | victim MiB | GC copy MiB |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for constraint in [false, true] {
        for tp in super::TURNING_POINTS {
            let key = Key {
                group: "sweep",
                form: Form::Code,
                scheme: "A-CAZA",
                workload: "fillrandom",
                turning_point: Some(tp),
                level_constraint: Some(constraint),
                ablation_step: None,
            };
            let c = if constraint { "L >= 2" } else { "none" };
            let cell = |g: fn(&Figures) -> f64, digits: usize| {
                by_seed.show(
                    |rs| get(rs, &key).map(|f| g(&f)),
                    |v| format!("{v:.digits$}"),
                    digits,
                    "-",
                )
            };
            match get(results, &key) {
                Some(_) => drop(writeln!(
                    md,
                    "| {c} | {tp} | {} | {} | {} | {} | {} |",
                    cell(|f| f.ops_per_s, 0),
                    cell(|f| f.stall_s, 1),
                    cell(|f| f.io_blocking_s, 1),
                    cell(|f| f.victim_bytes_avg / f64::from(1u32 << 20), 2),
                    cell(|f| mib(f.gc_copied_bytes), 1),
                )),
                None => {
                    if let Some(e) = error(results, &key) {
                        let _ = writeln!(md, "| {c} | {tp} | failed: {e} | | | | |");
                    }
                }
            }
        }
    }
    md
}

/// The sweep's mean figures at `turning_point`, with or without the level `constraint`.
fn sweep_point(results: &[CellResult], turning_point: u32, constraint: bool) -> Option<Figures> {
    get(
        results,
        &Key {
            group: "sweep",
            form: Form::Code,
            scheme: "A-CAZA",
            workload: "fillrandom",
            turning_point: Some(turning_point),
            level_constraint: Some(constraint),
            ablation_step: None,
        },
    )
}

/// Which way `f` moves from turning point `from` to each turning point of `to`, with or
/// without the level `constraint`: higher or lower at every one (the range and each point's
/// change), else mixed; `n/a` when a point did not run or the reference is 0.
fn direction(
    results: &[CellResult],
    constraint: bool,
    (from, to): (u32, &[u32]),
    f: fn(&Figures) -> f64,
) -> String {
    let Some(base) = sweep_point(results, from, constraint).map(|x| f(&x)) else {
        return "n/a".into();
    };
    let changes: Option<Vec<(u32, f64)>> = to
        .iter()
        .map(|&tp| {
            let v = f(&sweep_point(results, tp, constraint)?);
            (base != 0.0).then(|| (tp, 100.0 * (v - base) / base))
        })
        .collect();
    let Some(changes) = changes.filter(|c| !c.is_empty()) else {
        return "n/a".into();
    };
    let each = changes
        .iter()
        .map(|(tp, c)| format!("{tp}: {c:+.0}%"))
        .collect::<Vec<_>>()
        .join(", ");
    let (lo, hi) = changes
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, c)| {
            (lo.min(c), hi.max(c))
        });
    let way = if lo > 0.0 {
        "higher at every one"
    } else if hi < 0.0 {
        "lower at every one"
    } else {
        "mixed"
    };
    format!("{way}, {lo:+.0}% to {hi:+.0}% ({each})")
}

/// The sweep's claims (figures 13 and 14): the paper's direction beside the one measured, each
/// computed from the sweep's results.
fn sweep_directions(results: &[CellResult]) -> String {
    use super::TURNING_POINTS;
    let above_0: Vec<u32> = TURNING_POINTS.iter().copied().filter(|&t| t > 0).collect();
    let above_25: Vec<u32> = TURNING_POINTS.iter().copied().filter(|&t| t > 25).collect();
    let put = |f: &Figures| f.ops_per_s;
    let stall = |f: &Figures| f.stall_s;
    let blocking = |f: &Figures| f.io_blocking_s;
    let victims = |f: &Figures| f.victim_bytes_avg;
    let mut md = String::from(
        "#### ACC turning point: the paper's direction beside ours

| claim (figures 13, 14) | paper | ours |
|---|---|---|
",
    );
    let rows: [(&str, &str, String); 8] = [
        (
            "no level constraint: PUT at each turning point > 0 vs 0",
            "lower",
            direction(results, false, (0, &above_0), put),
        ),
        (
            "no level constraint: I/O blocking, > 0 vs 0",
            "lower",
            direction(results, false, (0, &above_0), blocking),
        ),
        (
            "no level constraint: stall time, > 0 vs 0",
            "higher",
            direction(results, false, (0, &above_0), stall),
        ),
        (
            "no level constraint: victim size, > 0 vs 0",
            "larger, growing with the turning point",
            direction(results, false, (0, &above_0), victims),
        ),
        (
            "level constraint (L >= 2): 25 vs 0",
            "I/O blocking -23.6 s, stall -22 s, PUT +2 KOPS/s",
            match (
                sweep_point(results, 0, true),
                sweep_point(results, 25, true),
            ) {
                (Some(a), Some(b)) => format!(
                    "I/O blocking {:+.1} s, stall {:+.1} s, PUT {:+.1} KOPS/s",
                    b.io_blocking_s - a.io_blocking_s,
                    b.stall_s - a.stall_s,
                    (b.ops_per_s - a.ops_per_s) / 1000.0
                ),
                _ => "n/a".into(),
            },
        ),
        (
            "level constraint: PUT at each turning point > 25 vs 25",
            "lower",
            direction(results, true, (25, &above_25), put),
        ),
        (
            "level constraint: stall time, > 25 vs 25",
            "higher",
            direction(results, true, (25, &above_25), stall),
        ),
        (
            "level constraint: victim size, > 25 vs 25",
            "larger",
            direction(results, true, (25, &above_25), victims),
        ),
    ];
    for (claim, paper, ours) in rows {
        let _ = writeln!(md, "| {claim} | {paper} | {ours} |");
    }
    md.push('\n');
    md
}

/// The ablation table: one row per step, each compared scheme's GC copy, resets, PUT and
/// stall, and the last scheme against the first.
fn ablation_table(study: Study, scale: ReproScale, results: &[CellResult]) -> String {
    let Ok(rows) = ablation::rows(study, scale.div()) else {
        return String::new();
    };
    if !results.iter().any(|r| r.group == "ablation") {
        return String::new();
    }
    let w = workloads_of(study)[0];
    let names: Vec<&str> = ablation::compared(study).iter().map(|s| s.name).collect();
    let (Some(first), Some(last)) = (names.first().copied(), names.last().copied()) else {
        return String::new();
    };
    let mut md = format!(
        "## Ablation ({w}): from the old study to the authors' code and set-up, one difference per row\n\n| # | moved | "
    );
    for n in &names {
        let _ = write!(
            md,
            "{n} GC MiB | {n} ZC resets | {n} PUT ops/s | {n} stall s | "
        );
    }
    let _ = writeln!(
        md,
        "{last} vs {first}: GC copy | ZC resets | PUT |\n|---:|---|{}---:|---:|---:|",
        "---:|".repeat(4 * names.len())
    );
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(md, "| {i} | {} | ", row.name);
        let figs: Vec<Option<Figures>> = names
            .iter()
            .map(|n| get(results, &ablation_key(n, w, i)))
            .collect();
        for f in &figs {
            match f {
                Some(f) => drop(write!(
                    md,
                    "{:.1} | {} | {:.0} | {:.1} | ",
                    mib(f.gc_copied_bytes),
                    f.gc_zone_resets,
                    f.ops_per_s,
                    f.stall_s
                )),
                None => md.push_str("failed | | | | "),
            }
        }
        match (
            figs.first().and_then(Option::as_ref),
            figs.last().and_then(Option::as_ref),
        ) {
            (Some(b), Some(a)) => drop(writeln!(
                md,
                "{} | {} | {} |",
                pct(a.gc_copied_bytes as f64, b.gc_copied_bytes as f64),
                pct(a.gc_zone_resets as f64, b.gc_zone_resets as f64),
                pct(a.ops_per_s, b.ops_per_s)
            )),
            _ => md.push_str("n/a | n/a | n/a |\n"),
        }
    }
    md.push('\n');
    for (i, row) in rows.iter().enumerate() {
        if let Some(why) = row.unsplit {
            let _ = writeln!(md, "Row {i} moves more than one behaviour, {why}.\n");
        }
    }
    md
}

fn oaza_markdown(scale: ReproScale, form: Form, results: &[CellResult]) -> String {
    let mut md = String::new();
    let _ = write!(
        md,
        "## OAZA vs LIZA and CAZA ({} scale, {} forms; OAZA reconstructed from the slides)\n\n",
        scale.name(),
        form.name()
    );
    md.push_str(&scheme_table(
        results,
        form,
        &OAZA_MATRIX,
        OAZA_WORKLOAD,
        "LIZA",
    ));
    let by_seed = BySeed::new(results);
    let f = |rs: &[CellResult], s: &str| get(rs, &Key::scheme(form, s, OAZA_WORKLOAD));
    md.push_str(&fallback_table(form, &by_seed));
    let ratio = |a: &str, b: &str| -> String {
        by_seed.show(
            |rs| match (f(rs, a), f(rs, b)) {
                (Some(a), Some(b)) if b.gc_copied_bytes > 0 => {
                    Some(a.gc_copied_bytes as f64 / b.gc_copied_bytes as f64)
                }
                _ => None,
            },
            |r| format!("{r:.2}x"),
            2,
            "n/a",
        )
    };
    let figure = |s: &str, g: fn(&Figures) -> f64, digits: usize| {
        by_seed.show(
            |rs| f(rs, s).map(|x| g(&x)),
            |v| format!("{v:.digits$}"),
            digits,
            "n/a",
        )
    };
    let wa = |s: &str| figure(s, |x| x.zone_write_amplification, 2);
    let mbs = |s: &str| figure(s, |x| x.mb_per_s, 1);
    let _ = write!(
        md,
        "### Beside the slides ({} forms)\n\n| measure | paper | ours |\n|---|---|---|\n",
        form.name()
    );
    let _ = writeln!(
        md,
        "| cleaning copy, LIZA / OAZA | 2.7x | {} |",
        ratio("LIZA", "OAZA")
    );
    let _ = writeln!(
        md,
        "| cleaning copy, CAZA / OAZA | 1.7x | {} |",
        ratio("CAZA", "OAZA")
    );
    let _ = writeln!(
        md,
        "| zone-layer write amplification LIZA / CAZA / OAZA | 1.3 / 1.2 / 1.1 | {} / {} / {} |",
        wa("LIZA"),
        wa("CAZA"),
        wa("OAZA")
    );
    let _ = writeln!(
        md,
        "| write throughput MB/s LIZA / CAZA / OAZA | 67 / 68 / 69 | {} / {} / {} |",
        mbs("LIZA"),
        mbs("CAZA"),
        mbs("OAZA")
    );
    let resets = by_seed.show(
        |rs| match (f(rs, "LIZA"), f(rs, "OAZA")) {
            (Some(l), Some(o)) if l.zone_resets > 0 => {
                Some(100.0 * (o.zone_resets as f64 - l.zone_resets as f64) / l.zone_resets as f64)
            }
            _ => None,
        },
        |c| format!("{c:+.1}%"),
        1,
        "n/a",
    );
    let _ = writeln!(md, "| zone resets, OAZA vs LIZA | -10% | {resets} |");
    let _ = writeln!(
        md,
        "| cleaning copy, LIZA / OAZA-band, CAZA / OAZA-band (our variant) | 2.7x, 1.7x (OAZA) | {}, {} |\n",
        ratio("LIZA", "OAZA-band"),
        ratio("CAZA", "OAZA-band")
    );
    md
}

/// How often each scheme of the OAZA matrix placed an SST by its own rule, and how often it
/// fell back to LIZA (`sst_context_placements` over `sst_context_allocations`); `-` for a
/// policy that plans no SST (LIZA itself).
fn fallback_table(form: Form, by_seed: &BySeed<'_, CellResult>) -> String {
    let mut md = format!(
        "### SST placements by the policy's own rule ({} forms)\n\n| scheme | placement | own rule | fell back to LIZA |\n|---|---|---:|---:|\n",
        form.name()
    );
    for s in &OAZA_MATRIX {
        let placement = s.policies(form).placement;
        let plans = zonedb_fs::placement::by_name(placement).is_ok_and(|p| p.wants_tree_view());
        let share = |own: bool| {
            if !plans {
                return "-".to_owned();
            }
            by_seed.show(
                |rs| {
                    get(rs, &Key::scheme(form, s.name, OAZA_WORKLOAD)).map(|x| {
                        if own {
                            x.context_placement_pct
                        } else {
                            100.0 - x.context_placement_pct
                        }
                    })
                },
                |v| format!("{v:.1}%"),
                1,
                "n/a",
            )
        };
        let _ = writeln!(
            md,
            "| {} | {placement} | {} | {} |",
            s.name,
            share(true),
            share(false)
        );
    }
    md.push('\n');
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep point's run.
    fn point(tp: u32, constraint: bool, put: f64, stall: f64, victim_mib: f64) -> CellResult {
        CellResult {
            turning_point: Some(tp),
            level_constraint: Some(constraint),
            ..CellResult::test_run(
                "sweep",
                "A-CAZA",
                "fillrandom",
                1,
                Figures {
                    ops_per_s: put,
                    stall_s: stall,
                    io_blocking_s: 20.0 - f64::from(tp) / 10.0,
                    victim_bytes_avg: victim_mib * f64::from(1u32 << 20),
                    ..Figures::default()
                },
            )
        }
    }

    /// The report computes each claim's direction from the sweep: here every turning point
    /// raises PUT without the constraint (the paper: lowers it), and above 25 the constraint
    /// run is mixed.
    #[test]
    fn the_sweep_directions_are_measured_beside_the_papers() {
        let results = vec![
            point(0, false, 40_000.0, 17.0, 4.0),
            point(25, false, 60_000.0, 6.0, 4.5),
            point(30, false, 64_000.0, 5.0, 5.0),
            point(50, false, 60_800.0, 6.0, 5.5),
            point(70, false, 62_000.0, 5.5, 6.0),
            point(0, true, 40_000.0, 17.0, 4.0),
            point(25, true, 58_000.0, 7.0, 4.4),
            point(30, true, 63_800.0, 5.0, 4.6),
            point(50, true, 52_200.0, 9.0, 4.8),
            point(70, true, 58_000.0, 7.0, 4.8),
        ];
        let md = sweep_directions(&results);
        assert!(
            md.contains(
                "| no level constraint: PUT at each turning point > 0 vs 0 | lower | higher at every one, +50% to +60% (25: +50%, 30: +60%, 50: +52%, 70: +55%) |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| no level constraint: victim size, > 0 vs 0 | larger, growing with the turning point | higher at every one, +12% to +50%"),
            "{md}"
        );
        assert!(
            md.contains("| level constraint (L >= 2): 25 vs 0 | I/O blocking -23.6 s, stall -22 s, PUT +2 KOPS/s | I/O blocking -2.5 s, stall -10.0 s, PUT +18.0 KOPS/s |"),
            "{md}"
        );
        assert!(
            md.contains("| level constraint: PUT at each turning point > 25 vs 25 | lower | mixed, -10% to +10% (30: +10%, 50: -10%, 70: +0%) |"),
            "{md}"
        );
        // A point that did not run: no direction.
        let md = sweep_directions(&results[..4]);
        assert!(md.contains("| lower | n/a |"), "{md}");
        // In the study's report, after the sweep table.
        let full = markdown(Study::SameZone, ReproScale::Small, &results);
        assert!(full.contains("#### ACC turning point: the paper's direction beside ours"));
    }
}
