//! The study's JSON and Markdown: the code forms' tables (the default), the text forms'
//! tables, the papers' headline numbers beside ours, the turning-point sweep and the ablation.
//! Every figure is the mean over the plan's seeds ([`Figures::mean`]); the JSON adds each
//! scheme's spread.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::claims::{self, Spec};
use super::figures::{CellResult, Figures, spread};
use super::forms::{Form, OAZA_MATRIX, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS, Scheme};
use super::seeds::interval_note;
use super::{OAZA_WORKLOAD, ReproScale, StudyId, ablation};

/// Which simulations a figure comes from (all seeds of it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Key<'a> {
    pub(crate) group: &'a str,
    pub(crate) form: Form,
    pub(crate) scheme: &'a str,
    pub(crate) workload: &'a str,
    pub(crate) turning_point: Option<u32>,
    pub(crate) level_constraint: Option<bool>,
    pub(crate) ablation_step: Option<usize>,
}

impl<'a> Key<'a> {
    /// A scheme of the matrix.
    pub(crate) fn scheme(form: Form, scheme: &'a str, workload: &'a str) -> Self {
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

    pub(crate) fn matches(&self, r: &CellResult) -> bool {
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
pub(crate) fn runs<'r>(results: &'r [CellResult], key: &Key<'_>) -> Vec<&'r Figures> {
    results
        .iter()
        .filter(|r| key.matches(r))
        .filter_map(|r| r.figures.as_ref().ok())
        .collect()
}

/// The mean over seeds of `key`'s runs.
pub(crate) fn get(results: &[CellResult], key: &Key<'_>) -> Option<Figures> {
    Figures::mean(&runs(results, key))
}

/// The first error of `key`'s runs.
pub(crate) fn error<'r>(results: &'r [CellResult], key: &Key<'_>) -> Option<&'r str> {
    results
        .iter()
        .filter(|r| key.matches(r))
        .find_map(|r| r.figures.as_ref().err().map(String::as_str))
}

pub(crate) fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// One scheme over every workload: sums of counts, means of rates and scores.
pub(crate) fn aggregate(per_workload: &BTreeMap<String, Figures>) -> serde_json::Value {
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

pub(crate) fn schemes_of(study: StudyId) -> &'static [Scheme] {
    match study {
        StudyId::SameZone => &SAME_ZONE_SCHEMES,
        StudyId::Oaza | StudyId::SplitZns | StudyId::Hhzs => &OAZA_MATRIX,
    }
}

pub(crate) fn workloads_of(study: StudyId) -> Vec<&'static str> {
    match study {
        StudyId::SameZone => SAME_ZONE_WORKLOADS.to_vec(),
        StudyId::Oaza | StudyId::SplitZns | StudyId::Hhzs => vec![OAZA_WORKLOAD],
    }
}

/// One object per scheme (the papers' names) of `form`: figures summed or averaged over the
/// workloads (each the mean over seeds), the workloads themselves, and the spread over seeds
/// of every workload's figures.
pub(crate) fn schemes_json(
    study: StudyId,
    form: Form,
    results: &[CellResult],
) -> serde_json::Value {
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
pub(crate) fn ablation_json(
    study: StudyId,
    scale: ReproScale,
    results: &[CellResult],
) -> serde_json::Value {
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

pub(crate) fn ablation_key<'a>(scheme: &'a str, workload: &'a str, step: usize) -> Key<'a> {
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
pub fn json(study: StudyId, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    let mut j = figures_json(study, scale, results);
    claims::insert(&mut j, &claim_specs(study), results, scale.name());
    j
}

/// [`json`] without its claims.
pub fn figures_json(
    study: StudyId,
    scale: ReproScale,
    results: &[CellResult],
) -> serde_json::Value {
    match study {
        StudyId::SplitZns => super::splitzns::json(scale, results),
        StudyId::Hhzs => super::hhzs::json(scale, results),
        StudyId::SameZone | StudyId::Oaza => matrix_json(study, scale, results),
    }
}

/// The headline claims of `study` ([`claims`]), ours from the code forms' matrix.
pub fn claim_specs(study: StudyId) -> Vec<Spec<CellResult>> {
    match study {
        StudyId::SameZone => super::same_zone::same_zone_claims(),
        StudyId::Oaza => super::oaza::oaza_claims(),
        StudyId::SplitZns => super::splitzns::claim_specs(),
        StudyId::Hhzs => super::hhzs::claim_specs(),
    }
}

/// The scheme matrices' JSON (same-zone, oaza).
pub(crate) fn matrix_json(
    study: StudyId,
    scale: ReproScale,
    results: &[CellResult],
) -> serde_json::Value {
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
        "study": match study { StudyId::SameZone => "same-zone", StudyId::Oaza => "oaza", StudyId::SplitZns => "splitzns", StudyId::Hhzs => "hhzs" },
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

pub(crate) fn pct(ours: f64, base: f64) -> String {
    if base == 0.0 {
        "n/a".into()
    } else {
        format!("{:+.1}%", 100.0 * (ours - base) / base)
    }
}

pub(crate) fn mib(b: u64) -> f64 {
    b as f64 / f64::from(1u32 << 20)
}

/// The per-workload table of every scheme of `form`.
pub(crate) fn scheme_table(
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
pub fn markdown(study: StudyId, scale: ReproScale, results: &[CellResult]) -> String {
    match study {
        StudyId::SameZone => super::same_zone::markdown(scale, results),
        StudyId::Oaza => super::oaza::markdown(scale, results),
        StudyId::SplitZns => super::splitzns::markdown(scale, results),
        StudyId::Hhzs => super::hhzs::markdown(scale, results),
    }
}

/// The forms matrix report's first line: the seeds, and how figures over them are shown.
pub(crate) fn seeds_line(results: &[CellResult]) -> String {
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
    md
}

/// Whether `results` hold the scheme matrix in `form`.
pub(crate) fn has_form(results: &[CellResult], form: Form) -> bool {
    results
        .iter()
        .any(|r| r.group == "scheme" && r.form == form.name())
}

/// `ours` relative to `base` for `f` on workload `w` (percent), for schemes of `form`.
pub(crate) fn change(
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

/// The ablation table: one row per step, each compared scheme's GC copy, resets, PUT and
/// stall, and the last scheme against the first.
pub(crate) fn ablation_table(study: StudyId, scale: ReproScale, results: &[CellResult]) -> String {
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
