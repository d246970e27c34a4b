//! The papers' zone-aware experiments as ready-made scenario matrices, their figures per
//! scheme, and tables that put our figures beside the papers' numbers.
//!
//! - **same-zone** (Same-Zone Compaction paper, §VII): Baseline, A-LIZA, CAZA and A-CAZA on
//!   db_bench fillrandom and YCSB zipfian / latest / uniform (16 B keys in db_bench, 1 KiB
//!   values) on `caza-paper`; then ACC's turning-point sweep (0, 25, 30, 50, 70) with and
//!   without the level constraint, on fillrandom with A-CAZA in the code's form (the paper
//!   sweeps with CAZA placement).
//! - **oaza** (OAZA slides): LIZA, CAZA and OAZA on random writes of 8 KiB values with 32 MiB
//!   SSTs on `oaza-paper`, and beside them OAZA-band (`oaza-band`: a fresh zone per
//!   overlap-ratio band where OAZA falls back to LIZA).
//!
//! Every scheme runs in the authors' code's form (the default, what produced the figures)
//! and in the paper text's form ([`forms`]), on the authors' db_bench set-up; the
//! [`ablation`] walks from the old study to that one difference at a time. Figures are means
//! over the plan's seeds, with their spread ([`figures`]); [`report`] prints them.
//!
//! `small` scales the device by 1/64 and the engine's sizes with it (memtable, SST and level
//! sizes keep their ratios to the zone size). The datasets are sized so that zone cleaning
//! runs at a pressure like the papers' (see `docs/results/same-zone.md`), not to the papers'
//! byte counts, which at 1/64 overfill the device (our tree and the 14 active zones hold more
//! space per byte stored than the paper reports). `paper` uses the papers' own sizes.

pub mod ablation;
pub mod cache;
pub mod claims;
pub mod fairness;
pub mod figures;
pub mod forms;
pub mod hhzs;
pub mod plots;
pub mod report;
pub mod seeds;
pub mod splitzns;
pub mod znsplus;

pub use figures::{CellResult, Figures};
pub use forms::{
    Form, OAZA_BAND, OAZA_MATRIX, OAZA_SCHEMES, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS, Scheme,
};
pub use report::{json, markdown};

use crate::db_bench::HarnessError;
use crate::scenario::{Override, Scenario, WorkloadSection};

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Study {
    /// ZACA / ACC / CAZA.
    SameZone,
    /// OAZA vs LIZA and CAZA.
    Oaza,
    /// SplitZNS vs LDP, Gear and LLC, and its breakdown ([`splitzns`]).
    SplitZns,
    /// HHZS on a hybrid SSD + HDD vs its basic schemes and SpanDB's AUTO ([`hhzs`]).
    Hhzs,
}

/// How big.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReproScale {
    /// 1/64 of the papers' devices; minutes.
    Small,
    /// The papers' sizes (hours, and the device's payload in RAM).
    Paper,
    /// 1/1024 of the papers' devices and `small`'s datasets divided by 16: seconds. For
    /// checks of the machinery (the elided-values exactness test), not for figures.
    Tiny,
}

impl ReproScale {
    /// From `small` / `paper`.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for anything else.
    pub fn parse(s: &str) -> Result<Self, HarnessError> {
        match s {
            "small" => Ok(Self::Small),
            "paper" => Ok(Self::Paper),
            "tiny" => Ok(Self::Tiny),
            other => Err(HarnessError::Config(format!(
                "scale '{other}': small, paper or tiny"
            ))),
        }
    }

    /// `small` / `paper`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Small => "small",
            Self::Paper => "paper",
            Self::Tiny => "tiny",
        }
    }

    /// Divisor of sizes and counts.
    pub fn div(self) -> u64 {
        match self {
            Self::Small => 64,
            Self::Paper => 1,
            Self::Tiny => 1024,
        }
    }

    /// A dataset of `n_small` operations at `small` scale, at this scale (below `paper`,
    /// datasets shrink with the device).
    fn below_paper(self, n_small: u64) -> u64 {
        n_small * Self::Small.div() / self.div()
    }
}

/// The same-zone paper's fillrandom as the authors' run script sets it (`script/benchmark.sh`
/// at e4b644d: `SIZE=$HEAVY`, `HEAVY=$G72`, 72 GiB of 1 KiB values): `--scale paper` runs it.
pub const AUTHORS_FILLRANDOM_PUTS: u64 = 75_497_472;

/// ACC turning points swept (percent free space).
pub const TURNING_POINTS: [u32; 5] = [0, 25, 30, 50, 70];

/// One simulation of the matrix.
#[derive(Debug, Clone)]
pub struct Cell {
    /// What it measures: `scheme`, `sweep` or `ablation`.
    pub group: &'static str,
    /// Scheme name.
    pub scheme: &'static str,
    /// Which form of the policies.
    pub form: Form,
    /// Workload name.
    pub workload: String,
    /// Turning point (sweep only).
    pub turning_point: Option<u32>,
    /// ACC level constraint on (sweep only).
    pub level_constraint: Option<bool>,
    /// Ablation row (ablation only).
    pub ablation_step: Option<usize>,
    /// Seed.
    pub seed: u64,
    /// The configuration.
    pub scenario: Scenario,
}

impl Cell {
    /// What a comparison holds fixed: every coordinate of the cell but its scheme. Cells with
    /// the same coordinates are compared side by side, so they may differ only in what
    /// defines their schemes ([`fairness`]).
    pub fn coordinates(&self) -> String {
        use std::fmt::Write as _;
        let mut s = format!("{} {}", self.group, self.workload);
        if self.form == Form::Text {
            s.push_str(" text");
        }
        if let Some(i) = self.ablation_step {
            let _ = write!(s, " row{i}");
        }
        if let Some(t) = self.turning_point {
            let _ = write!(s, " tp{t}");
        }
        if let Some(l) = self.level_constraint {
            s.push_str(if l { " lc" } else { " nolc" });
        }
        let _ = write!(s, " seed{}", self.seed);
        s
    }

    /// A file stem unique among a study's cells (`--emit-scenarios`):
    /// `<study>-<group>-<scheme>-<workload>[-text][-row<i>][-tp<t>][-lc|-nolc]-seed<n>`, with
    /// anything but ASCII letters, digits, `.` and `-` as `_`.
    pub fn stem(&self, study: &str) -> String {
        let c = self.coordinates();
        let rest = c.strip_prefix(self.group).unwrap_or(&c).trim_start();
        file_stem(&format!(
            "{study}-{}-{}-{}",
            self.group,
            self.scheme,
            rest.replace(' ', "-")
        ))
    }
}

/// `name` as a file stem: anything but ASCII letters, digits, `.` and `-` as `_`.
pub(crate) fn file_stem(name: &str) -> String {
    name.chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '.' || ch == '-' {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// What of a study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent parts of a study, each on or off"
)]
pub struct Plan {
    /// Seeds; every figure is the mean over them, with its spread.
    pub seeds: Vec<u64>,
    /// Also the text forms' matrix.
    pub text_forms: bool,
    /// Also the ablation.
    pub ablation: bool,
    /// Also the ACC turning-point sweep (same-zone).
    pub sweep: bool,
    /// Only these of the study's workloads in the scheme matrix (empty: every one).
    pub workloads: Vec<String>,
    /// Also the technique-by-technique breakdown (splitzns).
    pub breakdown: bool,
    /// The keys the measured overwrites hit (splitzns).
    pub overwrite_keys: splitzns::OverwriteKeys,
    /// How the database is loaded (splitzns).
    pub load: splitzns::Load,
}

impl Plan {
    /// Everything, for one seed.
    pub fn full(seed: u64) -> Self {
        Self {
            seeds: vec![seed],
            text_forms: true,
            ablation: true,
            sweep: true,
            workloads: Vec::new(),
            breakdown: true,
            overwrite_keys: splitzns::OverwriteKeys::default(),
            load: splitzns::Load::default(),
        }
    }

    /// Whether the scheme matrix runs workload `w`.
    fn runs(&self, w: &str) -> bool {
        self.workloads.is_empty() || self.workloads.iter().any(|x| x == w)
    }
}

/// The same-zone study's base: Baseline on fillrandom at 1/64 (its `[[compare]]` variants
/// are the other schemes; the study sets them itself).
const SAME_ZONE_BASE: &str = include_str!("../../../../scenarios/same-zone.toml");

/// The OAZA study's base: LIZA on 8 KiB random writes at 1/64.
const OAZA_BASE: &str = include_str!("../../../../scenarios/oaza.toml");

const MIB: u64 = 1 << 20;

/// What every configuration of a study at `scale` shares: the seed, the device scale and the
/// engine's sizes (memtable, SST, level 1) divided with it, given in MiB at paper scale.
fn scaled(
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

/// The same-zone paper's workload `w` at `scale`.
///
/// fillrandom puts the paper's 72 GB of 16 + 1024-byte pairs (69 M puts, 1.07x the device)
/// scaled with the device, when `paper_dataset`; otherwise the 500 K puts (0.52x) the study
/// ran before the authors' set-up (uncompressed values fill the device at 1.07x). At `paper`
/// scale fillrandom is the authors' run script's own count ([`AUTHORS_FILLRANDOM_PUTS`]).
/// YCSB loads half and updates half of 500 K records at 1/64 either way (its values do not
/// compress).
fn same_zone_workload(w: &str, scale: ReproScale, paper_dataset: bool) -> Override {
    const PAPER_PUTS: u64 = 69_000_000;
    if w == "fillrandom" {
        // The base file's workload: fillrandom, 16-byte keys, 1 KiB values.
        return Override::Num(match (scale, paper_dataset) {
            (ReproScale::Paper, _) => AUTHORS_FILLRANDOM_PUTS,
            (_, false) => scale.below_paper(500_000),
            (_, true) => PAPER_PUTS / scale.div(),
        });
    }
    let puts: u64 = if scale == ReproScale::Paper {
        PAPER_PUTS
    } else {
        scale.below_paper(500_000)
    };
    let n = i64::try_from(puts / 2).unwrap_or(i64::MAX);
    let int = toml::Value::Integer;
    let ycsb: toml::Table = [
        ("recordcount", int(n)),
        ("operationcount", int(n)),
        ("readproportion", int(0)),
        ("updateproportion", int(1)),
        ("scanproportion", int(0)),
        ("insertproportion", int(0)),
        ("fieldcount", int(1)),
        ("fieldlength", int(1024)),
        ("requestdistribution", toml::Value::String(w.to_owned())),
        ("zipfianconstant", toml::Value::Float(0.99)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Override::Workload(WorkloadSection {
        kind: "ycsb".into(),
        ycsb,
        ..WorkloadSection::default()
    })
}

/// The study's base scenario at `scale` with `seed`, before set-up and policies.
fn study_base(study: Study, scale: ReproScale, seed: u64) -> Result<Scenario, HarnessError> {
    match study {
        Study::SameZone => {
            Scenario::base(SAME_ZONE_BASE)?.with(scaled(scale, seed, (64, 64, 256))?)
        }
        Study::Oaza => Scenario::base(OAZA_BASE)?.with(scaled(scale, seed, (64, 32, 256))?),
        Study::SplitZns | Study::Hhzs => Err(HarnessError::Config(
            "the splitzns and hhzs studies build their own scenarios".into(),
        )),
    }
}

/// The study's schemes and workloads.
fn matrix(study: Study) -> (&'static [Scheme], Vec<&'static str>) {
    match study {
        Study::SameZone => (&SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS.to_vec()),
        Study::Oaza => (&OAZA_MATRIX, vec![OAZA_WORKLOAD]),
        Study::SplitZns => (&[], splitzns::WORKLOADS.to_vec()),
        Study::Hhzs => (&[], hhzs::EXPERIMENTS.to_vec()),
    }
}

/// The OAZA study's one workload.
pub const OAZA_WORKLOAD: &str = "fillrandom-8k";

/// The workload override of `study`'s workload `w` (none for the base file's own).
fn workload(study: Study, w: &str, scale: ReproScale, paper_dataset: bool) -> Vec<Override> {
    match study {
        Study::SameZone => vec![same_zone_workload(w, scale, paper_dataset)],
        Study::SplitZns | Study::Hhzs => Vec::new(),
        Study::Oaza => {
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

/// The ACC turning-point sweep of the same-zone study (one seed), appended to `out`.
fn sweep_cells(
    base: &Scenario,
    setup: &[Override],
    scale: ReproScale,
    seed: u64,
    out: &mut Vec<Cell>,
) -> Result<(), HarnessError> {
    // Figures 13 and 14: A-CAZA with the turning point (the code's
    // `max_compaction_kick`) and the level constraint (`max_compaction_start_level`)
    // varied.
    let a_caza = SAME_ZONE_SCHEMES[3];
    for constraint in [false, true] {
        for tp in TURNING_POINTS {
            let scenario = base.clone().with(
                setup
                    .iter()
                    .cloned()
                    .chain(a_caza.policies(Form::Code).overrides())
                    .chain([
                        Override::engine_int("max_compaction_kick", u64::from(tp))?,
                        Override::engine_int(
                            "max_compaction_start_level",
                            if constraint { 2 } else { 0 },
                        )?,
                        same_zone_workload("fillrandom", scale, true),
                        Override::Name(format!(
                            "ACC kick={tp} {}",
                            if constraint { "L>=2" } else { "all levels" }
                        )),
                    ]),
            )?;
            out.push(Cell {
                group: "sweep",
                scheme: a_caza.name,
                form: Form::Code,
                workload: "fillrandom".into(),
                turning_point: Some(tp),
                level_constraint: Some(constraint),
                ablation_step: None,
                seed,
                scenario,
            });
        }
    }
    Ok(())
}

/// Every simulation of a study: per seed, the scheme matrix in the code's forms, then (as
/// `plan` says) in the text's forms, the ACC turning-point sweep (same-zone) and the ablation.
///
/// # Errors
/// [`HarnessError::Config`] if a derived scenario is invalid (a bug).
pub fn cells(study: Study, scale: ReproScale, plan: &Plan) -> Result<Vec<Cell>, HarnessError> {
    if study == Study::Hhzs {
        return hhzs::cells(
            scale,
            &hhzs::HhzsPlan {
                seeds: plan.seeds.clone(),
                experiments: plan.workloads.clone(),
            },
        );
    }
    if study == Study::SplitZns {
        return splitzns::cells(
            scale,
            &splitzns::SplitPlan {
                seeds: plan.seeds.clone(),
                workloads: plan.workloads.clone(),
                breakdown: plan.breakdown,
                sweeps: plan.sweep,
                overwrite_keys: plan.overwrite_keys,
                load: plan.load,
            },
        );
    }
    let mut out = Vec::new();
    let (schemes, workloads) = matrix(study);
    if let Some(w) = plan
        .workloads
        .iter()
        .find(|w| !workloads.contains(&w.as_str()))
    {
        return Err(HarnessError::Config(format!(
            "workload '{w}'; known: {}",
            workloads.join(", ")
        )));
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
        if study == Study::SameZone && plan.sweep {
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
    use crate::reproduce::seeds::assert_has;

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
        let c = cells(Study::SameZone, ReproScale::Small, &one_seed(true, false)).unwrap();
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
        let c = cells(Study::SameZone, ReproScale::Small, &one_seed(false, true)).unwrap();
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
        let c = cells(Study::Oaza, ReproScale::Small, &plan).unwrap();
        assert_eq!(c.len(), 12);
        let seeds: Vec<u64> = c.iter().map(|c| c.scenario.seed).collect();
        assert_eq!(seeds, [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn oaza_matrix_names_the_slides_schemes_and_the_band_variant() {
        let c = cells(Study::Oaza, ReproScale::Small, &one_seed(true, true)).unwrap();
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
        let j = json(Study::Oaza, ReproScale::Small, &results);
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
        let md = markdown(Study::Oaza, ReproScale::Small, &results);
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
        let md = markdown(Study::Oaza, ReproScale::Small, &results);
        assert_has(&md, "| LIZA | liza | - | - |");
        assert_has(&md, "| CAZA | caza-v1-artifact | 45.6% | 54.4% |");
        assert_has(&md, "| OAZA | oaza-spill | 24.3% | 75.7% |");
        assert_has(&md, "| OAZA-band | oaza-band | 99.5% | 0.5% |");
        assert_has(&md, "| OAZA-band | oaza-band + rocksdb | 100.0 |");
        let j = json(Study::Oaza, ReproScale::Small, &results);
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
        let md = markdown(Study::SameZone, ReproScale::Small, &results);
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
        let j = json(Study::SameZone, ReproScale::Small, &results);
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
        let md = markdown(Study::SameZone, ReproScale::Small, &one);
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
        let md = markdown(Study::Oaza, ReproScale::Small, &results);
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
