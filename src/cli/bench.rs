//! `zonedb bench`: db_bench's benchmarks on the engine, in simulation (virtual time, a
//! simulated ZNS SSD; deterministic in `--seed`) or in real mode (a file-backed zoned device in
//! `--db DIR` that a later run reopens with `--use_existing_db`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::json;
use zonedb_device::payload::Payload;
use zonedb_device::{DeviceError, ZnsSsd, ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_harness::db_bench::{self, BenchConfig, BenchResult};
use zonedb_lsm::Db;
use zonedb_lsm::options::{CompactionPri, DbOptions};

use super::CliError;
use super::device::build_profile;
use crate::host::Stopwatch;

fn flag_bool(s: &str) -> Result<bool, String> {
    match s {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(format!("'{s}' is not a boolean (use 1/0 or true/false)")),
    }
}

fn parse_pri(s: &str) -> Result<CompactionPri, String> {
    Ok(match s {
        "0" | "kByCompensatedSize" => CompactionPri::ByCompensatedSize,
        "1" | "kOldestLargestSeqFirst" => CompactionPri::OldestLargestSeqFirst,
        "2" | "kOldestSmallestSeqFirst" => CompactionPri::OldestSmallestSeqFirst,
        "3" | "kMinOverlappingRatio" => CompactionPri::MinOverlappingRatio,
        "4" | "kRoundRobin" => CompactionPri::RoundRobin,
        _ => return Err(format!("unknown compaction_pri '{s}' (0-4 or a kName)")),
    })
}

/// db_bench's flags (names and meanings), plus the device and mode.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
#[allow(clippy::struct_excessive_bools, reason = "db_bench's flags")]
pub struct BenchArgs {
    /// `sim` (virtual time, simulated ZNS SSD) or `real` (file-backed zoned device in --db).
    #[arg(long, default_value = "sim")]
    mode: String,
    /// Directory of the database's device (real mode).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Reopen the database in --db instead of starting fresh.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    use_existing_db: bool,
    /// Comma-separated benchmarks, run in order.
    #[arg(long, default_value = "fillrandom,readrandom")]
    benchmarks: String,
    /// Keys in the key space; writes per thread.
    #[arg(long, default_value_t = 1_000_000)]
    num: u64,
    /// Reads per thread (-1 = num).
    #[arg(long, default_value_t = -1, allow_negative_numbers = true)]
    reads: i64,
    /// Key size in bytes (at least 8).
    #[arg(long, default_value_t = 16)]
    key_size: usize,
    /// Value size in bytes.
    #[arg(long, default_value_t = 100)]
    value_size: usize,
    /// Client threads.
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Seed (runs are deterministic in it in sim mode).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Next() calls after each seek of seekrandom.
    #[arg(long, default_value_t = 0)]
    seek_nexts: u64,
    /// Writes per batch.
    #[arg(long, default_value_t = 1)]
    batch_size: u64,
    /// Percentage of reads in readrandomwriterandom.
    #[arg(long, default_value_t = 90)]
    readwritepercent: u64,
    /// Print db_bench's latency histogram block per operation type.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    histogram: bool,
    /// Engine options from a TOML file (RocksDB names); the flags below override it.
    #[arg(long)]
    options_file: Option<PathBuf>,
    #[arg(long)]
    write_buffer_size: Option<u64>,
    #[arg(long)]
    max_write_buffer_number: Option<u32>,
    #[arg(long)]
    target_file_size_base: Option<u64>,
    #[arg(long)]
    max_bytes_for_level_base: Option<u64>,
    #[arg(long)]
    max_bytes_for_level_multiplier: Option<f64>,
    #[arg(long, value_parser = flag_bool)]
    level_compaction_dynamic_level_bytes: Option<bool>,
    #[arg(long)]
    level0_file_num_compaction_trigger: Option<u32>,
    #[arg(long)]
    level0_slowdown_writes_trigger: Option<u32>,
    #[arg(long)]
    level0_stop_writes_trigger: Option<u32>,
    #[arg(long)]
    max_background_jobs: Option<u32>,
    /// 0-4 or kByCompensatedSize, kOldestLargestSeqFirst, kOldestSmallestSeqFirst,
    /// kMinOverlappingRatio, kRoundRobin.
    #[arg(long, value_parser = parse_pri)]
    compaction_pri: Option<CompactionPri>,
    #[arg(long)]
    block_size: Option<u64>,
    /// Bloom bits per key (-1 = engine default 10, 0 = none).
    #[arg(long, allow_negative_numbers = true)]
    bloom_bits: Option<i64>,
    /// Block cache bytes.
    #[arg(long)]
    cache_size: Option<u64>,
    /// Sync the WAL on every write.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    sync: Option<bool>,
    /// Skip the WAL.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    disable_wal: Option<bool>,
    /// Device profile (geometry of a new real device; the simulated device in sim mode).
    #[arg(long, default_value = "splitzns-paper")]
    profile: String,
    /// Scale of the profile.
    #[arg(long, default_value = "1/8")]
    scale: String,
    /// Zone cleaner of the file layer: none, greedy, zenfs.
    #[arg(long, default_value = "zenfs")]
    cleaner: String,
    /// Print JSON instead of db_bench lines.
    #[arg(long)]
    json: bool,
}

fn engine_options(a: &BenchArgs) -> Result<DbOptions, CliError> {
    let mut o = match &a.options_file {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?;
            DbOptions::from_toml(&text).map_err(|e| CliError::Usage(e.to_string()))?
        }
        None => DbOptions::default(),
    };
    macro_rules! set {
        ($($f:ident),*) => { $( if let Some(v) = a.$f { o.$f = v; } )* };
    }
    set!(
        write_buffer_size,
        max_write_buffer_number,
        target_file_size_base,
        max_bytes_for_level_base,
        max_bytes_for_level_multiplier,
        level_compaction_dynamic_level_bytes,
        level0_file_num_compaction_trigger,
        level0_slowdown_writes_trigger,
        level0_stop_writes_trigger,
        max_background_jobs,
        compaction_pri,
        block_size,
        sync,
        disable_wal
    );
    if let Some(b) = a.bloom_bits
        && b >= 0
    {
        o.bloom_bits_per_key = u32::try_from(b).unwrap_or(u32::MAX);
    }
    if let Some(c) = a.cache_size {
        o.block_cache_size = c;
    }
    o.create_if_missing = !a.use_existing_db;
    o.validate().map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(o)
}

fn fs_options(a: &BenchArgs) -> Result<FsOptions, CliError> {
    Ok(FsOptions {
        cleaner: zonedb_fs::cleaning::by_name(&a.cleaner, 20)
            .map_err(|e| CliError::Usage(e.to_string()))?,
        ..FsOptions::default()
    })
}

fn lsm(e: zonedb_lsm::LsmError) -> CliError {
    CliError::Usage(format!("engine: {e}"))
}

fn harness(e: db_bench::HarnessError) -> CliError {
    CliError::Usage(e.to_string())
}

/// A benchmark's JSON: its result plus the per-benchmark keys (engine and zone layer
/// figures as differences over the benchmark).
fn with_deltas(
    r: &BenchResult,
    db0: &zonedb_lsm::DbStats,
    db1: &zonedb_lsm::DbStats,
    fs0: &zonedb_fs::FsStats,
    fs1: &zonedb_fs::FsStats,
) -> serde_json::Value {
    let user = db1.user_bytes_written - db0.user_bytes_written;
    let device = fs1.device_bytes_written - fs0.device_bytes_written;
    let mut v = serde_json::to_value(r).unwrap_or_default();
    let ns = |us: f64| (us * 1e3).round();
    if let Some(o) = v.as_object_mut() {
        o.insert("ops_per_s".into(), json!(r.ops_per_sec()));
        o.insert("micros_per_op".into(), json!(r.micros_per_op()));
        o.insert("latency_ns_p50".into(), json!(ns(r.latency.p50_us)));
        o.insert("latency_ns_p99".into(), json!(ns(r.latency.p99_us)));
        o.insert("latency_ns_p999".into(), json!(ns(r.latency.p999_us)));
        o.insert("latency_ns_p9999".into(), json!(ns(r.latency.p9999_us)));
        o.insert(
            "write_amplification".into(),
            json!(if user == 0 {
                0.0
            } else {
                device as f64 / user as f64
            }),
        );
        o.insert(
            "gc_copied_bytes".into(),
            json!(fs1.gc_copied_bytes - fs0.gc_copied_bytes),
        );
        o.insert(
            "zone_resets".into(),
            json!(fs1.zone_resets - fs0.zone_resets),
        );
        o.insert(
            "stall_ns".into(),
            json!(
                (db1.stall_stop_ns + db1.stall_delay_ns) - (db0.stall_stop_ns + db0.stall_delay_ns)
            ),
        );
        o.insert("line".into(), json!(r.line()));
    }
    v
}

/// Runs the benchmark list on one device; a fresh-DB benchmark after the first reformats it.
async fn run_list<E: Env, D: ZonedDevice>(
    env: &E,
    dev: &Arc<D>,
    a: &BenchArgs,
    fresh_first: bool,
) -> Result<(Vec<serde_json::Value>, serde_json::Value), CliError> {
    let opts = engine_options(a)?;
    let cfg = BenchConfig {
        num: a.num,
        reads: u64::try_from(a.reads).ok(),
        key_size: a.key_size,
        value_size: a.value_size,
        threads: a.threads,
        seed: a.seed,
        seek_nexts: a.seek_nexts,
        batch_size: a.batch_size,
        readwritepercent: a.readwritepercent,
    };
    let names: Vec<String> = a
        .benchmarks
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    for n in &names {
        if !db_bench::BENCHMARKS.contains(&n.as_str()) {
            return Err(CliError::Usage(format!(
                "unknown benchmark '{n}'; known: {}",
                db_bench::BENCHMARKS.join(", ")
            )));
        }
    }
    if fresh_first {
        ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
    }
    let mut fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(a)?).await?;
    let mut db = Db::open(fs.clone(), opts.clone()).await.map_err(lsm)?;
    let mut results = Vec::new();
    let mut threads = 0;
    for (i, n) in names.iter().enumerate() {
        if db_bench::is_fresh_db(n) {
            if a.use_existing_db {
                results.push(serde_json::to_value(BenchResult::skipped(n))?);
                continue;
            }
            if i > 0 {
                db.close().await.map_err(lsm)?;
                drop(db);
                ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
                fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(a)?).await?;
                db = Db::open(fs.clone(), opts.clone()).await.map_err(lsm)?;
            }
        }
        let (db0, fs0) = (db.stats(), fs.stats());
        let r = db_bench::run_one(env, &db, n, &cfg, &mut threads)
            .await
            .map_err(harness)?;
        if !a.json {
            println!("{}", r.line());
            if a.histogram {
                print!("{}", r.histogram_text());
            }
        }
        results.push(with_deltas(&r, &db0, &db.stats(), &fs0, &fs.stats()));
    }
    db.wait_for_compactions().await.map_err(lsm)?;
    let stats = db.stats();
    db.close().await.map_err(lsm)?;
    let extra = json!({
        "db": stats,
        "write_amplification_lsm": stats.write_amplification(),
        "fs": fs.stats(),
        "options": opts,
        "bench": cfg,
        "end_ns": env.now(),
    });
    Ok((results, extra))
}

pub fn run(a: &BenchArgs) -> Result<ExitCode, CliError> {
    let profile = build_profile(&a.profile, &a.scale, None)?;
    let wall = Stopwatch::start();
    if !a.json {
        println!(
            "zonedb bench: mode {}, device {} ({} zones of {} MiB), seed {}",
            a.mode,
            profile.name,
            profile.zones.zone_count,
            profile.zones.zone_capacity_bytes >> 20,
            a.seed
        );
        println!("Keys:       {} bytes each", a.key_size);
        println!("Values:     {} bytes each", a.value_size);
        println!("Entries:    {}", a.num);
        println!("------------------------------------------------");
    }
    let (results, extra) = match a.mode.as_str() {
        "sim" => {
            if a.use_existing_db {
                return Err(CliError::Usage(
                    "--use_existing_db needs --mode real (a simulated device lives for one run)"
                        .into(),
                ));
            }
            let env = SimEnv::new(SimConfig {
                seed: a.seed,
                ..SimConfig::default()
            });
            let dev = Arc::new(ZnsSsd::new(
                env.clone(),
                profile.clone(),
                Payload::memory(profile.zones.zone_count),
            )?);
            let e2 = env.clone();
            env.run(async move { run_list(&e2, &dev, a, true).await })??
        }
        "real" => {
            let dir =
                a.db.as_ref()
                    .ok_or_else(|| CliError::Usage("--mode real needs --db DIR".into()))?;
            let dev = if a.use_existing_db {
                ZoneFileDevice::open(dir)?
            } else {
                match ZoneFileDevice::open(dir) {
                    Ok(d) => d,
                    Err(DeviceError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                        ZoneFileDevice::create(dir, profile.zones.clone())?
                    }
                    Err(e) => return Err(e.into()),
                }
            };
            let dev = Arc::new(dev);
            let env = RealEnv::new(a.seed);
            env.block_on(run_list(&env, &dev, a, !a.use_existing_db))?
        }
        other => {
            return Err(CliError::Usage(format!(
                "unknown --mode '{other}'; known: sim, real"
            )));
        }
    };
    let total_ops: u64 = results.iter().filter_map(|r| r["ops"].as_u64()).sum();
    if a.json {
        let out = json!({
            "mode": a.mode,
            "profile": profile.name,
            "seed": a.seed,
            "benchmarks": results,
            "db": extra["db"],
            "write_amplification_lsm": extra["write_amplification_lsm"],
            "fs": extra["fs"],
            "options": extra["options"],
            "bench": extra["bench"],
            "virtual_end_ns": if a.mode == "sim" { extra["end_ns"].clone() } else { serde_json::Value::Null },
            "host": {
                "wall_ns": wall.elapsed_ns(),
                "sim_ops_per_wall_s": if a.mode == "sim" {
                    json!(total_ops as f64 / (wall.elapsed_ns().max(1) as f64 / 1e9))
                } else {
                    serde_json::Value::Null
                },
            },
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let s = &extra["db"];
        println!("------------------------------------------------");
        println!(
            "LSM: flushes {} compactions {} (trivial moves {}), write amplification {:.2}, stalls: {} stops {:.3} s, {} delays {:.3} s",
            s["flushes"],
            s["compactions"],
            s["trivial_moves"],
            extra["write_amplification_lsm"].as_f64().unwrap_or(0.0),
            s["stall_stops"],
            s["stall_stop_ns"].as_f64().unwrap_or(0.0) / 1e9,
            s["stall_delays"],
            s["stall_delay_ns"].as_f64().unwrap_or(0.0) / 1e9,
        );
        println!("Levels (files): {}", s["level_files"]);
        let f = &extra["fs"];
        println!(
            "Zones: device WA {:.3}, GC copied {} bytes, zone resets {}",
            f["write_amplification"].as_f64().unwrap_or(0.0),
            f["gc_copied_bytes"],
            f["zone_resets"]
        );
    }
    Ok(ExitCode::SUCCESS)
}
