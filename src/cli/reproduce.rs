//! `zonedb reproduce same-zone|oaza [--scale small|paper] [--json]`: the papers' zone-aware
//! experiments (scheme matrices built in `zonedb_harness::reproduce`), run in simulation, with
//! our figures printed beside the papers' and written to a report directory.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use zonedb_harness::reproduce::{self, CellResult, Figures, ReproScale, Study};

use super::CliError;
use super::compare::run_all;
use crate::host::Stopwatch;

/// Which experiment.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StudyArg {
    /// Same-Zone Compaction: Baseline, A-LIZA, CAZA, A-CAZA; the ACC turning-point sweep.
    SameZone,
    /// OAZA vs LIZA and CAZA.
    Oaza,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The experiment.
    #[arg(value_enum)]
    study: StudyArg,
    /// `small` (1/64 of the papers' devices, minutes) or `paper` (the papers' sizes).
    #[arg(long, default_value = "small")]
    scale: String,
    /// Print the JSON (one object per scheme) instead of the tables.
    #[arg(long)]
    json: bool,
    /// Simulations run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Seed of every simulation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Report directory (`reproduce-<study>.md` and `.json` are written there).
    #[arg(long, default_value = "zonedb-report")]
    out: PathBuf,
}

pub fn run(a: &ReproduceArgs) -> Result<ExitCode, CliError> {
    let usage = |e: zonedb_harness::db_bench::HarnessError| CliError::Usage(e.to_string());
    let study = match a.study {
        StudyArg::SameZone => Study::SameZone,
        StudyArg::Oaza => Study::Oaza,
    };
    let name = match study {
        Study::SameZone => "same-zone",
        Study::Oaza => "oaza",
    };
    let scale = ReproScale::parse(&a.scale).map_err(usage)?;
    let cells = reproduce::cells(study, scale, a.seed).map_err(usage)?;
    if !a.json {
        println!(
            "zonedb reproduce {name} --scale {}: {} simulations, {} at a time (seed {})",
            a.scale,
            cells.len(),
            a.jobs.max(1),
            a.seed
        );
    }
    let wall = Stopwatch::start();
    let scenarios: Vec<_> = cells.iter().map(|c| c.scenario.clone()).collect();
    let reports = run_all(&scenarios, a.jobs)?;
    let results: Vec<CellResult> = cells
        .iter()
        .zip(reports)
        .map(|(c, r)| CellResult {
            scheme: c.scheme.to_owned(),
            workload: c.workload.clone(),
            turning_point: c.turning_point,
            level_constraint: c.level_constraint,
            figures: r.map(|r| Figures::of(&r)),
        })
        .collect();
    let mut j = reproduce::json(study, scale, &results);
    j["host"] = serde_json::json!({ "wall_ns": wall.elapsed_ns() });
    let md = reproduce::markdown(study, scale, &results);
    std::fs::create_dir_all(&a.out).map_err(|e| CliError::Usage(format!("report: {e}")))?;
    let write = |file: String, text: String| {
        std::fs::write(a.out.join(&file), text)
            .map_err(|e| CliError::Usage(format!("report {file}: {e}")))
    };
    write(format!("reproduce-{name}.md"), md.clone())?;
    write(
        format!("reproduce-{name}.json"),
        serde_json::to_string_pretty(&j)?,
    )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        print!("{md}");
        println!(
            "\nreport: {} ({:.0} s)",
            a.out.join(format!("reproduce-{name}.md")).display(),
            wall.elapsed_ns() as f64 / 1e9
        );
    }
    let failed = results.iter().filter(|r| r.figures.is_err()).count();
    Ok(if failed == results.len() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
