//! Sweeps: a base scenario, a grid of overrides and a seed count (`zonedb sweep SWEEP.toml`,
//! `zonedb.sweep(...)` in Python). This module turns a sweep file into its runs (one scenario
//! per configuration and seed, each a pure function of its text); [`dir`] keeps a results
//! directory (one JSON per finished run, so a sweep resumes where it stopped); [`results`]
//! flattens the runs into rows and summarizes each configuration (mean, standard deviation,
//! 95% interval); [`parquet`] writes every run to one Parquet file; [`plot`] draws the
//! summary with error bars. Who runs the runs (local processes, Ray tasks) is the caller's.
//!
//! ```toml
//! name = "cleaner-by-pri"
//! scenario = "../scenarios/default.toml"   # relative to the sweep file; or a [scenario] table
//! seeds = 3                                  # seed, seed + 1, ... (the papers: mean of 3 runs)
//! seed = 1                                   # first seed (default: the scenario's)
//! metrics = ["fillrandom.ops_per_s", "write_amplification"]   # summarized in the Markdown
//! [grid]                                     # every combination, keys in sorted order
//! "fs.cleaner" = ["zenfs", "greedy"]
//! "engine.compaction_pri" = ["kMinOverlappingRatio", "kByCompensatedSize"]
//! ```

pub mod dir;
pub mod parquet;
pub mod plot;
pub mod results;

use std::path::Path;

use serde::Serialize;

use crate::db_bench::HarnessError;
use crate::scenario::{Scenario, merge_tables};

/// Most runs (configurations × seeds) a sweep may have: 10,000. A larger grid or seed count
/// is refused before any scenario is built (a grid of millions once filled memory).
pub const MAX_RUNS: u64 = 10_000;

fn bad(what: impl std::fmt::Display) -> HarnessError {
    HarnessError::config("sweep", what.to_string())
}

/// A parsed sweep file.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSpec {
    /// Name (the report's title).
    pub name: String,
    /// The base scenario as a TOML table (its `[[compare]]` variants removed).
    pub base: toml::Table,
    /// Grid keys (dotted scenario paths such as `fs.cleaner`) and their values, keys sorted.
    pub grid: Vec<(String, Vec<toml::Value>)>,
    /// Seeds run per configuration.
    pub seeds: u64,
    /// First seed.
    pub seed: u64,
    /// Metrics the Markdown summary and the plots show (the JSON and Parquet have all).
    pub metrics: Vec<String>,
}

/// One run of a sweep: a configuration (a point of the grid) and a seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRun {
    /// `c00-s1`: configuration and seed; the name of its results file.
    pub run: String,
    /// `c00`: the configuration.
    pub config: String,
    /// `fs.cleaner=greedy, engine.compaction_pri=kByCompensatedSize`: the values of the grid
    /// axes that have more than one (`base` when none has).
    pub label: String,
    /// The grid values of this configuration, key by key (TOML values as text).
    pub values: Vec<(String, String)>,
    /// Seed.
    pub seed: u64,
    /// The scenario file of this run (what `zonedb run` takes).
    pub scenario: String,
}

/// The text of a TOML value in labels and Parquet columns (strings without quotes).
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `{a = {b = v}}` for the dotted key `a.b`.
fn nested(key: &str, value: toml::Value) -> Result<toml::Table, HarnessError> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad(format!(
            "grid key '{key}' is not a dotted scenario path"
        )));
    }
    let mut v = value;
    for p in parts.iter().rev() {
        let mut t = toml::Table::new();
        t.insert((*p).to_owned(), v);
        v = toml::Value::Table(t);
    }
    match v {
        toml::Value::Table(t) => Ok(t),
        _ => Err(bad("empty grid key")),
    }
}

impl SweepSpec {
    /// Parses a sweep file; a `scenario` path is read relative to `dir` (the sweep file's
    /// folder).
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the problem: TOML syntax, unknown keys, an empty grid
    /// axis, an invalid base scenario; [`HarnessError::Io`] for an unreadable one.
    pub fn parse(text: &str, dir: &Path) -> Result<Self, HarnessError> {
        let mut t: toml::Table = toml::from_str(text).map_err(bad)?;
        let name = match t.remove("name") {
            None => "sweep".to_owned(),
            Some(toml::Value::String(s)) => s,
            Some(v) => return Err(bad(format!("name = {v}: a string"))),
        };
        let mut base: toml::Table = match t.remove("scenario") {
            Some(toml::Value::String(p)) => {
                let path = dir.join(&p);
                let text = crate::input::read_to_string(&path).map_err(HarnessError::io(&path))?;
                toml::from_str(&text).map_err(|e| {
                    HarnessError::config(path.display().to_string(), format!("not a scenario: {e}"))
                })?
            }
            Some(toml::Value::Table(s)) => s,
            Some(v) => return Err(bad(format!("scenario = {v}: a path or a table"))),
            None => return Err(bad("no scenario (a path or a [scenario] table)")),
        };
        base.remove("compare");
        let int = |t: &mut toml::Table, k: &str| -> Result<Option<u64>, HarnessError> {
            match t.remove(k) {
                None => Ok(None),
                Some(toml::Value::Integer(i)) if i >= 0 => Ok(Some(i.unsigned_abs())),
                Some(v) => Err(bad(format!("{k} = {v}: a non-negative integer"))),
            }
        };
        let seeds = int(&mut t, "seeds")?.unwrap_or(1);
        if seeds == 0 {
            return Err(bad("seeds = 0: at least one seed"));
        }
        let base_seed = match base.get("seed") {
            Some(toml::Value::Integer(i)) if *i >= 0 => i.unsigned_abs(),
            _ => 1,
        };
        let seed = int(&mut t, "seed")?.unwrap_or(base_seed);
        let metrics = match t.remove("metrics") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .into_iter()
                .map(|v| match v {
                    toml::Value::String(s) => Ok(s),
                    v => Err(bad(format!("metrics: {v} is not a string"))),
                })
                .collect::<Result<_, _>>()?,
            Some(v) => return Err(bad(format!("metrics = {v}: an array of names"))),
        };
        let grid = match t.remove("grid") {
            None => Vec::new(),
            Some(toml::Value::Table(g)) => g
                .into_iter()
                .map(|(k, v)| match v {
                    toml::Value::Array(a) if !a.is_empty() => Ok((k, a)),
                    v => Err(bad(format!("grid.{k} = {v}: a non-empty array of values"))),
                })
                .collect::<Result<_, _>>()?,
            Some(v) => return Err(bad(format!("grid = {v}: a table of arrays"))),
        };
        if let Some(k) = t.keys().next() {
            return Err(bad(format!(
                "unknown key '{k}' (known: name, scenario, seeds, seed, metrics, grid)"
            )));
        }
        let spec = Self {
            name,
            base,
            grid,
            seeds,
            seed,
            metrics,
        };
        spec.check_size()?;
        spec.runs()?;
        Ok(spec)
    }

    /// Reads and parses a sweep file.
    ///
    /// # Errors
    /// As [`SweepSpec::parse`]; an unreadable file.
    pub fn load(path: &Path) -> Result<Self, HarnessError> {
        let text = crate::input::read_to_string(path).map_err(HarnessError::io(path))?;
        Self::parse(&text, path.parent().unwrap_or(Path::new(".")))
    }

    /// Configurations of the grid (the product of its axes' lengths; `None` past `u64`).
    pub fn configurations(&self) -> Option<u64> {
        self.grid
            .iter()
            .try_fold(1u64, |n, (_, vs)| n.checked_mul(vs.len() as u64))
    }

    /// Refuses a sweep of more than [`MAX_RUNS`] runs, or whose seeds pass the largest TOML
    /// integer.
    fn check_size(&self) -> Result<(), HarnessError> {
        let configs = self.configurations();
        let runs = configs.and_then(|c| c.checked_mul(self.seeds));
        if runs.is_none_or(|r| r > MAX_RUNS) {
            return Err(bad(format!(
                "{} configurations x {} seeds is more than {MAX_RUNS} runs, the most a sweep may have",
                configs.map_or_else(|| "more than 2^64".to_owned(), |c| c.to_string()),
                self.seeds
            )));
        }
        if self
            .seed
            .checked_add(self.seeds - 1)
            .is_none_or(|last| i64::try_from(last).is_err())
        {
            return Err(bad(format!(
                "seed = {} with seeds = {}: the last seed would pass {}",
                self.seed,
                self.seeds,
                i64::MAX
            )));
        }
        Ok(())
    }

    /// The grid's points in order (the last key varies fastest).
    fn points(&self) -> Vec<Vec<(String, toml::Value)>> {
        let mut points = vec![Vec::new()];
        for (k, vs) in &self.grid {
            points = points
                .into_iter()
                .flat_map(|p| {
                    vs.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push((k.clone(), v.clone()));
                        q
                    })
                })
                .collect();
        }
        points
    }

    /// Every run: configurations in grid order, each with its seeds.
    ///
    /// # Errors
    /// [`HarnessError::Config`] if a point of the grid makes an invalid scenario (an unknown
    /// key, a bad value), naming it.
    pub fn runs(&self) -> Result<Vec<SweepRun>, HarnessError> {
        let base_name = match self.base.get("name") {
            Some(toml::Value::String(s)) => s.clone(),
            _ => self.name.clone(),
        };
        let points = self.points();
        let width = points.len().saturating_sub(1).to_string().len().max(2);
        let mut out = Vec::new();
        for (i, point) in points.into_iter().enumerate() {
            let config = format!("c{i:0width$}");
            let values: Vec<(String, String)> = point
                .iter()
                .map(|(k, v)| (k.clone(), value_text(v)))
                .collect();
            // Axes with one value set every configuration alike: they stay out of labels.
            let varied: Vec<String> = values
                .iter()
                .filter(|(k, _)| self.grid.iter().any(|(g, vs)| g == k && vs.len() > 1))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let label = if varied.is_empty() {
                "base".to_owned()
            } else {
                varied.join(", ")
            };
            let mut table = self.base.clone();
            for (k, v) in point {
                merge_tables(&mut table, &nested(&k, v)?);
            }
            for s in 0..self.seeds {
                let seed = self.seed.wrapping_add(s);
                let mut t = table.clone();
                t.insert(
                    "name".into(),
                    toml::Value::String(format!("{base_name} [{label}]")),
                );
                t.insert(
                    "seed".into(),
                    toml::Value::Integer(i64::try_from(seed).map_err(|_| bad("seed too large"))?),
                );
                let text = toml::to_string(&t).map_err(bad)?;
                Scenario::base(&text).map_err(|e| bad(format!("{config} ({label}): {e}")))?;
                out.push(SweepRun {
                    run: format!("{config}-s{seed}"),
                    config: config.clone(),
                    label: label.clone(),
                    values: values.clone(),
                    seed,
                    scenario: text,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
        name = "t"
        seeds = 3
        seed = 7
        [scenario]
        name = "base"
        [scenario.device]
        scale = "1/1024"
        [scenario.workload]
        benchmarks = "fillrandom"
        num = 1000
        [grid]
        "fs.cleaner" = ["zenfs", "greedy"]
        "engine.compaction_pri" = ["kMinOverlappingRatio", "kByCompensatedSize"]
        "workload.num" = [1500]
    "#;

    #[test]
    fn a_grid_of_two_by_two_with_three_seeds_is_twelve_runs_in_order() {
        let spec = SweepSpec::parse(SPEC, Path::new(".")).unwrap();
        let runs = spec.runs().unwrap();
        assert_eq!(runs.len(), 12);
        assert_eq!(runs[0].run, "c00-s7");
        assert_eq!(runs[2].run, "c00-s9");
        assert_eq!(runs[3].run, "c01-s7");
        // Keys sorted: engine.compaction_pri varies slowest; a one-value axis is set but not
        // in labels.
        assert_eq!(runs[3].values.len(), 3);
        assert_eq!(
            runs[3].label,
            "engine.compaction_pri=kMinOverlappingRatio, fs.cleaner=greedy"
        );
        let s = Scenario::base(&runs[4].scenario).unwrap();
        assert_eq!(s.seed, 8);
        assert_eq!(s.fs.cleaner, "greedy");
        assert_eq!(s.workload.num, 1500);
        assert_eq!(
            s.engine.get("compaction_pri"),
            Some(&toml::Value::String("kMinOverlappingRatio".into()))
        );
        assert!(s.name.starts_with("base ["));
    }

    #[test]
    fn a_grid_of_two_million_configurations_is_refused_before_it_is_built() {
        use std::fmt::Write as _;
        let mut text = String::from("scenario = {}\n[grid]\n");
        for (i, n) in [100, 100, 200].iter().enumerate() {
            let values: Vec<String> = (0..*n).map(|v| v.to_string()).collect();
            let _ = writeln!(text, "\"engine.x{i}\" = [{}]", values.join(", "));
        }
        let e = SweepSpec::parse(&text, Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains("2000000 configurations"), "{e}");
        assert!(e.contains("10000 runs"), "{e}");
    }

    #[test]
    fn bad_sweeps_are_refused_with_what_is_wrong() {
        for (text, what) in [
            ("seeds = 2", "no scenario"),
            ("scenario = {}\n[grid]\n\"fs.cleaner\" = []", "non-empty"),
            ("scenario = {}\n[grid]\n\"fs.cleaner\" = [\"magic\"]", "c00"),
            ("scenario = {}\n[grid]\n\"fs.nope\" = [1]", "c00"),
            ("scenario = {}\nseeds = 0", "at least one"),
            ("scenario = {}\ncolour = 1", "unknown key"),
            ("scenario = \"/no/such/file.toml\"", "no/such"),
            ("scenario = {}\n[grid]\n\"fs..x\" = [1]", "dotted"),
            ("scenario = {}\nseeds = 1000000000", "10000 runs"),
            ("scenario = {}\nseeds = 10001", "10000 runs"),
            (
                "scenario = {}\nseeds = 3\nseed = 9223372036854775806",
                "the last seed",
            ),
        ] {
            let e = SweepSpec::parse(text, Path::new("."))
                .unwrap_err()
                .to_string();
            assert!(e.contains(what), "{text}: {e}");
        }
    }
}
