//! `zonedb ycsb load|run --workload FILE [-p key=value ...]`: YCSB's core workload on the
//! engine, with YCSB's generators, key names, record format and output. In simulation the
//! device lives for one process, so `run` loads first; in real mode `load` fills `--db DIR`
//! and `run` reopens it. `--engine fjall|rocksdb` runs the same workload on a peer store
//! (real mode, `--db DIR`; a build with that feature).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::json;
use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_harness::ycsb::runner::{
    PhaseOptions, YcsbResult, run_phase_with_progress, value_regenerator,
};
use zonedb_harness::ycsb::workload::{CoreWorkload, parse_properties};
use zonedb_lsm::{Db, DbConfig};

use super::CliError;
use super::bench::KvEngine;
use super::run_flags::RunFlags;
use super::store::{EngineArgs, StoreArgs, StoreJob, engine_options, fs_options, run_on_store};
use crate::host::Stopwatch;

#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct YcsbArgs {
    /// `load` (insert the records) or `run` (the transaction phase).
    phase: String,
    /// Workload property file (YCSB's format; `workloads/workloada` ... `workloadf` ship here).
    #[arg(long = "workload", short = 'P')]
    workload: PathBuf,
    /// Property overrides, `-p key=value` (repeatable), as YCSB takes them.
    #[arg(short = 'p', value_name = "KEY=VALUE")]
    props: Vec<String>,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON instead of YCSB's text.
    #[arg(long)]
    json: bool,
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
}

struct YcsbJob<'a> {
    args: &'a YcsbArgs,
    workload: CoreWorkload,
    load: bool,
    run: bool,
}

impl StoreJob for YcsbJob<'_> {
    type Out = (Vec<YcsbResult>, serde_json::Value);

    async fn run<E: Env, D: ZonedDevice>(
        self,
        env: &E,
        dev: &Arc<D>,
        fresh: bool,
    ) -> Result<Self::Out, CliError> {
        let a = self.args;
        if fresh {
            ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await?;
        }
        let opts = engine_options(&a.engine, !fresh)?;
        let fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(&a.store)?)
            .await
            .map_err(super::mount_error(
                "nothing to reuse with --use_existing_db; run without it to create a database",
            ))?;
        let lsm = |e: zonedb_lsm::LsmError| CliError::Usage(format!("engine: {e}"));
        let harness = CliError::Harness;
        // Every open knows how to give this workload's records back (elided ones included),
        // from the open on: WAL recovery may flush elided values into compressed tables.
        let config = DbConfig::new(opts).with_regenerator(value_regenerator(&self.workload));
        let db = Db::open_with(fs.clone(), config).await.map_err(lsm)?;
        super::report_wal_recovery(db.wal_recovery());
        let mut out = Vec::new();
        for (phase, on, total) in [
            ("ycsb load", self.load, self.workload.insertcount),
            ("ycsb run", self.run, self.workload.operationcount),
        ] {
            if !on || out.iter().any(|r: &YcsbResult| r.stopped_by.is_some()) {
                continue;
            }
            let how = PhaseOptions {
                elide_values: a.run.elide_in(&a.store.mode),
                ..PhaseOptions::default()
            };
            let bar = a.run.display().start(phase, total, &how.progress);
            let load = phase == "ycsb load";
            out.push(
                run_phase_with_progress(env, &db, &self.workload, a.seed, load, &how)
                    .await
                    .map_err(harness)?,
            );
            drop(bar);
        }
        let no_space = |r: Result<(), zonedb_lsm::LsmError>| match r {
            // A full device: the phases report it; what was acknowledged stays readable.
            Err(e) if e.kind() == zonedb_lsm::LsmErrorKind::NoSpace => Ok(()),
            r => r.map_err(lsm),
        };
        no_space(db.wait_for_compactions().await)?;
        let stats = db.stats();
        no_space(db.close().await)?;
        let extra = json!({ "db": stats, "fs": fs.stats(), "end_ns": env.now() });
        Ok((out, extra))
    }
}

pub fn run(a: &YcsbArgs) -> Result<ExitCode, CliError> {
    a.run.apply_process();
    let text =
        zonedb_harness::input::read_to_string(&a.workload).map_err(CliError::io(&a.workload))?;
    let mut props = parse_properties(&text);
    for p in &a.props {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("-p {p}: expected key=value")))?;
        props.insert(k.trim().to_owned(), v.trim().to_owned());
    }
    let workload =
        CoreWorkload::from_properties(&props).map_err(|e| CliError::Usage(e.to_string()))?;
    let sim = a.store.mode == "sim";
    let (load, run) = match a.phase.as_str() {
        "load" => (true, false),
        "run" => (sim, true),
        other => {
            return Err(CliError::Usage(format!(
                "unknown phase '{other}'; use load or run"
            )));
        }
    };
    match KvEngine::parse(&a.kv_engine)? {
        KvEngine::ZoneDb => {}
        KvEngine::Fjall => return run_fjall(a, &workload, load, run),
        KvEngine::RocksDb => return run_rocksdb(a, &workload, load, run),
    }
    let mut store = a.store.clone();
    if !sim && a.phase == "run" {
        store.use_existing_db = true;
    }
    let profile = store.profile()?;
    let wall = Stopwatch::start();
    let (results, extra) = run_on_store(
        &store,
        &profile,
        a.seed,
        YcsbJob {
            args: a,
            workload: workload.clone(),
            load,
            run,
        },
    )?;
    let stopped_by = results.iter().find_map(|r| r.stopped_by.clone());
    if a.json {
        let mut out = json!({
            "workload": workload,
            "mode": store.mode,
            "profile": profile.name,
            "seed": a.seed,
            "phases": results,
            "db": extra["db"],
            "fs": extra["fs"],
            "virtual_end_ns": if sim { extra["end_ns"].clone() } else { serde_json::Value::Null },
            "host": crate::host::json(
                wall.elapsed_ns(),
                sim.then(|| results.iter().map(|r| r.operations).sum()),
            ),
        });
        if let (Some(why), Some(o)) = (&stopped_by, out.as_object_mut()) {
            o.insert(
                "device_full".into(),
                super::bench::device_full_summary(why, &extra["fs"]),
            );
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for r in &results {
            if results.len() > 1 {
                println!("# {} phase", r.phase);
            }
            print!("{}", r.text());
        }
        if let Some(why) = &stopped_by {
            super::bench::print_device_full(
                results.iter().map(|r| r.operations).sum(),
                why,
                &extra["fs"],
            );
        }
    }
    Ok(if stopped_by.is_some() {
        ExitCode::from(super::bench::DEVICE_FULL_EXIT)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--engine fjall|rocksdb`: the workload's phases on a peer store named `engine` in
/// `--db DIR` (real mode only): `load` starts from an empty store (unless
/// `--use_existing_db`), `run` reopens it. `open(dir, cache_bytes)` opens or creates the
/// store; `persist` makes its writes durable at the end.
#[cfg(any(feature = "fjall", feature = "rocksdb"))]
fn run_peer<S: zonedb_harness::kv::KvStore>(
    a: &YcsbArgs,
    engine: &str,
    workload: &CoreWorkload,
    (load, run): (bool, bool),
    open: impl Fn(&std::path::Path, u64) -> Result<S, zonedb_harness::db_bench::HarnessError>,
    persist: impl Fn(&S) -> Result<(), zonedb_harness::db_bench::HarnessError>,
) -> Result<ExitCode, CliError> {
    use zonedb_env::RealEnv;

    let harness = CliError::Harness;
    let dir = super::bench::peer_dir(&a.store, engine)?;
    let cache = engine_options(&a.engine, true)?.block_cache_size;
    let wall = Stopwatch::start();
    if load && !a.store.use_existing_db && dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(CliError::io(&dir))?;
    }
    let store = open(&dir, cache).map_err(harness)?;
    let env = RealEnv::new(a.seed);
    let mut results = Vec::new();
    for (phase, on, total) in [
        ("ycsb load", load, workload.insertcount),
        ("ycsb run", run, workload.operationcount),
    ] {
        if !on {
            continue;
        }
        let how = PhaseOptions::default();
        let bar = a.run.display().start(phase, total, &how.progress);
        let r = env
            .block_on(run_phase_with_progress(
                &env,
                &store,
                workload,
                a.seed,
                phase == "ycsb load",
                &how,
            ))
            .map_err(harness)?;
        drop(bar);
        results.push(r);
    }
    persist(&store).map_err(harness)?;
    if a.json {
        let out = json!({
            "engine": engine,
            "workload": workload,
            "mode": "real",
            "seed": a.seed,
            "phases": results,
            "host": crate::host::json(wall.elapsed_ns(), None),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for r in &results {
            if results.len() > 1 {
                println!("# {} phase", r.phase);
            }
            print!("{}", r.text());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--engine fjall`: the workload on fjall (see [`run_peer`]).
#[cfg(feature = "fjall")]
fn run_fjall(a: &YcsbArgs, w: &CoreWorkload, load: bool, run: bool) -> Result<ExitCode, CliError> {
    use zonedb_harness::fjall_peer::FjallStore;

    run_peer(
        a,
        "fjall",
        w,
        (load, run),
        FjallStore::open,
        FjallStore::persist,
    )
}

#[cfg(not(feature = "fjall"))]
fn run_fjall(_: &YcsbArgs, _: &CoreWorkload, _: bool, _: bool) -> Result<ExitCode, CliError> {
    Err(super::bench::fjall_not_built())
}

/// `--engine rocksdb`: the workload on RocksDB through the rocksdb crate (see [`run_peer`]).
#[cfg(feature = "rocksdb")]
fn run_rocksdb(
    a: &YcsbArgs,
    w: &CoreWorkload,
    load: bool,
    run: bool,
) -> Result<ExitCode, CliError> {
    use zonedb_harness::rocksdb_peer::RocksStore;

    run_peer(
        a,
        "rocksdb",
        w,
        (load, run),
        RocksStore::open,
        RocksStore::persist,
    )
}

#[cfg(not(feature = "rocksdb"))]
fn run_rocksdb(_: &YcsbArgs, _: &CoreWorkload, _: bool, _: bool) -> Result<ExitCode, CliError> {
    Err(super::bench::rocksdb_not_built())
}
