//! The lab in Python: one scenario's run (the JSON `zonedb run --json` prints, plus its time
//! series and latency percentiles), a `reproduce` study, and a sweep's results directory.
//! Simulations run with the GIL released; a progress callback, when given, is called from a
//! host thread about four times a second with `(done, total)` operations.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::prelude::*;
use zonedb::cli::run_flags::RunFlags;
use zonedb::lab::{self, Progress};
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

/// Runs one scenario (TOML text): returns `(json, series, latency)` as JSON texts: the
/// CLI's `zonedb run --json` output, the time series (one object per sample), and each
/// benchmark's latency percentiles.
#[pyfunction]
#[pyo3(signature = (scenario, elide_values=true, parallel_compute=true, progress=None))]
pub fn run_scenario(
    py: Python<'_>,
    scenario: &str,
    elide_values: bool,
    parallel_compute: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, String, String)> {
    let flags = RunFlags {
        elide_values,
        parallel_compute,
        progress: false,
    };
    let p = Progress::default();
    let out = with_progress(py, &p, progress, || {
        lab::run_text(scenario, &flags, Some(&p))
    })
    .map_err(errors::cli)?;
    let latency: Vec<serde_json::Value> = out
        .report
        .benchmarks
        .iter()
        .map(|b| {
            let mut l = serde_json::to_value(&b.latency).unwrap_or_default();
            l["benchmark"] = b.name.clone().into();
            l
        })
        .collect();
    Ok((
        to_json(&out.json)?,
        to_json(&out.report.series)?,
        to_json(&latency)?,
    ))
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
