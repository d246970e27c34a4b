//! The lab as functions that return values instead of printing: one scenario run
//! ([`run_text`]), a `reproduce` study ([`reproduce`]) and a sweep's local runner
//! ([`crate::cli::sweep`]). The CLI prints what they return; the Python package
//! (`crates/python`) hands it to Python. Both give the same JSON for the same scenario and
//! seed (all but `"host"`, the wall clock's part).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Parser;
use zonedb_harness::db_bench::ProgressCounter;
use zonedb_harness::experiment::RunReport;
use zonedb_harness::scenario::Scenario;

use crate::cli::CliError;
use crate::cli::compare::{apply, run_all_counted, summary};
use crate::cli::reproduce::{ReproduceArgs, StudyOutput, study};
use crate::cli::run_flags::RunFlags;
use crate::host::Stopwatch;

/// How far a run is: operations simulated of the total planned (the total is known once the
/// run starts). Shared with whoever shows it (a progress bar in Python).
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Operations simulated so far.
    pub done: ProgressCounter,
    total: Arc<AtomicU64>,
}

impl Progress {
    /// Operations planned (0 until the run starts).
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Sets the operations planned.
    pub fn set_total(&self, n: u64) {
        self.total.store(n, Ordering::Relaxed);
    }
}

/// One scenario's run: the JSON `zonedb run --json` prints, and the run's whole report (time
/// series, latency histograms, counters).
#[derive(Debug)]
pub struct RunOutput {
    /// `{"configurations": [...], "host": {...}}`.
    pub json: serde_json::Value,
    /// Everything the run produced.
    pub report: RunReport,
}

/// Runs the scenario file's own configuration (its `[[compare]]` variants are ignored) as
/// `zonedb run` does, with `flags`; `progress`, when given, follows it (and no progress line
/// is drawn on stderr).
///
/// # Errors
/// [`CliError::Usage`] for a bad scenario; [`CliError::Run`] for a run that failed (a full
/// device), with the harness's error; [`CliError::Failed`] if its invariant checks failed.
pub fn run_text(
    text: &str,
    flags: &RunFlags,
    progress: Option<&Progress>,
) -> Result<RunOutput, CliError> {
    let mut configs = Scenario::configurations(text).map_err(|e| CliError::Usage(e.to_string()))?;
    configs.truncate(1);
    apply(flags, &mut configs);
    let wall = Stopwatch::start();
    let own = Progress::default();
    let (p, display) = match progress {
        Some(p) => (p, crate::progress::Display::off()),
        None => (&own, flags.display()),
    };
    let report = run_all_counted(&configs, 1, display, p, progress.is_none(), &|_, _| {})?
        .pop()
        .ok_or_else(|| CliError::Usage("empty scenario".into()))?
        .map_err(CliError::Run)?;
    let json = summary(std::slice::from_ref(&report), wall.elapsed_ns());
    Ok(RunOutput { json, report })
}

/// `zonedb reproduce` with `args` after the subcommand (`["znsplus", "--scale", "tiny"]`).
#[derive(Debug, Parser)]
#[command(name = "zonedb reproduce")]
struct ReproduceCommand {
    #[command(flatten)]
    args: ReproduceArgs,
}

/// Runs a study as `zonedb reproduce ARGS...` does (report written to its `--out`), and
/// returns its JSON and Markdown.
///
/// # Errors
/// [`CliError::Usage`] for bad arguments (clap's message); as `zonedb reproduce`.
pub fn reproduce<I: IntoIterator<Item = String>>(args: I) -> Result<StudyOutput, CliError> {
    let cmd = ReproduceCommand::try_parse_from(std::iter::once("reproduce".to_owned()).chain(args))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    study(&cmd.args)
}

/// Runs one cell that `zonedb reproduce --ray` wrote (the text of `cells/pending/<stem>.json`:
/// `stem`, `key`, `scenario`, `measured`) and returns the text of the stored cell
/// (`cells/<stem>.json`) that a local run would have written. A Ray task of the Python
/// package runs this.
///
/// # Errors
/// [`CliError::Usage`] for a job that does not read; [`CliError::Failed`] when the run failed
/// its invariant checks (such a run voids the study and is never stored).
pub fn study_cell(job: &str) -> Result<String, CliError> {
    let bad = |e: String| CliError::Usage(format!("study cell: {e}"));
    let j: serde_json::Value = serde_json::from_str(job).map_err(|e| bad(e.to_string()))?;
    let field = |k: &str| j[k].as_str().ok_or_else(|| bad(format!("no string `{k}`")));
    let scenario = Scenario::configurations(field("scenario")?)
        .map_err(|e| bad(e.to_string()))?
        .into_iter()
        .next()
        .ok_or_else(|| bad("an empty scenario".into()))?;
    let measured = j["measured"]
        .as_bool()
        .ok_or_else(|| bad("no boolean `measured`".into()))?;
    zonedb_harness::reproduce::cache::run_cell(&scenario, field("key")?, measured).map_err(|e| {
        match e {
            zonedb_harness::db_bench::HarnessError::Invariant(_) => {
                CliError::Failed(format!("{}: {e}", scenario.name))
            }
            e => CliError::Usage(e.to_string()),
        }
    })
}
