//! The lab in Python: one scenario's run (the JSON `zonedb run --json` prints, plus its time
//! series and latency percentiles), a `reproduce` study, and a sweep's results directory.
//! Simulations run with the GIL released; a progress callback, when given, is called from a
//! host thread about four times a second with `(done, total)` operations.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::prelude::*;
use zonedb::cli::CliError;
use zonedb::cli::run_flags::RunFlags;
use zonedb::lab::{self, Progress};
use zonedb_harness::experiment::RunReport;
use zonedb_harness::sweep::SweepSpec;
use zonedb_harness::sweep::dir::SweepDir as Dir;

use crate::errors;

/// Calls `callback(done, total)` every 250 ms until `stop`, then once more.
fn follow(progress: &Progress, callback: &Py<PyAny>, stop: &AtomicBool) {
    let call = || {
        Python::attach(|py| {
            // A failing progress callback must not fail the run.
            let _ = callback.call1(py, (progress.done.get(), progress.total()));
        });
    };
    while !stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(Duration::from_millis(250));
        call();
    }
    call();
}

/// Runs `work` with the GIL released while a host thread reports `progress` to `callback`.
fn with_progress<T: Send>(
    py: Python<'_>,
    progress: &Progress,
    callback: Option<Py<PyAny>>,
    work: impl FnOnce() -> T + Send,
) -> T {
    let stop = AtomicBool::new(false);
    py.detach(|| {
        std::thread::scope(|sc| {
            let watcher = callback.map(|cb| {
                let stop = &stop;
                sc.spawn(move || follow(progress, &cb, stop))
            });
            let out = work();
            stop.store(true, Ordering::Relaxed);
            if let Some(w) = watcher {
                w.thread().unpark();
                let _ = w.join();
            }
            out
        })
    })
}

/// The scenario text with `name = default_name` when it has no name (the harness requires
/// one); unchanged otherwise (or when it is not TOML: the harness says what is wrong).
fn with_name(text: &str, default_name: &str) -> String {
    match toml::from_str::<toml::Table>(text) {
        Ok(mut t) if !t.contains_key("name") => {
            t.insert("name".into(), default_name.into());
            toml::to_string(&t).unwrap_or_else(|_| text.to_owned())
        }
        _ => text.to_owned(),
    }
}

/// The columns of `RunResult.series`, as the report's `series-N.csv` names them, then
/// `phase` (the benchmark or YCSB phase running at the sample).
pub const SERIES_COLUMNS: [&str; 10] = [
    "t_s",
    "ops",
    "ops_per_s",
    "user_bytes",
    "device_bytes",
    "gc_copied_bytes",
    "free_bytes",
    "stall_ns",
    "level_bytes",
    "phase",
];

/// The time series as rows of [`SERIES_COLUMNS`], in the report CSV's units: seconds of
/// virtual time, operations per second since the previous sample (0 at the first), the
/// bytes per level `;`-joined; and the phase of each sample: the last benchmark begun at or
/// before it (empty before the first).
fn series_rows(report: &RunReport) -> Vec<serde_json::Value> {
    let begins: Vec<(u64, &str)> = report
        .phase_marks
        .iter()
        .zip(&report.benchmarks)
        .map(|((begin, _), b)| (begin.t_ns, b.name.as_str()))
        .collect();
    let mut prev: Option<&zonedb_harness::experiment::Sample> = None;
    report
        .series
        .iter()
        .map(|x| {
            let rate = prev.map_or(0.0, |p| {
                let dt = x.t_ns.saturating_sub(p.t_ns) as f64 / 1e9;
                if dt > 0.0 {
                    x.ops.saturating_sub(p.ops) as f64 / dt
                } else {
                    0.0
                }
            });
            prev = Some(x);
            let levels: Vec<String> = x.level_bytes.iter().map(u64::to_string).collect();
            let phase = begins
                .iter()
                .rev()
                .find(|(t, _)| *t <= x.t_ns)
                .map_or("", |(_, n)| n);
            serde_json::json!([
                x.t_ns as f64 / 1e9,
                x.ops,
                rate,
                x.user_bytes,
                x.device_bytes,
                x.gc_copied_bytes,
                x.free_bytes,
                x.stall_ns,
                levels.join(";"),
                phase,
            ])
        })
        .collect()
}

/// The columns of `RunResult.latency`: the benchmark, then the histogram's summary with
/// its percentiles in numeric order (µs of virtual time).
pub const LATENCY_COLUMNS: [&str; 9] = [
    "benchmark",
    "count",
    "avg_us",
    "p50_us",
    "p75_us",
    "p99_us",
    "p999_us",
    "p9999_us",
    "max_us",
];

/// Runs one scenario (TOML text; `name = default_name` when it has none) as `zonedb run`
/// does: returns `(json, series, latency)` as JSON texts: the CLI's `zonedb run --json`
/// output, the time series (rows of `SERIES_COLUMNS`) and each benchmark's latency summary
/// (rows of `LATENCY_COLUMNS`). Nothing is printed: progress goes to `progress(done,
/// total)` when given.
#[pyfunction]
#[pyo3(signature = (scenario, elide_values=true, parallel_compute=true, progress=None, default_name="scenario"))]
pub fn run_scenario(
    py: Python<'_>,
    scenario: &str,
    elide_values: bool,
    parallel_compute: bool,
    progress: Option<Py<PyAny>>,
    default_name: &str,
) -> PyResult<(String, String, String)> {
    let text = with_name(scenario, default_name);
    let flags = RunFlags {
        elide_values,
        parallel_compute,
        progress: false,
    };
    let p = Progress::default();
    // `lab::run_text` follows `p` and prints nothing.
    let out = with_progress(py, &p, progress, || lab::run_text(&text, &flags, Some(&p)))
        .map_err(errors::cli)?;
    let (json, report) = (out.json, out.report);
    let latency: Vec<serde_json::Value> = report
        .benchmarks
        .iter()
        .map(|b| {
            let l = &b.latency;
            serde_json::json!([
                b.name, l.count, l.avg_us, l.p50_us, l.p75_us, l.p99_us, l.p999_us, l.p9999_us,
                l.max_us
            ])
        })
        .collect();
    Ok((
        to_json(&json)?,
        to_json(&series_rows(&report))?,
        to_json(&latency)?,
    ))
}

/// The column names of `run_scenario`'s series and latency rows.
#[pyfunction]
pub fn result_columns() -> (Vec<&'static str>, Vec<&'static str>) {
    (SERIES_COLUMNS.to_vec(), LATENCY_COLUMNS.to_vec())
}

/// Runs the `zonedb` command line in this process (what the `zonedb` console command of
/// the wheel calls): `argv` as `sys.argv` (the program name first); returns the exit
/// status. `--help`, `--version` and usage errors print as the binary's do.
#[pyfunction]
pub fn cli_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    use clap::Parser;
    let argv = zonedb::cli::flag_style::normalize(argv.into_iter().map(Into::into).collect());
    let cli = match zonedb::cli::Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    py.detach(|| match zonedb::cli::run(cli) {
        Ok(code) => (0..=255u8)
            .find(|n| std::process::ExitCode::from(*n) == code)
            .map_or(1, i32::from),
        Err(e @ CliError::Failed(_)) => {
            eprintln!("zonedb: FAILED: {e}");
            1
        }
        Err(e) => {
            eprintln!("zonedb: error: {e}");
            2
        }
    })
}

/// `v` as JSON text.
fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| errors::invalid(e.to_string()))
}

/// Runs `zonedb reproduce ARGS...`: returns `(json, markdown, report path, any finished)`.
#[pyfunction]
pub fn reproduce(py: Python<'_>, args: Vec<String>) -> PyResult<(String, String, String, bool)> {
    let out = py.detach(|| lab::reproduce(args)).map_err(errors::cli)?;
    let json = serde_json::to_string(&out.json).map_err(|e| errors::invalid(e.to_string()))?;
    Ok((
        json,
        out.markdown,
        out.report.display().to_string(),
        out.any_finished,
    ))
}

/// Runs one cell of `zonedb reproduce --ray` (the text of its `cells/pending/<stem>.json`)
/// and returns the text of its stored cell (`cells/<stem>.json`); raises when the run failed
/// its invariant checks.
#[pyfunction]
pub fn study_cell(py: Python<'_>, job: &str) -> PyResult<String> {
    py.detach(|| lab::study_cell(job)).map_err(errors::cli)
}

/// A JSON object (text) as TOML text: how a Python dict becomes a scenario or sweep file.
#[pyfunction]
pub fn toml_of_json(json: &str) -> PyResult<String> {
    let v: toml::Value =
        serde_json::from_str(json).map_err(|e| errors::invalid(format!("not TOML-able: {e}")))?;
    match v {
        toml::Value::Table(t) => toml::to_string(&t).map_err(|e| errors::invalid(e.to_string())),
        _ => Err(errors::invalid("a scenario or sweep is a dict".into())),
    }
}

/// What `SweepDir.finish` returns: the summary's JSON, its Markdown, failed runs with why.
type Finished = (String, String, Vec<(String, String)>);

/// A sweep's results directory (`zonedb_harness::sweep::dir`).
#[pyclass(module = "zonedb._native")]
#[derive(Debug)]
pub struct SweepDir {
    dir: Dir,
}

#[pymethods]
impl SweepDir {
    /// Opens `out` (None: `zonedb-report/sweep-<name>`) for the sweep file text `text`
    /// whose relative paths are read from `base_dir`.
    #[new]
    #[pyo3(signature = (text, base_dir, out=None))]
    fn new(text: &str, base_dir: PathBuf, out: Option<PathBuf>) -> PyResult<Self> {
        let spec = SweepSpec::parse(text, &base_dir).map_err(errors::harness)?;
        let root = zonedb::cli::sweep::out_dir(out.as_deref(), &spec);
        Ok(Self {
            dir: Dir::open(&root, spec).map_err(errors::harness)?,
        })
    }

    /// The directory.
    #[getter]
    fn root(&self) -> String {
        self.dir.root().display().to_string()
    }

    /// The sweep's name.
    #[getter]
    fn name(&self) -> String {
        self.dir.spec().name.clone()
    }

    /// Seeds per configuration.
    #[getter]
    fn seeds(&self) -> u64 {
        self.dir.spec().seeds
    }

    /// Every run as JSON text (a list of objects: run, config, label, values, seed, scenario).
    fn runs(&self) -> PyResult<String> {
        serde_json::to_string(self.dir.runs()).map_err(|e| errors::invalid(e.to_string()))
    }

    /// The runs without results, as `(run, scenario text)`.
    fn pending(&self) -> Vec<(String, String)> {
        self.dir
            .pending()
            .into_iter()
            .map(|r| (r.run, r.scenario))
            .collect()
    }

    /// Stores a run's JSON.
    fn record(&self, run: &str, json: &str) -> PyResult<()> {
        self.dir.record(run, json).map_err(errors::harness)
    }

    /// Stores why a run failed.
    fn record_failure(&self, run: &str, why: &str) -> PyResult<()> {
        self.dir.record_failure(run, why).map_err(errors::harness)
    }

    /// Writes runs.parquet, the summaries and the plots; returns `(summary json, markdown,
    /// failed runs)`.
    fn finish(&self, py: Python<'_>) -> PyResult<Finished> {
        let o = py.detach(|| self.dir.finish()).map_err(errors::harness)?;
        let s = serde_json::to_string(&o.summary).map_err(|e| errors::invalid(e.to_string()))?;
        Ok((s, o.markdown, o.failed))
    }
}
