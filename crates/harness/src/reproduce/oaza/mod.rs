//! The OAZA slides' study (`zonedb reproduce oaza`): LIZA, CAZA and OAZA on random writes of
//! 8 KiB values with 32 MiB SSTs on `oaza-paper`, and beside them OAZA-band (`oaza-band`: a
//! fresh zone per overlap-ratio band where OAZA falls back to LIZA), in the code's and the
//! text's forms (the shared forms matrix, `reproduce/matrix.rs`), and the ablation.
//!
//! - `plan` — the base scenario and the workload;
//! - `figures` — what is measured per cell and the JSON;
//! - `claims` — the slides' headline claims;
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
use super::forms::{Form, OAZA_MATRIX};
use super::report::{
    Key, ablation_table, change, get, has_form, matrix_json, scheme_table, seeds_line,
};
use super::seeds::BySeed;
use super::{ReproScale, StudyId};

/// The oaza study.
#[derive(Debug, Clone, Copy)]
pub struct Oaza;

impl EngineStudy for Oaza {
    const NAME: &'static str = "oaza";
    const ABOUT: &'static str = "OAZA vs LIZA and CAZA";
    const ID: StudyId = StudyId::Oaza;
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
