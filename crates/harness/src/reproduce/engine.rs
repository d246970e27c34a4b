//! The engine studies' shared steps (same-zone, OAZA, SplitZNS, HHZS: cells that are
//! scenarios, [`Cell`]): planning with the options set in every configuration and
//! `--claims` ([`plan_scenarios`], [`annotate_options`]); running each distinct configuration
//! once, finished ones loaded from the cells cache (`--resume`) or handed to Ray (`--ray`),
//! the rest `--jobs` at a time, each stored as it ends ([`run_scenarios`], [`study_cell`]);
//! and `--emit-scenarios` ([`emit_scenarios`]). An engine study names only what is its own
//! ([`EngineStudy`]); these steps make it a [`Study`].

use std::path::Path;

use super::cache::{CellCache, Loaded};
use super::claims::Spec;
use super::run::{Context, Request, StudyOutput, seed_list};
use super::study::{Planned, Ran, Study};
use super::{Cell, CellResult, Figures, Plan, ReproScale, StudyId, claims, splitzns};
use crate::db_bench::HarnessError;
use crate::runner::{LabError, Progress, python_zonedb, run_all_counted};
use crate::scenario::{Scenario, merge_tables};

/// An engine study (same-zone, OAZA, SplitZNS, HHZS): what is its own (its name, its cells'
/// plan, what is measured of each, its JSON, claims and Markdown, what it says of its own
/// flags); planning, `--emit-scenarios`, running, the plots and the options set in every
/// configuration are the shared steps here, through which every engine study is a
/// [`Study`].
pub trait EngineStudy: Sync {
    /// The name on the command line (`zonedb reproduce <name>`).
    const NAME: &'static str;
    /// One line on what it reproduces.
    const ABOUT: &'static str;
    /// Whose cells the plan builds ([`super::cells`]).
    const ID: StudyId;
    /// Whether a cell's figures are its measured phase's ([`Figures::of_cell`]).
    const MEASURED: bool;

    /// The study's JSON, without its claims.
    fn json(scale: ReproScale, results: &[CellResult]) -> serde_json::Value;

    /// The headline claims, each with how ours is computed from one seed's results.
    fn claim_specs() -> Vec<Spec<CellResult>>;

    /// The Markdown beside the paper's figures.
    fn markdown(scale: ReproScale, results: &[CellResult]) -> String;

    /// What the report says of the study's own flags, after the options set in every
    /// configuration ([`annotate_options`]); nothing by default.
    ///
    /// # Errors
    /// [`LabError::Usage`] when a flag does not read (it was read when planning).
    fn annotate_flags(
        req: &Request,
        json: &mut serde_json::Value,
        markdown: &mut String,
    ) -> Result<(), LabError> {
        let _ = (req, json, markdown);
        Ok(())
    }
}

impl<E: EngineStudy> Study for E {
    type Cell = Cell;
    type Result = CellResult;

    fn name(&self) -> &'static str {
        E::NAME
    }

    fn about(&self) -> &'static str {
        E::ABOUT
    }

    fn plan(&self, req: &Request) -> Result<Planned<Cell>, LabError> {
        plan_scenarios(E::ID, req)
    }

    fn emit(&self, cells: &[Cell], dir: &Path) -> Result<StudyOutput, LabError> {
        emit_scenarios(dir, E::NAME, cells)
    }

    fn run(&self, planned: &Planned<Cell>, ctx: &Context<'_>) -> Result<Ran<CellResult>, LabError> {
        run_scenarios(E::NAME, planned, E::MEASURED, ctx)
    }

    fn figures(&self, scale: ReproScale, results: &[CellResult]) -> serde_json::Value {
        E::json(scale, results)
    }

    fn claims(&self, _results: &[CellResult]) -> Vec<Spec<CellResult>> {
        E::claim_specs()
    }

    fn report(&self, scale: ReproScale, results: &[CellResult]) -> String {
        E::markdown(scale, results)
    }

    fn draw(&self, dir: &Path, json: &serde_json::Value) -> Result<(), LabError> {
        super::plots::render(dir, json)
            .map(drop)
            .map_err(|e| LabError::Usage(e.to_string()))
    }

    fn annotate(
        &self,
        req: &Request,
        json: &mut serde_json::Value,
        markdown: &mut String,
    ) -> Result<(), LabError> {
        annotate_options(req, json, markdown)?;
        E::annotate_flags(req, json, markdown)
    }
}

/// `--engine-option` / `--device-option` (`flag`) `KEY=VALUE` arguments as a TOML table (the
/// value in TOML syntax; a dotted key such as `splitzns.ring` names an option inside a table).
///
/// # Errors
/// [`LabError::Usage`] for an argument without `=` or a value that is not TOML.
pub fn parse_options(flag: &str, args: &[String]) -> Result<toml::Table, LabError> {
    let mut t = toml::Table::new();
    for a in args {
        let bad = |why: String| LabError::Usage(format!("{flag} '{a}': {why}"));
        let (k, v) = a
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=VALUE".into()))?;
        let k = k.trim();
        let name = |part: &str| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !k.split('.').all(name) {
            return Err(bad("the key is not an option name".into()));
        }
        let parsed: toml::Table =
            toml::from_str(&format!("{k} = {}", v.trim())).map_err(|e| bad(e.to_string()))?;
        merge_tables(&mut t, &parsed);
    }
    Ok(t)
}

/// Whether scenario `s` names a device that can be built (its profile looked up, scaled and
/// re-mapped as the options say).
fn check_device(s: &Scenario) -> Result<(), String> {
    let spec = crate::experiment::device_spec_of(s).map_err(|e| e.to_string())?;
    spec.profile_name().map(drop).map_err(|e| e.to_string())
}

/// The cells of the engine study `id` that `req` asks for: its plan (forms, ablation, sweeps,
/// breakdown, splitzns' load), only what the claims need with `--claims`, and the options
/// set in every configuration merged into each.
///
/// # Errors
/// [`LabError::Usage`] for bad arguments.
pub fn plan_scenarios(id: StudyId, req: &Request) -> Result<Planned<Cell>, LabError> {
    let engine_options = parse_options("--engine-option", &req.engine_options)?;
    let device_options = parse_options("--device-option", &req.device_options)?;
    let fs_options = parse_options("--fs-option", &req.fs_options)?;
    let usage = |e: HarnessError| LabError::Usage(e.to_string());
    let scale = ReproScale::parse(&req.scale).map_err(usage)?;
    let plan = Plan {
        seeds: seed_list(req)?,
        text_forms: !req.no_text_forms && !req.claims,
        ablation: !req.no_ablation && !req.claims,
        sweep: !req.no_sweep && !req.claims,
        workloads: req
            .workloads
            .iter()
            .chain(&req.experiments)
            .cloned()
            .collect(),
        breakdown: !req.no_breakdown,
        overwrite_keys: splitzns::OverwriteKeys::parse(&req.overwrite_keys).map_err(usage)?,
        load: splitzns::Load::sized(
            splitzns::LoadForm::parse(&req.load).map_err(usage)?,
            req.load_gib,
        )
        .map_err(usage)?,
    };
    let mut cells = super::cells(id, scale, &plan).map_err(usage)?;
    if req.claims {
        cells.retain(|c| claims::needed(id, c.group, c.scheme, &c.workload));
    }
    for c in &mut cells {
        merge_tables(&mut c.scenario.engine, &engine_options);
        c.scenario.db_options().map_err(usage)?;
        if !device_options.is_empty() {
            let bad = |e: String| LabError::Usage(format!("--device-option: {e}"));
            let mut t =
                toml::Table::try_from(&c.scenario.device).map_err(|e| bad(e.to_string()))?;
            merge_tables(&mut t, &device_options);
            c.scenario.device = t
                .try_into()
                .map_err(|e: toml::de::Error| bad(e.to_string()))?;
            check_device(&c.scenario).map_err(bad)?;
        }
        if !fs_options.is_empty() {
            let bad = |e: String| LabError::Usage(format!("--fs-option: {e}"));
            let mut t = toml::Table::try_from(&c.scenario.fs).map_err(|e| bad(e.to_string()))?;
            merge_tables(&mut t, &fs_options);
            c.scenario.fs = t
                .try_into()
                .map_err(|e: toml::de::Error| bad(e.to_string()))?;
            c.scenario
                .fs
                .placement_policy(c.scenario.time_div().map_err(usage)?)
                .map_err(usage)?;
        }
    }
    Ok(Planned {
        scale,
        seeds: plan.seeds,
        cells,
    })
}

/// The options set in every configuration (`--engine-option`, `--device-option`,
/// `--fs-option`) in the JSON, and a line each under the Markdown's first line.
///
/// # Errors
/// [`LabError`] when an option does not read.
pub fn annotate_options(
    req: &Request,
    j: &mut serde_json::Value,
    md: &mut String,
) -> Result<(), LabError> {
    for (key, flag, what, args) in [
        (
            "engine_options",
            "--engine-option",
            "Engine",
            &req.engine_options,
        ),
        (
            "device_options",
            "--device-option",
            "Device",
            &req.device_options,
        ),
        ("fs_options", "--fs-option", "Zone layer", &req.fs_options),
    ] {
        let options = parse_options(flag, args)?;
        if options.is_empty() {
            continue;
        }
        j[key] = serde_json::to_value(&options)?;
        let line = format!(
            "\n{what} options set in every configuration (`{flag}`): `{}`.\n",
            toml::to_string(&options)
                .unwrap_or_default()
                .trim()
                .replace('\n', "`, `")
        );
        let at = md.find('\n').map_or(md.len(), |i| i + 1);
        md.insert_str(at, &line);
    }
    Ok(())
}

/// A study's distinct configurations: each once (names aside), the cells' index into them,
/// and each one's cell file stem and key in the cells cache.
struct Distinct {
    unique: Vec<Scenario>,
    index: Vec<usize>,
    stems: Vec<String>,
    keys: Vec<String>,
}

/// The distinct configurations of study `name`'s `cells`.
fn distinct(name: &str, cells: &[Cell]) -> Result<Distinct, LabError> {
    // Each distinct configuration (names aside) runs once.
    let mut unique: Vec<Scenario> = Vec::new();
    let index: Vec<usize> = cells
        .iter()
        .map(|c| {
            let same = |u: &Scenario| {
                Scenario {
                    name: String::new(),
                    ..u.clone()
                } == Scenario {
                    name: String::new(),
                    ..c.scenario.clone()
                }
            };
            unique.iter().position(same).unwrap_or_else(|| {
                unique.push(c.scenario.clone());
                unique.len() - 1
            })
        })
        .collect();
    // Each distinct configuration's cell file: the first cell's stem, keyed by its scenario
    // without its name (before the run flags, which change no figure).
    let stems: Vec<String> = (0..unique.len())
        .map(|u| {
            index
                .iter()
                .position(|&i| i == u)
                .map_or_else(|| format!("{name}-{u}"), |c| cells[c].stem(name))
        })
        .collect();
    let keys: Vec<String> = unique
        .iter()
        .map(|s| {
            toml::to_string(&Scenario {
                name: String::new(),
                ..s.clone()
            })
            .map_err(|e| LabError::Usage(format!("scenario '{}': {e}", s.name)))
        })
        .collect::<Result<_, _>>()?;
    Ok(Distinct {
        unique,
        index,
        stems,
        keys,
    })
}

/// Runs an engine study's cells: each distinct configuration (names aside) once, those
/// stored in the cells cache loaded instead (`--resume`), the rest on Ray (`--ray`) or here,
/// `--jobs` at a time, each stored as it ends. `measured`: the figures include the measured
/// phase's ([`Figures::of_cell`]).
///
/// # Errors
/// [`LabError::Failed`] when runs failed their invariant checks; [`LabError::Usage`] when a
/// scenario does not serialize or Ray cannot be started.
pub fn run_scenarios(
    name: &str,
    planned: &Planned<Cell>,
    measured: bool,
    ctx: &Context<'_>,
) -> Result<Ran<CellResult>, LabError> {
    let (req, cells, cache) = (ctx.req, &planned.cells, &ctx.cache);
    let Distinct {
        mut unique,
        index,
        stems,
        keys,
    } = distinct(name, cells)?;
    zonedb_env::set_parallel_compute_default(req.parallel_compute);
    for c in &mut unique {
        c.workload.elide_values &= req.elide_values;
    }
    let figures_of = |r: &crate::experiment::RunReport| Figures::of_cell(r, measured);
    let mut loaded: Vec<Option<Loaded<Figures>>> = (0..unique.len())
        .map(|u| cache.load(&stems[u], &keys[u]))
        .collect();
    let pending: Vec<usize> = (0..unique.len()).filter(|&u| loaded[u].is_none()).collect();
    if !req.json && pending.len() < unique.len() {
        println!(
            "{} of {} distinct configurations already finished in {} (resumed; delete it to run them again)",
            unique.len() - pending.len(),
            unique.len(),
            cache.dir().display()
        );
    }
    if let Some(address) = &req.ray {
        let cells_on_ray: Vec<(String, String, Scenario)> = pending
            .iter()
            .map(|&u| (stems[u].clone(), keys[u].clone(), unique[u].clone()))
            .collect();
        on_ray(cache, address, measured, &cells_on_ray)?;
        let ran = cache.reusing();
        for &u in &pending {
            loaded[u] = Some(
                ran.load(&stems[u], &keys[u])
                    .unwrap_or_else(|| (Err(format!("{}: not run on Ray", unique[u].name)), 0)),
            );
        }
    }
    let pending: Vec<usize> = pending
        .into_iter()
        .filter(|&u| loaded[u].is_none())
        .collect();
    let to_run: Vec<Scenario> = pending.iter().map(|&u| unique[u].clone()).collect();
    let outcomes = run_all_counted(
        &to_run,
        req.jobs,
        ctx.host,
        &Progress::default(),
        true,
        &|k, outcome| {
            let u = pending[k];
            let stored = match outcome {
                Ok(r) => cache.store(
                    &stems[u],
                    &keys[u],
                    Ok(&figures_of(r)),
                    r.benchmarks.iter().map(|b| b.ops).sum(),
                ),
                Err(f) if !f.voids() => {
                    cache.store::<Figures>(&stems[u], &keys[u], Err(&f.message), 0)
                }
                Err(_) => Ok(()),
            };
            if let Err(e) = stored {
                eprintln!("warning: {e} (this cell will run again on a resume)");
            }
        },
    )?;
    for (k, outcome) in pending.iter().zip(outcomes) {
        loaded[*k] = Some(match outcome {
            Ok(r) => (Ok(figures_of(&r)), r.benchmarks.iter().map(|b| b.ops).sum()),
            Err(f) => (Err(f.message), 0),
        });
    }
    let (results, sim_ops) = results_of(cells, &index, loaded);
    Ok(Ran {
        results,
        sim_ops: Some(sim_ops),
        void: Vec::new(),
    })
}

/// Each cell's result from its distinct configuration's (`index`) figures as loaded or run,
/// and the operations simulated.
fn results_of(
    cells: &[Cell],
    index: &[usize],
    loaded: Vec<Option<Loaded<Figures>>>,
) -> (Vec<CellResult>, u64) {
    let mut sim_ops = 0u64;
    let figures: Vec<Result<Figures, String>> = loaded
        .into_iter()
        .map(|l| {
            let (f, ops) = l.unwrap_or_else(|| (Err("not run".into()), 0));
            sim_ops += ops;
            f
        })
        .collect();
    let results: Vec<CellResult> = cells
        .iter()
        .zip(index.iter().copied())
        .map(|(c, i)| CellResult {
            group: c.group.to_owned(),
            scheme: c.scheme.to_owned(),
            form: c.form.name().to_owned(),
            workload: c.workload.clone(),
            turning_point: c.turning_point,
            level_constraint: c.level_constraint,
            ablation_step: c.ablation_step,
            seed: c.seed,
            figures: figures[i].clone(),
        })
        .collect();
    (results, sim_ops)
}

/// `--ray ADDRESS`: each cell in `cells` (stem, key, scenario) written to
/// `cells/pending/<stem>.json`, then the Python package runs them as Ray tasks
/// (`python3 -m zonedb cells DIR --ray ADDRESS`), storing each as `cells/<stem>.json`.
///
/// # Errors
/// [`LabError::Usage`] when the files cannot be written or Python cannot be started;
/// [`LabError::Failed`] when the Python side fails (a run that failed its invariant checks
/// among them).
fn on_ray(
    cache: &CellCache,
    address: &str,
    measured: bool,
    cells: &[(String, String, Scenario)],
) -> Result<(), LabError> {
    if cells.is_empty() {
        return Ok(());
    }
    let pending = cache.dir().join("pending");
    std::fs::create_dir_all(&pending)
        .map_err(|e| LabError::Usage(format!("--ray: {}: {e}", pending.display())))?;
    for (stem, key, scenario) in cells {
        let text = toml::to_string(scenario)
            .map_err(|e| LabError::Usage(format!("scenario '{}': {e}", scenario.name)))?;
        let job = serde_json::json!({
            "stem": stem,
            "key": key,
            "scenario": text,
            "measured": measured,
        });
        crate::output::write(
            &pending.join(format!("{stem}.json")),
            serde_json::to_string_pretty(&job)?,
        )?;
    }
    let (python, status) = python_zonedb([
        std::ffi::OsStr::new("cells"),
        cache.dir().as_os_str(),
        "--ray".as_ref(),
        address.as_ref(),
    ])?;
    if status.success() {
        Ok(())
    } else {
        Err(LabError::Failed(format!(
            "--ray: `{python} -m zonedb cells` failed ({status}); the cells stored in {} stay (run again with --resume)",
            cache.dir().display()
        )))
    }
}

/// `--emit-scenarios DIR`: each cell's scenario written as `DIR/<study>-<group>-<scheme>-<workload>-seed<N>.toml`
/// (characters other than letters, digits, `.` and `-` become `_`), read back and checked
/// equal before the next; nothing runs.
///
/// # Errors
/// [`LabError::Usage`] when a scenario cannot be written or reads back different.
pub fn emit_scenarios(dir: &Path, study: &str, cells: &[Cell]) -> Result<StudyOutput, LabError> {
    let io =
        |e: std::io::Error| LabError::Usage(format!("--emit-scenarios {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut files = Vec::new();
    for c in cells {
        let text = toml::to_string(&c.scenario)
            .map_err(|e| LabError::Usage(format!("scenario '{}': {e}", c.scenario.name)))?;
        let back = Scenario::configurations(&text).map_err(|e| {
            LabError::Usage(format!(
                "scenario '{}' does not read back: {e}",
                c.scenario.name
            ))
        })?;
        if back.first() != Some(&c.scenario) {
            return Err(LabError::Usage(format!(
                "scenario '{}' reads back different",
                c.scenario.name
            )));
        }
        let stem = c.stem(study);
        let path = dir.join(format!("{stem}.toml"));
        if files.contains(&path.display().to_string()) {
            return Err(LabError::Usage(format!(
                "two configurations would be written to {} (a bug: cells must be unique)",
                path.display()
            )));
        }
        crate::output::write(&path, &text)?;
        files.push(path.display().to_string());
    }
    let markdown = format!(
        "{} scenarios written to {} (run one with `zonedb run FILE`):\n{}\n",
        files.len(),
        dir.display(),
        files.join("\n")
    );
    Ok(StudyOutput {
        json: serde_json::json!({ "study": study, "emitted": files }),
        markdown,
        report: dir.to_path_buf(),
        any_finished: true,
        wall_ns: 0,
    })
}

/// Runs one cell that `zonedb reproduce --ray` wrote (the text of `cells/pending/<stem>.json`:
/// `stem`, `key`, `scenario`, `measured`) and returns the text of the stored cell
/// (`cells/<stem>.json`) that a local run would have written. A Ray task of the Python
/// package runs this.
///
/// # Errors
/// [`LabError::Usage`] for a job that does not read; [`LabError::Failed`] when the run failed
/// its invariant checks (such a run voids the study and is never stored).
pub fn study_cell(job: &str) -> Result<String, LabError> {
    let bad = |e: String| LabError::Usage(format!("study cell: {e}"));
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
    super::cache::run_cell(&scenario, field("key")?, measured).map_err(|e| match e {
        HarnessError::Invariant(_) => LabError::Failed(format!("{}: {e}", scenario.name)),
        e => LabError::Usage(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::{merge_tables, parse_options};

    #[test]
    fn a_dotted_option_merges_into_its_table() {
        let opts = parse_options(
            "--device-option",
            &["splitzns.ring=false".into(), "reset_ack=\"at-once\"".into()],
        )
        .unwrap();
        let mut device: toml::Table =
            toml::from_str("kind = \"splitzns\"\n[splitzns]\nring = true\nprefetcher = true\n")
                .unwrap();
        merge_tables(&mut device, &opts);
        assert_eq!(device["splitzns"]["ring"].as_bool(), Some(false));
        assert_eq!(device["splitzns"]["prefetcher"].as_bool(), Some(true));
        assert_eq!(device["reset_ack"].as_str(), Some("at-once"));
        assert_eq!(device["kind"].as_str(), Some("splitzns"));
        // A whole table still replaces a value that is not a table, and a value a table.
        let mut t: toml::Table = toml::from_str("a = 1\n[b]\nc = 2\n").unwrap();
        merge_tables(&mut t, &toml::from_str("b = 3\n[a]\nd = 4\n").unwrap());
        assert_eq!(t["b"].as_integer(), Some(3));
        assert_eq!(t["a"]["d"].as_integer(), Some(4));
        for bad in ["splitzns.=1", ".ring=1", "a b=1", "ring"] {
            assert!(
                parse_options("--device-option", &[bad.into()]).is_err(),
                "{bad}"
            );
        }
    }
}
