//! `zonedb bench`: db_bench's benchmarks on the engine, in simulation (virtual time, a
//! simulated ZNS SSD; deterministic in `--seed`) or in real mode (a file-backed zoned device in
//! `--db DIR` that a later run reopens with `--use_existing_db`).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::json;
use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_harness::benchmark::{BENCHMARKS, Benchmark};
use zonedb_harness::db_bench::{self, BenchConfig, BenchResult};
use zonedb_lsm::{Db, DbConfig};

use super::CliError;
use super::run_flags::RunFlags;
use super::store::{
    EngineArgs, StoreArgs, StoreJob, engine_options, flag_bool, fs_options, run_on_store,
};
use crate::host::Stopwatch;

/// db_bench's flags (names and meanings), plus the device and mode.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
#[allow(clippy::struct_excessive_bools, reason = "db_bench's flags")]
pub struct BenchArgs {
    /// Comma-separated benchmarks, run in order (the accepted names come from the harness).
    #[arg(long, default_value = "fillrandom,readrandom", help = benchmarks_help())]
    benchmarks: String,
    /// Keys in the key space; writes per thread (at least 1).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    num: u64,
    /// Reads per thread (-1 = num).
    #[arg(long, default_value_t = -1, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    reads: i64,
    /// Writes per thread of fillseq, fillrandom, filluniquerandom, overwrite and deleterandom,
    /// keys still drawn from the `num` keys (-1 = num).
    #[arg(long, default_value_t = -1, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..))]
    writes: i64,
    /// Key size in bytes (at least 8).
    #[arg(long, default_value_t = 16)]
    key_size: usize,
    /// Value size in bytes (at most 64 MiB).
    #[arg(long, default_value_t = 100, value_parser = parse_value_size)]
    value_size: usize,
    /// Client threads (1-1024).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(db_bench::MAX_THREADS)))]
    threads: u32,
    /// Seed (runs are deterministic in it in sim mode).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Next() calls after each seek of seekrandom.
    #[arg(long, default_value_t = 0)]
    seek_nexts: u64,
    /// Writes per batch (at least 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    batch_size: u64,
    /// Percentage of reads in readrandomwriterandom (0-100).
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u64).range(0..=100))]
    readwritepercent: u64,
    /// Fraction of each 100-byte piece of the value pool that is random, the rest a repeat
    /// (db_bench's value generator; 0.5 compresses values to about half).
    #[arg(long, default_value_t = zonedb_harness::keys::DEFAULT_COMPRESSION_RATIO)]
    compression_ratio: f64,
    /// Print db_bench's latency histogram block per operation type.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    histogram: bool,
    /// Check every value read against the last acknowledged write of its key (a mismatch
    /// fails the run with exit status 1); operations are serialized while checking.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    verify: bool,
    /// The store: `zonedb` (default), or `fjall` or `rocksdb` (the rocksdb crate) as a peer
    /// (real mode, --db DIR; needs a build with `--features fjall` or `--features rocksdb`).
    #[arg(long = "engine", default_value = "zonedb")]
    kv_engine: String,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    run: RunFlags,
    /// Print JSON instead of db_bench lines.
    #[arg(long)]
    json: bool,
}

/// `--benchmarks`' help: every benchmark the harness runs.
fn benchmarks_help() -> String {
    format!(
        "Comma-separated benchmarks, run in order: {}",
        BENCHMARKS.join(", ")
    )
}

/// A `--value_size`: bytes, at most [`db_bench::MAX_VALUE_SIZE`] (64 MiB).
pub(crate) fn parse_value_size(s: &str) -> Result<usize, String> {
    let v: usize = s
        .parse()
        .map_err(|e: std::num::ParseIntError| e.to_string())?;
    if v > db_bench::MAX_VALUE_SIZE {
        return Err(format!(
            "{v} is not in 0..={} (64 MiB, the largest value the workloads write)",
            db_bench::MAX_VALUE_SIZE
        ));
    }
    Ok(v)
}

fn lsm(e: zonedb_lsm::LsmError) -> CliError {
    CliError::Usage(format!("engine: {e}"))
}

fn harness(e: db_bench::HarnessError) -> CliError {
    match e {
        db_bench::HarnessError::Verification(m) => CliError::Failed(m),
        e @ db_bench::HarnessError::Invariant(_) => CliError::Failed(e.to_string()),
        e => CliError::Harness(e),
    }
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

struct BenchJob<'a>(&'a BenchArgs);

impl StoreJob for BenchJob<'_> {
    type Out = (Vec<serde_json::Value>, serde_json::Value);

    async fn run<E: Env, D: ZonedDevice>(
        self,
        env: &E,
        dev: &Arc<D>,
        fresh: bool,
    ) -> Result<Self::Out, CliError> {
        run_list(env, dev, self.0, fresh).await
    }
}

/// db_bench's flags as the harness's configuration.
fn bench_config(a: &BenchArgs) -> BenchConfig {
    BenchConfig {
        num: a.num,
        reads: u64::try_from(a.reads).ok(),
        writes: u64::try_from(a.writes).ok(),
        key_size: a.key_size,
        value_size: a.value_size,
        threads: a.threads,
        seed: a.seed,
        seek_nexts: a.seek_nexts,
        batch_size: a.batch_size,
        readwritepercent: a.readwritepercent,
        compression_ratio: a.compression_ratio,
        elide_values: a.run.elide_in(&a.store.mode),
        progress: db_bench::ProgressCounter::default(),
        verify: a
            .verify
            .then(|| Arc::new(zonedb_harness::verify::ValueLedger::new())),
        record: None,
    }
}

/// The `--benchmarks` list, each name checked.
fn benchmark_names(a: &BenchArgs) -> Result<Vec<Benchmark>, CliError> {
    let list = Benchmark::parse_list(&a.benchmarks).map_err(|e| CliError::Usage(e.to_string()))?;
    if list.is_empty() {
        return Err(CliError::Usage(format!(
            "--benchmarks names no benchmark; known: {}",
            BENCHMARKS.join(", ")
        )));
    }
    Ok(list)
}

/// What db_bench does before benchmark `i` named `n`: a fresh-DB benchmark is skipped on a
/// reopened database and, after the first, starts from an empty one.
enum Before {
    Run,
    Skip,
    Reformat,
}

fn before(a: &BenchArgs, i: usize, n: Benchmark) -> Before {
    if !n.is_fresh_db() {
        Before::Run
    } else if a.store.use_existing_db {
        Before::Skip
    } else if i > 0 {
        Before::Reformat
    } else {
        Before::Run
    }
}

/// Prints a benchmark's result as db_bench does (unless `--json`): its line, the verified
/// reads, the background writer's puts, and with `--histogram` the histogram block.
fn print_result(a: &BenchArgs, r: &BenchResult, verified: Option<u64>) {
    if a.json {
        return;
    }
    let n = &r.name;
    println!("{}", r.line());
    if let Some(v) = verified.filter(|&v| v > 0) {
        println!("{n:<12} : {v} reads verified against the last acknowledged writes");
    }
    if let Some(w) = r.background_writes {
        println!("{n:<12} : the background writer made {w} puts meanwhile");
    }
    if a.histogram {
        print!("{}", r.histogram_text());
    }
}

/// Adds `verified_reads` to a benchmark's JSON row (with `--verify`).
fn with_verified(row: &mut serde_json::Value, verified: Option<u64>) {
    if let (Some(v), serde_json::Value::Object(m)) = (verified, row) {
        m.insert("verified_reads".into(), json!(v));
    }
}

/// Runs the benchmark list on one device; a fresh-DB benchmark after the first reformats it.
async fn run_list<E: Env, D: ZonedDevice>(
    env: &E,
    dev: &Arc<D>,
    a: &BenchArgs,
    fresh_first: bool,
) -> Result<(Vec<serde_json::Value>, serde_json::Value), CliError> {
    let opts = engine_options(&a.engine, a.store.use_existing_db)?;
    let cfg = bench_config(a);
    let names = benchmark_names(a)?;
    if fresh_first {
        ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
    }
    let mut fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(&a.store)?)
        .await
        .map_err(super::mount_error(
            "nothing to reuse with --use_existing_db; run without it to create a database",
        ))?;
    // Every open knows how to give this workload's values back (elided ones included), from
    // the open on: WAL recovery may flush elided values into compressed tables.
    let config = || DbConfig::new(opts.clone()).with_regenerator(cfg.value_regenerator());
    let mut db = Db::open_with(fs.clone(), config()).await.map_err(lsm)?;
    super::report_wal_recovery(db.wal_recovery());
    if let Some(l) = &cfg.verify {
        l.reset(fresh_first).await;
    }
    let mut results = Vec::new();
    let mut threads = 0;
    for (i, &n) in names.iter().enumerate() {
        match before(a, i, n) {
            Before::Skip => {
                results.push(serde_json::to_value(BenchResult::skipped(n.name()))?);
                continue;
            }
            Before::Run => {}
            Before::Reformat => {
                db.close().await.map_err(lsm)?;
                drop(db);
                ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
                fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(&a.store)?).await?;
                db = Db::open_with(fs.clone(), config()).await.map_err(lsm)?;
                super::report_wal_recovery(db.wal_recovery());
                if let Some(l) = &cfg.verify {
                    l.reset(true).await;
                }
            }
        }
        let (db0, fs0) = (db.stats(), fs.stats());
        let bar = a
            .run
            .display()
            .start(n.name(), cfg.planned_ops(n), &cfg.progress);
        let verified0 = cfg.verify.as_ref().map(|l| l.verified());
        let r = db_bench::run_one(env, &db, n, &cfg, &mut threads)
            .await
            .map_err(harness)?;
        drop(bar);
        let verified = cfg
            .verify
            .as_ref()
            .map(|l| l.verified() - verified0.unwrap_or(0));
        print_result(a, &r, verified);
        let mut row = with_deltas(&r, &db0, &db.stats(), &fs0, &fs.stats());
        with_verified(&mut row, verified);
        results.push(row);
        if r.stopped_by.is_some() {
            // The device is full: the benchmarks after this one cannot run.
            break;
        }
    }
    // As db_bench: the database closes when the last benchmark ends, stopping any running
    // compaction; list `waitforcompaction` last to settle the tree first.
    let stats = db.stats();
    match db.close().await {
        // A full device may have no room for the WAL's last buffer: what was acknowledged
        // and synced is on the device, and the run reports the full device below.
        Err(e) if e.kind() == zonedb_lsm::LsmErrorKind::NoSpace => {}
        r => r.map_err(lsm)?,
    }
    let extra = json!({
        "db": stats,
        "write_amplification_lsm": stats.write_amplification(),
        "fs": fs.stats(),
        "options": opts,
        "bench": cfg,
        "end_ns": env.now(),
        "memory_payload_bytes": dev.memory_payload_bytes(),
        "peak_memory_payload_bytes": dev.peak_memory_payload_bytes(),
    });
    Ok((results, extra))
}

pub fn run(a: &BenchArgs) -> Result<ExitCode, CliError> {
    a.run.apply_process();
    // Bad flags fail before any work is done.
    benchmark_names(a)?;
    bench_config(a)
        .validate()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    match KvEngine::parse(&a.kv_engine)? {
        KvEngine::ZoneDb => {}
        KvEngine::Fjall => return run_fjall(a),
        KvEngine::RocksDb => return run_rocksdb(a),
    }
    let profile = a.store.profile()?;
    let wall = Stopwatch::start();
    if !a.json {
        match &a.store.device {
            Some(path) => println!(
                "zonedb bench: mode {}, zoned block device {}, seed {}",
                a.store.mode,
                path.display(),
                a.seed
            ),
            None => println!(
                "zonedb bench: mode {}, device {} ({} zones of {} MiB), seed {}",
                a.store.mode,
                profile.name,
                profile.zones.zone_count,
                profile.zones.zone_capacity_bytes >> 20,
                a.seed
            ),
        }
        println!("Keys:       {} bytes each", a.key_size);
        println!("Values:     {} bytes each", a.value_size);
        println!("Entries:    {}", a.num);
        println!("------------------------------------------------");
    }
    let (results, extra) = run_on_store(&a.store, &profile, a.seed, BenchJob(a))?;
    let total_ops: u64 = results.iter().filter_map(|r| r["ops"].as_u64()).sum();
    let stopped_by = results
        .iter()
        .find_map(|r| r.get("stopped_by").and_then(|v| v.as_str()))
        .map(str::to_owned);
    if a.json {
        let mut out = json!({
            "mode": a.store.mode,
            "profile": profile.name,
            "seed": a.seed,
            "benchmarks": results,
            "db": extra["db"],
            "write_amplification_lsm": extra["write_amplification_lsm"],
            "fs": extra["fs"],
            "options": extra["options"],
            "bench": extra["bench"],
            "virtual_end_ns": if a.store.mode == "sim" { extra["end_ns"].clone() } else { serde_json::Value::Null },
            "host": {
                "wall_ns": wall.elapsed_ns(),
                "sim_ops_per_wall_s": if a.store.mode == "sim" {
                    json!(total_ops as f64 / (wall.elapsed_ns().max(1) as f64 / 1e9))
                } else {
                    serde_json::Value::Null
                },
                "peak_rss_bytes": crate::host::peak_rss_bytes(),
                "parallel_computations": zonedb_env::parallel_computations(),
                "peak_rss_per_stored_byte": crate::host::peak_rss_bytes().map(|rss| {
                    rss as f64 / extra["fs"]["used_bytes"].as_f64().unwrap_or(0.0).max(1.0)
                }),
                "memory_payload_bytes": extra["memory_payload_bytes"],
                "peak_rss_per_payload_byte": crate::host::peak_rss_bytes().and_then(|rss| {
                    extra["memory_payload_bytes"]
                        .as_f64()
                        .map(|p| rss as f64 / p.max(1.0))
                }),
                "peak_memory_payload_bytes": extra["peak_memory_payload_bytes"],
                "peak_rss_per_peak_payload_byte": crate::host::peak_rss_bytes().and_then(|rss| {
                    extra["peak_memory_payload_bytes"]
                        .as_f64()
                        .map(|p| rss as f64 / p.max(1.0))
                }),
            },
        });
        if let (Some(why), Some(o)) = (&stopped_by, out.as_object_mut()) {
            o.insert(
                "device_full".into(),
                json!(device_full_summary(why, &extra["fs"])),
            );
        }
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
        if let Some(why) = &stopped_by {
            print_device_full(total_ops, why, f);
        }
    }
    Ok(if stopped_by.is_some() {
        ExitCode::from(DEVICE_FULL_EXIT)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--engine`: the store `bench` and `ycsb` run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KvEngine {
    /// ZoneDB itself (sim or real mode).
    ZoneDb,
    /// fjall as a peer (feature `fjall`).
    Fjall,
    /// RocksDB through the rocksdb crate (feature `rocksdb`).
    RocksDb,
}

impl KvEngine {
    /// From `--engine`'s value.
    pub(crate) fn parse(s: &str) -> Result<Self, CliError> {
        match s {
            "zonedb" => Ok(Self::ZoneDb),
            "fjall" => Ok(Self::Fjall),
            "rocksdb" => Ok(Self::RocksDb),
            other => Err(CliError::Usage(format!(
                "unknown --engine '{other}'; known: zonedb, fjall, rocksdb"
            ))),
        }
    }
}

/// Exit status of a run that ended because the device filled up (its figures are printed).
pub const DEVICE_FULL_EXIT: u8 = 3;

/// The `Device full:` line of a run that filled the device.
pub(crate) fn print_device_full(ops: u64, why: &str, fs: &serde_json::Value) {
    let d = device_full_summary(why, fs);
    println!(
        "Device full: {ops} operations done; live {} bytes, garbage {} bytes, free {} bytes, space amplification {:.3} ({why})",
        d["live_bytes"],
        d["garbage_bytes"],
        d["free_bytes"],
        d["space_amplification"].as_f64().unwrap_or(0.0)
    );
}

/// `device_full` in `--json`: why the run stopped and the space figures at the end (how much
/// valid data fit: SplitZNS §2.3's measure).
pub(crate) fn device_full_summary(why: &str, fs: &serde_json::Value) -> serde_json::Value {
    json!({
        "stopped_by": why,
        "live_bytes": fs["used_bytes"],
        "garbage_bytes": fs["garbage_bytes"],
        "free_bytes": fs["free_bytes"],
        "space_amplification": fs["space_amplification"],
    })
}

/// The directory of peer store `engine`: peers run in real mode on a directory only.
#[cfg(any(feature = "fjall", feature = "rocksdb"))]
pub(crate) fn peer_dir(store: &StoreArgs, engine: &str) -> Result<std::path::PathBuf, CliError> {
    if store.mode != "real" || store.device.is_some() {
        return Err(CliError::Usage(format!(
            "--engine {engine} runs in real mode on a directory: --mode real --db DIR"
        )));
    }
    store
        .db
        .clone()
        .ok_or_else(|| CliError::Usage(format!("--engine {engine} needs --db DIR")))
}

/// `--engine fjall|rocksdb`: the same benchmarks on a peer store named `engine` in `--db DIR`
/// (real mode only). `open(dir, cache_bytes)` opens or creates the store; `persist` makes its
/// writes durable before a fresh-DB benchmark drops it and at the end.
#[cfg(any(feature = "fjall", feature = "rocksdb"))]
fn run_peer<S: zonedb_harness::kv::KvStore>(
    a: &BenchArgs,
    engine: &str,
    open: impl Fn(&std::path::Path, u64) -> Result<S, db_bench::HarnessError>,
    persist: impl Fn(&S) -> Result<(), db_bench::HarnessError>,
) -> Result<ExitCode, CliError> {
    use zonedb_env::RealEnv;

    let dir = peer_dir(&a.store, engine)?;
    let cfg = bench_config(a);
    let names = benchmark_names(a)?;
    let cache = engine_options(&a.engine, true)?.block_cache_size;
    let wall = Stopwatch::start();
    let fresh = |dir: &std::path::Path| -> Result<S, CliError> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(CliError::io(dir))?;
        }
        open(dir, cache).map_err(harness)
    };
    let mut store = if a.store.use_existing_db {
        open(&dir, cache).map_err(harness)?
    } else {
        fresh(&dir)?
    };
    if !a.json {
        println!(
            "zonedb bench: engine {engine}, mode real, in {}, seed {}",
            dir.display(),
            a.seed
        );
    }
    let env = RealEnv::new(a.seed);
    let mut results = Vec::new();
    let mut threads = 0;
    for (i, &n) in names.iter().enumerate() {
        match before(a, i, n) {
            Before::Skip => {
                results.push(serde_json::to_value(BenchResult::skipped(n.name()))?);
                continue;
            }
            Before::Run => {}
            Before::Reformat => {
                persist(&store).map_err(harness)?;
                drop(store);
                store = fresh(&dir)?;
            }
        }
        let verified0 = cfg.verify.as_ref().map(|l| l.verified());
        let r = env
            .block_on(db_bench::run_one(&env, &store, n, &cfg, &mut threads))
            .map_err(harness)?;
        let verified = cfg
            .verify
            .as_ref()
            .map(|l| l.verified() - verified0.unwrap_or(0));
        print_result(a, &r, verified);
        let mut row = serde_json::to_value(&r)?;
        with_verified(&mut row, verified);
        results.push(row);
    }
    persist(&store).map_err(harness)?;
    if a.json {
        let out = json!({
            "engine": engine,
            "benchmarks": results,
            "bench": cfg,
            "host": crate::host::json(wall.elapsed_ns(), None),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// `--engine fjall`: the benchmarks on fjall (see [`run_peer`]).
#[cfg(feature = "fjall")]
fn run_fjall(a: &BenchArgs) -> Result<ExitCode, CliError> {
    use zonedb_harness::fjall_peer::FjallStore;

    run_peer(a, "fjall", FjallStore::open, FjallStore::persist)
}

#[cfg(not(feature = "fjall"))]
fn run_fjall(_: &BenchArgs) -> Result<ExitCode, CliError> {
    Err(fjall_not_built())
}

/// `--engine fjall` in a build without it.
#[cfg(not(feature = "fjall"))]
pub(crate) fn fjall_not_built() -> CliError {
    CliError::Usage(
        "this zonedb was built without fjall; build it with: cargo build --release --features fjall"
            .into(),
    )
}

/// `--engine rocksdb`: the benchmarks on RocksDB through the rocksdb crate (see [`run_peer`]).
#[cfg(feature = "rocksdb")]
fn run_rocksdb(a: &BenchArgs) -> Result<ExitCode, CliError> {
    use zonedb_harness::rocksdb_peer::RocksStore;

    run_peer(a, "rocksdb", RocksStore::open, RocksStore::persist)
}

#[cfg(not(feature = "rocksdb"))]
fn run_rocksdb(_: &BenchArgs) -> Result<ExitCode, CliError> {
    Err(rocksdb_not_built())
}

/// `--engine rocksdb` in a build without it.
#[cfg(not(feature = "rocksdb"))]
pub(crate) fn rocksdb_not_built() -> CliError {
    CliError::Usage(
        "this zonedb was built without rocksdb; build it with (Debian's librocksdb-dev and \
         libclang-dev installed): ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu \
         ROCKSDB_INCLUDE_DIR=/usr/include cargo build --release --features rocksdb"
            .into(),
    )
}
