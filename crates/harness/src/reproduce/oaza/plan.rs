//! The OAZA study's plan: its base scenario and its one workload; the scheme matrix and the
//! ablation are the shared forms matrix (`reproduce/matrix.rs`).

/// The OAZA study's base: LIZA on 8 KiB random writes at 1/64.
pub(crate) const OAZA_BASE: &str = include_str!("../../../../../scenarios/oaza.toml");

/// The OAZA study's one workload.
pub const OAZA_WORKLOAD: &str = "fillrandom-8k";
