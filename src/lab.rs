//! The lab as functions that return values instead of printing: one scenario run
//! ([`run_text`]), a `reproduce` study ([`reproduce`]) and a sweep's local runner
//! ([`crate::cli::sweep`]). The CLI prints what they return; the Python package
//! (`crates/python`) hands it to Python. Both give the same JSON for the same scenario and
//! seed (all but `"host"`, the wall clock's part).

use clap::Parser;
use zonedb_harness::experiment::RunReport;
use zonedb_harness::reproduce::Registry;
use zonedb_harness::runner::run_all_counted;
use zonedb_harness::scenario::Scenario;

pub use zonedb_harness::reproduce::StudyOutput;
pub use zonedb_harness::runner::Progress;

use crate::cli::CliError;
use crate::cli::compare::{apply, summary};
use crate::cli::reproduce::ReproduceArgs;
use crate::cli::run_flags::RunFlags;
use crate::host::Stopwatch;

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
    let host = crate::host::Host::new(display);
    let report = run_all_counted(&configs, 1, &host, p, progress.is_none(), &|_, _| {})?
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
    let host = crate::host::Host::new(cmd.args.run.display());
    Ok(Registry::builtin().reproduce(&cmd.args.request(), &host)?)
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
    Ok(zonedb_harness::reproduce::engine::study_cell(job)?)
}
