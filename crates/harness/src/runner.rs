//! Runs simulations in parallel on host threads: `zonedb compare`, `zonedb run` and every
//! `reproduce` study go through [`run_all_counted`]. Each simulation stays a pure function of
//! its scenario; the host's side (its wall clock, the progress line, the JSON's `"host"`
//! object) comes from a [`Host`] the caller provides, so the harness reads no OS clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::db_bench::{HarnessError, ProgressCounter};
use crate::experiment::{self, RunReport};
use crate::scenario::Scenario;

/// Errors of the lab's entry points (a study, a set of runs): what the command line reports
/// as bad arguments (exit status 2) or as a failed check (exit status 1).
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// Bad arguments, or a report that cannot be written.
    #[error("{0}")]
    Usage(String),
    /// A check failed (runs whose invariant checks failed).
    #[error("{0}")]
    Failed(String),
    /// From the harness, with its source chain.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// JSON output failed.
    #[error("output: {0}")]
    Output(#[from] serde_json::Error),
}

/// The host's side of a run: its wall clock, how progress is shown, and what the JSON's
/// `"host"` object holds. The binary provides it.
pub trait Host: Sync {
    /// Wall time, ns, since some fixed point of the host (differences are what count).
    fn wall_ns(&self) -> u64;
    /// Shows progress of `total` operations that `counter` counts, under `label`, until the
    /// returned guard is dropped (nothing shown: any guard).
    fn show_progress(
        &self,
        label: &str,
        total: u64,
        counter: &ProgressCounter,
    ) -> Box<dyn std::any::Any>;
    /// The `"host"` object of a JSON: `wall_ns` of wall time, `sim_ops` operations simulated
    /// (`None`: not counted).
    fn json(&self, wall_ns: u64, sim_ops: Option<u64>) -> serde_json::Value;
}

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

/// Why a configuration's run failed.
#[derive(Debug)]
pub struct RunFailure {
    /// `<configuration name>: <error>` (or what happened to the thread).
    pub message: String,
    /// The harness's error (`None`: the simulation thread panicked, or the run never ran).
    pub error: Option<HarnessError>,
    /// Whether the failure voids the study (a failed invariant check, a panic).
    void: bool,
}

impl RunFailure {
    /// Whether the failure voids the study (a failed invariant check, a panic): such a run
    /// is never kept as a result.
    pub fn voids(&self) -> bool {
        self.void
    }
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A run's report, or why it failed.
pub type Outcome = Result<RunReport, RunFailure>;

/// Runs the configurations, `jobs` at a time, advancing `progress` (operations simulated)
/// and showing it as `host` does; a configuration that fails (a full device, say) is reported,
/// not fatal. `each(i, outcome)` is called on the worker's thread as configuration `i` ends (a
/// study stores its cells so); with `lines`, a line with the time left is printed on stderr as
/// each ends. A run whose end-of-run invariant check failed (fsck, scan, sampled reads) voids
/// the whole set: nothing is returned but the failures.
///
/// # Errors
/// [`LabError::Failed`] naming every run whose invariant check failed.
pub fn run_all_counted(
    configs: &[Scenario],
    jobs: usize,
    host: &dyn Host,
    progress: &Progress,
    lines: bool,
    each: &(dyn Fn(usize, &Outcome) + Sync),
) -> Result<Vec<Outcome>, LabError> {
    let start = host.wall_ns();
    let total = configs
        .iter()
        .map(|s| experiment::planned_ops(s).unwrap_or(0))
        .sum();
    progress.set_total(total);
    let bar = host.show_progress("simulated", total, &progress.done);
    let slots: Vec<std::sync::Mutex<Option<Outcome>>> = (0..configs.len())
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    // Host parallelism across independent simulations, `jobs` workers taking the next
    // configuration as they finish one; each stays a pure function of its scenario.
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(configs.len().max(1)) {
            sc.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(s) = configs.get(i) else { break };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        experiment::run_with_progress(s, &progress.done).map_err(|e| RunFailure {
                            message: format!("{}: {e}", s.name),
                            void: matches!(e, HarnessError::Invariant(_)),
                            error: Some(e),
                        })
                    }))
                    .unwrap_or_else(|_| {
                        Err(RunFailure {
                            message: "simulation thread panicked".into(),
                            error: None,
                            void: true,
                        })
                    });
                    each(i, &r);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                    // Progress with an estimate of the time left (on stderr), unless the
                    // caller follows `progress` itself.
                    let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if lines {
                        eprintln!("{}", done_line(host, start, d, configs.len()));
                    }
                }
            });
        }
    });
    drop(bar);
    let out: Vec<Outcome> = slots
        .into_iter()
        .map(|m| {
            m.into_inner().ok().flatten().unwrap_or_else(|| {
                Err(RunFailure {
                    message: "not run".into(),
                    error: None,
                    void: false,
                })
            })
        })
        .collect();
    let void: Vec<&str> = out
        .iter()
        .filter_map(|r| match r {
            Err(f) if f.void => Some(f.message.as_str()),
            _ => None,
        })
        .collect();
    if !void.is_empty() {
        return Err(LabError::Failed(format!(
            "{} of {} runs failed their invariant checks; no figures are reported:\n{}",
            void.len(),
            out.len(),
            void.join("\n")
        )));
    }
    Ok(out)
}

/// Runs the Python package's command line, `python -m zonedb ARGS` (`python`: `ZONEDB_PYTHON`,
/// else `python3`), as `--ray` does for `zonedb reproduce` and `zonedb sweep`, and waits for
/// it. Returns the interpreter's name (for messages) and its exit status.
///
/// # Errors
/// [`LabError::Usage`] when the interpreter cannot be started.
pub fn python_zonedb<I, S>(args: I) -> Result<(String, std::process::ExitStatus), LabError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let python = std::env::var("ZONEDB_PYTHON").unwrap_or_else(|_| "python3".into());
    let status = std::process::Command::new(&python)
        .args(["-m", "zonedb"])
        .args(args)
        .status()
        .map_err(|e| {
            LabError::Usage(format!(
                "--ray needs the Python package (pip install the wheel: see the README) and {python}: {e}"
            ))
        })?;
    Ok((python, status))
}

/// `[d/total] configurations done, ... s elapsed, about ... s left`, since `start` (the
/// host's wall time when the runs began).
pub fn done_line(host: &dyn Host, start: u64, d: usize, total: usize) -> String {
    let spent = host.wall_ns().saturating_sub(start) as f64 / 1e9;
    let left = spent / d as f64 * (total - d) as f64;
    format!("[{d}/{total}] configurations done, {spent:.1} s elapsed, about {left:.0} s left")
}
