//! `zonedb torture`: the VOPR-style campaign (seeds, each deriving a whole configuration and a
//! faulted workload, on the simulated device). A failing seed is printed with its
//! configuration, minimized, and given as a command that reproduces it.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Args;
use zonedb_harness::torture::{self, CampaignTotals, SeedReport, TortureConfig, TortureFailure};

use super::CliError;
use crate::host::Stopwatch;

/// Arguments of `zonedb torture`.
#[derive(Debug, Clone, Args)]
#[command(rename_all = "snake_case")]
pub struct TortureArgs {
    /// Seeds to run: `first_seed .. first_seed + seeds`.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// The first seed of the campaign.
    #[arg(long, default_value_t = 0)]
    pub first_seed: u64,
    /// Runs this one seed and prints its configuration and what it did (overrides --seeds).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Overrides the seed's number of rounds (a minimized failure names it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: Option<u32>,
    /// Overrides the seed's operations per round (a minimized failure names it).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub ops: Option<u32>,
    /// Worker threads (each runs whole seeds; results do not depend on it). Default: the
    /// machine's cores.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Option<u64>,
    /// Do not minimize failing seeds.
    #[arg(long)]
    pub no_minimize: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One failure, as reported.
#[derive(Debug, Clone, serde::Serialize)]
struct FailureReport {
    seed: u64,
    round: u32,
    what: String,
    events: Vec<String>,
    config: String,
    /// The smallest failing run found, as `--rounds` and `--ops`.
    minimized_rounds: u32,
    minimized_ops: u32,
    minimized_what: String,
    reproduce: String,
}

#[derive(Debug, serde::Serialize)]
struct CampaignReport {
    first_seed: u64,
    seeds: u64,
    failures: Vec<FailureReport>,
    seconds: f64,
    seeds_per_second: f64,
    totals: CampaignTotals,
}

fn config_of(args: &TortureArgs, seed: u64) -> TortureConfig {
    let mut cfg = TortureConfig::for_seed(seed);
    if let Some(r) = args.rounds {
        cfg.rounds = r;
    }
    if let Some(o) = args.ops {
        cfg.ops_per_round = o;
    }
    cfg
}

fn failure_report(args: &TortureArgs, cfg: &TortureConfig, f: &TortureFailure) -> FailureReport {
    let (small, sf) = if args.no_minimize {
        (cfg.clone(), f.clone())
    } else {
        torture::minimize(cfg, f)
    };
    FailureReport {
        seed: f.seed,
        round: f.round,
        what: f.what.clone(),
        events: f.events.clone(),
        config: cfg.summary(),
        minimized_rounds: small.rounds,
        minimized_ops: small.ops_per_round,
        minimized_what: sf.what.clone(),
        reproduce: format!(
            "zonedb torture --seed {} --rounds {} --ops {}",
            f.seed, small.rounds, small.ops_per_round
        ),
    }
}

/// Runs `zonedb torture`: exit 0 when every seed held, 1 when any failed.
///
/// # Errors
/// Output errors only; a failing seed is a report, not an error.
pub fn run(args: &TortureArgs) -> Result<ExitCode, CliError> {
    if let Some(seed) = args.seed {
        return run_one(args, seed);
    }
    // The seeds are first_seed .. first_seed + seeds: refused when that passes u64::MAX
    // (they once wrapped around to 0 and the campaign never ended).
    let Some(end) = args.first_seed.checked_add(args.seeds) else {
        return Err(CliError::Usage(format!(
            "--first_seed {} --seeds {}: the seeds would run past {} (first_seed + seeds must be at most that)",
            args.first_seed,
            args.seeds,
            u64::MAX
        )));
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    let start = Stopwatch::start();
    // Seeds handed out by index (0 .. seeds): the counter never nears u64::MAX.
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let results: Mutex<Vec<(u64, Result<SeedReport, TortureFailure>)>> = Mutex::new(Vec::new());
    let failures: Mutex<Vec<FailureReport>> = Mutex::new(Vec::new());
    let quiet = args.json;
    std::thread::scope(|sc| {
        for _ in 0..threads.min(args.seeds) {
            sc.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= args.seeds {
                        break;
                    }
                    let seed = args.first_seed + i;
                    let cfg = config_of(args, seed);
                    let r = torture::run::run(&cfg);
                    if let Err(f) = &r {
                        let fr = failure_report(args, &cfg, f);
                        if !quiet {
                            eprintln!(
                                "FAILED {f}\n  config: {}\n  minimized ({} rounds x {} ops): {}\n  reproduce: {}",
                                fr.config, fr.minimized_rounds, fr.minimized_ops, fr.minimized_what, fr.reproduce
                            );
                        }
                        failures
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .push(fr);
                    }
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((seed, r));
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if !quiet && d.is_multiple_of(1000) {
                        eprintln!(
                            "torture: {d} of {} seeds, {:.0} s",
                            args.seeds,
                            (start.elapsed_ns() as f64 / 1e9)
                        );
                    }
                }
            });
        }
    });
    let seconds = start.elapsed_ns() as f64 / 1e9;
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(s, _)| *s);
    let mut totals = CampaignTotals::default();
    for (_, r) in &results {
        totals.add(r);
    }
    let mut failures = failures
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    failures.sort_by_key(|f| f.seed);
    let report = CampaignReport {
        first_seed: args.first_seed,
        seeds: args.seeds,
        seeds_per_second: args.seeds as f64 / seconds.max(1e-9),
        seconds,
        totals,
        failures,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        let _ = writeln!(out);
    } else {
        let t = &report.totals;
        let _ = writeln!(
            out,
            "torture: seeds {}..{}: {} failures in {:.1} s ({:.1} seeds/s, {} threads)",
            report.first_seed,
            end,
            report.failures.len(),
            report.seconds,
            report.seeds_per_second,
            threads.min(args.seeds)
        );
        let _ = writeln!(
            out,
            "  writes {} (acknowledged {}, synced {}), reads checked {}, read errors {}",
            t.writes, t.acked, t.synced, t.reads_checked, t.read_errors
        );
        let _ = writeln!(
            out,
            "  power losses {} (torn {}), clean closes {}, opens retried {}, zones read-only {}, offline {}, full devices {}, read-only opens {}",
            t.power_losses,
            t.torn_power_losses,
            t.clean_closes,
            t.failed_opens,
            t.zones_read_only,
            t.zones_offline,
            t.full_devices,
            t.read_only_opens
        );
        for f in &report.failures {
            let _ = writeln!(
                out,
                "  FAILED seed {}: {}\n    {}",
                f.seed, f.what, f.reproduce
            );
        }
    }
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_one(args: &TortureArgs, seed: u64) -> Result<ExitCode, CliError> {
    let cfg = config_of(args, seed);
    let start = Stopwatch::start();
    let r = torture::run::run(&cfg);
    let seconds = start.elapsed_ns() as f64 / 1e9;
    let mut out = std::io::stdout().lock();
    match r {
        Ok(rep) => {
            if args.json {
                serde_json::to_writer_pretty(
                    &mut out,
                    &serde_json::json!({"config": cfg.summary(), "report": rep, "seconds": seconds}),
                )?;
                let _ = writeln!(out);
            } else {
                let _ = writeln!(out, "config: {}", cfg.summary());
                let _ = writeln!(out, "ok in {seconds:.2} s: {rep:?}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(f) => {
            let fr = failure_report(args, &cfg, &f);
            if args.json {
                serde_json::to_writer_pretty(&mut out, &fr)?;
                let _ = writeln!(out);
            } else {
                let _ = writeln!(out, "config: {}", fr.config);
                let _ = writeln!(out, "FAILED {f}");
                let _ = writeln!(
                    out,
                    "minimized ({} rounds x {} ops): {}\nreproduce: {}",
                    fr.minimized_rounds, fr.minimized_ops, fr.minimized_what, fr.reproduce
                );
            }
            Ok(ExitCode::from(1))
        }
    }
}
