//! `zonedb compare [SCENARIO ...]` and `zonedb run SCENARIO`: scenarios (TOML) run in
//! simulation, side by side, normalized to the first configuration, with a report (Markdown,
//! HTML, JSON, CSV time series, SVG plots). With no scenario, `compare` runs the built-in
//! default (`scenarios/default.toml`): the README's main job.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::json;
use zonedb_harness::experiment::RunReport;
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
    /// Configurations simulated at once (each is a separate deterministic simulation; 1-256).
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    jobs: usize,
    #[command(flatten)]
    run: RunFlags,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Report directory of a previous `zonedb compare` or `zonedb run` (holding compare.json);
    /// its Markdown, HTML, CSV and plots are rewritten in place. Study figures are redrawn
    /// from any `reproduce-<study>.json` in it.
    dir: PathBuf,
}

/// The studies whose `reproduce-<study>.json` `zonedb report DIR` redraws the figures of.
const STUDIES: [&str; 5] = ["same-zone", "oaza", "splitzns", "hhzs", "znsplus"];

/// The study and tag a results file is named for: `reproduce-<study>.json` gives no tag,
/// `reproduce-<study>-<tag>.json` (another run of it, such as `-paper`) the tag.
fn study_json(name: &str) -> Option<(&'static str, Option<&str>)> {
    let stem = name.strip_prefix("reproduce-")?.strip_suffix(".json")?;
    STUDIES.iter().find_map(|&study| {
        let rest = stem.strip_prefix(study)?;
        if rest.is_empty() {
            Some((study, None))
        } else {
            let tag = rest.strip_prefix('-')?;
            // `same-zone` is not the `same` study tagged `zone`: a tag names no study.
            (!tag.is_empty()).then_some((study, Some(tag)))
        }
    })
}

/// `zonedb report DIR`: the report re-rendered from `DIR/compare.json`, and each study's
/// figures from `DIR/reproduce-<study>.json` and `DIR/reproduce-<study>-<tag>.json` (a
/// results directory such as `docs/results`; a tagged run's figures carry its tag).
pub fn report(a: &ReportArgs) -> Result<ExitCode, CliError> {
    let usage = |e: zonedb_harness::db_bench::HarnessError| CliError::Usage(e.to_string());
    let mut names: Vec<String> = std::fs::read_dir(&a.dir)
        .map_err(CliError::io(&a.dir))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| study_json(n).is_some())
        .collect();
    names.sort();
    let mut drawn = Vec::new();
    for name in &names {
        let Some((study, tag)) = study_json(name) else {
            continue;
        };
        let path = a.dir.join(name);
        let text = zonedb_harness::input::read_to_string(&path).map_err(CliError::io(&path))?;
        let j: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
        if j["study"].as_str() != Some(study) {
            return Err(CliError::Usage(format!(
                "{}: holds study {:?}, not {study}",
                path.display(),
                j["study"]
            )));
        }
        for d in zonedb_harness::reproduce::plots::render_tagged(&a.dir, &j, tag).map_err(usage)? {
            drawn.push((name.as_str(), d));
        }
    }
    if drawn.is_empty() || a.dir.join("compare.json").exists() {
        report::rerender(&a.dir).map_err(usage)?;
        println!(
            "report: {} (also compare.html, series-N.csv, *.svg, *.png), re-rendered from compare.json",
            a.dir.join("compare.md").display()
        );
    }
    for (name, d) in drawn {
        println!(
            "figure: {} (and .png), from {name}: {} bars, {} paper markers, {} 95% intervals",
            a.dir.join(&d.file).display(),
            d.bars.bars,
            d.bars.paper_marks,
            d.bars.whiskers
        );
    }
    Ok(ExitCode::SUCCESS)
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
    /// Write no report directory (sweeps run each scenario this way and keep its JSON).
    #[arg(long)]
    no_report: bool,
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

fn load(path: &Path) -> Result<Vec<Scenario>, CliError> {
    let text = zonedb_harness::input::read_to_string(path).map_err(CliError::io(path))?;
    Scenario::configurations(&text).map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))
}

pub use zonedb_harness::runner::{Outcome, RunFailure};

/// Runs the configurations, `jobs` at a time (the harness's runner); a configuration that
/// fails (a full device, say) is reported, not fatal. A run whose end-of-run invariant check
/// failed (fsck, scan, sampled reads) voids the whole study: nothing is printed but the
/// failures.
///
/// # Errors
/// [`CliError::Failed`] naming every run whose invariant check failed.
pub(crate) fn run_all(
    configs: &[Scenario],
    jobs: usize,
    display: crate::progress::Display,
) -> Result<Vec<Result<RunReport, String>>, CliError> {
    Ok(zonedb_harness::runner::run_all_counted(
        configs,
        jobs,
        &crate::host::Host::new(display),
        &zonedb_harness::runner::Progress::default(),
        true,
        &|_, _| {},
    )?
    .into_iter()
    .map(|r| r.map_err(|f| f.message))
    .collect())
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

/// The JSON `--json` prints: the runs' (`zonedb_harness::summary`) and the host's.
pub(crate) fn summary(runs: &[RunReport], wall_ns: u64) -> serde_json::Value {
    let total_ops: u64 = runs.iter().flat_map(|r| &r.benchmarks).map(|b| b.ops).sum();
    let mut s = zonedb_harness::summary::runs_json(runs);
    s["host"] = crate::host::json(wall_ns, Some(total_ops));
    s
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
    report::write_with_failures(&a.out, title, &runs, &s["host"], &failed)
        .map_err(|e| CliError::Usage(e.to_string()))?;
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
    let text =
        zonedb_harness::input::read_to_string(&a.scenario).map_err(CliError::io(&a.scenario))?;
    // A failed invariant check stays a failure (exit status 1); anything else is named with
    // the scenario file (exit status 2).
    let out = crate::lab::run_text(&text, &a.run, None).map_err(|e| match e {
        e @ CliError::Failed(_) => e,
        e => CliError::Usage(format!("{}: {e}", a.scenario.display())),
    })?;
    let runs = std::slice::from_ref(&out.report);
    if !a.no_report {
        report::write(
            &a.out,
            &format!("zonedb run {}", a.scenario.display()),
            runs,
            &out.json["host"],
        )
        .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out.json)?);
    } else {
        let r = &out.report;
        for b in &r.benchmarks {
            println!("{}", b.line());
        }
        println!(
            "write amplification {:.3}, GC copied {} bytes, zone resets {}, stalls {:.3} s{}",
            r.write_amplification(),
            r.fs.gc_copied_bytes,
            r.fs.zone_resets,
            (r.db.stall_stop_ns + r.db.stall_delay_ns) as f64 / 1e9,
            if a.no_report {
                String::new()
            } else {
                format!("; report: {}", a.out.join("compare.md").display())
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::study_json;

    #[test]
    fn results_files_name_their_study_and_tag() {
        assert_eq!(
            study_json("reproduce-splitzns.json"),
            Some(("splitzns", None))
        );
        assert_eq!(
            study_json("reproduce-splitzns-paper.json"),
            Some(("splitzns", Some("paper")))
        );
        assert_eq!(
            study_json("reproduce-same-zone.json"),
            Some(("same-zone", None))
        );
        assert_eq!(
            study_json("reproduce-same-zone-ablation.json"),
            Some(("same-zone", Some("ablation")))
        );
        assert_eq!(study_json("reproduce-splitznsx.json"), None);
        assert_eq!(study_json("reproduce-splitzns-.json"), None);
        assert_eq!(study_json("reproduce-lsm.json"), None);
        assert_eq!(study_json("compare.json"), None);
        assert_eq!(study_json("reproduce-hhzs.svg"), None);
    }
}
