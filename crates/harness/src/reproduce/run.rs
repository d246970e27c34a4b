//! Running a study ([`reproduce`]): its cells planned, run, its figures, claims and report
//! computed, and the report files written. The command line (`zonedb reproduce`) and the
//! Python package (`zonedb.reproduce`) both come here, through the [`super::Registry`], with
//! a [`Request`], the command's arguments as values. The engine studies' shared steps
//! (cells that are scenarios: dedup, the cells cache, Ray) are in [`super::engine`].

use std::path::PathBuf;

use super::cache::CellCache;
use super::claims;
use super::seeds::Seeded;
use super::study::Study;
use crate::runner::{Host, LabError};

/// What a study is asked for: `zonedb reproduce`'s arguments as values (each field is the
/// flag of the same name; see `zonedb reproduce --help`).
#[derive(Debug, Clone)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "the command's switches, each on or off"
)]
pub struct Request {
    /// The study's name (`same-zone`, `oaza`, `splitzns`, `hhzs`, `znsplus`).
    pub study: String,
    /// `small`, `paper` or `tiny`.
    pub scale: String,
    /// JSON printed instead of the tables (no plan line).
    pub json: bool,
    /// Simulations run at once.
    pub jobs: usize,
    /// The first seed.
    pub seed: u64,
    /// Seeds to run.
    pub seeds: u64,
    /// Only the cells the headline claims need.
    pub claims: bool,
    /// Skip the paper text's forms.
    pub no_text_forms: bool,
    /// Skip the ablation.
    pub no_ablation: bool,
    /// Skip the sweeps.
    pub no_sweep: bool,
    /// Skip the breakdown (splitzns).
    pub no_breakdown: bool,
    /// `spread` or `first-keys` (splitzns).
    pub overwrite_keys: String,
    /// `random` or `unique` (splitzns).
    pub load: String,
    /// GiB the load writes at paper scale (splitzns).
    pub load_gib: Option<f64>,
    /// Only these workloads.
    pub workloads: Vec<String>,
    /// Only these experiments.
    pub experiments: Vec<String>,
    /// `KEY=VALUE` engine options set in every configuration.
    pub engine_options: Vec<String>,
    /// `KEY=VALUE` device options set in every configuration.
    pub device_options: Vec<String>,
    /// `KEY=VALUE` zone layer options set in every configuration.
    pub fs_options: Vec<String>,
    /// The report directory.
    pub out: PathBuf,
    /// Scenarios written here instead of run.
    pub emit_scenarios: Option<PathBuf>,
    /// Reuse the finished cells in `out`'s `cells/`.
    pub resume: bool,
    /// Run the cells as Ray tasks on this cluster.
    pub ray: Option<String>,
    /// `--elide_values`.
    pub elide_values: bool,
    /// `--parallel_compute`.
    pub parallel_compute: bool,
}

/// A study's outcome: its JSON and Markdown (both also written to the report directory), the
/// report's path, and whether any of its runs finished.
#[derive(Debug)]
pub struct StudyOutput {
    /// The JSON (`reproduce-<study>.json`, what `--json` prints).
    pub json: serde_json::Value,
    /// The Markdown (`reproduce-<study>.md`, what the command prints).
    pub markdown: String,
    /// The Markdown report's path.
    pub report: PathBuf,
    /// Whether at least one run finished (none: exit status 1).
    pub any_finished: bool,
    /// Wall time, ns.
    pub wall_ns: u64,
}

/// What a study's run stage works with.
pub struct Context<'a> {
    /// The arguments.
    pub req: &'a Request,
    /// The host (wall clock, progress).
    pub host: &'a dyn Host,
    /// The host's wall time when the runs began.
    pub start: u64,
    /// The cells cache in the report directory.
    pub cache: CellCache,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("req", self.req)
            .field("start", &self.start)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

/// Runs `study` as `req` says and writes its report; prints only the plan line (without
/// `--json`) and progress.
///
/// # Errors
/// Bad arguments; a report that cannot be written; runs whose invariant checks failed.
pub fn reproduce<S: Study + ?Sized>(
    study: &S,
    req: &Request,
    host: &dyn Host,
) -> Result<StudyOutput, LabError> {
    let name = study.name();
    let planned = study.plan(req)?;
    if let Some(dir) = &req.emit_scenarios {
        return study.emit(&planned.cells, dir);
    }
    if !req.json {
        println!(
            "zonedb reproduce {name} --scale {}: {} {}, {} at a time (seeds {:?})",
            req.scale,
            planned.cells.len(),
            study.cells_word(),
            req.jobs.max(1),
            planned.seeds
        );
    }
    let start = host.wall_ns();
    let ctx = Context {
        req,
        host,
        start,
        cache: CellCache::new(&req.out, req.resume),
    };
    let ran = study.run(&planned, &ctx)?;
    let (scale, results) = (planned.scale, &ran.results);
    let mut j = study.figures(scale, results);
    claims::insert(&mut j, &study.claims(results), results, scale.name());
    j["host"] = host.json(host.wall_ns().saturating_sub(start), ran.sim_ops);
    j["command"] = command(req, name).into();
    let mut md = study.report(scale, results);
    study.annotate(req, &mut j, &mut md)?;
    std::fs::create_dir_all(&req.out).map_err(|e| LabError::Usage(format!("report: {e}")))?;
    let write = |file: String, text: String| {
        crate::output::write(&req.out.join(&file), text)
            .map_err(|e| LabError::Usage(format!("report: {e}")))
    };
    write(format!("reproduce-{name}.md"), md.clone())?;
    study.draw(&req.out, &j)?;
    write(
        format!("reproduce-{name}.json"),
        serde_json::to_string_pretty(&j)?,
    )?;
    // A failed end-of-run check voids the study's figures.
    if !ran.void.is_empty() {
        return Err(LabError::Failed(format!(
            "{} runs failed their invariant checks:\n{}",
            ran.void.len(),
            ran.void.join("\n")
        )));
    }
    let failed = results.iter().filter(|r| !r.finished()).count();
    Ok(StudyOutput {
        json: j,
        markdown: md,
        report: req.out.join(format!("reproduce-{name}.md")),
        any_finished: failed < results.len(),
        wall_ns: host.wall_ns().saturating_sub(start),
    })
}

/// The command that reproduces `req`'s figures (what changes them; not `--jobs`, `--out`,
/// `--json`), for the report and the claims tables.
fn command(req: &Request, name: &str) -> String {
    use std::fmt::Write as _;
    let mut c = format!("zonedb reproduce {name} --scale {}", req.scale);
    let flags = [
        (req.claims, "--claims"),
        (req.no_text_forms, "--no-text-forms"),
        (req.no_ablation, "--no-ablation"),
        (req.no_sweep, "--no-sweep"),
        (req.no_breakdown, "--no-breakdown"),
    ];
    for (on, flag) in flags {
        if on {
            let _ = write!(c, " {flag}");
        }
    }
    if req.seed != 1 {
        let _ = write!(c, " --seed {}", req.seed);
    }
    if req.seeds != 1 {
        let _ = write!(c, " --seeds {}", req.seeds);
    }
    if name == "splitzns" {
        if req.load != "random" {
            let _ = write!(c, " --load {}", req.load);
        }
        if let Some(g) = req.load_gib {
            let _ = write!(c, " --load-gib {g}");
        }
        if req.overwrite_keys != "spread" {
            let _ = write!(c, " --overwrite-keys {}", req.overwrite_keys);
        }
    }
    for (flag, list) in [
        ("--workloads", &req.workloads),
        ("--experiments", &req.experiments),
    ] {
        if !list.is_empty() {
            let _ = write!(c, " {flag} {}", list.join(","));
        }
    }
    for (flag, list) in [
        ("--engine-option", &req.engine_options),
        ("--device-option", &req.device_options),
        ("--fs-option", &req.fs_options),
    ] {
        for o in list {
            let _ = write!(c, " {flag} '{o}'");
        }
    }
    c
}

/// `--seed`, `--seed + 1`, ... (`--seeds` of them), refused when they would pass `u64::MAX`.
///
/// # Errors
/// [`LabError::Usage`] when they would.
pub fn seed_list(req: &Request) -> Result<Vec<u64>, LabError> {
    (0..req.seeds)
        .map(|i| req.seed.checked_add(i))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| {
            LabError::Usage(format!(
                "--seed {} --seeds {}: the seeds would run past {}",
                req.seed,
                req.seeds,
                u64::MAX
            ))
        })
}
