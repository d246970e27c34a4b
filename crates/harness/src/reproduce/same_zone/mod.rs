//! The Same-Zone Compaction paper's study (`zonedb reproduce same-zone`, §VII): Baseline,
//! A-LIZA, CAZA and A-CAZA on db_bench fillrandom and YCSB zipfian / latest / uniform (16 B
//! keys in db_bench, 1 KiB values) on `caza-paper`, in the code's and the text's forms
//! (the shared forms matrix, `reproduce/matrix.rs`); then ACC's turning-point sweep (0, 25,
//! 30, 50, 70) with and without the level constraint, on fillrandom with A-CAZA in the
//! code's form (the paper sweeps with CAZA placement); and the ablation.
//!
//! - `plan` — the base scenario, the workloads, the sweep's cells;
//! - `figures` — what is measured per cell and the JSON;
//! - `claims` — the paper's headline claims;
//! - `report` — the Markdown.

mod claims;
pub(crate) mod draw;
mod figures;
mod paper;
mod plan;
mod report;

pub use claims::*;
pub use figures::*;
pub use plan::*;
pub use report::*;

use std::fmt::Write as _;

use super::claims::{Judge, Spec, Unit, ValueFn};
use super::engine::EngineStudy;
use super::figures::{CellResult, Figures};
use super::forms::{Form, SAME_ZONE_SCHEMES, SAME_ZONE_WORKLOADS};
use super::report::{
    Key, ablation_table, change, error, get, has_form, matrix_json, mib, scheme_table, seeds_line,
};
use super::seeds::BySeed;
use super::{Cell, ReproScale, StudyId};
use crate::db_bench::HarnessError;
use crate::scenario::{Override, Scenario, WorkloadSection};

/// The same-zone study.
#[derive(Debug, Clone, Copy)]
pub struct SameZone;

impl EngineStudy for SameZone {
    const NAME: &'static str = "same-zone";
    const ABOUT: &'static str =
        "Same-Zone Compaction: Baseline, A-LIZA, CAZA, A-CAZA; the ACC turning-point sweep";
    const ID: StudyId = StudyId::SameZone;
    const MEASURED: bool = figures::MEASURED;

    fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
        figures::json(scale, results)
    }

    fn claim_specs() -> Vec<Spec<CellResult>> {
        claims::claim_specs()
    }

    fn markdown(scale: ReproScale, results: &[CellResult]) -> String {
        report::markdown(scale, results)
    }
}
