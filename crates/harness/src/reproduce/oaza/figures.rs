//! What is measured per cell (the whole run's figures, [`crate::reproduce::Figures::of`]: the matrix runs one
//! workload per cell), and the OAZA study's JSON: one object per scheme in each form, the
//! sweep and the ablation (the forms matrix's JSON).

use super::{CellResult, ReproScale, StudyId, matrix_json};

/// Whether a cell's figures are its measured phase's ([`crate::reproduce::Figures::with_measured`]) rather
/// than the whole run's.
pub(crate) const MEASURED: bool = false;

/// The study's JSON, without its claims.
pub fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
    matrix_json(StudyId::Oaza, scale, results)
}
