//! `zonedb device compare`: device microbenchmarks under several zone-to-flash mappings of a
//! ZNS SSD profile (chips per zone: ConfZNS's association degree, SplitZNS's single-chip
//! subzones), side by side, normalized to the first, with a report.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::{Value, json};
use zonedb_device::SimDevice;
use zonedb_device::bench::{self, BenchOptions, BenchReport, Workload};
use zonedb_device::sim::spec::SimPayload;
use zonedb_env::{SimConfig, SimEnv};

use super::CliError;
use super::device::build_profile;
use crate::host::Stopwatch;

#[derive(Debug, Args)]
pub struct DeviceCompareArgs {
    /// Device profile.
    #[arg(long, default_value = "splitzns-paper")]
    profile: String,
    /// Scale of the profile.
    #[arg(long, default_value = "1/8")]
    scale: String,
    /// Chips per zone of each configuration, comma-separated; the first is the baseline.
    #[arg(long, default_value = "16,4,1", value_delimiter = ',')]
    chips_per_zone: Vec<u32>,
    /// Seed of every run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory for compare.md and compare.json.
    #[arg(long, default_value = "zonedb-report/device")]
    out: PathBuf,
    /// Print the JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// A reported figure: column label and how to read it from a report.
type Metric = (&'static str, fn(&BenchReport) -> f64);

fn mb_per_s(r: &BenchReport) -> f64 {
    r.bandwidth_bytes_per_s / 1e6
}

fn iops(r: &BenchReport) -> f64 {
    r.iops
}

fn p99_us(r: &BenchReport) -> f64 {
    r.latency_ns_p99 as f64 / 1e3
}

struct Case {
    name: &'static str,
    metrics: &'static [Metric],
    workload: Workload,
    block_size: u64,
    qd: u32,
    zones: u32,
    ops: u64,
}

const CASES: [Case; 3] = [
    Case {
        name: "seq-write 1MiB qd4",
        metrics: &[("MB/s", mb_per_s), ("p99 us", p99_us)],
        workload: Workload::SeqWrite,
        block_size: 1 << 20,
        qd: 4,
        zones: 2,
        ops: 0,
    },
    Case {
        name: "rand-read 16KiB qd32",
        metrics: &[("IOPS", iops), ("p99 us", p99_us)],
        workload: Workload::RandRead,
        block_size: 16 << 10,
        qd: 32,
        zones: 4,
        ops: 40_000,
    },
    Case {
        name: "mixed 16KiB qd16",
        metrics: &[("IOPS", iops), ("p99 us", p99_us)],
        workload: Workload::Mixed,
        block_size: 16 << 10,
        qd: 16,
        zones: 4,
        ops: 20_000,
    },
];

fn run_case(
    profile: &zonedb_device::Profile,
    case: &Case,
    seed: u64,
) -> Result<BenchReport, CliError> {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = Arc::new(SimDevice::new(
        env.clone(),
        profile.clone(),
        &SimPayload::Memory,
    )?);
    dev.set_checking(false);
    let opts = BenchOptions {
        workload: case.workload,
        block_size_bytes: case.block_size.min(profile.zones.zone_capacity_bytes),
        qd: case.qd,
        zones: case.zones,
        ops: case.ops,
        read_pct: 50,
        seed,
        writers: 0,
        write_to: zonedb_device::bench::WriteTo::Wide,
        write_rate_bytes_per_s: 0,
        elide_payload: true,
    };
    Ok(env.run(bench::run(env.clone(), dev, opts))??)
}

pub fn run(a: &DeviceCompareArgs) -> Result<ExitCode, CliError> {
    if a.chips_per_zone.is_empty() {
        return Err(CliError::Usage(
            "--chips-per-zone needs at least one value".into(),
        ));
    }
    let watch = Stopwatch::start();
    let mut configs = Vec::new();
    for &chips in &a.chips_per_zone {
        let p = build_profile(&a.profile, &a.scale, Some(chips))?;
        let mut results = Vec::new();
        for case in &CASES {
            results.push(run_case(&p, case, a.seed)?);
        }
        configs.push((format!("{} chips/zone", chips), p, results));
    }
    let mut json_configs = Vec::new();
    let mut table = String::new();
    let _ = write!(table, "| configuration |");
    for case in &CASES {
        for (m, _) in case.metrics {
            let _ = write!(table, " {} {m} |", case.name);
        }
    }
    let _ = writeln!(table);
    let _ = write!(table, "|---|");
    for _ in 0..CASES.iter().map(|c| c.metrics.len()).sum::<usize>() {
        let _ = write!(table, "---:|");
    }
    let _ = writeln!(table);
    let base = &configs[0].2;
    for (label, profile, results) in &configs {
        let _ = write!(table, "| {label} |");
        let mut cases = serde_json::Map::new();
        for (i, (case, r)) in CASES.iter().zip(results).enumerate() {
            for (_, f) in case.metrics {
                let v = f(r);
                let b = f(&base[i]);
                let ratio = if b > 0.0 { v / b } else { 0.0 };
                let _ = write!(table, " {v:.1} ({ratio:.2}x) |");
            }
            let mut rv = serde_json::to_value(r)?;
            if let Value::Object(m) = &mut rv {
                m.remove("options");
            }
            cases.insert(case.name.to_owned(), rv);
        }
        let _ = writeln!(table);
        json_configs.push(json!({ "name": label, "profile": profile, "results": cases }));
    }
    let wall_ns = watch.elapsed_ns();
    let out = json!({
        "profile": a.profile,
        "scale": a.scale,
        "seed": a.seed,
        "configurations": json_configs,
        "host": { "wall_time_ns": wall_ns },
    });
    let title = format!(
        "# zonedb device compare\n\nProfile `{}` at scale {}, seed {}; each cell is the value and its ratio to the first configuration.\n\n",
        a.profile, a.scale, a.seed
    );
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", a.out.display())))?;
    let md = format!(
        "{title}{table}\nWall time: {:.2} s (host).\n",
        wall_ns as f64 / 1e9
    );
    let write = |name: &str, body: &str| {
        zonedb_harness::output::write(&a.out.join(name), body)
            .map_err(|e| CliError::Usage(format!("cannot write: {e}")))
    };
    write("compare.md", &md)?;
    write("compare.json", &serde_json::to_string_pretty(&out)?)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{title}{table}");
        println!("\nreport: {}", a.out.join("compare.md").display());
    }
    Ok(ExitCode::SUCCESS)
}
