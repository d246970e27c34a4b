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
pub mod engine;
pub mod fairness;
pub mod figures;
pub mod forms;
pub mod hhzs;
mod matrix;
pub mod oaza;
pub mod plots;
pub mod report;
pub mod run;
pub mod same_zone;
pub mod seeds;
pub mod splitzns;
pub mod study;
pub mod znsplus;

pub use figures::{CellResult, Figures};
pub use forms::{
    Form, OAZA_BAND, OAZA_MATRIX, OAZA_SCHEMES, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS, Scheme,
};
pub use oaza::OAZA_WORKLOAD;
pub use report::{json, markdown};
pub use run::{Request, StudyOutput};
pub use same_zone::{AUTHORS_FILLRANDOM_PUTS, TURNING_POINTS};
pub use study::{Planned, Ran, Registered, Registry, Study};

use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StudyId {
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
    /// `1/N` of the papers' sizes and datasets, `N` a power of two from 2 to 128: sizes
    /// between `small` and `paper` for the HHZS and same-zone studies, "the largest size this
    /// machine holds" where the paper's is out of reach. The other studies refuse it
    /// ([`cells`]).
    Fraction(u32),
}

/// The divisors `--scale 1/N` accepts.
const FRACTIONS: [(u32, &str); 7] = [
    (2, "1/2"),
    (4, "1/4"),
    (8, "1/8"),
    (16, "1/16"),
    (32, "1/32"),
    (64, "1/64"),
    (128, "1/128"),
];

impl ReproScale {
    /// From `small`, `paper`, `tiny` or `1/N` (`N` one of 2, 4, ... 128).
    ///
    /// # Errors
    /// [`HarnessError::Config`] for anything else.
    pub fn parse(s: &str) -> Result<Self, HarnessError> {
        match s {
            "small" => Ok(Self::Small),
            "paper" => Ok(Self::Paper),
            "tiny" => Ok(Self::Tiny),
            other => FRACTIONS
                .iter()
                .find(|(_, name)| *name == other)
                .map(|&(n, _)| Self::Fraction(n))
                .ok_or_else(|| {
                    HarnessError::unknown(
                        "--scale",
                        other,
                        ["small", "paper", "tiny"]
                            .into_iter()
                            .chain(FRACTIONS.iter().map(|&(_, name)| name)),
                    )
                }),
        }
    }

    /// `small`, `paper`, `tiny` or `1/N`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Small => "small",
            Self::Paper => "paper",
            Self::Tiny => "tiny",
            Self::Fraction(n) => FRACTIONS
                .iter()
                .find(|&&(m, _)| m == n)
                .map_or("1/?", |&(_, name)| name),
        }
    }

    /// `Ok` unless this is a `1/N` scale, which only the hhzs and same-zone studies take.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the scale.
    pub(crate) fn no_fraction(self) -> Result<(), HarnessError> {
        match self {
            Self::Fraction(_) => Err(HarnessError::config(
                "--scale",
                format!(
                    "{}: only hhzs and same-zone take a 1/N scale; this study runs small, paper or tiny",
                    self.name()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Divisor of sizes and counts.
    pub fn div(self) -> u64 {
        match self {
            Self::Small => 64,
            Self::Paper => 1,
            Self::Tiny => 1024,
            Self::Fraction(n) => u64::from(n),
        }
    }

    /// A dataset of `n_small` operations at `small` scale, at this scale (below `paper`,
    /// datasets shrink with the device).
    pub(crate) fn below_paper(self, n_small: u64) -> u64 {
        n_small * Self::Small.div() / self.div()
    }
}

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

/// A `--workloads` entry not among the study's `known` workloads.
pub(crate) fn unknown_workload(w: &str, known: &[&str]) -> HarnessError {
    HarnessError::unknown("--workloads", w, known)
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
    pub(crate) fn runs(&self, w: &str) -> bool {
        self.workloads.is_empty() || self.workloads.iter().any(|x| x == w)
    }
}

/// Every simulation of a study: per seed, the scheme matrix in the code's forms, then (as
/// `plan` says) in the text's forms, the ACC turning-point sweep (same-zone) and the ablation.
///
/// # Errors
/// [`HarnessError::Config`] if a derived scenario is invalid (a bug).
pub fn cells(study: StudyId, scale: ReproScale, plan: &Plan) -> Result<Vec<Cell>, HarnessError> {
    if !matches!(study, StudyId::Hhzs | StudyId::SameZone) {
        scale.no_fraction()?;
    }
    if study == StudyId::Hhzs {
        return hhzs::cells(
            scale,
            &hhzs::HhzsPlan {
                seeds: plan.seeds.clone(),
                experiments: plan.workloads.clone(),
            },
        );
    }
    if study == StudyId::SplitZns {
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
    matrix::cells(study, scale, plan)
}
