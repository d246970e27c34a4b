//! A sweep's results directory:
//!
//! - `plan.json`: the sweep's runs (id, configuration, grid values, seed, scenario text); a
//!   directory holding another sweep's plan is refused, so results never mix;
//! - `runs/<run>.json`: each finished run's JSON, exactly what `zonedb run --json` prints
//!   for its scenario (written whole, then renamed: a killed sweep leaves no half file);
//!   `runs/<run>.err`: why a run failed;
//! - after [`SweepDir::finish`]: `runs.parquet`, `summary.json`, `summary.csv`,
//!   `summary.md` and `sweep-<metric>.svg`/`.png`.
//!
//! Running the sweep again in the same directory runs only what has no results file yet:
//! that is how a sweep resumes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::results::{self, Row};
use super::{SweepRun, SweepSpec};
use crate::db_bench::HarnessError;

/// A results file or directory that is not what it should be.
fn bad(path: &Path, problem: impl std::fmt::Display) -> HarnessError {
    HarnessError::config(path.display().to_string(), problem.to_string())
}

/// A results directory and the sweep it holds.
#[derive(Debug, Clone)]
pub struct SweepDir {
    root: PathBuf,
    spec: SweepSpec,
    runs: Vec<SweepRun>,
}

/// What [`SweepDir::finish`] wrote and found.
#[derive(Debug, Clone)]
pub struct SweepOutcome {
    /// `summary.json`'s content.
    pub summary: Value,
    /// `summary.md`'s content.
    pub markdown: String,
    /// Runs without results, with why.
    pub failed: Vec<(String, String)>,
    /// Runs with results.
    pub finished: usize,
    /// Plot files written.
    pub plots: Vec<String>,
}

impl SweepDir {
    /// Opens (creating) `root` for `spec`.
    ///
    /// # Errors
    /// [`HarnessError::Config`]: the directory holds a different sweep's plan (use another
    /// directory or delete it); [`HarnessError::Io`]: it cannot be written.
    pub fn open(root: &Path, spec: SweepSpec) -> Result<Self, HarnessError> {
        let runs = spec.runs()?;
        let runs_dir = root.join("runs");
        std::fs::create_dir_all(&runs_dir).map_err(HarnessError::io(runs_dir))?;
        let plan = serde_json::json!({ "sweep": spec.name, "runs": runs });
        let plan_path = root.join("plan.json");
        if let Ok(old) = std::fs::read_to_string(&plan_path) {
            let old: Value = serde_json::from_str(&old)
                .map_err(|e| bad(&plan_path, format!("not a sweep's plan: {e}")))?;
            if old != plan {
                return Err(bad(
                    root,
                    "holds the results of a different sweep (another grid, seeds or base \
                     scenario); use another --out directory or delete this one",
                ));
            }
        }
        let text = serde_json::to_string_pretty(&plan).map_err(|e| bad(&plan_path, e))?;
        write_whole(&plan_path, &text)?;
        Ok(Self {
            root: root.to_owned(),
            spec,
            runs,
        })
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The sweep.
    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }

    /// Every run of the sweep.
    pub fn runs(&self) -> &[SweepRun] {
        &self.runs
    }

    fn result_path(&self, run: &str) -> PathBuf {
        self.root.join("runs").join(format!("{run}.json"))
    }

    /// A finished run's JSON, if it has a readable one.
    pub fn result(&self, run: &str) -> Option<Value> {
        let text = std::fs::read_to_string(self.result_path(run)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The runs that have no results yet (in plan order).
    pub fn pending(&self) -> Vec<SweepRun> {
        self.runs
            .iter()
            .filter(|r| self.result(&r.run).is_none())
            .cloned()
            .collect()
    }

    /// Stores `run`'s JSON (`zonedb run --json`'s output).
    ///
    /// # Errors
    /// [`HarnessError::Config`]: an unknown run or text that is not a run's JSON;
    /// [`HarnessError::Io`]: a write error.
    pub fn record(&self, run: &str, json_text: &str) -> Result<(), HarnessError> {
        if !self.runs.iter().any(|r| r.run == run) {
            return Err(bad(&self.root, format!("no run '{run}' in this sweep")));
        }
        let v: Value = serde_json::from_str(json_text)
            .map_err(|e| bad(&self.result_path(run), format!("not a run's JSON: {e}")))?;
        if v["configurations"][0].is_null() {
            return Err(bad(
                &self.result_path(run),
                "no \"configurations\" in the JSON",
            ));
        }
        let _ = std::fs::remove_file(self.root.join("runs").join(format!("{run}.err")));
        write_whole(&self.result_path(run), json_text)
    }

    /// Stores why `run` failed.
    ///
    /// # Errors
    /// A write error.
    pub fn record_failure(&self, run: &str, why: &str) -> Result<(), HarnessError> {
        write_whole(&self.root.join("runs").join(format!("{run}.err")), why)
    }

    /// Writes `runs.parquet`, the summaries and the plots from the results present.
    ///
    /// # Errors
    /// [`HarnessError::Io`] (or [`HarnessError::LinkRefused`]) if a file cannot be written;
    /// [`HarnessError::Config`] naming `runs.parquet` or a plot the writer or the drawing
    /// failed on.
    pub fn finish(&self) -> Result<SweepOutcome, HarnessError> {
        let mut rows = Vec::new();
        let mut failed = Vec::new();
        for r in &self.runs {
            if let Some(v) = self.result(&r.run) {
                rows.push(Row {
                    run: r.clone(),
                    metrics: results::flatten(&v),
                });
            } else {
                let why =
                    std::fs::read_to_string(self.root.join("runs").join(format!("{}.err", r.run)))
                        .unwrap_or_else(|_| "not run".into());
                failed.push((r.run.clone(), why.trim().to_owned()));
            }
        }
        let keys: Vec<String> = self.spec.grid.iter().map(|(k, _)| k.clone()).collect();
        super::parquet::write(
            &self.root.join("runs.parquet"),
            &self.spec.name,
            &keys,
            &rows,
        )?;
        let summaries = results::summarize(&rows);
        let summary = results::summary_json(&self.spec.name, &summaries, &failed);
        let shown = results::shown_metrics(&self.spec.metrics, &rows);
        let markdown = results::summary_markdown(
            &self.spec.name,
            self.spec.seeds,
            &shown,
            &summaries,
            &failed,
        );
        let summary_path = self.root.join("summary.json");
        let text = serde_json::to_string_pretty(&summary).map_err(|e| bad(&summary_path, e))?;
        write_whole(&summary_path, &text)?;
        write_whole(
            &self.root.join("summary.csv"),
            &results::summary_csv(&summaries),
        )?;
        let plots = super::plot::write(&self.root, &self.spec.name, &shown, &summaries)?;
        let mut md = markdown.clone();
        if !plots.is_empty() {
            md.push('\n');
            for p in &plots {
                let _ = writeln!(md, "![{p}]({p})");
            }
            let _ = writeln!(md, "\n*{}*", super::plot::CAPTION);
        }
        write_whole(&self.root.join("summary.md"), &md)?;
        Ok(SweepOutcome {
            summary,
            markdown,
            failed,
            finished: rows.len(),
            plots,
        })
    }
}

/// Writes `path` whole: to a temporary name (never through a symbolic link:
/// [`crate::output`]), then renamed over it (a rename replaces a link, never follows it).
fn write_whole(path: &Path, text: &str) -> Result<(), HarnessError> {
    let tmp = path.with_extension("tmp");
    crate::output::write(&tmp, text)?;
    std::fs::rename(&tmp, path).map_err(HarnessError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seeds: u64) -> SweepSpec {
        SweepSpec::parse(
            &format!(
                "seeds = {seeds}\n[scenario]\nname = \"b\"\n[grid]\n\"fs.cleaner\" = [\"zenfs\", \"greedy\"]\n"
            ),
            Path::new("."),
        )
        .unwrap()
    }

    fn fake(ops: f64) -> String {
        serde_json::json!({
            "configurations": [{"name": "b", "benchmarks": [{"name": "fillrandom", "ops_per_s": ops}],
                "write_amplification": 1.5}],
            "host": {"wall_ns": 1},
        })
        .to_string()
    }

    #[test]
    fn a_sweep_resumes_with_what_is_missing_and_refuses_another_plan() {
        let dir = tempfile::tempdir().unwrap();
        let d = SweepDir::open(dir.path(), spec(2)).unwrap();
        assert_eq!(d.pending().len(), 4);
        d.record("c00-s1", &fake(10.0)).unwrap();
        d.record("c01-s2", &fake(30.0)).unwrap();
        assert!(d.record("c09-s1", &fake(1.0)).is_err());
        assert!(d.record("c00-s2", "not json").is_err());
        let again = SweepDir::open(dir.path(), spec(2)).unwrap();
        let pending: Vec<String> = again.pending().into_iter().map(|r| r.run).collect();
        assert_eq!(pending, ["c00-s2", "c01-s1"]);
        let e = SweepDir::open(dir.path(), spec(3)).unwrap_err().to_string();
        assert!(e.contains("different sweep"), "{e}");
        again.record_failure("c01-s1", "device full").unwrap();
        let out = again.finish().unwrap();
        assert_eq!(out.finished, 2);
        assert_eq!(
            out.failed,
            [
                ("c00-s2".to_owned(), "not run".to_owned()),
                ("c01-s1".to_owned(), "device full".to_owned())
            ]
        );
        for f in ["runs.parquet", "summary.json", "summary.csv", "summary.md"] {
            assert!(dir.path().join(f).exists(), "{f}");
        }
        assert!(
            out.plots
                .iter()
                .any(|p| p == "sweep-fillrandom-ops_per_s.svg")
        );
        assert_eq!(
            out.summary["configurations"][1]["metrics"]["fillrandom.ops_per_s"]["mean"],
            30.0
        );
    }
}
