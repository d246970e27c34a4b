//! How the cells run: each distinct work once, `--jobs` at a time, stored in the cells cache
//! as it ends.

use super::*;

impl ZnsPlusCell {
    /// The cell's file name in a report's `cells/` folder (`znsplus-<scheme>-<experiment>-seed<N>`,
    /// characters other than letters, digits, `.` and `-` as `_`).
    pub fn stem(&self) -> String {
        crate::reproduce::file_stem(&format!(
            "znsplus-{}-{}-seed{}",
            self.scheme, self.experiment, self.seed
        ))
    }
}

impl Work {
    /// What the run is, as text (the scenario's TOML without its name, or the fill-and-delete
    /// run's fields): a stored cell is reused only for the same text.
    ///
    /// # Errors
    /// [`HarnessError::Config`] when the scenario does not serialize.
    pub fn key(&self) -> Result<String, HarnessError> {
        match self {
            Self::FillDelete(f) => Ok(format!("{f:?}")),
            Self::Engine(s) => toml::to_string(&Scenario {
                name: String::new(),
                ..(**s).clone()
            })
            .map_err(|e| HarnessError::config(format!("scenario '{}'", s.name), e.to_string())),
        }
    }
}

/// Runs the cells, `jobs` at a time on host threads (each a deterministic simulation of its
/// own); identical configurations (`chips-16` is `fill-delete-80`) run once. `done(n, total)`
/// is called as each distinct run ends. A failed run (its check included) fails its cells
/// only. With `cache`, a distinct run already stored there is loaded, not run, and each run
/// is stored as it ends (a failed check never), so a stopped study resumes.
pub fn run_cells(
    cells: &[ZnsPlusCell],
    jobs: usize,
    done: &(dyn Fn(usize, usize) + Sync),
    cache: Option<&CellCache>,
) -> Vec<ZnsPlusResult> {
    let mut unique: Vec<&Work> = Vec::new();
    let index: Vec<usize> = cells
        .iter()
        .map(|c| {
            unique
                .iter()
                .position(|u| **u == c.work)
                .unwrap_or_else(|| {
                    unique.push(&c.work);
                    unique.len() - 1
                })
        })
        .collect();
    let representative: Vec<&ZnsPlusCell> = (0..unique.len())
        .filter_map(|u| index.iter().position(|&i| i == u).map(|c| &cells[c]))
        .collect();
    let keys: Vec<Option<String>> = representative.iter().map(|c| c.work.key().ok()).collect();
    let slots: Vec<Mutex<Option<Outcome>>> = (0..unique.len())
        .map(|u| {
            let stored = cache.zip(keys[u].as_ref()).and_then(|(cache, key)| {
                cache.load::<ZnsPlusFigures>(&representative[u].stem(), key)
            });
            Mutex::new(stored.map(|(r, _)| r.map_err(|e| (e, false))))
        })
        .collect();
    let pending: Vec<usize> = (0..unique.len())
        .filter(|&u| slots[u].lock().map_or(true, |s| s.is_none()))
        .collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(unique.len() - pending.len());
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(pending.len().max(1)) {
            sc.spawn(|| {
                while let Some(&i) = pending.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let c = representative[i];
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_cell(c).map_err(|e| {
                            let void = matches!(e, HarnessError::Invariant(_));
                            (e.to_string(), void)
                        })
                    }))
                    .unwrap_or_else(|_| Err(("simulation thread panicked".into(), true)));
                    if let (Some(cache), Some(key)) = (cache, keys[i].as_ref()) {
                        let stored = match &r {
                            Ok(f) => cache.store(&c.stem(), key, Ok(f), 0),
                            Err((e, false)) => {
                                cache.store::<ZnsPlusFigures>(&c.stem(), key, Err(e), 0)
                            }
                            Err((_, true)) => Ok(()),
                        };
                        if let Err(e) = stored {
                            eprintln!("warning: {e} (this cell will run again on a resume)");
                        }
                    }
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                    done(finished.fetch_add(1, Ordering::SeqCst) + 1, unique.len());
                }
            });
        }
    });
    let outcomes: Vec<Outcome> = slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(("not run".into(), false)))
        })
        .collect();
    cells
        .iter()
        .zip(index)
        .map(|(c, i)| ZnsPlusResult {
            scheme: c.scheme.to_owned(),
            experiment: c.experiment.to_owned(),
            seed: c.seed,
            figures: outcomes[i].clone().map_err(|(e, _)| e),
            invariant_failed: matches!(outcomes[i], Err((_, true))),
        })
        .collect()
}
