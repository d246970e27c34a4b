//! `zonedb compare [SCENARIO ...]` and `zonedb run SCENARIO`: scenarios (TOML) run in
//! simulation, side by side, normalized to the first configuration, with a report (Markdown,
//! HTML, JSON, CSV time series, SVG plots). With no scenario, `compare` runs the built-in
//! default (`scenarios/default.toml`): the README's main job.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::json;
use zonedb_harness::experiment::{self, RunReport};
use zonedb_harness::report;
use zonedb_harness::scenario::Scenario;

use super::CliError;
use super::run_flags::RunFlags;
use crate::host::Stopwatch;

/// The built-in default scenario.
const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/default.toml");

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Scenario files; each contributes its configuration and its `[[compare]]` variants. The
    /// first configuration is the baseline. None: the built-in default comparison.
    scenarios: Vec<PathBuf>,
    /// Directory of the report.
    #[arg(long, default_value = "zonedb-report")]
    out: PathBuf,
    /// Print the JSON summary instead of the table.
    #[arg(long)]
    json: bool,
    /// Configurations simulated at once (each is a separate deterministic simulation).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    #[command(flatten)]
    run: RunFlags,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Scenario file (its `[[compare]]` variants are ignored; use `compare` for them).
    scenario: PathBuf,
    /// Directory of the report.
    #[arg(long, default_value = "zonedb-report")]
    out: PathBuf,
    /// Print JSON instead of db_bench lines.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    run: RunFlags,
}

/// Applies the run flags to every configuration: `--elide_values=false` turns elision off
/// (a scenario's own `elide_values = false` stays).
pub(crate) fn apply(flags: &RunFlags, configs: &mut [Scenario]) {
    flags.apply_process();
    for c in configs {
        c.workload.elide_values &= flags.elide_values;
    }
}

fn load(path: &PathBuf) -> Result<Vec<Scenario>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    Scenario::configurations(&text).map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))
}

/// A run's report, or why it failed and whether the failure voids the study.
type Outcome = Result<RunReport, (String, bool)>;

/// Runs the configurations, `jobs` at a time; a configuration that fails (a full device, say)
/// is reported, not fatal. A run whose end-of-run invariant check failed (fsck, scan, sampled
/// reads) voids the whole study: nothing is printed but the failures.
///
/// # Errors
/// [`CliError::Failed`] naming every run whose invariant check failed.
pub(crate) fn run_all(
    configs: &[Scenario],
    jobs: usize,
    display: crate::progress::Display,
) -> Result<Vec<Result<RunReport, String>>, CliError> {
    let watch = Stopwatch::start();
    let progress = zonedb_harness::db_bench::ProgressCounter::default();
    let total = configs
        .iter()
        .map(|s| experiment::planned_ops(s).unwrap_or(0))
        .sum();
    let bar = display.start("simulated", total, &progress);
    let slots: Vec<std::sync::Mutex<Option<Outcome>>> = (0..configs.len())
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Host parallelism across independent simulations, `jobs` workers taking the next
    // configuration as they finish one; each stays a pure function of its scenario.
    #[allow(
        clippy::disallowed_methods,
        reason = "independent simulations on host threads"
    )]
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(configs.len().max(1)) {
            sc.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(s) = configs.get(i) else { break };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        experiment::run_with_progress(s, &progress).map_err(|e| {
                            let void =
                                matches!(e, zonedb_harness::db_bench::HarnessError::Invariant(_));
                            (format!("{}: {e}", s.name), void)
                        })
                    }))
                    .unwrap_or_else(|_| Err(("simulation thread panicked".into(), true)));
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                    // Progress with an estimate of the time left (on stderr).
                    let d = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    let spent = watch.elapsed_ns() as f64 / 1e9;
                    let left = spent / d as f64 * (configs.len() - d) as f64;
                    eprintln!(
                        "[{d}/{}] configurations done, {spent:.1} s elapsed, about {left:.0} s left",
                        configs.len()
                    );
                }
            });
        }
    });
    drop(bar);
    let out: Vec<Option<Outcome>> = slots
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect();
    let out: Vec<Result<RunReport, (String, bool)>> = out
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(("not run".into(), false))))
        .collect();
    let void: Vec<&str> = out
        .iter()
        .filter_map(|r| match r {
            Err((m, true)) => Some(m.as_str()),
            _ => None,
        })
        .collect();
    if !void.is_empty() {
        return Err(CliError::Failed(format!(
            "{} of {} runs failed their invariant checks; no figures are reported:\n{}",
            void.len(),
            out.len(),
            void.join("\n")
        )));
    }
    Ok(out.into_iter().map(|r| r.map_err(|(m, _)| m)).collect())
}

/// Splits results into the runs that finished and the failures' messages.
fn split(results: Vec<Result<RunReport, String>>) -> (Vec<RunReport>, Vec<String>) {
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for r in results {
        match r {
            Ok(r) => ok.push(r),
            Err(e) => failed.push(e),
        }
    }
    (ok, failed)
}

fn summary(runs: &[RunReport], wall_ns: u64) -> serde_json::Value {
    let total_ops: u64 = runs.iter().flat_map(|r| &r.benchmarks).map(|b| b.ops).sum();
    json!({
        "configurations": runs.iter().map(|r| json!({
            "name": r.scenario.name,
            "profile": r.profile,
            "benchmarks": r.benchmarks.iter().map(|b| json!({
                "name": b.name,
                "ops": b.ops,
                "ops_per_s": b.ops_per_sec(),
                "latency_ns_p50": (b.latency.p50_us * 1e3).round(),
                "latency_ns_p99": (b.latency.p99_us * 1e3).round(),
                "latency_ns_p999": (b.latency.p999_us * 1e3).round(),
                "found": b.found,
                "line": b.line(),
            })).collect::<Vec<_>>(),
            "write_amplification": r.write_amplification(),
            "lsm_write_amplification": r.db.write_amplification(),
            "gc_copied_bytes": r.fs.gc_copied_bytes,
            "zone_resets": r.fs.zone_resets,
            "block_erases": r.device.block_erases,
            "stall_ns": r.db.stall_stop_ns + r.db.stall_delay_ns,
            "compactions": r.db.compactions,
            "flushes": r.db.flushes,
            "write_amplification_parts": {
                "wal": r.db.write_amp_parts().wal,
                "flush": r.db.write_amp_parts().flush,
                "compaction": r.db.write_amp_parts().compaction,
                "cleaning": r.fs.gc_copied_bytes as f64 / r.db.user_bytes_written.max(1) as f64,
            },
            "flush_ns": r.db.flush_ns,
            "compaction_ns": r.db.compaction_ns,
            "flushes_per_s": r.db.flushes as f64 / (r.end_ns.max(1) as f64 / 1e9),
            "compactions_per_s": r.db.compactions as f64 / (r.end_ns.max(1) as f64 / 1e9),
            "device_bytes_written": r.device.bytes_written,
            "device_bytes_read": r.device.bytes_read,
            "io_blocking_ns": r.fs.io_blocking_ns,
            "virtual_end_ns": r.end_ns,
        })).collect::<Vec<_>>(),
        "host": crate::host::json(wall_ns, Some(total_ops)),
    })
}

pub fn compare(a: &CompareArgs) -> Result<ExitCode, CliError> {
    let mut configs = Vec::new();
    if a.scenarios.is_empty() {
        configs = Scenario::configurations(DEFAULT_SCENARIO)
            .map_err(|e| CliError::Usage(format!("built-in scenario: {e}")))?;
    }
    for p in &a.scenarios {
        configs.extend(load(p)?);
    }
    apply(&a.run, &mut configs);
    let wall = Stopwatch::start();
    if !a.json {
        println!(
            "zonedb compare: {} configurations, simulated {} at a time",
            configs.len(),
            a.jobs.max(1)
        );
    }
    let (runs, failed) = split(run_all(&configs, a.jobs, a.run.display())?);
    if runs.is_empty() {
        return Err(CliError::Usage(format!(
            "every configuration failed: {}",
            failed.join("; ")
        )));
    }
    let wall_ns = wall.elapsed_ns();
    let mut s = summary(&runs, wall_ns);
    s["failed"] = json!(failed);
    let title = "zonedb compare";
    report::write(&a.out, title, &runs, &s["host"]).map_err(|e| CliError::Usage(e.to_string()))?;
    if !failed.is_empty() {
        let mut md = std::fs::read_to_string(a.out.join("compare.md")).unwrap_or_default();
        md.push_str("\n## Failed configurations\n\n");
        for f in &failed {
            md.push_str(&format!("- {f}\n"));
        }
        std::fs::write(a.out.join("compare.md"), md)
            .map_err(|e| CliError::Usage(format!("report: {e}")))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!();
        print!("{}", report::table(&runs));
        for f in &failed {
            println!("failed: {f}");
        }
        println!(
            "\nreport: {} (also compare.html, compare.json, series-N.csv, *.svg); wall time {:.1} s",
            a.out.join("compare.md").display(),
            wall_ns as f64 / 1e9
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: &RunArgs) -> Result<ExitCode, CliError> {
    let mut configs = load(&a.scenario)?;
    configs.truncate(1);
    apply(&a.run, &mut configs);
    let wall = Stopwatch::start();
    let (runs, failed) = split(run_all(&configs, 1, a.run.display())?);
    if let Some(f) = failed.first() {
        return Err(CliError::Usage(f.clone()));
    }
    let wall_ns = wall.elapsed_ns();
    let s = summary(&runs, wall_ns);
    report::write(
        &a.out,
        &format!("zonedb run {}", a.scenario.display()),
        &runs,
        &s["host"],
    )
    .map_err(|e| CliError::Usage(e.to_string()))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        for b in &runs[0].benchmarks {
            println!("{}", b.line());
        }
        println!(
            "write amplification {:.3}, GC copied {} bytes, zone resets {}, stalls {:.3} s; report: {}",
            runs[0].write_amplification(),
            runs[0].fs.gc_copied_bytes,
            runs[0].fs.zone_resets,
            (runs[0].db.stall_stop_ns + runs[0].db.stall_delay_ns) as f64 / 1e9,
            a.out.join("compare.md").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
