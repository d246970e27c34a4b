//! `zonedb device ...`: the device microbenchmark and the profile list.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use zonedb_device::bench::{self, BenchOptions, BenchReport, Workload, WriteTo};
use zonedb_device::disk::{DISK_PROFILE_NAMES, DiskProfile};
use zonedb_device::flash::Scheduler;
use zonedb_device::payload::PayloadKind;
use zonedb_device::profile::PROFILE_NAMES;
use zonedb_device::sim::spec::SimPayload;
use zonedb_device::splitzns::SplitZnsConfig;
use zonedb_device::{Profile, SimDeviceSpec};
use zonedb_env::{SimConfig, SimEnv};

use super::CliError;
use crate::host::Stopwatch;

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// fio-like microbenchmark of a simulated device.
    Bench(BenchArgs),
    /// Device microbenchmarks under several chips-per-zone mappings, normalized to the first.
    Compare(super::device_compare::DeviceCompareArgs),
    /// Lists the device profiles (or prints one with --json).
    Profiles {
        /// Print every profile's full parameters as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Device profile: splitzns-paper, caza-paper, oaza-paper, zn540, zn540-hhzs, tiny, or
    /// the HM-SMR disk st14000nm0007.
    #[arg(long, default_value = "splitzns-paper")]
    profile: String,
    /// Scale the profile down by 1/N (zone and block sizes shrink, counts stay).
    #[arg(long, default_value = "1/1")]
    scale: String,
    /// Chips each zone is striped over (default: the profile's).
    #[arg(long)]
    chips_per_zone: Option<u32>,
    /// How queued die work waits and is ordered: fifo, per-die, query-first, priority,
    /// fifo-query-first or fifo-priority (default: the profile's, fifo). A SplitZNS device's
    /// Read Scheduler puts query reads first within it.
    #[arg(long)]
    scheduler: Option<String>,
    /// seq-write, seq-read, rand-read, mixed, subzone-write (needs `--splitzns`) or
    /// read-under-writes.
    #[arg(long, default_value = "seq-write")]
    workload: String,
    /// Make the device a SplitZNS device: `native` (split zones, no acceleration), `ring`
    /// (with the SubZone Ring) or `all` (ring, Read Prefetcher and Read Scheduler). Default:
    /// zones are not split.
    #[arg(long)]
    splitzns: Option<String>,
    /// Request size in bytes (default: 1 MiB for sequential, one flash page for random).
    #[arg(long)]
    block_size: Option<u64>,
    /// Requests in flight (1-1024).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    qd: u32,
    /// Zones the workload covers (at least 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    zones: u32,
    /// Requests for rand-read, mixed and the reads of read-under-writes (at least 1).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    ops: u64,
    /// Read percentage of mixed (0-100).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(0..=100))]
    read_pct: u32,
    /// read-under-writes: writer tasks, one request in flight each (0-1024; 0: reads alone).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=1024))]
    writers: u32,
    /// read-under-writes: where the writers write: wide (zones after the read set) or subzone
    /// (one subzone each of zones split after the read set; needs `--splitzns`).
    #[arg(long, default_value = "wide")]
    write_to: String,
    /// read-under-writes: the writers' total rate in bytes per second of virtual time,
    /// shared equally (default 0: as fast as the device takes them).
    #[arg(long, default_value_t = 0)]
    write_rate: u64,
    /// Seed of the simulation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the data pattern as holes the simulated device does not store (it is
    /// regenerable from the seed): same commands, sizes and times, no payload memory
    /// (default true; `=false` stores every byte).
    #[arg(long = "elide_values", num_args = 0..=1, default_value = "true", default_missing_value = "true", value_parser = super::store::flag_bool)]
    elide_values: bool,
    /// Where written bytes live: memory, file (a sparse file in a temp dir) or discard.
    #[arg(long, default_value = "memory")]
    payload: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: DeviceCommand) -> Result<ExitCode, CliError> {
    match cmd {
        DeviceCommand::Bench(args) => bench_cmd(&args),
        DeviceCommand::Compare(args) => super::device_compare::run(&args),
        DeviceCommand::Profiles { json } => {
            let profiles = PROFILE_NAMES
                .iter()
                .map(|n| Profile::by_name(n))
                .collect::<Result<Vec<_>, _>>()?;
            let disks = DISK_PROFILE_NAMES
                .iter()
                .map(|n| DiskProfile::by_name(n))
                .collect::<Result<Vec<_>, _>>()?;
            if json {
                // Flash profiles first, then the disks (their own fields).
                let mut all = serde_json::to_value(&profiles)?;
                if let Value::Array(a) = &mut all {
                    for d in &disks {
                        a.push(serde_json::to_value(d)?);
                    }
                }
                println!("{}", serde_json::to_string_pretty(&all)?);
            } else {
                println!(
                    "{:<16} {:>6} {:>10} {:>10} {:>9} {:>6} {:>6} {:>8} {:>8}",
                    "profile",
                    "zones",
                    "zone_MiB",
                    "cap_MiB",
                    "device_GB",
                    "open",
                    "active",
                    "chips/z",
                    "dies"
                );
                for p in &profiles {
                    let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
                    println!(
                        "{:<16} {:>6} {:>10.1} {:>10.1} {:>9.1} {:>6} {:>6} {:>8} {:>8}",
                        p.name,
                        p.zones.zone_count,
                        mib(p.zones.zone_size_bytes),
                        mib(p.zones.zone_capacity_bytes),
                        p.zones.usable_bytes() as f64 / 1e9,
                        p.zones.max_open_zones,
                        p.zones.max_active_zones,
                        p.chips_per_zone,
                        p.flash.dies()
                    );
                }
                print_disks(&disks);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The HM-SMR disk profiles as a table: zones, limits, spindle, media rate at the outer and
/// inner diameter, seek times (one track, a third of the stroke, full stroke).
fn print_disks(disks: &[DiskProfile]) {
    println!();
    println!(
        "{:<16} {:>6} {:>10} {:>9} {:>6} {:>6} {:>5} {:>8} {:>8} {:>17}",
        "disk profile",
        "zones",
        "zone_MiB",
        "device_TB",
        "open",
        "active",
        "rpm",
        "OD_MiB/s",
        "ID_MiB/s",
        "seek 1/third/full"
    );
    for d in disks {
        let mib = |b: f64| b / f64::from(1u32 << 20);
        let ms = |ns: f64| ns / 1e6;
        let inner = d.inner_track_bytes as f64 * 1e9 / d.revolution_ns();
        println!(
            "{:<16} {:>6} {:>10.1} {:>9.1} {:>6} {:>6} {:>5} {:>8.1} {:>8.1} {:>5.1}/{:.1}/{:.1} ms",
            d.name,
            d.zones.zone_count,
            mib(d.zones.zone_size_bytes as f64),
            d.zones.usable_bytes() as f64 / 1e12,
            d.zones.max_open_zones,
            d.zones.max_active_zones,
            d.rpm,
            mib(d.outer_bytes_per_s()),
            mib(inner),
            ms(d.seek.track_to_track_ns as f64),
            ms(d.seek.seek_ns(1.0 / 3.0)),
            ms(d.seek.seek_ns(1.0))
        );
    }
}

/// Builds the profile named on the command line, scaled and re-mapped as asked.
pub fn build_profile(
    name: &str,
    scale: &str,
    chips_per_zone: Option<u32>,
) -> Result<Profile, CliError> {
    Ok(SimDeviceSpec::new(name, scale)
        .chips_per_zone(chips_per_zone)
        .profile()?)
}

fn bench_cmd(a: &BenchArgs) -> Result<ExitCode, CliError> {
    let scheduler = a.scheduler.as_deref().map(Scheduler::by_name).transpose()?;
    let split = match a.splitzns.as_deref() {
        None => None,
        Some("native") => Some(SplitZnsConfig::native()),
        Some("ring") => Some(SplitZnsConfig {
            ring: true,
            ..SplitZnsConfig::native()
        }),
        Some("all") => Some(SplitZnsConfig::default()),
        Some(other) => {
            return Err(CliError::Usage(format!(
                "unknown --splitzns '{other}'; known: native, ring, all"
            )));
        }
    };
    let mut spec = SimDeviceSpec::new(&a.profile, &a.scale)
        .chips_per_zone(a.chips_per_zone)
        .scheduler(scheduler)
        .splitzns(split);
    let workload = Workload::parse(&a.workload)?;
    // The full profile (for --json), its name, chips per zone (flash), zone geometry and the
    // default random request (a flash page; a disk's block).
    let (profile, name, chips, zones, rand_bs) = if spec.is_disk() {
        let p = spec.disk_profile()?;
        let bs = p.zones.block_size_bytes;
        (serde_json::to_value(&p)?, p.name, None, p.zones, bs)
    } else {
        let p = spec.profile()?;
        let page = p.flash.page_size_bytes;
        let chips = p.chips_per_zone;
        (
            serde_json::to_value(&p)?,
            p.name,
            Some(chips),
            p.zones,
            page,
        )
    };
    let payload_kind = match a.payload.as_str() {
        "memory" => PayloadKind::Memory,
        "file" => PayloadKind::File,
        "discard" => PayloadKind::Discard,
        other => {
            return Err(CliError::Usage(format!(
                "unknown payload '{other}'; known: memory, file, discard"
            )));
        }
    };
    let block_size_bytes = a.block_size.unwrap_or(match workload {
        Workload::SeqWrite | Workload::SeqRead => (1u64 << 20).min(zones.zone_capacity_bytes),
        // Zone appends: at most the device's append limit.
        Workload::SubzoneWrite => (1u64 << 20).min(zones.zone_append_max_bytes),
        // The engine's compaction readahead.
        Workload::ReadUnderWrites => (2u64 << 20).min(zones.zone_capacity_bytes),
        Workload::RandRead | Workload::Mixed => rand_bs,
    });
    let opts = BenchOptions {
        workload,
        block_size_bytes,
        qd: a.qd,
        zones: a.zones,
        ops: a.ops,
        read_pct: a.read_pct.min(100),
        seed: a.seed,
        writers: a.writers,
        write_to: WriteTo::parse(&a.write_to)?,
        write_rate_bytes_per_s: a.write_rate,
        elide_payload: a.elide_values,
    };
    let env = SimEnv::new(SimConfig {
        seed: a.seed,
        ..SimConfig::default()
    });
    let tmp = std::env::temp_dir().join(format!("zonedb-bench-{}.payload", std::process::id()));
    spec = spec.payload(match payload_kind {
        PayloadKind::Memory => SimPayload::Memory,
        PayloadKind::Discard => SimPayload::Discard,
        PayloadKind::File => SimPayload::File(tmp.clone()),
    });
    let dev = Arc::new(spec.build(env.clone())?);
    if payload_kind == PayloadKind::File {
        let _ = std::fs::remove_file(&tmp); // the open handle keeps the sparse file alive
    }
    dev.set_checking(false);
    let watch = Stopwatch::start();
    let report = env.run(bench::run(env.clone(), dev.clone(), opts))??;
    let wall_ns = watch.elapsed_ns().max(1);
    let wall_s = wall_ns as f64 / 1e9;
    let requests = report.device.reads + report.device.writes;
    let host = json!({
        "wall_time_ns": wall_ns,
        "page_ops_per_wall_s": report.device.page_ops as f64 / wall_s,
        "requests_per_wall_s": requests as f64 / wall_s,
        // The simulated operations of a device bench are its requests.
        "sim_ops_per_wall_s": requests as f64 / wall_s,
        "peak_rss_bytes": crate::host::peak_rss_bytes(),
    });
    if a.json {
        let mut v = serde_json::to_value(&report)?;
        if let Value::Object(m) = &mut v {
            m.insert("profile".into(), profile);
            m.insert("payload".into(), serde_json::to_value(payload_kind)?);
            m.insert("host".into(), host);
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_text(&name, chips, &report, wall_ns);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(name: &str, chips: Option<u32>, r: &BenchReport, wall_ns: u64) {
    let o = &r.options;
    println!(
        "zonedb device bench: profile={} workload={} bs={} qd={} zones={} seed={}{}",
        name,
        serde_json::to_value(o.workload)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        o.block_size_bytes,
        o.qd,
        o.zones,
        o.seed,
        chips.map_or_else(String::new, |c| format!(" chips_per_zone={c}"))
    );
    let secs = r.virtual_time_ns as f64 / 1e9;
    for (name, s) in [("read", &r.read), ("write", &r.write)] {
        if s.ops == 0 {
            continue;
        }
        println!(
            "  {name}: IOPS={:.0}, BW={:.1}MB/s ({:.1}MiB/s) ({:.1}MB/{:.3}s virtual)",
            s.ops as f64 / secs,
            s.bytes as f64 / secs / 1e6,
            s.bytes as f64 / secs / f64::from(1u32 << 20),
            s.bytes as f64 / 1e6,
            secs
        );
        println!(
            "    lat (usec): mean={:.2} p50={:.2} p99={:.2} p99.9={:.2} max={:.2}",
            s.latency_ns_mean as f64 / 1e3,
            s.latency_ns_p50 as f64 / 1e3,
            s.latency_ns_p99 as f64 / 1e3,
            s.latency_ns_p999 as f64 / 1e3,
            s.latency_ns_max as f64 / 1e3
        );
    }
    let d = &r.device;
    println!(
        "  device: written={} read={} page_ops={} zone_resets={} block_erases={}",
        d.bytes_written, d.bytes_read, d.page_ops, d.zone_resets, d.block_erases
    );
    let wall_s = wall_ns as f64 / 1e9;
    println!(
        "  host: wall={:.3}s simulated page ops per wall second={:.0}",
        wall_s,
        d.page_ops as f64 / wall_s
    );
}
