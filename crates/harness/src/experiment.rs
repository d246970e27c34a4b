//! Runs a [`Scenario`] in simulation: builds the device, formats and mounts the zone file
//! layer with the scenario's policies, opens the engine, runs the benchmarks in order while a
//! sampler task records a time series in virtual time, and gathers every counter.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use zonedb_device::flash::{Queueing, Scheduler};
use zonedb_device::{
    DeviceError, DeviceStats, HybridSpec, HybridStats, Profile, SimDevice, SimDeviceSpec,
    ZonedDevice,
};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::{FsOptions, FsStats, ZoneFs};
use zonedb_lsm::{Db, DbStats};

use crate::db_bench::{self, BenchResult, HarnessError};
use crate::scenario::Scenario;

/// One point of the time series.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Sample {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// Engine operations so far (write ops + gets).
    pub ops: u64,
    /// User bytes written so far.
    pub user_bytes: u64,
    /// Bytes written to the device so far.
    pub device_bytes: u64,
    /// Bytes copied by zone cleaning so far.
    pub gc_copied_bytes: u64,
    /// Free bytes in the zone layer.
    pub free_bytes: u64,
    /// Write-stall time so far, ns.
    pub stall_ns: u64,
    /// Bytes per level.
    pub level_bytes: Vec<u64>,
    /// A hybrid device's counters per part so far (`None` on one device).
    #[serde(skip)]
    pub hybrid: Option<HybridStats>,
    /// Bytes hybrid migration copied so far.
    #[serde(skip)]
    pub migrated_bytes: u64,
    /// Query reads of each SST so far, by file id ([`ZoneFs::sst_read_counts`]); taken at
    /// the phase marks only (empty in the series).
    #[serde(skip)]
    pub sst_reads: std::collections::BTreeMap<u64, u64>,
}

/// Everything a run produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunReport {
    /// The scenario, resolved.
    pub scenario: Scenario,
    /// Device profile name.
    pub profile: String,
    /// Per benchmark.
    pub benchmarks: Vec<BenchResult>,
    /// The counters sampled when each benchmark (YCSB phase) began and ended, one pair per
    /// entry of [`Self::benchmarks`]: what a phase alone wrote, copied and stalled is the
    /// difference. Not serialized (the series holds the same counters over time).
    #[serde(skip)]
    pub phase_marks: Vec<(Sample, Sample)>,
    /// How each phase's query reads spread over SSTs, one per entry of
    /// [`Self::benchmarks`] (from the phase marks' per-SST read counts).
    pub phase_sst_reads: Vec<crate::reproduce::figures::SstReadSkew>,
    /// Engine counters.
    pub db: DbStats,
    /// Zone layer counters.
    pub fs: FsStats,
    /// Device counters.
    pub device: DeviceStats,
    /// Each part's counters of a hybrid device (both parts add up to `device`). Left out of
    /// JSON for one device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid_device: Option<HybridStats>,
    /// ZNS+'s device counters (IZC, plugging). Left out of JSON for other devices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub znsplus: Option<zonedb_device::flash::ZnsPlusStats>,
    /// On a hybrid device, the SST bytes of each level on the SSD and on the HDD at the end
    /// (by where each SST's first extent lies). Left out of JSON on one device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level_tier_bytes: Option<Vec<(u64, u64)>>,
    /// Time series.
    pub series: Vec<Sample>,
    /// Lifetimes of deleted SSTs (ns), by the level they were written to.
    pub sst_lifetimes_ns: std::collections::BTreeMap<u32, Vec<u64>>,
    /// Virtual end time, ns.
    pub end_ns: u64,
    /// The end-of-run checks the figures rest on (fsck, scan, sampled reads, write ledger).
    pub invariants: crate::invariants::InvariantReport,
}

impl RunReport {
    /// Device bytes written / user bytes written.
    pub fn write_amplification(&self) -> f64 {
        if self.db.user_bytes_written == 0 {
            0.0
        } else {
            self.fs.device_bytes_written as f64 / self.db.user_bytes_written as f64
        }
    }
}

/// The flash profile of a scenario (of its SSD for `kind = "hybrid"`).
///
/// # Errors
/// [`HarnessError::Device`] for an unknown profile, a disk profile, a bad scale or
/// chips-per-zone; as [`device_spec_of`].
pub fn profile_of(s: &Scenario) -> Result<Profile, HarnessError> {
    match device_spec_of(s)? {
        DeviceSpec::One(spec) => spec.profile(),
        DeviceSpec::Hybrid(h) => h.ssd.profile(),
    }
    .map_err(HarnessError::Device)
}

/// The simulated device a scenario describes: one device, or the hybrid of an SSD and an HDD.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per run, built once; boxing buys nothing"
)]
pub enum DeviceSpec {
    /// A ZNS or SplitZNS SSD, or an HM-SMR HDD.
    One(SimDeviceSpec),
    /// `kind = "hybrid"`.
    Hybrid(HybridSpec),
}

impl DeviceSpec {
    /// A new, empty device.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for a bad profile, scale, limits or pairing; payload
    /// errors.
    pub fn build<E: Env>(&self, env: E) -> Result<SimDevice<E>, DeviceError> {
        match self {
            Self::One(spec) => spec.build(env),
            Self::Hybrid(h) => h.build(env),
        }
    }

    /// The name of the resolved profile (`ssd+hdd` for a hybrid), e.g. `zn540@1/64`.
    ///
    /// # Errors
    /// As [`DeviceSpec::build`].
    pub fn profile_name(&self) -> Result<String, DeviceError> {
        match self {
            Self::One(spec) => spec.profile_name(),
            Self::Hybrid(h) => h.profile_name(),
        }
    }
}

/// The simulated device of a scenario that has one device.
///
/// # Errors
/// As [`device_spec_of`]; [`HarnessError::Config`] for `kind = "hybrid"` (two devices: see
/// [`device_spec_of`]).
pub fn spec_of(s: &Scenario) -> Result<SimDeviceSpec, HarnessError> {
    match device_spec_of(s)? {
        DeviceSpec::One(spec) => Ok(spec),
        DeviceSpec::Hybrid(_) => Err(HarnessError::config(
            "device.kind",
            "\"hybrid\" has two devices: use device_spec_of",
        )),
    }
}

/// The simulated device of a scenario: `[device]`, or for `kind = "hybrid"` its
/// `[device.ssd]` and `[device.hdd]` tables.
///
/// # Errors
/// [`HarnessError::Device`] for an unknown kind, queueing or scheduler; [`HarnessError::Config`]
/// for a hybrid without both tables, with settings in `[device]` that belong in them, or with
/// a kind or nested table inside them, and for `[device.ssd]` / `[device.hdd]` without
/// `kind = "hybrid"`; [`HarnessError::Device`] for a hybrid whose SSD is not a flash profile,
/// whose HDD is not a disk profile, or whose block sizes differ.
pub fn device_spec_of(s: &Scenario) -> Result<DeviceSpec, HarnessError> {
    let d = &s.device;
    if d.kind.as_deref() != Some("hybrid") {
        if d.ssd.is_some() || d.hdd.is_some() {
            return Err(HarnessError::config(
                "[device.ssd] and [device.hdd]",
                "only for device.kind = \"hybrid\"",
            ));
        }
        return section_spec(d, "device").map(DeviceSpec::One);
    }
    let defaults = crate::scenario::DeviceSection::default();
    let own = [
        (d.profile != defaults.profile, "profile"),
        (d.scale != defaults.scale, "scale"),
        (d.chips.is_some(), "chips"),
        (d.chips_per_zone.is_some(), "chips_per_zone"),
        (d.zone_size_mib.is_some(), "zone_size_mib"),
        (d.block_kib.is_some(), "block_kib"),
        (d.block_erase_us.is_some(), "block_erase_us"),
        (d.zone_count.is_some(), "zone_count"),
        (d.max_open_zones.is_some(), "max_open_zones"),
        (d.max_active_zones.is_some(), "max_active_zones"),
        (d.queueing.is_some(), "queueing"),
        (d.scheduler.is_some(), "scheduler"),
        (d.reset_ack.is_some(), "reset_ack"),
        (d.splitzns.is_some(), "splitzns"),
        (d.znsplus.is_some(), "znsplus"),
    ];
    if let Some((_, key)) = own.iter().find(|(set, _)| *set) {
        return Err(HarnessError::config(
            format!("device.{key}"),
            format!(
                "a hybrid device has no {key} of its own; set it in [device.ssd] or [device.hdd]"
            ),
        ));
    }
    let part = |table: Option<&crate::scenario::DeviceSection>, name: &str, example: &str| {
        let t = table.ok_or_else(|| {
            HarnessError::config(
                "device.kind",
                format!(
                    "\"hybrid\" needs a [device.{name}] table (e.g. profile = \"{example}\", \
                     scale = \"1/64\")"
                ),
            )
        })?;
        if t.kind.is_some() || t.ssd.is_some() || t.hdd.is_some() || t.splitzns.is_some() {
            return Err(HarnessError::config(
                format!("[device.{name}]"),
                "one device: no kind, splitzns, ssd or hdd inside it",
            ));
        }
        section_spec(t, &format!("device.{name}"))
    };
    let hybrid = HybridSpec {
        ssd: part(d.ssd.as_deref(), "ssd", "zn540")?,
        hdd: part(d.hdd.as_deref(), "hdd", "st14000nm0007")?,
    };
    hybrid.profiles().map_err(HarnessError::Device)?;
    Ok(DeviceSpec::Hybrid(hybrid))
}

/// The device of one section (`what` names it in errors).
fn section_spec(
    d: &crate::scenario::DeviceSection,
    what: &str,
) -> Result<SimDeviceSpec, HarnessError> {
    let scheduler = d
        .scheduler
        .as_deref()
        .map(Scheduler::by_name)
        .transpose()
        .map_err(HarnessError::Device)?;
    let queueing = d
        .queueing
        .as_deref()
        .map(Queueing::by_name)
        .transpose()
        .map_err(HarnessError::Device)?;
    let reset_ack = d
        .reset_ack
        .as_deref()
        .map(zonedb_device::flash::ResetAck::by_name)
        .transpose()
        .map_err(HarnessError::Device)?;
    let (splitzns, znsplus) = match d.kind.as_deref() {
        None | Some("zns") => (None, None),
        Some("splitzns") => (Some(d.splitzns.unwrap_or_default()), None),
        Some("znsplus") => (None, Some(d.znsplus.unwrap_or_default())),
        Some(other) => {
            return Err(HarnessError::Device(DeviceError::InvalidConfig(format!(
                "{what}.kind '{other}': zns, splitzns, znsplus or hybrid"
            ))));
        }
    };
    if d.znsplus.is_some() && znsplus.is_none() {
        return Err(HarnessError::config(
            format!("[{what}.znsplus]"),
            format!("only for {what}.kind = \"znsplus\""),
        ));
    }
    Ok(SimDeviceSpec::new(&d.profile, &d.scale)
        .chips(d.chips)
        .chips_per_zone(d.chips_per_zone)
        .zone_size_mib(d.zone_size_mib)
        .block_kib(d.block_kib)
        .block_erase_us(d.block_erase_us)
        .zone_count(d.zone_count)
        .zone_limits(d.max_open_zones, d.max_active_zones)
        .scheduler(scheduler)
        .queueing(queueing)
        .reset_ack(reset_ack)
        .splitzns(splitzns)
        .znsplus(znsplus))
}

/// The cumulative engine counters a [`Sample`] takes: of the closed opens of a run's
/// database, or of those and the open one ([`Carried::plus`]).
#[derive(Debug, Clone, Copy, Default)]
struct Carried {
    ops: u64,
    user_bytes: u64,
    stall_ns: u64,
}

impl Carried {
    /// These counters and one open's.
    fn plus(self, d: &DbStats) -> Self {
        Self {
            ops: self.ops + d.write_ops + d.gets,
            user_bytes: self.user_bytes + d.user_bytes_written,
            stall_ns: self.stall_ns + d.stall_stop_ns + d.stall_delay_ns,
        }
    }
}

/// The database a run works on, shared with the sampler. With
/// `workload.reopen_between_phases` it is closed and opened again between phases
/// ([`LiveDb::reopen`]); the counters of the closed opens are carried, so the series and the
/// phase marks stay cumulative (the report's `db` counters are the last open's).
struct LiveDb<E: Env, D: ZonedDevice> {
    now: std::sync::Mutex<(Db<E, D>, Carried)>,
}

impl<E: Env, D: ZonedDevice> LiveDb<E, D> {
    fn new(db: Db<E, D>) -> Self {
        Self {
            now: std::sync::Mutex::new((db, Carried::default())),
        }
    }

    /// The open database and the counters carried from earlier opens.
    fn now(&self) -> (Db<E, D>, Carried) {
        let g = self
            .now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (g.0.clone(), g.1)
    }

    /// Closes the database and opens it again on the same file layer, as a new process
    /// would (the WAL replayed, flushed to L0 and deleted; the block cache cold).
    async fn reopen(
        &self,
        fs: &Arc<ZoneFs<E, D>>,
        opts: &zonedb_lsm::options::DbOptions,
        regen: Option<&Arc<dyn zonedb_lsm::elided::ValueRegenerator>>,
    ) -> Result<(), HarnessError> {
        let (db, carried) = self.now();
        db.close().await?;
        let carried = carried.plus(&db.stats());
        let db = Db::open_with(fs.clone(), db_config(opts.clone(), regen)).await?;
        *self
            .now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (db, carried);
        Ok(())
    }
}

fn sample<E: Env, D: ZonedDevice>(env: &E, db: &LiveDb<E, D>, fs: &ZoneFs<E, D>) -> Sample {
    let (db, carried) = db.now();
    let d = db.stats();
    let total = carried.plus(&d);
    let f = fs.stats();
    let hybrid = fs
        .device()
        .capabilities()
        .tiers
        .map(zonedb_device::Tiers::hybrid_stats);
    Sample {
        t_ns: env.now(),
        ops: total.ops,
        user_bytes: total.user_bytes,
        device_bytes: f.device_bytes_written,
        gc_copied_bytes: f.gc_copied_bytes,
        free_bytes: f.free_bytes,
        stall_ns: total.stall_ns,
        level_bytes: d.level_bytes,
        hybrid,
        migrated_bytes: f.hybrid.migrated_bytes,
        sst_reads: std::collections::BTreeMap::new(),
    }
}

/// A phase mark: [`sample`] with each SST's query reads so far.
fn mark<E: Env, D: ZonedDevice>(env: &E, db: &LiveDb<E, D>, fs: &ZoneFs<E, D>) -> Sample {
    Sample {
        sst_reads: fs.sst_read_counts(),
        ..sample(env, db, fs)
    }
}

/// A YCSB phase in the shape of a benchmark result (name `ycsb-load` / `ycsb-run`).
fn ycsb_as_bench(r: &crate::ycsb::runner::YcsbResult, threads: u64) -> BenchResult {
    let (p50, p99, p999, p9999, mean) = r.overall_us;
    let found: u64 = r.ops.values().map(|o| o.ok).sum();
    BenchResult {
        name: format!("ycsb-{}", r.phase),
        ops: r.operations,
        busy_ns: r.runtime_ns * threads,
        wall_ns: r.runtime_ns,
        bytes: 0,
        found: Some(found),
        message: format!("({found} of {} OK)", r.operations),
        latency: db_bench::Latency {
            count: r.operations,
            avg_us: mean,
            p50_us: p50 as f64,
            p75_us: 0.0,
            p99_us: p99 as f64,
            p999_us: p999 as f64,
            p9999_us: p9999 as f64,
            max_us: r.ops.values().map(|o| o.max_us).max().unwrap_or(0) as f64,
        },
        skipped: false,
        background_writes: None,
        stopped_by: None,
        histograms: std::collections::BTreeMap::new(),
        latency_by_op: r
            .ops
            .iter()
            .map(|(op, o)| (op.clone(), db_bench::Latency::from(o)))
            .collect(),
        latency_cdf: r.overall_cdf.clone(),
    }
}

/// Runs `s` in simulation.
///
/// # Errors
/// Bad scenario settings ([`HarnessError::Config`], [`HarnessError::Device`]); engine or
/// file layer errors (a full device included); [`HarnessError::Sim`] if the simulation
/// deadlocks.
pub fn run(s: &Scenario) -> Result<RunReport, HarnessError> {
    run_with_progress(s, &db_bench::ProgressCounter::default())
}

/// The operations `s`'s workload is to do (what [`run_with_progress`] counts towards).
///
/// # Errors
/// [`HarnessError::Config`] for a bad workload.
pub fn planned_ops(s: &Scenario) -> Result<u64, HarnessError> {
    if s.workload.kind == "ycsb" {
        let phases = s.workload.ycsb_phases()?;
        let load = phases
            .first()
            .filter(|_| s.workload.ycsb_load)
            .map_or(0, |w| w.insertcount);
        return Ok(load + phases.iter().map(|w| w.operationcount).sum::<u64>());
    }
    let mut ops = 0;
    for p in s.workload.phases()? {
        let cfg = p.bench_config(s.seed);
        ops += p
            .benchmark_list()?
            .into_iter()
            .map(|b| cfg.planned_ops(b))
            .sum::<u64>();
    }
    Ok(ops)
}

/// [`run`], advancing `progress` by one per operation done (for a progress display; it
/// changes nothing the run measures).
///
/// # Errors
/// As [`run`].
#[allow(
    clippy::too_many_lines,
    reason = "one run in order: device, file layer, engine, phases, checks"
)]
pub fn run_with_progress(
    s: &Scenario,
    progress: &db_bench::ProgressCounter,
) -> Result<RunReport, HarnessError> {
    let progress = progress.clone();
    let spec = device_spec_of(s)?;
    let profile_name = spec.profile_name().map_err(HarnessError::Device)?;
    let opts = engine_options_of(s)?;
    let opts_check = opts.clone();
    let env = SimEnv::new(SimConfig {
        seed: s.seed,
        cores: s.host_cores,
        ..SimConfig::default()
    });
    let dev = Arc::new(spec.build(env.clone()).map_err(HarnessError::Device)?);
    let fs_opts = fs_options_of(s)?;
    let e2 = env.clone();
    let s2 = s.clone();
    let d2 = dev.clone();
    let fsx = HarnessError::Fs;
    ended(
        &env,
        env.run(async move {
            ZoneFs::<SimEnv, SimDevice<SimEnv>>::mkfs(d2.as_ref(), s2.fs.finish_threshold)
                .await
                .map_err(fsx)?;
            let fs = ZoneFs::mount(e2.clone(), d2.clone(), fs_opts)
                .await
                .map_err(fsx)?;
            let regen = value_regenerator(&s2)?;
            let reopen_opts = opts.clone();
            let live = Arc::new(LiveDb::new(
                Db::open_with(fs.clone(), db_config(opts, regen.as_ref())).await?,
            ));
            // What happens between two phases: settle the tree, then reopen, each when asked.
            let between_phases = || async {
                if s2.workload.wait_for_compactions_between_phases {
                    live.now().0.wait_for_compactions().await?;
                }
                if s2.workload.reopen_between_phases {
                    live.reopen(&fs, &reopen_opts, regen.as_ref()).await?;
                }
                Ok::<(), HarnessError>(())
            };
            let stop = Arc::new(AtomicBool::new(false));
            let sampler = {
                let (env, db, fs, stop) = (e2.clone(), live.clone(), fs.clone(), stop.clone());
                let every = s2.sample_interval_ms * 1_000_000;
                e2.spawn("sampler", async move {
                    let mut series = vec![sample(&env, &db, &fs)];
                    while !stop.load(Ordering::Relaxed) {
                        env.sleep(every).await;
                        series.push(sample(&env, &db, &fs));
                    }
                    series
                })
            };
            let mut results = Vec::new();
            let mut marks = Vec::new();
            let mut ledger = None;
            let workload = async {
                if s2.workload.kind == "ycsb" {
                    let how = crate::ycsb::runner::PhaseOptions {
                        elide_values: s2.workload.elide_values,
                        progress,
                    };
                    for (i, w) in s2.workload.ycsb_phases()?.iter().enumerate() {
                        let with_load = i == 0 && s2.workload.ycsb_load;
                        for load in [true, false].into_iter().filter(|&l| !l || with_load) {
                            if !results.is_empty() {
                                between_phases().await?;
                            }
                            let before = mark(&e2, &live, &fs);
                            let r = crate::ycsb::runner::run_phase_with_progress(
                                &e2,
                                &live.now().0,
                                w,
                                s2.seed,
                                load,
                                &how,
                            )
                            .await?;
                            results.push(ycsb_as_bench(&r, w.threadcount));
                            marks.push((before, mark(&e2, &live, &fs)));
                        }
                    }
                } else {
                    let phases = s2.workload.phases()?;
                    let mut cfgs: Vec<_> = phases
                        .iter()
                        .map(|p| db_bench::BenchConfig {
                            progress: progress.clone(),
                            ..p.bench_config(s2.seed)
                        })
                        .collect();
                    if cfgs.iter().all(|c| c.threads == 1) {
                        ledger = Some(Arc::new(crate::invariants::WriteSample::new()));
                        for c in &mut cfgs {
                            c.record.clone_from(&ledger);
                        }
                    }
                    let mut threads = 0;
                    for (i, (p, cfg)) in phases.iter().zip(&cfgs).enumerate() {
                        if i > 0 {
                            between_phases().await?;
                        }
                        for b in p.benchmark_list()? {
                            let before = mark(&e2, &live, &fs);
                            let db = live.now().0;
                            results.push(db_bench::run_one(&e2, &db, b, cfg, &mut threads).await?);
                            marks.push((before, mark(&e2, &live, &fs)));
                        }
                    }
                }
                live.now().0.wait_for_compactions().await?;
                Ok::<(), HarnessError>(())
            };
            let workload = workload.await;
            let db = live.now().0;
            if let Err(e) = workload {
                return Err(with_space_at_failure(e, &e2, &db, &fs));
            }
            stop.store(true, Ordering::Relaxed);
            let mut series = sampler.await.map_err(HarnessError::task("sampler"))?;
            series.push(sample(&e2, &live, &fs));
            let run = Run {
                scenario: s2.clone(),
                profile: profile_name,
                results,
                marks,
                series,
                regen,
            };
            // Boxed: the checks' future holds the run's counters (clippy's large_futures).
            Box::pin(finish(
                &e2,
                &d2,
                db,
                &fs,
                opts_check,
                ledger.as_deref(),
                run,
            ))
            .await
        }),
    )
}

/// `e`, and when it is the device running out of space, where the space was at that moment
/// ([`HarnessError::OutOfSpace`]).
fn with_space_at_failure<E: Env, D: ZonedDevice>(
    e: HarnessError,
    env: &E,
    db: &Db<E, D>,
    fs: &ZoneFs<E, D>,
) -> HarnessError {
    match e {
        HarnessError::Lsm(source) if source.kind() == zonedb_lsm::LsmErrorKind::NoSpace => {
            let stats = db.stats();
            let tree: std::collections::BTreeSet<u64> =
                db.files().iter().map(|(_, f)| f.number).collect();
            let mut untracked = (0u64, 0u64);
            for f in fs.files() {
                let sst = zonedb_lsm::version::manifest::parse_name(&f.name)
                    .filter(|(_, kind)| *kind == "sst");
                if sst.is_some_and(|(n, _)| !tree.contains(&n)) {
                    untracked = (untracked.0 + 1, untracked.1 + f.size);
                }
            }
            HarnessError::OutOfSpace {
                source,
                at: Box::new(crate::error::SpaceAtFailure {
                    t_ns: env.now(),
                    level_bytes: stats.level_bytes,
                    obsolete_sst: (stats.obsolete_sst_files, stats.obsolete_sst_bytes),
                    deletable_sst: (stats.deletable_sst_files, stats.deletable_sst_bytes),
                    peak_obsolete_sst_bytes: stats.peak_obsolete_sst_bytes,
                    compaction_time: (stats.compactions, stats.compaction_ns),
                    outside_tree_sst: untracked,
                    no_space: (
                        stats.compaction_no_space_errors,
                        stats.compactions_cancelled,
                        stats.no_space_recoveries,
                    ),
                    running_compactions: db.running_compactions(),
                    zones: fs.space_report(),
                }),
            }
        }
        e => e,
    }
}

/// The outcome of a simulation's main future: a deadlock or livelock of the simulation is
/// [`HarnessError::Sim`].
fn ended<T>(
    env: &SimEnv,
    outcome: Result<Result<T, HarnessError>, zonedb_env::SimError>,
) -> Result<T, HarnessError> {
    let result = outcome.map_err(HarnessError::Sim);
    // Tasks still queued (the zone cleaner's loop, say) hold the environment and the device:
    // without this the device's payload would outlive the run.
    env.kill_all_tasks();
    result?
}

/// The generator of the elided values a scenario's workload writes (none without elision):
/// registered with every open of its database, so reads give the values back.
fn value_regenerator(
    s: &Scenario,
) -> Result<Option<Arc<dyn zonedb_lsm::elided::ValueRegenerator>>, HarnessError> {
    if !s.workload.elide_values {
        return Ok(None);
    }
    if s.workload.kind == "ycsb" {
        return Ok(Some(crate::ycsb::runner::value_regenerator(
            &s.workload.ycsb_workload()?,
        )));
    }
    // One pool serves every phase: the pool for the largest values starts with the others'.
    let largest = s
        .workload
        .phases()?
        .into_iter()
        .max_by_key(|p| p.value_size)
        .unwrap_or_else(|| s.workload.clone());
    Ok(Some(largest.bench_config(s.seed).value_regenerator()))
}

/// The engine options of a scenario, its waits on a full device (`compaction_retry_wait_ns`,
/// `sst_file_manager_poll_ns`) divided by [`Scenario::time_div`] as the zone layer's
/// constants are.
fn engine_options_of(s: &Scenario) -> Result<zonedb_lsm::options::DbOptions, HarnessError> {
    let mut opts = s.db_options()?;
    let div = s.time_div()?;
    opts.compaction_retry_wait_ns = (opts.compaction_retry_wait_ns / div).max(1);
    opts.sst_file_manager_poll_ns = (opts.sst_file_manager_poll_ns / div).max(1);
    Ok(opts)
}

/// The zone layer options of a scenario.
fn fs_options_of(s: &Scenario) -> Result<FsOptions, HarnessError> {
    Ok(FsOptions {
        cleaner: zonedb_fs::cleaning::by_name(&s.fs.cleaner, s.fs.gc_threshold)
            .map_err(|e| HarnessError::config("fs.cleaner", e.to_string()))?,
        placement: s.fs.placement_policy(s.time_div()?)?,
        finish_threshold_pct: s.fs.finish_threshold,
        // Time constants shrink with the device, as sizes do (`fs.scale_time_constants`).
        cleaning_interval_ns: s.scaled_ms_to_ns(s.fs.cleaning_interval_ms)?,
        zc_blocking_poll_ns: s.scaled_ms_to_ns(s.fs.zc_blocking_poll_ms)?,
        alloc_retry_blocking_ns: s.scaled_ms_to_ns(s.fs.alloc_retry_blocking_ms)?,
        page_cache_size_bytes: s.fs.page_cache_size,
        readahead_kb: s.fs.readahead_kb,
        zone_copy: match s.fs.zone_copy.as_str() {
            "host" => zonedb_fs::ZoneCopy::Host,
            "izc" => zonedb_fs::ZoneCopy::Izc {
                copyback_aware: s.fs.copyback_aware,
            },
            other => {
                return Err(HarnessError::unknown(
                    "fs.zone_copy",
                    other,
                    ["host", "izc"],
                ));
            }
        },
        znsplus: zonedb_fs::ZnsPlusOptions {
            threaded_logging: s.fs.threaded_logging,
            threaded_trigger: zonedb_fs::ThreadedTrigger::by_name(&s.fs.threaded_trigger)
                .map_err(|e| HarnessError::config("fs.threaded_trigger", e.to_string()))?,
            ..zonedb_fs::ZnsPlusOptions::default()
        },
        ..FsOptions::default()
    })
}

/// What a run measured before it ends.
struct Run {
    scenario: Scenario,
    profile: String,
    results: Vec<BenchResult>,
    /// The counters before and after each benchmark.
    marks: Vec<(Sample, Sample)>,
    series: Vec<Sample>,
    /// The generator of its elided values, if any.
    regen: Option<Arc<dyn zonedb_lsm::elided::ValueRegenerator>>,
}

/// Ends a run: takes the figures, closes the database, then reopens it and runs the
/// invariant checks ([`crate::invariants::check`]) after the figures are taken, so checking
/// changes none of them; a failed check voids the run.
async fn finish<E: Env, D: ZonedDevice>(
    env: &E,
    dev: &Arc<D>,
    db: Db<E, D>,
    fs: &Arc<ZoneFs<E, D>>,
    opts: zonedb_lsm::options::DbOptions,
    ledger: Option<&crate::invariants::WriteSample>,
    run: Run,
) -> Result<RunReport, HarnessError> {
    let st = db.stats();
    let sst_lifetimes_ns = db.sst_lifetimes();
    let level_tier_bytes = dev
        .capabilities()
        .tiers
        .map(zonedb_device::Tiers::hybrid_layout)
        .map(|layout| {
            let files = db.files();
            let names: Vec<String> = files
                .iter()
                .map(|(_, f)| zonedb_lsm::version::manifest::sst_name(f.number))
                .collect();
            let zones = fs.file_zones(&names);
            let levels = files
                .iter()
                .map(|(l, _)| *l as usize + 1)
                .max()
                .unwrap_or(0);
            let mut out = vec![(0u64, 0u64); levels];
            for ((level, f), z) in files.iter().zip(zones) {
                let slot = &mut out[*level as usize];
                match z.first().and_then(|(zone, _)| layout.tier_of(*zone)) {
                    Some(zonedb_device::Tier::Ssd) => slot.0 += f.file_size,
                    _ => slot.1 += f.file_size,
                }
            }
            out
        });
    db.close().await?;
    let (fs_stats, end_ns, device) = (fs.stats(), env.now(), dev.stats());
    let hybrid_device = dev
        .capabilities()
        .tiers
        .map(zonedb_device::Tiers::hybrid_stats);
    let znsplus = dev
        .capabilities()
        .in_device_copy
        .map(zonedb_device::InDeviceCopy::znsplus_stats);
    // With the engine closed and cleaning held back, nothing is in flight: fsck is exact.
    crate::invariants::fsck(fs).await?;
    let db = Db::open_with(fs.clone(), db_config(opts, run.regen.as_ref())).await?;
    let invariants = crate::invariants::reads(&db, ledger, CHECK_SAMPLE_EVERY).await?;
    db.close().await?;
    Ok(RunReport {
        scenario: run.scenario,
        profile: run.profile,
        benchmarks: run.results,
        phase_sst_reads: run
            .marks
            .iter()
            .map(|(a, b)| {
                crate::reproduce::figures::SstReadSkew::between(&a.sst_reads, &b.sst_reads)
            })
            .collect(),
        phase_marks: run.marks,
        db: st,
        fs: fs_stats,
        device,
        hybrid_device,
        znsplus,
        level_tier_bytes,
        series: run.series,
        sst_lifetimes_ns,
        end_ns,
        invariants,
    })
}

/// One key in this many of the end-of-run scan is read back with `get`.
const CHECK_SAMPLE_EVERY: u64 = 97;

/// The engine configuration of `opts`, with the workload's value regenerator from the open on
/// (WAL recovery may flush elided values into compressed tables).
fn db_config(
    opts: zonedb_lsm::options::DbOptions,
    regen: Option<&Arc<dyn zonedb_lsm::elided::ValueRegenerator>>,
) -> zonedb_lsm::DbConfig {
    let c = zonedb_lsm::DbConfig::new(opts);
    match regen {
        Some(r) => c.with_regenerator(r.clone()),
        None => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_constants_shrink_with_the_device_unless_told_not_to() {
        let at = |extra: &str| {
            let text = format!(
                "name = \"x\"\n[device]\nscale = \"1/64\"\n[fs]\nzc_blocking_poll_ms = 1000\nalloc_retry_blocking_ms = 1000\n{extra}"
            );
            fs_options_of(&Scenario::configurations(&text).unwrap()[0]).unwrap()
        };
        let o = at("");
        // 1 s / 64 = 15.625 ms, exactly, in ns; the cleaner's 10 s likewise.
        assert_eq!(o.zc_blocking_poll_ns, 15_625_000);
        assert_eq!(o.alloc_retry_blocking_ns, 15_625_000);
        assert_eq!(o.cleaning_interval_ns, 156_250_000);
        let o = at("scale_time_constants = false\ncleaning_interval_ms = 2000\n");
        assert_eq!(o.zc_blocking_poll_ns, 1_000_000_000);
        assert_eq!(o.alloc_retry_blocking_ns, 1_000_000_000);
        assert_eq!(o.cleaning_interval_ns, 2_000_000_000);
        let s = &Scenario::configurations("name = \"x\"\n[device]\nscale = \"1/64\"\n").unwrap()[0];
        let e = engine_options_of(s).unwrap();
        assert_eq!(e.compaction_retry_wait_ns, 15_625_000);
        assert_eq!(e.sst_file_manager_poll_ns, 78_125_000);
        // Off stays off however small the device.
        let o = at("cleaning_interval_ms = 0\n");
        assert_eq!(o.cleaning_interval_ns, 0);
        // A hybrid takes its SSD's scale.
        let hybrid = "name = \"x\"\n[device]\nkind = \"hybrid\"\n[device.ssd]\nprofile = \"zn540-hhzs\"\nscale = \"1/128\"\n[device.hdd]\nprofile = \"st14000nm0007\"\nscale = \"1/128\"\n";
        let s = &Scenario::configurations(hybrid).unwrap()[0];
        assert_eq!(s.time_div().unwrap(), 128);
    }

    #[test]
    fn fs_and_engine_read_keys_reach_the_options() {
        let text = "name = \"x\"\n[fs]\npage_cache_size = 1048576\nreadahead_kb = 256\n[engine]\ncompaction_readahead_size = 0\n";
        let s = &Scenario::configurations(text).unwrap()[0];
        let o = fs_options_of(s).unwrap();
        assert_eq!((o.page_cache_size_bytes, o.readahead_kb), (1 << 20, 256));
        assert_eq!(s.db_options().unwrap().compaction_readahead_size, 0);
        let d = &Scenario::configurations("name = \"x\"").unwrap()[0];
        let o = fs_options_of(d).unwrap();
        assert_eq!((o.page_cache_size_bytes, o.readahead_kb), (0, 128));
        assert_eq!(d.db_options().unwrap().compaction_readahead_size, 2 << 20);
    }

    #[test]
    fn a_deadlocked_simulation_is_its_own_error() {
        let env = SimEnv::new(SimConfig::default());
        let (_tx, rx) = tokio::sync::oneshot::channel::<()>();
        let r: Result<(), HarnessError> = ended(
            &env,
            env.run(async move {
                // Nothing will ever send: no task can run and no timer is pending.
                let _ = rx.await;
                Ok(())
            }),
        );
        assert!(
            matches!(
                r,
                Err(HarnessError::Sim(zonedb_env::SimError::Deadlock { .. }))
            ),
            "{r:?}"
        );
    }

    /// `writes` (db_bench's `--writes`) sets the write benchmarks' operations per thread while
    /// their keys stay within `num`: 2 threads x 3000 overwrites of a 500-key database leave
    /// at most 500 keys; absent, the phase writes `num` per thread.
    #[test]
    fn writes_sets_the_write_count_and_num_the_key_space() {
        let text = "name = \"x\"\n[device]\nprofile = \"splitzns-paper\"\nscale = \"1/256\"\n[workload]\nbenchmarks = \"fillrandom\"\nnum = 500\nvalue_size = 100\n[[workload.then]]\nbenchmarks = \"overwrite\"\nwrites = 3000\nthreads = 2\n";
        let s = &Scenario::configurations(text).unwrap()[0];
        assert!(toml::to_string(s).unwrap().contains("writes = 3000"));
        let r = run(s).unwrap();
        let ops: Vec<u64> = r.benchmarks.iter().map(|b| b.ops).collect();
        assert_eq!(ops, [500, 6000]);
        let keys = r.invariants.keys_scanned;
        assert!((300..=500).contains(&keys), "{keys} keys");
        let plain = text.replace("writes = 3000\n", "");
        let s = &Scenario::configurations(&plain).unwrap()[0];
        assert!(!toml::to_string(s).unwrap().contains("writes"));
        let r = run(s).unwrap();
        assert_eq!(r.benchmarks[1].ops, 1000);
        // Refused when parsed, before any run.
        let bad = text.replace("writes = 3000", "writes = 0");
        let e = Scenario::configurations(&bad).unwrap_err().to_string();
        assert!(
            e.contains("workload.then[0].writes: must be at least 1 (or absent: num), not 0"),
            "{e}"
        );
    }

    /// `[device] zone_size_mib` (and a `[[compare]]` override of it) resize zones at full
    /// scale before the scale applies; a disk refuses it; absent, it stays out of the TOML.
    #[test]
    fn device_zone_size_resizes_zones_before_the_scale() {
        let text = "name = \"x\"\n[device]\nprofile = \"splitzns-paper\"\nscale = \"1/8\"\nzone_size_mib = 128\n\n[[compare]]\nname = \"1 GiB\"\ndevice = { zone_size_mib = 1024 }\n";
        let all = Scenario::configurations(text).unwrap();
        assert_eq!(all.len(), 2);
        for (s, want) in all.iter().zip([(4, 640, 16 << 20), (16, 80, 128 << 20)]) {
            let p = spec_of(s).unwrap().profile().unwrap();
            let got = (
                p.chips_per_zone,
                p.zones.zone_count,
                p.zones.zone_size_bytes,
            );
            assert_eq!(got, want, "{}", s.name);
        }
        assert!(
            toml::to_string(&all[0])
                .unwrap()
                .contains("zone_size_mib = 128")
        );
        let plain = &Scenario::configurations("name = \"x\"").unwrap()[0];
        assert!(!toml::to_string(plain).unwrap().contains("zone_size_mib"));
        let mut bad = all[0].clone();
        bad.device.zone_size_mib = Some(96);
        assert!(spec_of(&bad).unwrap().profile().is_err());
        let mut disk = all[0].clone();
        disk.device.profile = "st14000nm0007".into();
        assert!(spec_of(&disk).unwrap().disk_profile().is_err());
    }

    #[test]
    fn device_chips_sets_the_flash_array_before_chips_per_zone() {
        let text = "name = \"x\"\n[device]\nprofile = \"splitzns-paper\"\nscale = \"1/8\"\nkind = \"znsplus\"\nchips = 32\n";
        let s = &Scenario::configurations(text).unwrap()[0];
        let spec = spec_of(s).unwrap();
        assert_eq!(spec.chips, Some(32));
        assert!(spec.znsplus.is_some());
        let p = spec.profile().unwrap();
        assert_eq!((p.flash.chips(), p.chips_per_zone), (32, 32));
        assert_eq!(p.zones.zone_count, 160);
        let mut split = s.clone();
        split.device.chips_per_zone = Some(4);
        let p = spec_of(&split).unwrap().profile().unwrap();
        assert_eq!((p.flash.chips(), p.chips_per_zone), (32, 4));
        // Absent, it stays out of the serialized scenario.
        let plain = &Scenario::configurations("name = \"x\"").unwrap()[0];
        assert!(!toml::to_string(plain).unwrap().contains("chips ="));
        assert!(toml::to_string(s).unwrap().contains("chips = 32"));
        let mut bad = s.clone();
        bad.device.chips = Some(12);
        assert!(spec_of(&bad).unwrap().profile().is_err());
    }

    const HYBRID: &str = r#"
name = "hybrid"
[device]
kind = "hybrid"
[device.ssd]
profile = "zn540"
scale = "1/64"
zone_count = 22
[device.hdd]
profile = "st14000nm0007"
scale = "1/64"
zone_count = 4000
"#;

    #[test]
    fn a_hybrid_scenario_builds_an_ssd_and_an_hdd_under_one_zone_space() {
        let s = &Scenario::configurations(HYBRID).unwrap()[0];
        let DeviceSpec::Hybrid(h) = device_spec_of(s).unwrap() else {
            panic!("a hybrid spec");
        };
        assert_eq!((h.ssd.zone_count, h.hdd.zone_count), (Some(22), Some(4000)));
        assert!(spec_of(s).is_err());
        assert_eq!(profile_of(s).unwrap().name, "zn540@1/64");
        let spec = device_spec_of(s).unwrap();
        assert_eq!(
            spec.profile_name().unwrap(),
            "zn540@1/64+st14000nm0007@1/64"
        );
        let dev = spec.build(SimEnv::new(SimConfig::default())).unwrap();
        let g = dev.geometry();
        assert_eq!(g.zone_count, 4022);
        assert_eq!(
            g.zone_size_bytes,
            32 << 20,
            "the SSD's 2 GiB / 64 zone is the stride"
        );
        assert_eq!(g.zone_capacity_bytes, (1077 << 20) / 64);
        assert_eq!((g.max_open_zones, g.max_active_zones), (14 + 128, 0));
        let l = dev
            .capabilities()
            .tiers
            .map(zonedb_device::Tiers::hybrid_layout)
            .unwrap();
        assert_eq!((l.ssd.zones, l.hdd.zones), (22, 4000));
        assert_eq!(l.hdd.zone_capacity_bytes, 4 << 20);
        // The round trip through TOML keeps the tables.
        let text = toml::to_string(s).unwrap();
        let back: Scenario = toml::from_str(&text).unwrap();
        assert_eq!(&back, s);
        // One device stays as it was: no new keys in its serialized form.
        let one = &Scenario::configurations("name = \"x\"").unwrap()[0];
        let json = serde_json::to_string(one).unwrap();
        for key in ["zone_count", "\"ssd\"", "\"hdd\""] {
            assert!(!json.contains(key), "{json}");
        }
    }

    #[test]
    fn bad_hybrid_scenarios_say_what_is_wrong() {
        let err = |text: &str| {
            let s = &Scenario::configurations(text).unwrap()[0];
            device_spec_of(s).unwrap_err().to_string()
        };
        let no_hdd = HYBRID.split("[device.hdd]").next().unwrap();
        let e = err(no_hdd);
        assert!(e.contains("needs a [device.hdd] table"), "{e}");
        let e = err(&HYBRID.replace("profile = \"zn540\"", "profile = \"st14000nm0007\""));
        assert!(
            e.contains("hybrid ssd") && e.contains("flash profile"),
            "{e}"
        );
        let e = err(&HYBRID.replace("profile = \"st14000nm0007\"", "profile = \"zn540\""));
        assert!(
            e.contains("hybrid hdd") && e.contains("not an HM-SMR disk"),
            "{e}"
        );
        let e = err(&HYBRID.replace("kind = \"hybrid\"", "kind = \"hybrid\"\nscale = \"1/8\""));
        assert!(
            e.contains("device.scale") && e.contains("[device.ssd]"),
            "{e}"
        );
        let e = err(&HYBRID.replace("kind = \"hybrid\"", "kind = \"zns\""));
        assert!(e.contains("only for device.kind = \"hybrid\""), "{e}");
        let e = err(&HYBRID.replace("zone_count = 4000", "zone_count = 4000\nkind = \"zns\""));
        assert!(e.contains("[device.hdd]: one device"), "{e}");
        let e = err(&HYBRID.replace("zone_count = 22", "zone_count = 0"));
        assert!(e.contains("zone_count 0"), "{e}");
    }

    #[test]
    fn bad_device_and_zone_layer_settings_keep_their_source() {
        let base =
            Scenario::base("name = \"x\"\n[device]\nscale = \"1/128\"\n[workload]\nnum = 100\n")
                .unwrap();
        let mut s = base.clone();
        s.device.chips_per_zone = Some(3);
        let e = run(&s).unwrap_err();
        assert!(matches!(e, HarnessError::Device(_)), "{e:?}");
        let src = std::error::Error::source(&e).expect("the device error");
        assert!(src.downcast_ref::<zonedb_device::DeviceError>().is_some());
        assert!(e.to_string().starts_with("device: "), "{e}");
        // Zone limits too tight for the zone layer: formatting refuses the device.
        let mut s = base;
        s.device.max_open_zones = Some(2);
        s.device.max_active_zones = Some(2);
        let e = run(&s).unwrap_err();
        assert!(
            matches!(e, HarnessError::Fs(zonedb_fs::FsError::Unsupported(_))),
            "{e:?}"
        );
        let src = std::error::Error::source(&e).expect("the file layer error");
        assert!(src.downcast_ref::<zonedb_fs::FsError>().is_some());
        assert!(
            e.to_string().starts_with("file layer: unsupported device"),
            "{e}"
        );
    }
}
