//! A study's finished cells on disk, so that a stopped `zonedb reproduce` resumes.
//!
//! Each distinct simulation of a study writes `OUT/cells/<stem>.json` when it ends: the key
//! it ran (the scenario's TOML without its name, or the fill-and-delete run's description),
//! its figures or why it failed, and the operations it simulated. Running the same command
//! again with the same `--out` and `--resume` loads every cell whose file holds the same key
//! and runs only the rest; a file whose key differs (the options changed) is run again and
//! overwritten. Without `--resume` nothing is loaded (a rebuilt binary must not read its
//! predecessor's figures unasked), but every cell is still stored. Simulations are deterministic, so a loaded cell is what the run would give.
//! Failures are kept too (a full device is a result), except those that void the study
//! (a failed invariant check, a panic), which are never written.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Figures;
use crate::db_bench::HarnessError;
use crate::scenario::Scenario;

/// The folder under a report directory that holds the cells.
pub const FOLDER: &str = "cells";

/// One stored cell.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
struct Stored<T> {
    /// What ran (compared on load).
    key: String,
    /// The figures, when the run finished.
    figures: Option<T>,
    /// Why the run failed, when it did.
    error: Option<String>,
    /// Operations simulated.
    sim_ops: u64,
}

/// A loaded cell: its figures (or why it failed) and the operations it simulated.
pub type Loaded<T> = (Result<T, String>, u64);

/// The cells of one report directory.
#[derive(Debug, Clone)]
pub struct CellCache {
    dir: PathBuf,
    reuse: bool,
}

impl CellCache {
    /// The cells under `out` (`out/cells`, created on the first store); stored cells are
    /// loaded only when `reuse` (`--resume`).
    pub fn new(out: &Path, reuse: bool) -> Self {
        Self {
            dir: out.join(FOLDER),
            reuse,
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The same folder, its cells loaded whatever `--resume` says (for the cells this run
    /// had run elsewhere, on Ray).
    #[must_use]
    pub fn reusing(&self) -> Self {
        Self {
            dir: self.dir.clone(),
            reuse: true,
        }
    }

    fn path(&self, stem: &str) -> PathBuf {
        self.dir.join(format!("{stem}.json"))
    }

    /// The cell stored as `stem` if it ran `key`; `None` when there is none, it ran something
    /// else, or the file does not read (it is then run again).
    pub fn load<T: DeserializeOwned>(&self, stem: &str, key: &str) -> Option<Loaded<T>> {
        if !self.reuse {
            return None;
        }
        let text = std::fs::read_to_string(self.path(stem)).ok()?;
        let s: Stored<T> = serde_json::from_str(&text).ok()?;
        if s.key != key {
            return None;
        }
        match (s.figures, s.error) {
            (Some(f), None) => Some((Ok(f), s.sim_ops)),
            (None, Some(e)) => Some((Err(e), s.sim_ops)),
            _ => None,
        }
    }

    /// Stores the outcome of `key` as `stem` (written whole, then renamed into place, so a
    /// killed study leaves no half file).
    ///
    /// # Errors
    /// [`HarnessError::Io`] when the folder or the file cannot be written;
    /// [`HarnessError::Config`] naming the file when the outcome does not serialize.
    pub fn store<T: Serialize>(
        &self,
        stem: &str,
        key: &str,
        outcome: Result<&T, &str>,
        sim_ops: u64,
    ) -> Result<(), HarnessError> {
        std::fs::create_dir_all(&self.dir).map_err(HarnessError::io(&self.dir))?;
        let path = self.path(stem);
        let text = stored_text(key, outcome, sim_ops).map_err(|e| {
            HarnessError::config(
                path.display().to_string(),
                format!("the study cell does not serialize: {e}"),
            )
        })?;
        let tmp = self.dir.join(format!(".{stem}.json.tmp"));
        crate::output::write(&tmp, text)?;
        std::fs::rename(&tmp, &path).map_err(HarnessError::io(&path))
    }
}

/// Runs a scenario study's cell (`zonedb reproduce` on Ray: each task runs one) and returns
/// the text of its stored cell (`cells/<stem>.json`) for `key`: the figures under the names
/// the study uses (`measured`: the measured phases' alone, as splitzns and hhzs count them),
/// or why the run failed (`<scenario name>: <error>`).
///
/// # Errors
/// The run's [`HarnessError::Invariant`] (a failed end-of-run check voids the study and is
/// never stored), or a serialization failure.
pub fn run_cell(scenario: &Scenario, key: &str, measured: bool) -> Result<String, HarnessError> {
    let to_text = |r: serde_json::Result<String>| {
        r.map_err(|e| HarnessError::config("study cell", e.to_string()))
    };
    match crate::experiment::run(scenario) {
        Ok(r) => to_text(stored_text(
            key,
            Ok(&Figures::of_cell(&r, measured)),
            r.benchmarks.iter().map(|b| b.ops).sum(),
        )),
        Err(e @ HarnessError::Invariant(_)) => Err(e),
        Err(e) => to_text(stored_text::<Figures>(
            key,
            Err(&format!("{}: {e}", scenario.name)),
            0,
        )),
    }
}

/// A stored cell's text: what [`CellCache::store`] writes and [`run_cell`] returns.
fn stored_text<T: Serialize>(
    key: &str,
    outcome: Result<&T, &str>,
    sim_ops: u64,
) -> serde_json::Result<String> {
    let (figures, error) = match outcome {
        Ok(f) => (Some(f), None),
        Err(e) => (None, Some(e.to_owned())),
    };
    serde_json::to_string_pretty(&Stored {
        key: key.to_owned(),
        figures,
        error,
        sim_ops,
    })
}

#[cfg(test)]
mod tests {
    use super::CellCache;

    #[test]
    fn a_stored_cell_loads_only_for_the_key_it_ran() {
        let dir = std::env::temp_dir().join(format!("zonedb-cells-{}", std::process::id()));
        let c = CellCache::new(&dir, true);
        assert_eq!(c.load::<Vec<u64>>("a", "k1"), None);
        c.store("a", "k1", Ok(&vec![1u64, 2]), 7).unwrap();
        c.store("b", "k2", Err::<&Vec<u64>, _>("device full"), 3)
            .unwrap();
        assert_eq!(c.load::<Vec<u64>>("a", "k1"), Some((Ok(vec![1, 2]), 7)));
        assert_eq!(c.load::<Vec<u64>>("a", "k1 changed"), None);
        assert_eq!(
            c.load::<Vec<u64>>("b", "k2"),
            Some((Err("device full".into()), 3))
        );
        // Without reuse (no `--resume`) nothing loads.
        assert_eq!(
            CellCache::new(&dir, false).load::<Vec<u64>>("a", "k1"),
            None
        );
        // A file that does not read is run again, not an error.
        std::fs::write(c.dir().join("a.json"), "{ half").unwrap();
        assert_eq!(c.load::<Vec<u64>>("a", "k1"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
