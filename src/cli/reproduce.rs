//! `zonedb reproduce same-zone|oaza|splitzns [--scale small|paper] [--json] [--seeds N]
//! [--no-text-forms] [--no-ablation]`: the papers' zone-aware experiments (scheme matrices in
//! the authors' code's forms and the paper text's, and the ablation between the old study and
//! them, built in `zonedb_harness::reproduce`), run in simulation, with our figures printed
//! beside the papers' and written to a report directory. Identical configurations (the
//! ablation's last row and the code forms' first workload) run once. The flags are read here;
//! the study is looked up in `zonedb_harness::reproduce::Registry` and run there
//! (`reproduce/run.rs`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use zonedb_harness::reproduce::{Registry, Request};

use super::CliError;
use super::run_flags::RunFlags;

/// The studies the harness's registry holds, each with its line of help: what `study`
/// accepts and `--help` lists.
fn study_names() -> clap::builder::PossibleValuesParser {
    Registry::builtin()
        .studies()
        .iter()
        .map(|s| clap::builder::PossibleValue::new(s.name()).help(s.about()))
        .collect::<Vec<_>>()
        .into()
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The experiment (the accepted names come from the study registry).
    #[arg(value_parser = study_names())]
    study: String,
    /// `small` (1/64 of the papers' devices, minutes), `paper` (the papers' own sizes),
    /// `tiny` (1/1024, seconds; for checks, not figures) or, for hhzs and same-zone, `1/N`
    /// (N = 2, 4, ... 128: sizes between `small` and `paper`).
    #[arg(long, default_value = "small")]
    scale: String,
    /// Print the JSON (one object per scheme) instead of the tables.
    #[arg(long)]
    json: bool,
    /// Simulations run at once (1-256).
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    jobs: usize,
    /// Seed of every simulation (the first, with `--seeds`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seeds to run (`seed`, `seed + 1`, ...; 1-1000); every figure is their mean, with the
    /// spread in the JSON (the paper: the mean of 3 runs).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    seeds: u64,
    /// Only the cells the study's headline claims need (same-zone: Baseline and A-CAZA on
    /// every workload; oaza: LIZA, CAZA, OAZA; splitzns: LDP, Gear, LLC, SplitZNS on
    /// overwrite and YCSB-A, and the breakdown's native, +diff, +SZR on overwrite; hhzs: B3,
    /// AUTO, HHZS on YCSB A-F and caching on W4; znsplus: every experiment), in the code's
    /// forms, without ablation or sweeps. The JSON's `claims` list judges each claim.
    #[arg(long)]
    claims: bool,
    /// Skip the paper text's forms (run the code's only).
    #[arg(long)]
    no_text_forms: bool,
    /// Skip the ablation.
    #[arg(long)]
    no_ablation: bool,
    /// Skip the ACC turning-point sweep (same-zone); skip figure 16's sweeps and figures 3
    /// and 4's runs (splitzns).
    #[arg(long)]
    no_sweep: bool,
    /// Skip the breakdown native, +diff, +SZR, +RP, +RS (splitzns).
    #[arg(long)]
    no_breakdown: bool,
    /// splitzns: the keys the measured overwrites hit: `spread` (db_bench `--num <loaded
    /// keys> --writes 1000000`: every loaded key) or `first-keys` (`--num 1000000`: the first
    /// 1 M keys, 2% of the key space).
    #[arg(long, default_value = "spread")]
    overwrite_keys: String,
    /// splitzns: how the database is loaded: `random` (db_bench fillrandom of 45 GiB, keys
    /// drawn with replacement, static level sizes; YCSB-L zipfian upserts) or `unique`
    /// (filluniquerandom of 40 GiB, dynamic level sizes; YCSB-L is YCSB's load phase): the
    /// device nearly full and LDP cleaning-bound.
    #[arg(long, default_value = "random")]
    load: String,
    /// splitzns: GiB of 1 KiB values the load writes at paper scale, in place of the `--load`
    /// form's 45 (`random`) or 40 (`unique`); the other scales divide it as they divide the
    /// device (`--load unique --load-gib 35`: 36,700,160 keys at `paper`, 573,440 at `small`).
    #[arg(long, value_name = "GIB")]
    load_gib: Option<f64>,
    /// Only these workloads in the scheme matrix, comma-separated (same-zone: fillrandom,
    /// zipfian, latest, uniform; oaza: fillrandom-8k; splitzns: fillrandom, overwrite,
    /// readrandom, ycsb-l, ycsb-a ... ycsb-f; hhzs: experiments, as --experiments). Default:
    /// all.
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// hhzs: only these experiments, comma-separated (motivation, exp1 ... exp6); znsplus:
    /// fill-delete-70, fill-delete-80, chips-4, chips-8, chips-16, chips-32, overwrite,
    /// ycsb-a. Default: all.
    #[arg(long, value_delimiter = ',')]
    experiments: Vec<String>,
    /// An engine option set in every configuration of the study, as `KEY=VALUE` with the
    /// value in TOML (`avoid_unnecessary_blocking_io=true`); repeatable. Not for znsplus.
    #[arg(long = "engine-option", value_name = "KEY=VALUE")]
    engine_options: Vec<String>,
    /// A device option set in every configuration of the study, as `KEY=VALUE` with the
    /// value in TOML (`reset_ack="at-once"`); repeatable. Not for znsplus.
    #[arg(long = "device-option", value_name = "KEY=VALUE")]
    device_options: Vec<String>,
    /// A zone layer option (a scenario's `[fs]` key) set in every configuration of the study,
    /// as `KEY=VALUE` with the value in TOML (`scale_time_constants=false`); repeatable. Not
    /// for znsplus.
    #[arg(long = "fs-option", value_name = "KEY=VALUE")]
    fs_options: Vec<String>,
    /// Report directory (`reproduce-<study>.md` and `.json` are written there).
    #[arg(long, default_value = "zonedb-report")]
    out: PathBuf,
    /// Write each configuration's scenario (TOML, options given here included) to this
    /// directory instead of running the study, one file per configuration, so that any one
    /// of them runs alone with `zonedb run FILE` (a paper-scale cell takes 10-60 minutes).
    /// Not for znsplus.
    #[arg(long = "emit-scenarios", value_name = "DIR")]
    emit_scenarios: Option<PathBuf>,
    /// Reuse the finished cells in `--out`'s `cells/` folder (each distinct simulation is
    /// stored there as it ends): a stopped study run again with `--resume` runs only what
    /// is missing, and prints the JSON a whole run prints. Without it every cell runs.
    #[arg(long)]
    resume: bool,
    /// Run the cells as Ray tasks on this cluster (`127.0.0.1:6379`, `ray://host:10001` or
    /// `auto`) through the Python package (`python3 -m zonedb cells`; `ZONEDB_PYTHON` names
    /// another interpreter), one task per distinct simulation, each stored in `--out`'s
    /// `cells/` as it ends (so `--resume` picks up after a stop). Not for znsplus.
    #[arg(long, value_name = "ADDRESS")]
    ray: Option<String>,
    #[command(flatten)]
    pub(crate) run: RunFlags,
}

pub use zonedb_harness::reproduce::StudyOutput;

/// `zonedb reproduce`: runs the study, prints its tables (or JSON) and where the report is.
pub fn run(a: &ReproduceArgs) -> Result<ExitCode, CliError> {
    let o = study(a)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&o.json)?);
    } else {
        print!("{}", o.markdown);
        println!(
            "\nreport: {} ({:.0} s)",
            o.report.display(),
            o.wall_ns as f64 / 1e9
        );
    }
    Ok(if o.any_finished {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

impl ReproduceArgs {
    /// The arguments as the harness takes them.
    pub fn request(&self) -> Request {
        let study = self.study.clone();
        Request {
            study,
            scale: self.scale.clone(),
            json: self.json,
            jobs: self.jobs,
            seed: self.seed,
            seeds: self.seeds,
            claims: self.claims,
            no_text_forms: self.no_text_forms,
            no_ablation: self.no_ablation,
            no_sweep: self.no_sweep,
            no_breakdown: self.no_breakdown,
            overwrite_keys: self.overwrite_keys.clone(),
            load: self.load.clone(),
            load_gib: self.load_gib,
            workloads: self.workloads.clone(),
            experiments: self.experiments.clone(),
            engine_options: self.engine_options.clone(),
            device_options: self.device_options.clone(),
            fs_options: self.fs_options.clone(),
            out: self.out.clone(),
            emit_scenarios: self.emit_scenarios.clone(),
            resume: self.resume,
            ray: self.ray.clone(),
            elide_values: self.run.elide_values,
            parallel_compute: self.run.parallel_compute,
        }
    }
}

/// Runs the study `a` names (the harness's registry) and writes its report; prints only the
/// plan line (without `--json`) and progress.
///
/// # Errors
/// Bad arguments; a report that cannot be written; runs whose invariant checks failed.
pub fn study(a: &ReproduceArgs) -> Result<StudyOutput, CliError> {
    let host = crate::host::Host::new(a.run.display());
    Ok(Registry::builtin().reproduce(&a.request(), &host)?)
}
