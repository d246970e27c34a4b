//! `zonedb sweep SWEEP.toml [--out DIR] [--jobs N] [--ray ADDRESS] [--json]`: a base scenario
//! over a grid of overrides and seeds (the file's format: `zonedb_harness::sweep`). Locally,
//! each run is a `zonedb run SCENARIO --json --no-report` child process, `--jobs` at a time;
//! with `--ray ADDRESS` the Python package runs them as Ray tasks on that cluster
//! (`python3 -m zonedb sweep ...`). Either way each finished run's JSON lands in
//! `DIR/runs/`, so running the same command again resumes; then `runs.parquet`, `summary.*`
//! and the plots are written from every result present.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;
use zonedb_harness::error::HarnessError;
use zonedb_harness::sweep::dir::{SweepDir, SweepOutcome};
use zonedb_harness::sweep::{SweepRun, SweepSpec};

use super::CliError;
use super::run_flags::RunFlags;
use crate::host::Stopwatch;

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The sweep file (TOML: `scenario`, `seeds`, `seed`, `metrics`, `[grid]`).
    sweep: PathBuf,
    /// Results directory (default `zonedb-report/sweep-<name>`); an existing one of the same
    /// sweep is resumed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Runs at once (local processes, 1-256; with --ray, tasks in flight are Ray's to
    /// schedule).
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    jobs: usize,
    /// Run on this Ray cluster (`127.0.0.1:6379`, `ray://host:10001` or `auto`) through the
    /// Python package (`python3 -m zonedb`; `ZONEDB_PYTHON` names another interpreter).
    #[arg(long)]
    ray: Option<String>,
    /// Print `summary.json` instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunFlags,
}

/// The results directory of `spec` under `out`, or the default.
pub fn out_dir(out: Option<&Path>, spec: &SweepSpec) -> PathBuf {
    out.map_or_else(
        || {
            let safe: String = spec
                .name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            PathBuf::from("zonedb-report").join(format!("sweep-{safe}"))
        },
        Path::to_owned,
    )
}

pub fn run(a: &SweepArgs) -> Result<ExitCode, CliError> {
    let usage = |e: zonedb_harness::db_bench::HarnessError| CliError::Usage(e.to_string());
    let spec = SweepSpec::load(&a.sweep).map_err(usage)?;
    let out = out_dir(a.out.as_deref(), &spec);
    if let Some(address) = &a.ray {
        return on_ray(a, address, &out);
    }
    let dir = SweepDir::open(&out, spec).map_err(usage)?;
    let pending = dir.pending();
    if !a.json {
        println!(
            "zonedb sweep {}: {} runs ({} configurations x {} seeds), {} to run, {} at a time; results in {}",
            dir.spec().name,
            dir.runs().len(),
            dir.runs().len() / usize::try_from(dir.spec().seeds).unwrap_or(1).max(1),
            dir.spec().seeds,
            pending.len(),
            a.jobs.max(1),
            out.display()
        );
    }
    run_local(&dir, &pending, a.jobs, &a.run)?;
    let outcome = dir.finish().map_err(usage)?;
    report(&outcome, &out, a.json)
}

/// Prints a finished sweep (its table or JSON) and gives its exit status: failure when a run
/// failed.
fn report(o: &SweepOutcome, out: &Path, json: bool) -> Result<ExitCode, CliError> {
    if json {
        println!("{}", serde_json::to_string_pretty(&o.summary)?);
    } else {
        print!("{}", o.markdown);
        println!(
            "\nresults: {} (runs.parquet, summary.md, summary.json, summary.csv, {} plots)",
            out.display(),
            o.plots.len()
        );
    }
    Ok(if o.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs `pending` as child processes of this binary, `jobs` at a time, recording each.
fn run_local(
    dir: &SweepDir,
    pending: &[SweepRun],
    jobs: usize,
    flags: &RunFlags,
) -> Result<(), CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::Usage(format!("zonedb: {e}")))?;
    let scenarios = dir.root().join("scenarios");
    std::fs::create_dir_all(&scenarios).map_err(CliError::io(&scenarios))?;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let first_error: Mutex<Option<CliError>> = Mutex::new(None);
    let watch = Stopwatch::start();
    let bool_flag = |name: &str, v: bool| format!("--{name}={v}");
    // Host threads that each wait on one child process at a time.
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(pending.len().max(1)) {
            sc.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(r) = pending.get(i) else { break };
                    if first_error.lock().is_ok_and(|e| e.is_some()) {
                        break;
                    }
                    let file = scenarios.join(format!("{}.toml", r.run));
                    // Never through a symbolic link planted in `scenarios/`: that stops the
                    // sweep (it is not the run's failure).
                    let written = zonedb_harness::output::write(&file, &r.scenario);
                    if let Err(e @ HarnessError::LinkRefused { .. }) = written {
                        if let Ok(mut slot) = first_error.lock() {
                            slot.get_or_insert(CliError::Harness(e));
                        }
                        break;
                    }
                    let result = written.map_err(|e| e.to_string()).and_then(|()| {
                        Command::new(&exe)
                            .arg("run")
                            .arg(&file)
                            .args(["--json", "--no-report"])
                            .arg(bool_flag("elide_values", flags.elide_values))
                            .arg(bool_flag("parallel_compute", flags.parallel_compute))
                            .stdin(Stdio::null())
                            .output()
                            .map_err(|e| format!("zonedb run: {e}"))
                    });
                    let recorded = match result {
                        Ok(o) if o.status.success() => {
                            dir.record(&r.run, &String::from_utf8_lossy(&o.stdout))
                        }
                        Ok(o) => {
                            let err = String::from_utf8_lossy(&o.stderr);
                            let why = err
                                .lines()
                                .rev()
                                .find(|l| l.starts_with("zonedb:"))
                                .unwrap_or(&err)
                                .to_owned();
                            eprintln!("{}: failed: {why}", r.run);
                            dir.record_failure(&r.run, &why)
                        }
                        Err(e) => dir.record_failure(&r.run, &e),
                    };
                    if let Err(e) = recorded
                        && let Ok(mut slot) = first_error.lock()
                    {
                        slot.get_or_insert(CliError::Harness(e));
                    }
                    let d = done.fetch_add(1, Ordering::SeqCst) + 1;
                    let spent = watch.elapsed_ns() as f64 / 1e9;
                    let left = spent / d as f64 * (pending.len() - d) as f64;
                    eprintln!(
                        "[{d}/{}] runs done, {spent:.1} s elapsed, about {left:.0} s left",
                        pending.len()
                    );
                }
            });
        }
    });
    match first_error.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `--ray`: the Python package runs the sweep as Ray tasks.
fn on_ray(a: &SweepArgs, address: &str, out: &Path) -> Result<ExitCode, CliError> {
    let mut args: Vec<OsString> = vec!["sweep".into(), a.sweep.clone().into()];
    args.extend(["--ray".into(), address.into(), "--out".into(), out.into()]);
    args.push(format!("--elide-values={}", a.run.elide_values).into());
    args.push(format!("--parallel-compute={}", a.run.parallel_compute).into());
    if a.json {
        args.push("--json".into());
    }
    let (_, status) = zonedb_harness::runner::python_zonedb(args)?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(u8::try_from(c).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
