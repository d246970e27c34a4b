//! The forms matrix the same-zone and OAZA studies share: per seed, every scheme on every
//! workload in the authors' code's form and (as the plan says) the paper text's, then the
//! ablation from the old study to the code forms, each cell a base scenario plus typed
//! overrides ([`Override`]).

use super::forms::{self, Form, OAZA_MATRIX, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS, Scheme};
use super::oaza::{OAZA_BASE, OAZA_WORKLOAD};
use super::same_zone::{SAME_ZONE_BASE, same_zone_workload, sweep_cells};
use super::{Cell, Plan, ReproScale, StudyId, ablation, hhzs, splitzns};
use crate::db_bench::HarnessError;
use crate::scenario::{Override, Scenario};

pub(crate) const MIB: u64 = 1 << 20;

/// What every configuration of a study at `scale` shares: the seed, the device scale and the
/// engine's sizes (memtable, SST, level 1) divided with it, given in MiB at paper scale.
pub(crate) fn scaled(
    scale: ReproScale,
    seed: u64,
    (write_buffer_mib, sst_mib, l1_mib): (u64, u64, u64),
) -> Result<Vec<Override>, HarnessError> {
    let d = scale.div();
    Ok(vec![
        Override::Seed(seed),
        Override::Scale(format!("1/{d}")),
        Override::engine_int("write_buffer_size", write_buffer_mib * MIB / d)?,
        Override::engine_int("target_file_size_base", sst_mib * MIB / d)?,
        Override::engine_int("max_bytes_for_level_base", l1_mib * MIB / d)?,
    ])
}

/// The study's base scenario at `scale` with `seed`, before set-up and policies.
pub(crate) fn study_base(
    study: StudyId,
    scale: ReproScale,
    seed: u64,
) -> Result<Scenario, HarnessError> {
    match study {
        StudyId::SameZone => {
            Scenario::base(SAME_ZONE_BASE)?.with(scaled(scale, seed, (64, 64, 256))?)
        }
        StudyId::Oaza => Scenario::base(OAZA_BASE)?.with(scaled(scale, seed, (64, 32, 256))?),
        StudyId::SplitZns | StudyId::Hhzs => Err(HarnessError::config(
            "study",
            "the splitzns and hhzs studies build their own scenarios",
        )),
    }
}

/// The study's schemes and workloads.
pub(crate) fn matrix(study: StudyId) -> (&'static [Scheme], Vec<&'static str>) {
    match study {
        StudyId::SameZone => (&SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS.to_vec()),
        StudyId::Oaza => (&OAZA_MATRIX, vec![OAZA_WORKLOAD]),
        StudyId::SplitZns => (&[], splitzns::WORKLOADS.to_vec()),
        StudyId::Hhzs => (&[], hhzs::EXPERIMENTS.to_vec()),
    }
}

/// The workload override of `study`'s workload `w` (none for the base file's own).
pub(crate) fn workload(
    study: StudyId,
    w: &str,
    scale: ReproScale,
    paper_dataset: bool,
) -> Vec<Override> {
    match study {
        StudyId::SameZone => vec![same_zone_workload(w, scale, paper_dataset)],
        StudyId::SplitZns | StudyId::Hhzs => Vec::new(),
        StudyId::Oaza => {
            // The slides' 6 M puts of 8 KiB scaled with the device once values compress; the
            // 40 K the study ran before otherwise (uncompressed, 6 M / 64 overfills the device).
            const SLIDES_PUTS: u64 = 6_000_000;
            vec![Override::Num(match (scale, paper_dataset) {
                (ReproScale::Paper, _) | (_, true) => SLIDES_PUTS / scale.div(),
                (_, false) => scale.below_paper(40_000),
            })]
        }
    }
}

/// The cells of the same-zone or OAZA study (`study`): per seed, the scheme matrix in the
/// code's forms, then (as `plan` says) in the text's forms, the ACC turning-point sweep
/// (same-zone) and the ablation.
///
/// # Errors
/// [`HarnessError::Config`] if a derived scenario is invalid (a bug).
pub(crate) fn cells(
    study: StudyId,
    scale: ReproScale,
    plan: &Plan,
) -> Result<Vec<Cell>, HarnessError> {
    let mut out = Vec::new();
    let (schemes, workloads) = matrix(study);
    if let Some(w) = plan
        .workloads
        .iter()
        .find(|w| !workloads.contains(&w.as_str()))
    {
        return Err(super::unknown_workload(w, &workloads));
    }
    for &seed in &plan.seeds {
        let base = study_base(study, scale, seed)?;
        let setup = forms::authors_setup(study, scale.div())?;
        let forms: &[Form] = if plan.text_forms {
            &Form::ALL
        } else {
            &[Form::Code]
        };
        for &form in forms {
            for w in workloads.iter().filter(|w| plan.runs(w)) {
                for s in schemes {
                    let scenario = base.clone().with(
                        setup
                            .iter()
                            .cloned()
                            .chain(s.policies(form).overrides())
                            .chain(workload(study, w, scale, true))
                            .chain([Override::Name(format!("{} {w} ({})", s.name, form.name()))]),
                    )?;
                    out.push(Cell {
                        group: "scheme",
                        scheme: s.name,
                        form,
                        workload: (*w).to_owned(),
                        turning_point: None,
                        level_constraint: None,
                        ablation_step: None,
                        seed,
                        scenario,
                    });
                }
            }
        }
        if study == StudyId::SameZone && plan.sweep {
            sweep_cells(&base, &setup, scale, seed, &mut out)?;
        }
        if plan.ablation {
            let w = workloads[0];
            for (i, row) in ablation::rows(study, scale.div())?.into_iter().enumerate() {
                for (name, pol) in &row.schemes {
                    let scenario = base.clone().with(
                        row.setup
                            .iter()
                            .cloned()
                            .chain(pol.overrides())
                            .chain(workload(study, w, scale, row.paper_dataset))
                            .chain([Override::Name(format!("ablation {i} {name}"))]),
                    )?;
                    out.push(Cell {
                        group: "ablation",
                        scheme: name,
                        form: Form::Code,
                        workload: w.to_owned(),
                        turning_point: None,
                        level_constraint: None,
                        ablation_step: Some(i),
                        seed,
                        scenario,
                    });
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::forms::OAZA_SCHEMES;
    use crate::reproduce::seeds::assert_has;
    use crate::reproduce::{CellResult, Figures, OAZA_WORKLOAD};

    fn one_seed(text_forms: bool, ablation: bool) -> Plan {
        Plan {
            seeds: vec![1],
            text_forms,
            ablation,
            ..Plan::full(1)
        }
    }

    #[test]
    fn same_zone_matrix_is_four_schemes_by_four_workloads_in_two_forms_plus_the_sweep() {
        let c = cells(StudyId::SameZone, ReproScale::Small, &one_seed(true, false)).unwrap();
        assert_eq!(c.len(), 2 * 16 + 10);
        let pick = |form: Form| {
            c.iter()
                .find(|c| c.scheme == "A-CAZA" && c.workload == "zipfian" && c.form == form)
                .unwrap()
        };
        let s = &pick(Form::Text).scenario;
        assert_eq!(s.fs.placement, "caza");
        assert_eq!(s.engine["compaction_scheme"].as_str(), Some("acc"));
        let s = &pick(Form::Code).scenario;
        assert_eq!(s.fs.placement, "caza-artifact");
        assert_eq!(s.engine["compaction_scheme"].as_str(), Some("acc-artifact"));
        assert_eq!(s.workload.kind, "ycsb");
        assert_eq!(s.device.profile, "caza-paper");
        let o = s.db_options().unwrap();
        assert_eq!(o.write_buffer_size, 1 << 20);
        assert!(!o.level_compaction_dynamic_level_bytes);
        assert!(o.disable_wal);
        let w = s.workload.ycsb_workload().unwrap();
        assert_eq!(w.recordcount, 250_000);
        let sweep: Vec<_> = c.iter().filter(|c| c.group == "sweep").collect();
        assert_eq!(sweep.len(), 10);
        let tp25 = sweep
            .iter()
            .find(|c| c.turning_point == Some(25) && c.level_constraint == Some(true))
            .unwrap();
        let o = tp25.scenario.db_options().unwrap();
        assert_eq!(
            (o.max_compaction_kick, o.max_compaction_start_level),
            (25, 2)
        );
    }

    #[test]
    fn the_ablation_ends_on_the_code_forms_configuration() {
        let c = cells(StudyId::SameZone, ReproScale::Small, &one_seed(false, true)).unwrap();
        let last = c
            .iter()
            .filter(|c| c.group == "ablation")
            .map(|c| c.ablation_step.unwrap())
            .max()
            .unwrap();
        for scheme in ["Baseline", "A-CAZA"] {
            let mut a = c
                .iter()
                .find(|c| c.ablation_step == Some(last) && c.scheme == scheme)
                .unwrap()
                .scenario
                .clone();
            let mut m = c
                .iter()
                .find(|c| c.group == "scheme" && c.scheme == scheme && c.workload == "fillrandom")
                .unwrap()
                .scenario
                .clone();
            a.name.clear();
            m.name.clear();
            assert_eq!(a, m, "{scheme}");
        }
    }

    #[test]
    fn seeds_multiply_the_matrix() {
        let plan = Plan {
            seeds: vec![1, 2, 3],
            text_forms: false,
            ablation: false,
            ..Plan::full(1)
        };
        let c = cells(StudyId::Oaza, ReproScale::Small, &plan).unwrap();
        assert_eq!(c.len(), 12);
        let seeds: Vec<u64> = c.iter().map(|c| c.scenario.seed).collect();
        assert_eq!(seeds, [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn oaza_matrix_names_the_slides_schemes_and_the_band_variant() {
        let c = cells(StudyId::Oaza, ReproScale::Small, &one_seed(true, true)).unwrap();
        let matrix: Vec<(&str, &str, &str)> = c
            .iter()
            .filter(|c| c.group == "scheme")
            .map(|c| (c.scheme, c.form.name(), c.scenario.fs.placement.as_str()))
            .collect();
        assert_eq!(
            matrix,
            [
                ("LIZA", "code", "liza"),
                ("CAZA", "code", "caza-v1-artifact"),
                ("OAZA", "code", "oaza-spill"),
                ("OAZA-band", "code", "oaza-band"),
                ("LIZA", "text", "liza"),
                ("CAZA", "text", "caza"),
                ("OAZA", "text", "oaza"),
                ("OAZA-band", "text", "oaza-band"),
            ]
        );
        let o = c[2].scenario.db_options().unwrap();
        assert_eq!(o.target_file_size_base, 512 << 10);
        assert_eq!(c[2].scenario.workload.value_size, 8192);
        // The ablation compares the slides' schemes only.
        assert!(
            c.iter()
                .filter(|c| c.group == "ablation")
                .all(|c| c.scheme != "OAZA-band")
        );
    }

    fn result(scheme: &str, seed: u64, f: Figures) -> CellResult {
        CellResult {
            group: "scheme".into(),
            scheme: scheme.into(),
            form: "code".into(),
            workload: OAZA_WORKLOAD.into(),
            turning_point: None,
            level_constraint: None,
            ablation_step: None,
            seed,
            figures: Ok(f),
        }
    }

    #[test]
    fn json_has_one_object_per_scheme_with_the_issue_keys_and_the_mean_of_seeds() {
        let f = |gc: u64| Figures {
            ops: 10,
            ops_per_s: 5.0,
            gc_copied_bytes: gc,
            zone_resets: 3,
            ..Figures::default()
        };
        let results: Vec<CellResult> = OAZA_SCHEMES
            .iter()
            .flat_map(|s| [result(s.name, 1, f(50)), result(s.name, 2, f(150))])
            .collect();
        let j = crate::reproduce::json(StudyId::Oaza, ReproScale::Small, &results);
        assert_eq!(j["seeds"], serde_json::json!([1, 2]));
        for s in ["LIZA", "CAZA", "OAZA"] {
            let o = &j["schemes"][s];
            for k in [
                "gc_copied_bytes",
                "zone_resets",
                "ops_per_s",
                "write_amplification",
                "s_same_avg",
                "s_inval_avg",
            ] {
                assert!(o.get(k).is_some(), "{s}.{k}");
            }
            assert_eq!(o["gc_copied_bytes"], 100);
            let sp = &o["spread"][OAZA_WORKLOAD]["gc_copied_bytes"];
            assert_eq!(
                (sp["min"].as_f64(), sp["max"].as_f64()),
                (Some(50.0), Some(150.0))
            );
        }
        let md = crate::reproduce::markdown(StudyId::Oaza, ReproScale::Small, &results);
        assert!(
            md.contains("| cleaning copy, LIZA / OAZA | 2.7x | 1.00x |"),
            "{md}"
        );
    }

    #[test]
    fn the_oaza_report_shows_how_often_each_scheme_falls_back_to_liza() {
        let f = |pct: f64| Figures {
            gc_copied_bytes: 100 << 20,
            context_placement_pct: pct,
            ..Figures::default()
        };
        let results = vec![
            result("LIZA", 1, f(0.0)),
            result("CAZA", 1, f(45.6)),
            result("OAZA", 1, f(24.3)),
            result("OAZA-band", 1, f(99.5)),
        ];
        let md = crate::reproduce::markdown(StudyId::Oaza, ReproScale::Small, &results);
        assert_has(&md, "| LIZA | liza | - | - |");
        assert_has(&md, "| CAZA | caza-v1-artifact | 45.6% | 54.4% |");
        assert_has(&md, "| OAZA | oaza-spill | 24.3% | 75.7% |");
        assert_has(&md, "| OAZA-band | oaza-band | 99.5% | 0.5% |");
        assert_has(&md, "| OAZA-band | oaza-band + rocksdb | 100.0 |");
        let j = crate::reproduce::json(StudyId::Oaza, ReproScale::Small, &results);
        assert_eq!(j["schemes"]["OAZA-band"]["placement"], "oaza-band");
        assert_eq!(
            j["schemes"]["OAZA-band"]["context_placement_pct"].as_f64(),
            Some(99.5)
        );
    }

    fn same_zone(scheme: &str, workload: &str, seed: u64, f: Figures) -> CellResult {
        CellResult {
            workload: workload.into(),
            ..result(scheme, seed, f)
        }
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_papers_figures_one_seed_none() {
        use crate::stats::Summary;
        let f = |gc: u64, ops: f64, s_inval: f64| Figures {
            gc_copied_bytes: gc,
            gc_zone_resets: 10,
            ops_per_s: ops,
            s_inval_avg: s_inval,
            ..Figures::default()
        };
        // Baseline copies 1000 each seed; A-CAZA 200, 250, 300 (-80%, -75%, -70%).
        let mut results = Vec::new();
        for (seed, gc, ops, si) in [
            (1, 200, 110.0, 0.5),
            (2, 250, 120.0, 0.6),
            (3, 300, 125.0, 0.8),
        ] {
            results.push(same_zone(
                "Baseline",
                "fillrandom",
                seed,
                f(1000, 100.0, 0.4),
            ));
            results.push(same_zone("A-CAZA", "fillrandom", seed, f(gc, ops, si)));
        }
        let md = crate::reproduce::markdown(StudyId::SameZone, ReproScale::Small, &results);
        assert_has(
            &md,
            "Seeds: 1, 2, 3. Every figure is their mean; beside the papers' figures, mean of 3 seeds, ± 95% interval (Student's t)",
        );
        let copy = Summary::of(&[-80.0, -75.0, -70.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| cleaning copy, fillrandom | -80% | {:+.1}% ± {:.1} |",
                copy.mean, copy.ci95
            ),
        );
        let put = Summary::of(&[10.0, 20.0, 25.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| PUT throughput, average | +16% | {:+.1}% ± {:.1} |",
                put.mean, put.ci95
            ),
        );
        let s_inval = Summary::of(&[0.5 - 0.4, 0.6 - 0.4, 0.8 - 0.4]).unwrap();
        assert_has(
            &md,
            &format!(
                "| S_inval (A-CAZA minus Baseline) | +0.10 | {:+.3} ± {:.3} |",
                s_inval.mean, s_inval.ci95
            ),
        );
        // Resets by ZC equal in every seed: no interval.
        assert!(
            md.contains(
                "| zone resets by ZC (cleaning victims; figure 12), average | -8.6% | +0.0% |"
            ),
            "{md}"
        );
        // The JSON's spread: every figure, with the interval.
        let j = crate::reproduce::json(StudyId::SameZone, ReproScale::Small, &results);
        let sp = &j["schemes"]["A-CAZA"]["spread"]["fillrandom"];
        let gc = Summary::of(&[200.0, 250.0, 300.0]).unwrap();
        assert_eq!(sp["gc_copied_bytes"]["ci95"].as_f64(), Some(gc.ci95));
        assert_eq!(
            sp["gc_copied_bytes"]["ci95_low"].as_f64(),
            Some(gc.ci95_low)
        );
        assert_eq!(
            sp["gc_copied_bytes"]["ci95_high"].as_f64(),
            Some(gc.ci95_high)
        );
        assert_eq!(sp["gc_copied_bytes"]["n"], 3);
        assert_eq!(sp["gc_copied_bytes"]["min"].as_f64(), Some(200.0));
        assert!(sp["compaction_read_mb_per_s"]["stddev"].is_number());
        // One seed: the figures alone, as before intervals.
        let one: Vec<CellResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = crate::reproduce::markdown(StudyId::SameZone, ReproScale::Small, &one);
        assert!(!md.contains('±'), "{md}");
        assert!(md.contains("Seeds: 1 (every figure is their mean; the JSON has the spread)."));
        assert_has(&md, "| cleaning copy, fillrandom | -80% | -80.0% |");
    }

    #[test]
    fn oaza_beside_the_slides_carries_the_interval_of_more_seeds() {
        use crate::stats::Summary;
        let f = |gc: u64, resets: u64, mb: f64| Figures {
            gc_copied_bytes: gc,
            zone_resets: resets,
            mb_per_s: mb,
            zone_write_amplification: 1.5,
            ..Figures::default()
        };
        let results = vec![
            result("LIZA", 1, f(300, 10, 60.0)),
            result("CAZA", 1, f(200, 10, 61.0)),
            result("OAZA", 1, f(100, 9, 62.0)),
            result("LIZA", 2, f(400, 10, 64.0)),
            result("CAZA", 2, f(200, 10, 65.0)),
            result("OAZA", 2, f(100, 8, 66.0)),
        ];
        let md = crate::reproduce::markdown(StudyId::Oaza, ReproScale::Small, &results);
        let ratio = Summary::of(&[3.0, 4.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| cleaning copy, LIZA / OAZA | 2.7x | {:.2}x ± {:.2} |",
                ratio.mean, ratio.ci95
            ),
        );
        let liza = Summary::of(&[60.0, 64.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| write throughput MB/s LIZA / CAZA / OAZA | 67 / 68 / 69 | {:.1} ± {:.1} / ",
                liza.mean, liza.ci95
            ),
        );
        let resets = Summary::of(&[-10.0, -20.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| zone resets, OAZA vs LIZA | -10% | {:+.1}% ± {:.1} |",
                resets.mean, resets.ci95
            ),
        );
        // Equal in both seeds: the figure alone.
        assert_has(&md, "| 1.3 / 1.2 / 1.1 | 1.50 / 1.50 / 1.50 |");
    }
}
