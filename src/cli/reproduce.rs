//! `zonedb reproduce same-zone|oaza|splitzns [--scale small|paper] [--json] [--seeds N]
//! [--no-text-forms] [--no-ablation]`: the papers' zone-aware experiments (scheme matrices in
//! the authors' code's forms and the paper text's, and the ablation between the old study and
//! them, built in `zonedb_harness::reproduce`), run in simulation, with our figures printed
//! beside the papers' and written to a report directory. Identical configurations (the
//! ablation's last row and the code forms' first workload) run once.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use zonedb_harness::reproduce::cache::{CellCache, Loaded};
use zonedb_harness::reproduce::{self, CellResult, Figures, Plan, ReproScale, Study};
use zonedb_harness::scenario::{Scenario, merge_tables};

use super::CliError;
use super::compare::{apply, run_all_counted};
use super::run_flags::RunFlags;
use crate::host::Stopwatch;

/// Which experiment.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum StudyArg {
    /// Same-Zone Compaction: Baseline, A-LIZA, CAZA, A-CAZA; the ACC turning-point sweep.
    SameZone,
    /// OAZA vs LIZA and CAZA.
    Oaza,
    /// SplitZNS vs LDP, Gear and LLC on db_bench and YCSB; the breakdown native ... +RS.
    Splitzns,
    /// HHZS on a hybrid ZNS SSD + HM-SMR HDD vs B1-B4 and SpanDB's AUTO; its breakdown and
    /// sweeps (motivation, exp1 ... exp6).
    Hhzs,
    /// ZNS+ (in-device zone compaction, copyback-aware allocation, threaded logging) vs host
    /// copy: fill-and-delete at 70% / 80% live and by chip count, the engine's overwrite and
    /// YCSB-A under cleaning.
    Znsplus,
}

#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The experiment.
    #[arg(value_enum)]
    study: StudyArg,
    /// `small` (1/64 of the papers' devices, minutes), `paper` (the papers' own sizes) or
    /// `tiny` (1/1024, seconds; for checks, not figures).
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
    run: RunFlags,
}

/// A study's outcome: its JSON and Markdown (both also written to `--out`), the report's
/// path, and whether any of its runs finished.
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

/// Runs the study `a` names and writes its report; prints only the plan line (without
/// `--json`) and progress.
///
/// # Errors
/// Bad arguments; a report that cannot be written; runs whose invariant checks failed.
pub fn study(a: &ReproduceArgs) -> Result<StudyOutput, CliError> {
    let usage = |e: zonedb_harness::db_bench::HarnessError| CliError::Usage(e.to_string());
    let study = match a.study {
        StudyArg::SameZone => Study::SameZone,
        StudyArg::Oaza => Study::Oaza,
        StudyArg::Splitzns => Study::SplitZns,
        StudyArg::Hhzs => Study::Hhzs,
        StudyArg::Znsplus
            if a.engine_options.is_empty()
                && a.device_options.is_empty()
                && a.fs_options.is_empty()
                && a.emit_scenarios.is_none()
                && a.ray.is_none() =>
        {
            return study_znsplus(a);
        }
        StudyArg::Znsplus => {
            return Err(CliError::Usage(
                "--engine-option, --device-option, --fs-option, --emit-scenarios, --ray: the znsplus study takes none"
                    .into(),
            ));
        }
    };
    let engine_options = parse_options("--engine-option", &a.engine_options)?;
    let device_options = parse_options("--device-option", &a.device_options)?;
    let fs_options = parse_options("--fs-option", &a.fs_options)?;
    let name = match study {
        Study::SameZone => "same-zone",
        Study::Oaza => "oaza",
        Study::SplitZns => "splitzns",
        Study::Hhzs => "hhzs",
    };
    let scale = ReproScale::parse(&a.scale).map_err(usage)?;
    let plan = Plan {
        seeds: seed_list(a)?,
        text_forms: !a.no_text_forms && !a.claims,
        ablation: !a.no_ablation && !a.claims,
        sweep: !a.no_sweep && !a.claims,
        workloads: a.workloads.iter().chain(&a.experiments).cloned().collect(),
        breakdown: !a.no_breakdown,
        overwrite_keys: reproduce::splitzns::OverwriteKeys::parse(&a.overwrite_keys)
            .map_err(usage)?,
        load: reproduce::splitzns::Load::sized(
            reproduce::splitzns::LoadForm::parse(&a.load).map_err(usage)?,
            a.load_gib,
        )
        .map_err(usage)?,
    };
    let mut cells = reproduce::cells(study, scale, &plan).map_err(usage)?;
    if a.claims {
        cells.retain(|c| reproduce::claims::needed(study, c.group, c.scheme, &c.workload));
    }
    for c in &mut cells {
        merge_tables(&mut c.scenario.engine, &engine_options);
        c.scenario.db_options().map_err(usage)?;
        if !device_options.is_empty() {
            let bad = |e: String| CliError::Usage(format!("--device-option: {e}"));
            let mut t =
                toml::Table::try_from(&c.scenario.device).map_err(|e| bad(e.to_string()))?;
            merge_tables(&mut t, &device_options);
            c.scenario.device = t
                .try_into()
                .map_err(|e: toml::de::Error| bad(e.to_string()))?;
            check_device(&c.scenario).map_err(bad)?;
        }
        if !fs_options.is_empty() {
            let bad = |e: String| CliError::Usage(format!("--fs-option: {e}"));
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
    if let Some(dir) = &a.emit_scenarios {
        return emit_scenarios(dir, name, &cells);
    }
    if !a.json {
        println!(
            "zonedb reproduce {name} --scale {}: {} configurations, {} at a time (seeds {:?})",
            a.scale,
            cells.len(),
            a.jobs.max(1),
            plan.seeds
        );
    }
    let wall = Stopwatch::start();
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
            .map_err(|e| CliError::Usage(format!("scenario '{}': {e}", s.name)))
        })
        .collect::<Result<_, _>>()?;
    apply(&a.run, &mut unique);
    let cache = CellCache::new(&a.out, a.resume);
    // splitzns and hhzs count the measured phase alone.
    let measured = matches!(study, Study::SplitZns | Study::Hhzs);
    let figures_of = |r: &zonedb_harness::experiment::RunReport| Figures::of_cell(r, measured);
    let mut loaded: Vec<Option<Loaded<Figures>>> = (0..unique.len())
        .map(|u| cache.load(&stems[u], &keys[u]))
        .collect();
    let pending: Vec<usize> = (0..unique.len()).filter(|&u| loaded[u].is_none()).collect();
    if !a.json && pending.len() < unique.len() {
        println!(
            "{} of {} distinct configurations already finished in {} (resumed; delete it to run them again)",
            unique.len() - pending.len(),
            unique.len(),
            cache.dir().display()
        );
    }
    if let Some(address) = &a.ray {
        let cells_on_ray: Vec<(String, String, Scenario)> = pending
            .iter()
            .map(|&u| (stems[u].clone(), keys[u].clone(), unique[u].clone()))
            .collect();
        on_ray(&cache, address, measured, &cells_on_ray)?;
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
        a.jobs,
        a.run.display(),
        &crate::lab::Progress::default(),
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
        .zip(index)
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
    let mut j = reproduce::json(study, scale, &results);
    j["host"] = crate::host::json(wall.elapsed_ns(), Some(sim_ops));
    j["command"] = command(a, name).into();
    let mut md = reproduce::markdown(study, scale, &results);
    for (key, flag, what, options) in [
        (
            "engine_options",
            "--engine-option",
            "Engine",
            &engine_options,
        ),
        (
            "device_options",
            "--device-option",
            "Device",
            &device_options,
        ),
        ("fs_options", "--fs-option", "Zone layer", &fs_options),
    ] {
        if options.is_empty() {
            continue;
        }
        j[key] = serde_json::to_value(options)?;
        let line = format!(
            "\n{what} options set in every configuration (`{flag}`): `{}`.\n",
            toml::to_string(options)
                .unwrap_or_default()
                .trim()
                .replace('\n', "`, `")
        );
        let at = md.find('\n').map_or(md.len(), |i| i + 1);
        md.insert_str(at, &line);
    }
    if study == Study::SplitZns {
        j["load"] = plan.load.form.name().into();
        j["load_gib"] = plan.load.gib().into();
        j["overwrite_keys"] = plan.overwrite_keys.name().into();
        let form = format!(
            "\nLoad: `{}` of {} GiB at paper scale (`--load`, `--load-gib`); measured \
             overwrites: `{}` (`--overwrite-keys`).\n",
            plan.load.form.name(),
            plan.load.gib(),
            plan.overwrite_keys.name()
        );
        let at = md.find('\n').map_or(md.len(), |i| i + 1);
        md.insert_str(at, &form);
    }
    std::fs::create_dir_all(&a.out).map_err(|e| CliError::Usage(format!("report: {e}")))?;
    let write = |file: String, text: String| {
        zonedb_harness::output::write(&a.out.join(&file), text)
            .map_err(|e| CliError::Usage(format!("report: {e}")))
    };
    write(format!("reproduce-{name}.md"), md.clone())?;
    reproduce::plots::render(&a.out, &j).map_err(usage)?;
    write(
        format!("reproduce-{name}.json"),
        serde_json::to_string_pretty(&j)?,
    )?;
    let failed = results.iter().filter(|r| r.figures.is_err()).count();
    Ok(StudyOutput {
        json: j,
        markdown: md,
        report: a.out.join(format!("reproduce-{name}.md")),
        any_finished: failed < results.len(),
        wall_ns: wall.elapsed_ns(),
    })
}

/// The command that reproduces `a`'s figures (what changes them; not `--jobs`, `--out`,
/// `--json`), for the report and the claims tables.
fn command(a: &ReproduceArgs, name: &str) -> String {
    use std::fmt::Write as _;
    let mut c = format!("zonedb reproduce {name} --scale {}", a.scale);
    let flags = [
        (a.claims, "--claims"),
        (a.no_text_forms, "--no-text-forms"),
        (a.no_ablation, "--no-ablation"),
        (a.no_sweep, "--no-sweep"),
        (a.no_breakdown, "--no-breakdown"),
    ];
    for (on, flag) in flags {
        if on {
            let _ = write!(c, " {flag}");
        }
    }
    if a.seed != 1 {
        let _ = write!(c, " --seed {}", a.seed);
    }
    if a.seeds != 1 {
        let _ = write!(c, " --seeds {}", a.seeds);
    }
    if name == "splitzns" {
        if a.load != "random" {
            let _ = write!(c, " --load {}", a.load);
        }
        if let Some(g) = a.load_gib {
            let _ = write!(c, " --load-gib {g}");
        }
        if a.overwrite_keys != "spread" {
            let _ = write!(c, " --overwrite-keys {}", a.overwrite_keys);
        }
    }
    for (flag, list) in [
        ("--workloads", &a.workloads),
        ("--experiments", &a.experiments),
    ] {
        if !list.is_empty() {
            let _ = write!(c, " {flag} {}", list.join(","));
        }
    }
    for (flag, list) in [
        ("--engine-option", &a.engine_options),
        ("--device-option", &a.device_options),
        ("--fs-option", &a.fs_options),
    ] {
        for o in list {
            let _ = write!(c, " {flag} '{o}'");
        }
    }
    c
}

/// `zonedb reproduce znsplus`: its cells mix fill-and-delete runs and engine scenarios, so it
/// runs them through the study's own runner (`--jobs` at a time).
/// `--seed`, `--seed + 1`, ... (`--seeds` of them), refused when they would pass `u64::MAX`.
fn seed_list(a: &ReproduceArgs) -> Result<Vec<u64>, CliError> {
    (0..a.seeds)
        .map(|i| a.seed.checked_add(i))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| {
            CliError::Usage(format!(
                "--seed {} --seeds {}: the seeds would run past {}",
                a.seed,
                a.seeds,
                u64::MAX
            ))
        })
}

fn study_znsplus(a: &ReproduceArgs) -> Result<StudyOutput, CliError> {
    use reproduce::znsplus;
    let usage = |e: zonedb_harness::db_bench::HarnessError| CliError::Usage(e.to_string());
    let scale = ReproScale::parse(&a.scale).map_err(usage)?;
    let plan = znsplus::ZnsPlusPlan {
        seeds: seed_list(a)?,
        experiments: a.workloads.iter().chain(&a.experiments).cloned().collect(),
    };
    let mut cells = znsplus::cells(scale, &plan).map_err(usage)?;
    a.run.apply_process();
    for c in &mut cells {
        if let znsplus::Work::Engine(s) = &mut c.work {
            s.workload.elide_values &= a.run.elide_values;
        }
    }
    if !a.json {
        println!(
            "zonedb reproduce znsplus --scale {}: {} cells, {} at a time (seeds {:?})",
            a.scale,
            cells.len(),
            a.jobs.max(1),
            plan.seeds
        );
    }
    let wall = Stopwatch::start();
    let cache = CellCache::new(&a.out, a.resume);
    let results = znsplus::run_cells(
        &cells,
        a.jobs,
        &|done, total| {
            let spent = wall.elapsed_ns() as f64 / 1e9;
            let left = spent / done as f64 * (total - done) as f64;
            eprintln!(
                "[{done}/{total}] configurations done, {spent:.1} s elapsed, about {left:.0} s left"
            );
        },
        Some(&cache),
    );
    let mut j = znsplus::json(scale, &results);
    j["host"] = crate::host::json(wall.elapsed_ns(), None);
    j["command"] = command(a, "znsplus").into();
    let md = znsplus::markdown(scale, &results);
    std::fs::create_dir_all(&a.out).map_err(|e| CliError::Usage(format!("report: {e}")))?;
    let write = |file: &str, text: String| {
        zonedb_harness::output::write(&a.out.join(file), text)
            .map_err(|e| CliError::Usage(format!("report: {e}")))
    };
    write("reproduce-znsplus.md", md.clone())?;
    reproduce::plots::render(&a.out, &j).map_err(usage)?;
    write("reproduce-znsplus.json", serde_json::to_string_pretty(&j)?)?;
    // A failed end-of-run check voids the study's figures, as for the other studies.
    let void: Vec<String> = results
        .iter()
        .filter(|r| r.invariant_failed)
        .filter_map(|r| {
            let e = r.figures.as_ref().err()?;
            Some(format!("{} {}: {e}", r.scheme, r.experiment))
        })
        .collect();
    if !void.is_empty() {
        return Err(CliError::Failed(format!(
            "{} runs failed their invariant checks:\n{}",
            void.len(),
            void.join("\n")
        )));
    }
    let failed = results.iter().filter(|r| r.figures.is_err()).count();
    Ok(StudyOutput {
        json: j,
        markdown: md,
        report: a.out.join("reproduce-znsplus.md"),
        any_finished: failed < results.len(),
        wall_ns: wall.elapsed_ns(),
    })
}

/// `--engine-option` / `--device-option` (`flag`) `KEY=VALUE` arguments as a TOML table (the
/// value in TOML syntax; a dotted key such as `splitzns.ring` names an option inside a table).
///
/// # Errors
/// [`CliError::Usage`] for an argument without `=` or a value that is not TOML.
fn parse_options(flag: &str, args: &[String]) -> Result<toml::Table, CliError> {
    let mut t = toml::Table::new();
    for a in args {
        let bad = |why: String| CliError::Usage(format!("{flag} '{a}': {why}"));
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
    let spec = zonedb_harness::experiment::device_spec_of(s).map_err(|e| e.to_string())?;
    spec.profile_name().map(drop).map_err(|e| e.to_string())
}

/// `--ray ADDRESS`: each cell in `cells` (stem, key, scenario) written to
/// `cells/pending/<stem>.json`, then the Python package runs them as Ray tasks
/// (`python3 -m zonedb cells DIR --ray ADDRESS`), storing each as `cells/<stem>.json`.
///
/// # Errors
/// [`CliError::Usage`] when the files cannot be written or Python cannot be started;
/// [`CliError::Failed`] when the Python side fails (a run that failed its invariant checks
/// among them).
fn on_ray(
    cache: &CellCache,
    address: &str,
    measured: bool,
    cells: &[(String, String, Scenario)],
) -> Result<(), CliError> {
    if cells.is_empty() {
        return Ok(());
    }
    let pending = cache.dir().join("pending");
    std::fs::create_dir_all(&pending)
        .map_err(|e| CliError::Usage(format!("--ray: {}: {e}", pending.display())))?;
    for (stem, key, scenario) in cells {
        let text = toml::to_string(scenario)
            .map_err(|e| CliError::Usage(format!("scenario '{}': {e}", scenario.name)))?;
        let job = serde_json::json!({
            "stem": stem,
            "key": key,
            "scenario": text,
            "measured": measured,
        });
        zonedb_harness::output::write(
            &pending.join(format!("{stem}.json")),
            serde_json::to_string_pretty(&job)?,
        )?;
    }
    let python = std::env::var("ZONEDB_PYTHON").unwrap_or_else(|_| "python3".into());
    let status = std::process::Command::new(&python)
        .args(["-m", "zonedb", "cells"])
        .arg(cache.dir())
        .args(["--ray", address])
        .status()
        .map_err(|e| {
            CliError::Usage(format!(
                "--ray needs the Python package (pip install the wheel: see the README) and {python}: {e}"
            ))
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(CliError::Failed(format!(
            "--ray: `{python} -m zonedb cells` failed ({status}); the cells stored in {} stay (run again with --resume)",
            cache.dir().display()
        )))
    }
}

/// `--emit-scenarios DIR`: each cell's scenario written as `DIR/<study>-<group>-<scheme>-<workload>-seed<N>.toml`
/// (characters other than letters, digits, `.` and `-` become `_`), read back and checked
/// equal before the next; nothing runs.
fn emit_scenarios(
    dir: &std::path::Path,
    study: &str,
    cells: &[reproduce::Cell],
) -> Result<StudyOutput, CliError> {
    let io =
        |e: std::io::Error| CliError::Usage(format!("--emit-scenarios {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut files = Vec::new();
    for c in cells {
        let text = toml::to_string(&c.scenario)
            .map_err(|e| CliError::Usage(format!("scenario '{}': {e}", c.scenario.name)))?;
        let back = Scenario::configurations(&text).map_err(|e| {
            CliError::Usage(format!(
                "scenario '{}' does not read back: {e}",
                c.scenario.name
            ))
        })?;
        if back.first() != Some(&c.scenario) {
            return Err(CliError::Usage(format!(
                "scenario '{}' reads back different",
                c.scenario.name
            )));
        }
        let stem = c.stem(study);
        let path = dir.join(format!("{stem}.toml"));
        if files.contains(&path.display().to_string()) {
            return Err(CliError::Usage(format!(
                "two configurations would be written to {} (a bug: cells must be unique)",
                path.display()
            )));
        }
        zonedb_harness::output::write(&path, &text)?;
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
