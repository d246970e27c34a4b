//! The OAZA report: each form's tables beside the slides, and how often each scheme falls
//! back to LIZA.

use super::*;

/// The OAZA report: per form, our figures and the slides' beside them; the ablation.
pub fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
    let mut md = seeds_line(results);
    for form in Form::ALL {
        if has_form(results, form) {
            md.push_str(&oaza_markdown(scale, form, results));
        }
    }
    md.push_str(&ablation_table(StudyId::Oaza, scale, results));
    md
}

pub(crate) fn oaza_markdown(scale: ReproScale, form: Form, results: &[CellResult]) -> String {
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
pub(crate) fn fallback_table(form: Form, by_seed: &BySeed<'_, CellResult>) -> String {
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
