//! The same-zone report: each form's tables beside the paper, the turning-point sweep and
//! its directions.

use super::*;

/// The same-zone report: per form, our figures and the paper's beside them; the sweep and its
/// directions; the ablation.
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = seeds_line(results);
    for form in Form::ALL {
        if has_form(results, form) {
            md.push_str(&same_zone_markdown(scale, form, results));
        }
    }
    if results.iter().any(|r| r.group == "sweep") {
        md.push_str(&sweep_table(results));
        md.push_str("\nPaper (figure 13, with the level constraint): turning point 25 vs 0 cuts I/O blocking by 23.6 s and stall time by 22 s, +2 KOPS/s; 30 and above grow victims and stalls. Without the constraint, any turning point above 0 lowers PUT throughput.\n\n");
        md.push_str(&sweep_directions(results));
    }
    md.push_str(&ablation_table(StudyId::SameZone, scale, results));
    md
}

#[allow(clippy::too_many_lines, reason = "one row after another")]
pub(crate) fn same_zone_markdown(scale: ReproScale, form: Form, results: &[CellResult]) -> String {
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

pub(crate) fn sweep_table(results: &[CellResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    md.push_str("### ACC turning point (fillrandom, A-CAZA, code form: `max_compaction_kick`, `max_compaction_start_level`), beside figures 13 and 14\n\n| level constraint | turning point | PUT ops/s | stall s | I/O blocking s | victim MiB | GC copy MiB |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for constraint in [false, true] {
        for tp in crate::reproduce::TURNING_POINTS {
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
pub(crate) fn sweep_point(
    results: &[CellResult],
    turning_point: u32,
    constraint: bool,
) -> Option<Figures> {
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
pub(crate) fn direction(
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
pub(crate) fn sweep_directions(results: &[CellResult]) -> String {
    use crate::reproduce::TURNING_POINTS;
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
        let full = markdown(ReproScale::Small, &results);
        assert!(full.contains("#### ACC turning point: the paper's direction beside ours"));
    }
}
