//! A study as a trait, its stages in order: plan cells -> run -> figures -> claims -> report
//! ([`Study`]); and the registry of studies by name ([`Registry`]), where the command line
//! and the Python package look a study up once. [`super::run`] drives the stages.
//!
//! A new study is one file (a type implementing [`Study`], or for an engine study
//! [`super::engine::EngineStudy`]) plus one line in
//! [`Registry::builtin`] (or [`Registry::add`] outside the crate; see the toy study in
//! `crates/harness/tests/it/toy_study_runs_through_the_registry.rs`).

use std::path::Path;

use super::ReproScale;
use super::claims::Spec;
use super::run::{Context, Request, StudyOutput};
use super::seeds::Seeded;
use crate::runner::{Host, LabError};

/// The cells a study will run, with what they were planned for.
#[derive(Debug)]
pub struct Planned<C> {
    /// The scale the cells are at.
    pub scale: ReproScale,
    /// The seeds (`--seed`, `--seeds`).
    pub seeds: Vec<u64>,
    /// Every cell, in the study's order.
    pub cells: Vec<C>,
}

/// What running a study's cells gave.
#[derive(Debug)]
pub struct Ran<R> {
    /// One result per cell, in the cells' order.
    pub results: Vec<R>,
    /// Operations simulated (`None`: not counted).
    pub sim_ops: Option<u64>,
    /// Runs whose failure voids the study (a failed invariant check), named; the report is
    /// written, then the study fails.
    pub void: Vec<String>,
}

/// One of the papers' studies: its cells, how they run, what is measured of each, the
/// headline claims judged from the results, and the report.
pub trait Study: Sync {
    /// One simulation (or several kinds of them: an enum).
    type Cell: Sync;
    /// One cell's result: its coordinates and its figures (or why it has none).
    type Result: Seeded;

    /// The name on the command line (`zonedb reproduce <name>`).
    fn name(&self) -> &'static str;

    /// One line on what it reproduces (the command line's help lists it by the name).
    fn about(&self) -> &'static str;

    /// What the plan line calls the cells (`configurations`).
    fn cells_word(&self) -> &'static str {
        "configurations"
    }

    /// Plan: the cells `req` asks for (arguments the study does not take are refused here).
    ///
    /// # Errors
    /// [`LabError::Usage`] for bad arguments.
    fn plan(&self, req: &Request) -> Result<Planned<Self::Cell>, LabError>;

    /// `--emit-scenarios DIR`: the cells written as scenario files instead of run.
    ///
    /// # Errors
    /// [`LabError::Usage`] when the study has no scenarios to write, or they cannot be.
    fn emit(&self, cells: &[Self::Cell], dir: &Path) -> Result<StudyOutput, LabError> {
        let _ = (cells, dir);
        Err(LabError::Usage(format!(
            "--emit-scenarios: the {} study takes none",
            self.name()
        )))
    }

    /// Run: every cell's result (the figures measured of it), as `ctx` says (jobs, the cells
    /// cache, Ray).
    ///
    /// # Errors
    /// [`LabError::Failed`] when runs failed their invariant checks and nothing is reported;
    /// [`LabError::Usage`] when the runs cannot be started.
    fn run(
        &self,
        planned: &Planned<Self::Cell>,
        ctx: &Context<'_>,
    ) -> Result<Ran<Self::Result>, LabError>;

    /// Figures: the study's JSON, without its claims.
    fn figures(&self, scale: ReproScale, results: &[Self::Result]) -> serde_json::Value;

    /// Claims: the headline claims, each with how ours is computed from one seed's results.
    fn claims(&self, results: &[Self::Result]) -> Vec<Spec<Self::Result>>;

    /// Report: the Markdown beside the papers' figures.
    fn report(&self, scale: ReproScale, results: &[Self::Result]) -> String;

    /// Plots: the report's figures drawn into `dir` from the study's JSON (none by default).
    ///
    /// # Errors
    /// [`LabError::Usage`] when a figure cannot be drawn or written.
    fn draw(&self, dir: &Path, json: &serde_json::Value) -> Result<(), LabError> {
        let _ = (dir, json);
        Ok(())
    }

    /// What the report says of the arguments (options set in every cell, a study's own
    /// flags), added to its JSON and Markdown.
    ///
    /// # Errors
    /// [`LabError`] when an argument does not read (it was read when planning).
    fn annotate(
        &self,
        req: &Request,
        json: &mut serde_json::Value,
        markdown: &mut String,
    ) -> Result<(), LabError> {
        let _ = (req, json, markdown);
        Ok(())
    }
}

/// A study as the registry holds it: by name, run whole.
pub trait Registered: Sync {
    /// The name on the command line.
    fn name(&self) -> &'static str;

    /// One line on what it reproduces.
    fn about(&self) -> &'static str;

    /// Runs the study as `req` says and writes its report ([`super::run::reproduce`]).
    ///
    /// # Errors
    /// As [`super::run::reproduce`].
    fn reproduce(&self, req: &Request, host: &dyn Host) -> Result<StudyOutput, LabError>;
}

impl<S: Study> Registered for S {
    fn name(&self) -> &'static str {
        Study::name(self)
    }

    fn about(&self) -> &'static str {
        Study::about(self)
    }

    fn reproduce(&self, req: &Request, host: &dyn Host) -> Result<StudyOutput, LabError> {
        super::run::reproduce(self, req, host)
    }
}

/// The studies by name.
#[derive(Clone)]
pub struct Registry {
    studies: Vec<&'static dyn Registered>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// The five papers' studies.
    pub fn builtin() -> Self {
        Self {
            studies: vec![
                &super::same_zone::SameZone,
                &super::oaza::Oaza,
                &super::splitzns::SplitZns,
                &super::hhzs::Hhzs,
                &super::znsplus::ZnsPlus,
            ],
        }
    }

    /// Adds `study` (a study defined outside the crate).
    pub fn add(&mut self, study: &'static dyn Registered) -> &mut Self {
        self.studies.push(study);
        self
    }

    /// The studies, in order.
    pub fn studies(&self) -> &[&'static dyn Registered] {
        &self.studies
    }

    /// The studies' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.studies.iter().map(|s| s.name()).collect()
    }

    /// The study called `name`.
    pub fn get(&self, name: &str) -> Option<&'static dyn Registered> {
        self.studies.iter().copied().find(|s| s.name() == name)
    }

    /// Runs the study `req.study` names ([`Registered::reproduce`]).
    ///
    /// # Errors
    /// [`LabError::Usage`] for a name not registered; as [`Registered::reproduce`].
    pub fn reproduce(&self, req: &Request, host: &dyn Host) -> Result<StudyOutput, LabError> {
        let study = self.get(&req.study).ok_or_else(|| {
            LabError::Usage(format!(
                "study '{}'; known: {}",
                req.study,
                self.names().join(", ")
            ))
        })?;
        study.reproduce(req, host)
    }
}
