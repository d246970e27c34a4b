//! Subcommands.

mod bench;
mod claims;
pub mod compare;
mod device;
mod device_compare;
pub mod flag_style;
mod fs;
pub mod reproduce;
pub mod run_flags;
mod selftest;
mod store;
pub mod sweep;
mod torture;
mod ycsb;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// ZoneDB: a zone-native LSM-tree key-value store and the lab around it.
#[derive(Debug, Parser)]
#[command(name = "zonedb", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Zoned device models: microbenchmarks and profiles.
    #[command(subcommand)]
    Device(device::DeviceCommand),
    /// Zone file layer tools on a file-backed zoned device or a Linux zoned block device.
    #[command(subcommand)]
    Fs(fs::FsCommand),
    /// db_bench's benchmarks on the engine (sim or real mode).
    Bench(Box<bench::BenchArgs>),
    /// YCSB's core workload (load or run) on the engine.
    Ycsb(Box<ycsb::YcsbArgs>),
    /// Scenarios side by side, normalized to the first, with a report (no argument: the
    /// default policy comparison).
    Compare(compare::CompareArgs),
    /// Runs one scenario file and writes its report.
    Run(compare::RunArgs),
    /// Re-renders a report directory (compare.md, compare.html, series-N.csv, SVG and PNG
    /// plots) from the compare.json a previous `compare` or `run` wrote there, and each
    /// study's figures from a `reproduce-<study>.json` there (e.g. `docs/results`).
    Report(compare::ReportArgs),
    /// The papers' experiments (same-zone, oaza, splitzns, hhzs, znsplus), beside the papers'
    /// numbers.
    Reproduce(reproduce::ReproduceArgs),
    /// A study's claims table (claim, paper, ours and verdict at 1/64 and at the paper's
    /// size) from `zonedb reproduce NAME --claims` JSON; printed or written into a page.
    Claims(claims::ClaimsArgs),
    /// A base scenario over a grid of overrides and seeds, run locally across processes or
    /// as Ray tasks (`--ray ADDRESS`); every run to one Parquet file, a summary with mean,
    /// standard deviation and 95% interval per configuration, plots with error bars.
    Sweep(sweep::SweepArgs),
    /// The device, zone file layer and engine correctness suites on a real device
    /// (--device /dev/nvme0n1 or --dir DIR).
    Selftest(Box<selftest::SelftestArgs>),
    /// Synced-write crash workload: `write` (kill it, or cut power) then `verify`.
    #[command(subcommand)]
    Crashtest(Box<selftest::CrashtestCommand>),
    /// A VOPR-style campaign: each seed derives a configuration and a faulted workload on the
    /// simulated device; every synced write must survive every crash.
    Torture(torture::TortureArgs),
}

/// Errors the CLI reports.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// From the device layer.
    #[error(transparent)]
    Device(#[from] zonedb_device::DeviceError),
    /// From the zone file layer.
    #[error(transparent)]
    Fs(#[from] zonedb_fs::FsError),
    /// From the simulator.
    #[error(transparent)]
    Sim(#[from] zonedb_env::SimError),
    /// From the harness (a benchmark or YCSB run), with its source chain.
    #[error(transparent)]
    Harness(#[from] zonedb_harness::db_bench::HarnessError),
    /// Bad arguments.
    #[error("{0}")]
    Usage(String),
    /// A file or directory the arguments name could not be read, written or removed: exit
    /// status 2, as bad arguments.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A check failed (a verified read, a crash test): exit status 1, not 2.
    #[error("{0}")]
    Failed(String),
    /// A simulated run failed (a full device, say), with the harness's error when there is
    /// one.
    #[error("{0}")]
    Run(compare::RunFailure),
    /// Output failed.
    #[error("output: {0}")]
    Output(#[from] serde_json::Error),
}

impl From<zonedb_harness::runner::LabError> for CliError {
    fn from(e: zonedb_harness::runner::LabError) -> Self {
        use zonedb_harness::runner::LabError;
        match e {
            LabError::Usage(m) => Self::Usage(m),
            LabError::Failed(m) => Self::Failed(m),
            LabError::Harness(e) => Self::Harness(e),
            LabError::Output(e) => Self::Output(e),
        }
    }
}

impl CliError {
    /// The [`CliError::Io`] of an operation on `path`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| Self::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// A mount error with the fix for this command spelled out: a device without a file system
/// says what to run (`hint`, such as "add --fresh to format it"), not a generic "run mkfs".
pub fn mount_error(hint: &'static str) -> impl Fn(zonedb_fs::FsError) -> CliError {
    move |e| match e {
        zonedb_fs::FsError::NotFormatted => CliError::Usage(format!("{e}: {hint}")),
        e => CliError::Fs(e),
    }
}

/// Says on stderr what an open's WAL replay dropped (nothing when it dropped nothing): a
/// damaged WAL is tolerated as `wal_recovery_mode` says, never silently.
pub fn report_wal_recovery(r: &zonedb_lsm::WalRecovery) {
    for line in r.to_string().lines() {
        eprintln!("zonedb: {line}");
    }
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Device(cmd) => device::run(cmd),
        Command::Bench(args) => bench::run(&args),
        Command::Ycsb(args) => ycsb::run(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Run(args) => compare::run(&args),
        Command::Report(args) => compare::report(&args),
        Command::Reproduce(args) => reproduce::run(&args),
        Command::Claims(args) => claims::run(&args),
        Command::Sweep(args) => sweep::run(&args),
        Command::Fs(cmd) => fs::run(cmd),
        Command::Selftest(args) => selftest::selftest(&args),
        Command::Crashtest(cmd) => selftest::crashtest(&cmd),
        Command::Torture(args) => torture::run(&args),
    }
}
