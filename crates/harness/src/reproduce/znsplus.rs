//! `zonedb reproduce znsplus`: ZNS+ (OSDI'21) on the simulated ZNS+ SSD (`splitzns-paper` with
//! `kind = "znsplus"`, the reference's copyback and read-program latencies), under the zone
//! layer of this store (not F2FS, as the paper's and the slides' figures are).
//!
//! Schemes: `ZNS` (cleaning copies through the host), `IZC` (in-device zone compaction,
//! copyback-aware destinations: CAB), `ZNS+` (IZC with CAB and threaded logging) and `ZNS+/CUB`
//! (IZC without copyback-aware destinations, threaded logging); and `ZNS+/need_SSR`, ZNS+ with
//! the artifact's F2FS trigger besides (threaded logging only near F2FS's reserve,
//! [`zonedb_fs::cleaning::threaded::ThreadedTrigger::NeedSsr`]). Every scheme runs on the same
//! ZNS+ device; only the zone layer's options differ.
//!
//! Experiments:
//!
//! - `fill-delete-70`, `fill-delete-80`: the fill-and-delete experiment
//!   ([`crate::fill_delete`]) with live data at 70% and 80% of the capacity, three times the
//!   capacity written, greedy cleaning below 20% free, on the device at 1/8 (`small`).
//! - `chips-4` ... `chips-32`: the same at 80% on the device with 4, 8, 16 (the profile's own:
//!   the same run as `fill-delete-80`) and 32 chips, every zone striped over all of them.
//! - `overwrite`, `ycsb-a`: the engine with LIZA placement and greedy cleaning (below 20%
//!   free) on the device at 1/64, where cleaning runs: db_bench `overwrite` (4 threads) after
//!   a `fillrandom` load, and YCSB-A (zipfian 0.99, 4 threads) after a YCSB load (`tiny`: a
//!   quarter of the dataset on 80 zones).
//!
//! Every fill-and-delete run ends with the zone layer's fsck and every engine run with the
//! scenario runs' checks (fsck, scan, sampled reads); a failed check fails the cell.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use zonedb_device::SimDeviceSpec;
use zonedb_device::flash::{ZnsPlusConfig, ZnsPlusStats};
use zonedb_fs::cleaning::threaded::ThreadedTrigger;
use zonedb_fs::{FsOptions, FsStats, ZoneCopy};

use super::ReproScale;
use super::cache::CellCache;
use super::seeds::{BySeed, summaries};
use crate::db_bench::HarnessError;
use crate::fill_delete::{self, FillDeleteOptions};
use crate::scenario::Scenario;
use crate::stats::Summary;

/// The schemes, as the JSON names them.
pub const SCHEMES: [&str; 5] = ["ZNS", "IZC", "ZNS+", "ZNS+/CUB", "ZNS+/need_SSR"];

/// The variant of `ZNS+` with F2FS's `need_SSR` trigger.
pub const NEED_SSR: &str = "ZNS+/need_SSR";

/// The experiments, as the JSON names them.
pub const EXPERIMENTS: [&str; 8] = [
    "fill-delete-70",
    "fill-delete-80",
    "chips-4",
    "chips-8",
    "chips-16",
    "chips-32",
    "overwrite",
    "ycsb-a",
];

/// The chip counts of the `chips-N` experiments.
pub const CHIPS: [u32; 4] = [4, 8, 16, 32];

/// The keys every experiment object of the JSON holds (with more).
pub const ISSUE_KEYS: [&str; 9] = [
    "cleaning_time_ns",
    "ops_per_s",
    "latency_us_p99",
    "host_link_bytes",
    "copyback_pages",
    "read_program_pages",
    "plug_pages",
    "metadata_write_bytes",
    "threaded_logging_share",
];

/// The device's profile.
pub const PROFILE: &str = "splitzns-paper";

/// Live data of the `chips-N` runs, percent of the capacity.
pub const CHIPS_LIVE_PCT: u64 = 80;

/// Fill-and-delete writes this many times the capacity.
pub const CAPACITY_MULTIPLE: u64 = 3;

/// The engine's load at paper scale: 35.2 M puts of 16 + 1024 bytes (36.6 GB, 43% of the
/// 80 GiB device; 550 K at 1/64, where LIZA's zones leave greedy cleaning work in the load
/// and after it).
pub const PAPER_LOAD_PUTS: u64 = 35_200_000;

/// Operations of a measured engine workload at paper scale (all threads).
pub const PAPER_OPS: u64 = 16_000_000;

/// Client threads of a measured engine workload.
pub const THREADS: u64 = 4;

const MIB: u64 = 1 << 20;

/// The zone layer's options of a scheme: (zone copy, copyback-aware, threaded logging).
pub fn scheme_options(scheme: &str) -> Option<(&'static str, bool, bool)> {
    Some(match scheme {
        "ZNS" => ("host", true, false),
        "IZC" => ("izc", true, false),
        "ZNS+" | NEED_SSR => ("izc", true, true),
        "ZNS+/CUB" => ("izc", false, true),
        _ => return None,
    })
}

/// When a scheme weighs threaded logging: `need_SSR` for [`NEED_SSR`], the default (whenever
/// the cleaner has a victim) for every other.
pub fn scheme_trigger(scheme: &str) -> ThreadedTrigger {
    if scheme == NEED_SSR {
        ThreadedTrigger::NeedSsr
    } else {
        ThreadedTrigger::Victim
    }
}

/// The divisor of the fill-and-delete device at `scale` (`small`: 1/8, 10 GiB; `tiny`: 1/256).
pub fn fill_delete_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 8,
        ReproScale::Paper => 1,
        ReproScale::Tiny => 256,
    }
}

/// The divisor of the engine's device, memtables, SSTs, levels and dataset at `scale`
/// (`small`: 1/64, as the other studies; `tiny`: 1/256).
pub fn engine_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 64,
        ReproScale::Paper => 1,
        ReproScale::Tiny => 256,
    }
}

/// The divisor of the engine's dataset and operations at `scale` (`tiny`: 4 times fewer than
/// its device's divisor, on [`engine_zone_count`]'s zones, so its checks take seconds).
pub fn engine_data_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Tiny => 1024,
        other => engine_divisor(other),
    }
}

/// The engine's device zones at `scale` (`None`: the profile's 160). `tiny` keeps 80, where
/// its smaller dataset still leaves cleaning work.
pub fn engine_zone_count(scale: ReproScale) -> Option<u32> {
    (scale == ReproScale::Tiny).then_some(80)
}

/// A fill-and-delete run of the study.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillDeleteRun {
    /// The scheme.
    pub scheme: &'static str,
    /// Scale `1/N` of the device.
    pub divisor: u64,
    /// Flash chips (`None`: the profile's own 16).
    pub chips: Option<u32>,
    /// Live data, percent of the capacity.
    pub live_pct: u64,
    /// Seed.
    pub seed: u64,
}

impl FillDeleteRun {
    /// The device.
    pub fn spec(&self) -> SimDeviceSpec {
        SimDeviceSpec::new(PROFILE, &format!("1/{}", self.divisor))
            .chips(self.chips)
            .znsplus(Some(ZnsPlusConfig::reference()))
    }

    /// The zone layer's options: greedy cleaning below 20% free and the scheme's.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for an unknown scheme.
    pub fn fs_options(&self) -> Result<FsOptions, HarnessError> {
        let (copy, copyback_aware, threaded_logging) = scheme_options(self.scheme)
            .ok_or_else(|| HarnessError::Config(format!("znsplus scheme '{}'", self.scheme)))?;
        Ok(FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("greedy", 20)
                .map_err(|e| HarnessError::Config(format!("cleaner: {e}")))?,
            zone_copy: if copy == "izc" {
                ZoneCopy::Izc { copyback_aware }
            } else {
                ZoneCopy::Host
            },
            threaded_logging,
            threaded_trigger: scheme_trigger(self.scheme),
            ..FsOptions::default()
        })
    }

    /// The experiment's options (file data elided: no payload is kept).
    pub fn options(&self) -> FillDeleteOptions {
        FillDeleteOptions {
            capacity_multiple: CAPACITY_MULTIPLE,
            live_pct: self.live_pct,
            seed: self.seed,
            elide: true,
            ..FillDeleteOptions::default()
        }
    }
}

/// What a cell runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// The fill-and-delete experiment.
    FillDelete(FillDeleteRun),
    /// The engine on a scenario.
    Engine(Box<Scenario>),
}

/// One simulation of the study.
#[derive(Debug, Clone)]
pub struct ZnsPlusCell {
    /// Scheme name.
    pub scheme: &'static str,
    /// Experiment key.
    pub experiment: &'static str,
    /// Seed.
    pub seed: u64,
    /// What it runs.
    pub work: Work,
}

/// What of the study to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZnsPlusPlan {
    /// Seeds (figures are their means).
    pub seeds: Vec<u64>,
    /// Experiments (empty: all of [`EXPERIMENTS`]).
    pub experiments: Vec<String>,
}

/// The `[workload]` of an engine experiment with `load` records and `ops` operations.
fn workload_toml(w: &str, load: u64, ops: u64) -> Result<String, HarnessError> {
    Ok(match w {
        "overwrite" => format!(
            "[workload]\nbenchmarks = \"fillrandom\"\nnum = {load}\nkey_size = 16\nvalue_size = 1024\n\
             [[workload.then]]\nbenchmarks = \"overwrite\"\nnum = {per}\nthreads = {THREADS}\n",
            per = (ops / THREADS).max(1),
        ),
        "ycsb-a" => format!(
            "[workload]\nkind = \"ycsb\"\n[workload.ycsb]\nrecordcount = {load}\nfieldcount = 1\nfieldlength = 1024\n\
             [[workload.then]]\n[workload.then.ycsb]\noperationcount = {ops}\nthreadcount = {THREADS}\n{mix}\
             requestdistribution = \"zipfian\"\nzipfianconstant = 0.99\n",
            mix = super::splitzns::ycsb_mix("ycsb-a").unwrap_or_default(),
        ),
        other => {
            return Err(HarnessError::Config(format!(
                "znsplus engine workload '{other}': overwrite or ycsb-a"
            )));
        }
    })
}

/// The engine scenario of `scheme` on `w` (`overwrite` or `ycsb-a`) at `scale` with `seed`:
/// LIZA placement, greedy cleaning below 20% free, the SplitZNS study's engine set-up
/// (64 MiB memtables, 30 MiB SSTs, 256 MiB L1, static level sizes, no compression, 21
/// background jobs) divided with the device.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown scheme or workload.
pub fn engine_scenario(
    scheme: &str,
    w: &str,
    scale: ReproScale,
    seed: u64,
) -> Result<Scenario, HarnessError> {
    let (copy, cab, threaded) = scheme_options(scheme)
        .ok_or_else(|| HarnessError::Config(format!("znsplus scheme '{scheme}'")))?;
    let d = engine_divisor(scale);
    let zones =
        engine_zone_count(scale).map_or_else(String::new, |z| format!("zone_count = {z}\n"));
    let text = format!(
        "name = \"{scheme} {w}\"\nseed = {seed}\nsample_interval_ms = 1000\nhost_cores = 32\n\
         [device]\nprofile = \"{PROFILE}\"\nscale = \"1/{d}\"\nkind = \"znsplus\"\n{zones}\
         [fs]\nplacement = \"liza\"\ncleaner = \"greedy\"\ngc_threshold = 20\nzone_copy = \"{copy}\"\ncopyback_aware = {cab}\nthreaded_logging = {threaded}\n{trigger}\
         [engine]\nwrite_buffer_size = {wb}\ntarget_file_size_base = {sst}\nmax_bytes_for_level_base = {l1}\nmax_background_jobs = 21\n\
         level_compaction_dynamic_level_bytes = false\ncompression = \"none\"\n{workload}",
        trigger = match scheme_trigger(scheme) {
            ThreadedTrigger::Victim => String::new(),
            t @ ThreadedTrigger::NeedSsr => format!("threaded_trigger = \"{}\"\n", t.name()),
        },
        wb = 64 * MIB / d,
        sst = 30 * MIB / d,
        l1 = 256 * MIB / d,
        workload = workload_toml(
            w,
            PAPER_LOAD_PUTS / engine_data_divisor(scale),
            PAPER_OPS / engine_data_divisor(scale)
        )?,
    );
    Scenario::base(&text)
}

/// Every simulation of the study.
///
/// # Errors
/// [`HarnessError::Config`] for an unknown experiment.
pub fn cells(scale: ReproScale, plan: &ZnsPlusPlan) -> Result<Vec<ZnsPlusCell>, HarnessError> {
    if let Some(e) = plan
        .experiments
        .iter()
        .find(|e| !EXPERIMENTS.contains(&e.as_str()))
    {
        return Err(HarnessError::Config(format!(
            "znsplus experiment '{e}'; known: {}",
            EXPERIMENTS.join(", ")
        )));
    }
    let own_chips = zonedb_device::Profile::by_name(PROFILE)?.flash.chips();
    let runs = |e: &str| plan.experiments.is_empty() || plan.experiments.iter().any(|x| x == e);
    let mut out = Vec::new();
    for &seed in &plan.seeds {
        for experiment in EXPERIMENTS {
            if !runs(experiment) {
                continue;
            }
            for scheme in SCHEMES {
                let fill = |live_pct: u64, chips: Option<u32>| {
                    Work::FillDelete(FillDeleteRun {
                        scheme,
                        divisor: fill_delete_divisor(scale),
                        // The profile's own count is the profile: the same run as without.
                        chips: chips.filter(|&c| c != own_chips),
                        live_pct,
                        seed,
                    })
                };
                let work = match experiment {
                    "fill-delete-70" => fill(70, None),
                    "fill-delete-80" => fill(80, None),
                    "overwrite" | "ycsb-a" => {
                        Work::Engine(Box::new(engine_scenario(scheme, experiment, scale, seed)?))
                    }
                    chips => {
                        let n = chips
                            .strip_prefix("chips-")
                            .and_then(|n| n.parse().ok())
                            .ok_or_else(|| {
                                HarnessError::Config(format!("znsplus experiment '{chips}'"))
                            })?;
                        fill(CHIPS_LIVE_PCT, Some(n))
                    }
                };
                out.push(ZnsPlusCell {
                    scheme,
                    experiment,
                    seed,
                    work,
                });
            }
        }
    }
    Ok(out)
}

/// What one simulation measured. Counters are the whole run's (an engine run's load
/// included); throughput and latency are the measured part's (a fill-and-delete run: every
/// file write; an engine run: the workload after the load).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ZnsPlusFigures {
    /// The device's profile, resolved.
    pub profile: String,
    /// Its flash chips.
    pub chips: u32,
    /// Operations measured: 4 KiB blocks of user data (fill-and-delete) or the workload's
    /// operations (engine).
    pub ops: u64,
    /// Their rate, per second of virtual time.
    pub ops_per_s: f64,
    /// P99 latency, µs: of a file write (create to close) or of an operation.
    pub latency_us_p99: f64,
    /// Time spent cleaning (the zone layer's `cleaning_ns`).
    pub cleaning_time_ns: u64,
    /// Bytes over the host link: the device's bytes read and written.
    pub host_link_bytes: u64,
    /// Bytes the zone layer wrote to the device (files, metadata, host copies).
    pub device_write_bytes: u64,
    /// Bytes cleaning copied (through the host or inside the device).
    pub gc_copied_bytes: u64,
    /// Zones reclaimed by cleaning.
    pub gc_zone_resets: u64,
    /// Zones reclaimed by threaded logging.
    pub threaded_reclaims: u64,
    /// `threaded_reclaims / (threaded_reclaims + gc_zone_resets)` (0 when both are 0).
    pub threaded_logging_share: f64,
    /// Metadata records' bytes written.
    pub metadata_write_bytes: u64,
    /// IZC commands the zone layer issued.
    pub izc_commands: u64,
    /// Bytes they copied.
    pub izc_bytes: u64,
    /// The device's IZC commands.
    pub copy_commands: u64,
    /// Pages copied back (IZC and threaded logging's plugging).
    pub copyback_pages: u64,
    /// Of those, IZC's.
    pub izc_copyback_pages: u64,
    /// Pages IZC copied by read and program.
    pub read_program_pages: u64,
    /// IZC's copyback share: `izc_copyback_pages / (izc_copyback_pages +
    /// read_program_pages)` (0 when both are 0).
    pub copyback_ratio: f64,
    /// Pages plugging programmed.
    pub plug_pages: u64,
    /// Of those, padding.
    pub padding_pages: u64,
    /// Zones opened for threaded logging (device).
    pub threaded_opens: u64,
    /// Zone layer write amplification (device bytes written / user bytes written).
    pub write_amplification: f64,
    /// Virtual seconds of the whole run.
    pub virtual_time_s: f64,
    /// Fill-and-delete ran out of space before the end (never for an engine run: it fails).
    pub ran_out_of_space: bool,
}

impl ZnsPlusFigures {
    /// The counters of the zone layer and the device, the rest left at zero.
    fn counters(fs: &FsStats, dev: &zonedb_device::DeviceStats, z: Option<ZnsPlusStats>) -> Self {
        let z = z.unwrap_or_default();
        Self {
            cleaning_time_ns: fs.cleaning_ns,
            host_link_bytes: dev.bytes_read + dev.bytes_written,
            device_write_bytes: fs.device_bytes_written,
            gc_copied_bytes: fs.gc_copied_bytes,
            gc_zone_resets: fs.gc_zone_resets,
            threaded_reclaims: fs.threaded_reclaims,
            threaded_logging_share: fill_delete::threaded_logging_share(fs),
            metadata_write_bytes: fs.metadata_bytes_written,
            izc_commands: fs.izc_commands,
            izc_bytes: fs.izc_bytes,
            copy_commands: z.copy_commands,
            copyback_pages: z.copyback_pages,
            izc_copyback_pages: z.izc_copyback_pages,
            read_program_pages: z.read_program_pages,
            copyback_ratio: ratio(z.izc_copyback_pages, z.read_program_pages),
            plug_pages: z.plug_pages,
            padding_pages: z.padding_pages,
            threaded_opens: z.threaded_opens,
            write_amplification: fs.write_amplification,
            ..Self::default()
        }
    }

    /// From a fill-and-delete run.
    pub fn of_fill_delete(r: &fill_delete::SimFillDelete) -> Self {
        let rep = &r.report;
        Self {
            profile: r.profile.clone(),
            chips: r.chips,
            ops: rep.user_bytes_written / fill_delete::OP_BYTES,
            ops_per_s: rep.ops_per_s,
            latency_us_p99: rep.latency_us_p99,
            virtual_time_s: rep.virtual_time_ns as f64 / 1e9,
            ran_out_of_space: rep.ran_out_of_space,
            ..Self::counters(&rep.stats, &r.device, r.znsplus)
        }
    }

    /// From an engine run: the last phase's throughput and P99, the run's counters.
    pub fn of_engine(r: &crate::experiment::RunReport) -> Self {
        let last = r.benchmarks.last();
        Self {
            profile: r.profile.clone(),
            chips: crate::experiment::profile_of(&r.scenario).map_or(0, |p| p.flash.chips()),
            ops: last.map_or(0, |b| b.ops),
            ops_per_s: last.map_or(0.0, crate::db_bench::BenchResult::ops_per_sec),
            latency_us_p99: last.map_or(0.0, |b| b.latency.p99_us),
            virtual_time_s: r.end_ns as f64 / 1e9,
            ..Self::counters(&r.fs, &r.device, r.znsplus)
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if a + b == 0 {
        0.0
    } else {
        a as f64 / (a + b) as f64
    }
}

/// Runs one cell.
///
/// # Errors
/// Its run's errors; [`HarnessError::Invariant`] when its end-of-run check fails.
pub fn run_cell(c: &ZnsPlusCell) -> Result<ZnsPlusFigures, HarnessError> {
    match &c.work {
        Work::FillDelete(f) => {
            let r = fill_delete::run_simulated(&f.spec(), f.fs_options()?, f.options())?;
            Ok(ZnsPlusFigures::of_fill_delete(&r))
        }
        Work::Engine(s) => Ok(ZnsPlusFigures::of_engine(&crate::experiment::run(s)?)),
    }
}

/// A distinct run's figures, or its error and whether it failed its end-of-run check.
type Outcome = Result<ZnsPlusFigures, (String, bool)>;

/// One cell's outcome.
#[derive(Debug, Clone)]
pub struct ZnsPlusResult {
    /// Scheme name.
    pub scheme: String,
    /// Experiment key.
    pub experiment: String,
    /// Seed.
    pub seed: u64,
    /// Figures, or why the run failed.
    pub figures: Result<ZnsPlusFigures, String>,
    /// The run failed its end-of-run check (fsck, scan, sampled reads): its figures are void.
    pub invariant_failed: bool,
}

impl ZnsPlusCell {
    /// The cell's file name in a report's `cells/` folder (`znsplus-<scheme>-<experiment>-seed<N>`,
    /// characters other than letters, digits, `.` and `-` as `_`).
    pub fn stem(&self) -> String {
        super::file_stem(&format!(
            "znsplus-{}-{}-seed{}",
            self.scheme, self.experiment, self.seed
        ))
    }
}

impl Work {
    /// What the run is, as text (the scenario's TOML without its name, or the fill-and-delete
    /// run's fields): a stored cell is reused only for the same text.
    ///
    /// # Errors
    /// [`HarnessError::Config`] when the scenario does not serialize.
    pub fn key(&self) -> Result<String, HarnessError> {
        match self {
            Self::FillDelete(f) => Ok(format!("{f:?}")),
            Self::Engine(s) => toml::to_string(&Scenario {
                name: String::new(),
                ..(**s).clone()
            })
            .map_err(|e| HarnessError::Config(format!("scenario '{}': {e}", s.name))),
        }
    }
}

/// Runs the cells, `jobs` at a time on host threads (each a deterministic simulation of its
/// own); identical configurations (`chips-16` is `fill-delete-80`) run once. `done(n, total)`
/// is called as each distinct run ends. A failed run (its check included) fails its cells
/// only. With `cache`, a distinct run already stored there is loaded, not run, and each run
/// is stored as it ends (a failed check never), so a stopped study resumes.
pub fn run_cells(
    cells: &[ZnsPlusCell],
    jobs: usize,
    done: &(dyn Fn(usize, usize) + Sync),
    cache: Option<&CellCache>,
) -> Vec<ZnsPlusResult> {
    let mut unique: Vec<&Work> = Vec::new();
    let index: Vec<usize> = cells
        .iter()
        .map(|c| {
            unique
                .iter()
                .position(|u| **u == c.work)
                .unwrap_or_else(|| {
                    unique.push(&c.work);
                    unique.len() - 1
                })
        })
        .collect();
    let representative: Vec<&ZnsPlusCell> = (0..unique.len())
        .filter_map(|u| index.iter().position(|&i| i == u).map(|c| &cells[c]))
        .collect();
    let keys: Vec<Option<String>> = representative.iter().map(|c| c.work.key().ok()).collect();
    let slots: Vec<Mutex<Option<Outcome>>> = (0..unique.len())
        .map(|u| {
            let stored = cache.zip(keys[u].as_ref()).and_then(|(cache, key)| {
                cache.load::<ZnsPlusFigures>(&representative[u].stem(), key)
            });
            Mutex::new(stored.map(|(r, _)| r.map_err(|e| (e, false))))
        })
        .collect();
    let pending: Vec<usize> = (0..unique.len())
        .filter(|&u| slots[u].lock().map_or(true, |s| s.is_none()))
        .collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(unique.len() - pending.len());
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1).min(pending.len().max(1)) {
            sc.spawn(|| {
                while let Some(&i) = pending.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let c = representative[i];
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_cell(c).map_err(|e| {
                            let void = matches!(e, HarnessError::Invariant(_));
                            (e.to_string(), void)
                        })
                    }))
                    .unwrap_or_else(|_| Err(("simulation thread panicked".into(), true)));
                    if let (Some(cache), Some(key)) = (cache, keys[i].as_ref()) {
                        let stored = match &r {
                            Ok(f) => cache.store(&c.stem(), key, Ok(f), 0),
                            Err((e, false)) => {
                                cache.store::<ZnsPlusFigures>(&c.stem(), key, Err(e), 0)
                            }
                            Err((_, true)) => Ok(()),
                        };
                        if let Err(e) = stored {
                            eprintln!("warning: {e} (this cell will run again on a resume)");
                        }
                    }
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(r);
                    }
                    done(finished.fetch_add(1, Ordering::SeqCst) + 1, unique.len());
                }
            });
        }
    });
    let outcomes: Vec<Outcome> = slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err(("not run".into(), false)))
        })
        .collect();
    cells
        .iter()
        .zip(index)
        .map(|(c, i)| ZnsPlusResult {
            scheme: c.scheme.to_owned(),
            experiment: c.experiment.to_owned(),
            seed: c.seed,
            figures: outcomes[i].clone().map_err(|(e, _)| e),
            invariant_failed: matches!(outcomes[i], Err((_, true))),
        })
        .collect()
}

/// The mean over seeds of `scheme` on `experiment` (numbers averaged field by field, counts
/// rounded), as JSON; `None` when no run of it finished.
fn mean_json(
    results: &[ZnsPlusResult],
    scheme: &str,
    experiment: &str,
) -> Option<serde_json::Value> {
    let runs: Vec<serde_json::Value> = results
        .iter()
        .filter(|r| r.scheme == scheme && r.experiment == experiment)
        .filter_map(|r| serde_json::to_value(r.figures.as_ref().ok()?).ok())
        .collect();
    let first = runs.first()?.as_object()?.clone();
    let n = runs.len() as f64;
    let mut out = serde_json::Map::new();
    for (k, v) in first {
        let mean = || runs.iter().filter_map(|r| r[&k].as_f64()).sum::<f64>() / n;
        let value = if v.is_u64() {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "the mean of counts"
            )]
            let m = mean().round() as u64;
            serde_json::json!(m)
        } else if v.is_f64() {
            serde_json::json!(mean())
        } else if v.is_boolean() {
            serde_json::json!(runs.iter().any(|r| r[&k].as_bool() == Some(true)))
        } else {
            v
        };
        out.insert(k, value);
    }
    Some(serde_json::Value::Object(out))
}

/// A figure of `scheme` on `experiment`, mean over seeds.
fn figure(results: &[ZnsPlusResult], scheme: &str, experiment: &str, key: &str) -> Option<f64> {
    mean_json(results, scheme, experiment)?[key].as_f64()
}

/// `key` of `scheme` over `key` of ZNS on `experiment`.
fn vs_zns(results: &[ZnsPlusResult], scheme: &str, experiment: &str, key: &str) -> Option<f64> {
    let a = figure(results, scheme, experiment, key)?;
    let b = figure(results, "ZNS", experiment, key)?;
    (b > 0.0).then(|| a / b)
}

/// The experiments present in `results`, in the study's order.
fn experiments_run(results: &[ZnsPlusResult]) -> Vec<&'static str> {
    EXPERIMENTS
        .iter()
        .copied()
        .filter(|e| results.iter().any(|r| r.experiment == *e))
        .collect()
}

/// One of the slides' claims beside ours.
struct Claim {
    what: &'static str,
    slides: &'static str,
    /// Our values, one per experiment (label, value).
    ours: Vec<(String, f64)>,
    /// Whether ours bear the claim out (`None`: nothing to judge).
    met: Option<bool>,
    /// How `ours` print.
    unit: Unit,
}

#[derive(Clone, Copy)]
enum Unit {
    /// A ratio, printed `1.23x`.
    Times,
    /// A share, printed `45.6%`.
    Percent,
    /// A change, printed `-12.3%`.
    Change,
}

impl Unit {
    fn show(self, v: f64) -> String {
        match self {
            Self::Times => format!("{v:.2}x"),
            Self::Percent => format!("{:.1}%", v * 100.0),
            Self::Change => format!("{:+.1}%", (v - 1.0) * 100.0),
        }
    }

    /// The mean of `s` as [`Self::show`] prints it, then ` ± ` and the half-width of its 95%
    /// interval in the printed unit (for more than one run).
    fn show_interval(self, s: &Summary) -> String {
        let (factor, digits) = match self {
            Self::Times => (1.0, 2),
            Self::Percent | Self::Change => (100.0, 1),
        };
        let scaled = Summary {
            mean: s.mean,
            ci95: s.ci95 * factor,
            ..*s
        };
        super::seeds::with_interval(&scaled, &|v| self.show(v), digits)
    }
}

/// Each claim's values, experiment by experiment, summarized over seeds (empty for one seed).
fn claim_intervals(by_seed: &BySeed<'_, ZnsPlusResult>) -> Vec<BTreeMap<String, Summary>> {
    if !by_seed.many() {
        return Vec::new();
    }
    let each: Vec<Vec<Claim>> = by_seed.each().iter().map(|rs| claims(rs)).collect();
    let Some(first) = each.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| {
            let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for c in each.iter().filter_map(|cs| cs.get(i)) {
                for (e, v) in &c.ours {
                    values.entry(e.clone()).or_default().push(*v);
                }
            }
            values
                .into_iter()
                .filter_map(|(e, xs)| Some((e, Summary::of(&xs)?)))
                .collect()
        })
        .collect()
}

impl Claim {
    /// With more than one seed: each experiment's value the mean of the seeds' (`intervals`,
    /// from [`claim_intervals`]), and the single value's interval.
    fn with_intervals(mut self, intervals: Option<&BTreeMap<String, Summary>>) -> Self {
        if let Some(iv) = intervals {
            for (e, v) in &mut self.ours {
                if let Some(s) = iv.get(e) {
                    *v = s.mean;
                }
            }
        }
        self
    }

    /// The values' range; with more than one seed a single value with its interval.
    fn range_interval(&self, intervals: Option<&BTreeMap<String, Summary>>) -> String {
        match (&self.ours[..], intervals) {
            ([(e, _)], Some(iv)) => iv
                .get(e)
                .map_or_else(|| self.range(), |s| self.unit.show_interval(s)),
            _ => self.range(),
        }
    }

    fn range(&self) -> String {
        if self.ours.is_empty() {
            return "-".into();
        }
        let lo = self.ours.iter().map(|o| o.1).fold(f64::INFINITY, f64::min);
        let hi = self
            .ours
            .iter()
            .map(|o| o.1)
            .fold(f64::NEG_INFINITY, f64::max);
        if (hi - lo).abs() < 1e-12 {
            self.unit.show(lo)
        } else {
            format!("{} .. {}", self.unit.show(lo), self.unit.show(hi))
        }
    }

    fn json(&self) -> serde_json::Value {
        let per: serde_json::Map<String, serde_json::Value> = self
            .ours
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::json!(v)))
            .collect();
        serde_json::json!({
            "what": self.what,
            "slides": self.slides,
            "ours": per,
            "ours_range": self.range(),
            "met": self.met,
        })
    }
}

/// Values of `f` over the experiments run (those where it is defined).
fn over(experiments: &[&str], f: &dyn Fn(&str) -> Option<f64>) -> Vec<(String, f64)> {
    experiments
        .iter()
        .filter_map(|e| f(e).map(|v| ((*e).to_owned(), v)))
        .collect()
}

/// Whether every value is at least `bar` (`None` for none).
fn all_at_least(ours: &[(String, f64)], bar: f64) -> Option<bool> {
    (!ours.is_empty()).then(|| ours.iter().all(|o| o.1 >= bar))
}

/// The slides' claims beside our figures.
fn claims(results: &[ZnsPlusResult]) -> Vec<Claim> {
    let run = experiments_run(results);
    // Cleaning figures only where ZNS cleaned.
    let cleaned: Vec<&str> = run
        .iter()
        .copied()
        .filter(|e| figure(results, "ZNS", e, "cleaning_time_ns").is_some_and(|c| c > 0.0))
        .collect();
    let izc_cleaning = over(&cleaned, &|e| vs_zns(results, "IZC", e, "cleaning_time_ns"));
    let izc_tput = over(&run, &|e| vs_zns(results, "IZC", e, "ops_per_s"));
    let plus_tput = over(&run, &|e| vs_zns(results, "ZNS+", e, "ops_per_s"));
    let cab = |scheme: &'static str| {
        over(&run, &|e| {
            let c = figure(results, scheme, e, "izc_copyback_pages")?;
            let r = figure(results, scheme, e, "read_program_pages")?;
            (c + r > 0.0).then(|| c / (c + r))
        })
    };
    let mut cab_ratio = cab("IZC");
    cab_ratio.extend(
        cab("ZNS+")
            .into_iter()
            .map(|(e, v)| (format!("ZNS+ {e}"), v)),
    );
    let cub_chips: Vec<(String, f64)> = CHIPS
        .iter()
        .filter_map(|c| {
            let e = format!("chips-{c}");
            let v = figure(results, "ZNS+/CUB", &e, "copyback_ratio")?;
            let cb = figure(results, "ZNS+/CUB", &e, "izc_copyback_pages")?;
            let rp = figure(results, "ZNS+/CUB", &e, "read_program_pages")?;
            (cb + rp > 0.0).then_some((e, v))
        })
        .collect();
    let falling = (cub_chips.len() >= 2).then(|| {
        cub_chips.windows(2).all(|w| w[1].1 <= w[0].1 + 1e-9)
            && cub_chips.first().map(|f| f.1) > cub_chips.last().map(|l| l.1)
    });
    let threaded = over(&run, &|e| {
        let g = figure(results, "ZNS+", e, "gc_zone_resets")?;
        let t = figure(results, "ZNS+", e, "threaded_reclaims")?;
        (g + t > 0.0).then(|| t / (g + t))
    });
    let metadata = over(&run, &|e| {
        vs_zns(results, "ZNS+", e, "metadata_write_bytes")
    });
    let izc_met_cleaning =
        (!izc_cleaning.is_empty()).then(|| izc_cleaning.iter().all(|o| o.1 <= 1.0 - 0.282));
    let mut all = vec![
        Claim {
            what: "IZC cleaning time vs ZNS",
            slides: "28.2-51.7% less",
            met: izc_met_cleaning,
            ours: izc_cleaning,
            unit: Unit::Change,
        },
        Claim {
            what: "IZC throughput vs ZNS",
            slides: "1.3-1.9x",
            met: all_at_least(&izc_tput, 1.3),
            ours: izc_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "ZNS+ throughput vs ZNS",
            slides: "1.3-2.9x",
            met: all_at_least(&plus_tput, 1.3),
            ours: plus_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "copyback share of IZC's pages under CAB (IZC, ZNS+)",
            slides: "over 80%",
            met: all_at_least(&cab_ratio, 0.8),
            ours: cab_ratio,
            unit: Unit::Percent,
        },
        Claim {
            what: "copyback share under CUB (ZNS+/CUB) by chip count",
            slides: "falls as chips grow",
            met: falling,
            ours: cub_chips,
            unit: Unit::Percent,
        },
        Claim {
            what: "threaded logging's share of zone reclaims (ZNS+)",
            slides: "over 86%",
            met: all_at_least(&threaded, 0.86),
            ours: threaded,
            unit: Unit::Percent,
        },
        Claim {
            what: "metadata writes, ZNS+ vs ZNS",
            slides: "-48%",
            met: (!metadata.is_empty()).then(|| metadata.iter().all(|o| o.1 <= 1.0 - 0.48)),
            ours: metadata,
            unit: Unit::Change,
        },
    ];
    all.extend(variant_claims(results, &run));
    all
}

/// ZNS+'s claims for the variant with the artifact's `need_SSR` trigger ([`NEED_SSR`]).
fn variant_claims(results: &[ZnsPlusResult], run: &[&str]) -> Vec<Claim> {
    let variant_tput = over(run, &|e| vs_zns(results, NEED_SSR, e, "ops_per_s"));
    let variant_threaded = over(run, &|e| {
        let g = figure(results, NEED_SSR, e, "gc_zone_resets")?;
        let t = figure(results, NEED_SSR, e, "threaded_reclaims")?;
        (g + t > 0.0).then(|| t / (g + t))
    });
    let variant_metadata = over(run, &|e| {
        vs_zns(results, NEED_SSR, e, "metadata_write_bytes")
    });
    vec![
        Claim {
            what: "ZNS+/need_SSR throughput vs ZNS",
            slides: "1.3-2.9x",
            met: all_at_least(&variant_tput, 1.3),
            ours: variant_tput,
            unit: Unit::Times,
        },
        Claim {
            what: "threaded logging's share of zone reclaims (ZNS+/need_SSR)",
            slides: "over 86%",
            met: all_at_least(&variant_threaded, 0.86),
            ours: variant_threaded,
            unit: Unit::Percent,
        },
        Claim {
            what: "metadata writes, ZNS+/need_SSR vs ZNS",
            slides: "-48%",
            met: (!variant_metadata.is_empty())
                .then(|| variant_metadata.iter().all(|o| o.1 <= 1.0 - 0.48)),
            ours: variant_metadata,
            unit: Unit::Change,
        },
    ]
}

/// The headline claims ([`super::claims`]), one per slide claim and experiment (those with a
/// number; "falls as chips grow" stays in the slides' table): ours from `claims` on each
/// seed's runs.
pub fn claim_specs(results: &[ZnsPlusResult]) -> Vec<super::claims::Spec<ZnsPlusResult>> {
    use super::claims::{Judge, Spec, Unit as U};
    // (index in `claims`, paper, how it is judged, unit, whether ours is a ratio shown as a
    // change)
    let how: [(usize, f64, Judge, U, bool); 9] = [
        (0, -28.2, Judge::AtMost, U::Change, true),
        (1, 1.3, Judge::AtLeast, U::Times, false),
        (2, 1.3, Judge::AtLeast, U::Times, false),
        (7, 1.3, Judge::AtLeast, U::Times, false),
        (3, 0.8, Judge::AtLeast, U::Share, false),
        (5, 0.86, Judge::AtLeast, U::Share, false),
        (8, 0.86, Judge::AtLeast, U::Share, false),
        (6, -48.0, Judge::Effect, U::Change, true),
        (9, -48.0, Judge::Effect, U::Change, true),
    ];
    let all = claims(results);
    let mut out = Vec::new();
    for (i, paper, judge, unit, change) in how {
        let Some(c) = all.get(i) else { continue };
        for (key, _) in &c.ours {
            let k = key.clone();
            out.push(Spec::new(
                format!("{}, {key}", c.what),
                paper,
                c.slides,
                judge,
                unit,
                Box::new(move |rs: &[ZnsPlusResult]| {
                    let v = claims(rs).get(i)?.ours.iter().find(|o| o.0 == k)?.1;
                    Some(if change { (v - 1.0) * 100.0 } else { v })
                }),
            ));
        }
    }
    out
}

/// The study's JSON: `schemes` with an object per scheme, each with an object per experiment
/// ([`ISSUE_KEYS`] and more); `slides` (each claim beside ours); `failed`.
pub fn json(scale: ReproScale, results: &[ZnsPlusResult]) -> serde_json::Value {
    let seeds = super::seeds::seeds_of(results);
    let by_seed = BySeed::new(results);
    let mut schemes = serde_json::Map::new();
    for s in SCHEMES {
        let per: serde_json::Map<String, serde_json::Value> = EXPERIMENTS
            .iter()
            .filter_map(|e| {
                let mut o = mean_json(results, s, e)?;
                if by_seed.many() {
                    let each: Vec<serde_json::Value> = by_seed
                        .each()
                        .iter()
                        .filter_map(|rs| mean_json(rs, s, e))
                        .collect();
                    o["spread"] = summaries(&each);
                }
                Some(((*e).to_owned(), o))
            })
            .collect();
        if !per.is_empty() {
            schemes.insert(s.to_owned(), serde_json::Value::Object(per));
        }
    }
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            let e = r.figures.as_ref().err()?;
            Some(format!(
                "{} {} (seed {}): {e}",
                r.scheme, r.experiment, r.seed
            ))
        })
        .collect();
    let intervals = claim_intervals(&by_seed);
    let slides: Vec<serde_json::Value> = claims(results)
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let mut o = c.json();
            if let Some(iv) = intervals.get(i) {
                o["ours_interval"] = serde_json::json!(iv);
            }
            o
        })
        .collect();
    let mut j = serde_json::json!({
        "study": "znsplus",
        "scale": scale.name(),
        "seeds": seeds,
        "device": {
            "profile": PROFILE,
            "kind": "znsplus",
            "znsplus": ZnsPlusConfig::reference(),
            "fill_delete_scale": format!("1/{}", fill_delete_divisor(scale)),
            "engine_scale": format!("1/{}", engine_divisor(scale)),
        },
        "schemes": schemes,
        "slides": slides,
        "failed": failed,
    });
    super::claims::insert(&mut j, &claim_specs(results), results, scale.name());
    j
}

/// What the slides say of a scheme, for the tables' last column.
fn slides_note(scheme: &str, experiment: &str) -> &'static str {
    match (scheme, experiment.starts_with("chips-")) {
        ("IZC", _) => "28.2-51.7% less cleaning, 1.3-1.9x",
        ("ZNS+", false) => "1.3-2.9x; threaded logging >86%; metadata -48%",
        ("ZNS+", true) => "1.3-2.9x; copyback >80% (CAB)",
        ("ZNS+/CUB", true) => "copyback share falls with chips",
        (NEED_SSR, _) => "ZNS+'s: 1.3-2.9x; threaded logging >86%; metadata -48%",
        _ => "",
    }
}

/// One table of the study: a row per experiment and scheme.
fn table(md: &mut String, results: &[ZnsPlusResult], title: &str, experiments: &[&str]) {
    let _ = writeln!(
        md,
        "## {title}\n\n| experiment | scheme | ops/s | x ZNS | P99 µs | cleaning s | vs ZNS | host link GiB | gc copied GiB | copyback | threaded share | metadata MiB | vs ZNS | slides |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let by_seed = BySeed::new(results);
    for e in experiments {
        for s in SCHEMES {
            if mean_json(results, s, e).is_none() {
                continue;
            }
            // `key` as `to` converts it, with `digits` decimals and `unit` after.
            let f = |k: &str, to: &dyn Fn(f64) -> f64, digits: usize, unit: &str| {
                by_seed.show(
                    |rs| figure(rs, s, e, k).map(to),
                    |v| format!("{v:.digits$}{unit}"),
                    digits,
                    "-",
                )
            };
            let change = |k: &str| {
                by_seed.show(
                    |rs| vs_zns(rs, s, e, k).map(|v| (v - 1.0) * 100.0),
                    |c| format!("{c:+.1}%"),
                    1,
                    "-",
                )
            };
            let copyback = by_seed.show(
                |rs| {
                    let c = figure(rs, s, e, "izc_copyback_pages").unwrap_or(0.0);
                    let r = figure(rs, s, e, "read_program_pages").unwrap_or(0.0);
                    (c + r > 0.0).then(|| c * 100.0 / (c + r))
                },
                |v| format!("{v:.1}%"),
                1,
                "-",
            );
            let same = |v: f64| v;
            let gib = |v: f64| v / f64::from(1u32 << 30);
            let _ = writeln!(
                md,
                "| {e} | {s} | {} | {} | {} | {} | {} | {} | {} | {copyback} | {} | {} | {} | {} |",
                f("ops_per_s", &same, 0, ""),
                by_seed.show(
                    |rs| vs_zns(rs, s, e, "ops_per_s"),
                    |v| format!("{v:.2}"),
                    2,
                    "-"
                ),
                f("latency_us_p99", &same, 0, ""),
                f("cleaning_time_ns", &|v| v / 1e9, 2, ""),
                change("cleaning_time_ns"),
                f("host_link_bytes", &gib, 2, ""),
                f("gc_copied_bytes", &gib, 2, ""),
                f("threaded_logging_share", &|v| v * 100.0, 1, "%"),
                f("metadata_write_bytes", &|v| v / MIB as f64, 1, ""),
                change("metadata_write_bytes"),
                slides_note(s, e),
            );
        }
    }
    md.push('\n');
}

/// The study's tables: ours with ratios to ZNS, and the slides' claims beside ours.
pub fn markdown(scale: ReproScale, results: &[ZnsPlusResult]) -> String {
    let mut md = String::new();
    let by_seed = BySeed::new(results);
    let _ = writeln!(
        md,
        "# ZNS+ on the simulated ZNS+ SSD ({} scale)\n\n{}The slides' figures are F2FS's on FEMU and Cosmos+; ours are this store's LSM zone layer on `{PROFILE}` with `kind = \"znsplus\"` (copyback {} µs, read-program {} µs per page), fill-and-delete at 1/{} and the engine at 1/{}. Throughput is virtual time: 4 KiB blocks of user data per second for fill-and-delete (P99: one file write), operations per second of the workload after its load for the engine (P99: one operation). Cleaning time, bytes, pages and reclaims are the whole run's. Copyback is IZC's share: its copyback pages over its copyback + read-program pages (threaded logging's plugging copies back too; the JSON's `copyback_pages` counts both).\n",
        scale.name(),
        by_seed.note("Ours: ", ".\n\n"),
        ZnsPlusConfig::reference().copyback_ns / 1000,
        ZnsPlusConfig::reference().read_program_ns / 1000,
        fill_delete_divisor(scale),
        engine_divisor(scale),
    );
    let run = experiments_run(results);
    let pick =
        |f: &dyn Fn(&str) -> bool| -> Vec<&str> { run.iter().copied().filter(|e| f(e)).collect() };
    let fill = pick(&|e| e.starts_with("fill-delete"));
    if !fill.is_empty() {
        table(&mut md, results, "Fill and delete (greedy cleaning)", &fill);
    }
    let chips = pick(&|e| e.starts_with("chips-"));
    if !chips.is_empty() {
        table(
            &mut md,
            results,
            &format!("Chips (fill and delete at {CHIPS_LIVE_PCT}% live, zones over every chip)"),
            &chips,
        );
    }
    let engine = pick(&|e| e == "overwrite" || e == "ycsb-a");
    if !engine.is_empty() {
        table(
            &mut md,
            results,
            "Engine (LIZA placement, greedy cleaning)",
            &engine,
        );
    }
    let _ = writeln!(
        md,
        "## The slides beside ours\n\nThe slides' numbers are F2FS's on FEMU and Cosmos+; ours are the LSM zone layer's.\n\n| claim | slides | ours | borne out |\n|---|---|---|---|"
    );
    let intervals = claim_intervals(&by_seed);
    for (i, c) in claims(results).into_iter().enumerate() {
        let iv = intervals.get(i);
        let c = c.with_intervals(iv);
        let detail: Vec<String> = c
            .ours
            .iter()
            .map(|(e, v)| {
                let shown = iv
                    .and_then(|iv| iv.get(e))
                    .map_or_else(|| c.unit.show(*v), |s| c.unit.show_interval(s));
                format!("{e} {shown}")
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {}{} | {} |",
            c.what,
            c.slides,
            c.range_interval(iv),
            if detail.len() > 1 {
                format!(" ({})", detail.join(", "))
            } else {
                String::new()
            },
            match c.met {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
        );
    }
    let failed: Vec<&ZnsPlusResult> = results.iter().filter(|r| r.figures.is_err()).collect();
    if !failed.is_empty() {
        let _ = writeln!(md, "\n## Failed runs\n");
        for r in failed {
            let _ = writeln!(
                md,
                "- {} {} (seed {}): {}",
                r.scheme,
                r.experiment,
                r.seed,
                r.figures.as_ref().err().map_or("", String::as_str)
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::seeds::assert_has;

    fn plan() -> ZnsPlusPlan {
        ZnsPlusPlan {
            seeds: vec![1],
            experiments: Vec::new(),
        }
    }

    #[test]
    fn every_scheme_runs_every_experiment_and_chips_16_is_fill_delete_80() {
        let all = cells(ReproScale::Small, &plan()).unwrap();
        assert_eq!(all.len(), SCHEMES.len() * EXPERIMENTS.len());
        let work = |scheme: &str, experiment: &str| {
            all.iter()
                .find(|x| x.scheme == scheme && x.experiment == experiment)
                .unwrap()
                .work
                .clone()
        };
        for scheme in SCHEMES {
            assert_eq!(work(scheme, "chips-16"), work(scheme, "fill-delete-80"));
            assert_ne!(work(scheme, "chips-32"), work(scheme, "fill-delete-80"));
        }
        let Work::FillDelete(fill) = work("ZNS+/CUB", "chips-4") else {
            panic!("a fill-and-delete run");
        };
        let profile = fill.spec().profile().unwrap();
        assert_eq!((profile.flash.chips(), profile.chips_per_zone), (4, 4));
        assert_eq!(profile.zones.zone_size_bytes, 64 * MIB);
        let opts = fill.fs_options().unwrap();
        assert_eq!(
            opts.zone_copy,
            ZoneCopy::Izc {
                copyback_aware: false
            }
        );
        assert!(opts.threaded_logging);
        assert!(fill.options().elide);
        let Work::Engine(ycsb) = work("ZNS+", "ycsb-a") else {
            panic!("an engine run");
        };
        assert_eq!(ycsb.device.kind.as_deref(), Some("znsplus"));
        assert_eq!(ycsb.fs.zone_copy, "izc");
        assert!(ycsb.fs.copyback_aware && ycsb.fs.threaded_logging);
        assert_eq!(ycsb.fs.placement, "liza");
        let phases = ycsb.workload.ycsb_phases().unwrap();
        assert_eq!(phases[0].recordcount, PAPER_LOAD_PUTS / 64);
        assert_eq!(phases[1].operationcount, PAPER_OPS / 64);
        let Work::Engine(overwrite) = work("ZNS", "overwrite") else {
            panic!("an engine run");
        };
        assert_eq!(overwrite.fs.zone_copy, "host");
        assert!(!overwrite.fs.threaded_logging);
        overwrite.db_options().unwrap();
        assert!(
            cells(
                ReproScale::Small,
                &ZnsPlusPlan {
                    experiments: vec!["chips-5".into()],
                    ..plan()
                }
            )
            .is_err()
        );
    }

    fn result(scheme: &str, experiment: &str, f: ZnsPlusFigures) -> ZnsPlusResult {
        ZnsPlusResult {
            scheme: scheme.into(),
            experiment: experiment.into(),
            seed: 1,
            figures: Ok(f),
            invariant_failed: false,
        }
    }

    #[test]
    fn json_and_tables_hold_every_scheme_and_the_slides_claims() {
        let f = |ops: f64, cleaning: u64, cb: u64, rp: u64| ZnsPlusFigures {
            ops_per_s: ops,
            cleaning_time_ns: cleaning,
            copyback_pages: cb,
            izc_copyback_pages: cb,
            read_program_pages: rp,
            copyback_ratio: ratio(cb, rp),
            metadata_write_bytes: 100,
            ..ZnsPlusFigures::default()
        };
        let mut results = Vec::new();
        for e in EXPERIMENTS {
            results.push(result("ZNS", e, f(100.0, 1000, 0, 0)));
            results.push(result("IZC", e, f(150.0, 600, 90, 10)));
            results.push(result("ZNS+", e, f(200.0, 500, 85, 15)));
        }
        for (c, cb) in CHIPS.iter().zip([80, 60, 40, 20]) {
            results.push(result(
                "ZNS+/CUB",
                &format!("chips-{c}"),
                f(180.0, 550, cb, 100 - cb),
            ));
        }
        let j = json(ReproScale::Tiny, &results);
        assert_eq!(j["study"], "znsplus");
        for s in ["ZNS", "IZC", "ZNS+"] {
            for e in EXPERIMENTS {
                for k in ISSUE_KEYS {
                    assert!(j["schemes"][s][e][k].is_number(), "{s}.{e}.{k}");
                }
            }
        }
        assert_eq!(j["schemes"]["IZC"]["chips-4"]["copyback_ratio"], 0.9);
        let slides = j["slides"].as_array().unwrap();
        assert_eq!(slides[0]["met"], true, "{}", slides[0]);
        assert_eq!(slides[1]["met"], true);
        assert_eq!(slides[4]["met"], true, "{}", slides[4]);
        let md = markdown(ReproScale::Tiny, &results);
        assert!(md.contains("| fill-delete-70 | IZC | 150 | 1.50 |"), "{md}");
        assert!(md.contains("F2FS"), "{md}");
    }

    #[test]
    fn more_seeds_put_the_95_interval_beside_the_slides() {
        let f = |ops: f64, cleaning: u64| ZnsPlusFigures {
            ops_per_s: ops,
            cleaning_time_ns: cleaning,
            metadata_write_bytes: 100,
            ..ZnsPlusFigures::default()
        };
        let e = "fill-delete-70";
        let mut results = Vec::new();
        for (seed, ops, cleaning) in [(1, 150.0, 600), (2, 180.0, 500)] {
            for (s, x) in [("ZNS", f(100.0, 1000)), ("IZC", f(ops, cleaning))] {
                results.push(ZnsPlusResult {
                    seed,
                    ..result(s, e, x)
                });
            }
        }
        let md = markdown(ReproScale::Tiny, &results);
        assert_has(&md, "Ours: mean of 2 seeds, ± 95% interval (Student's t)");
        let tput = Summary::of(&[1.5, 1.8]).unwrap();
        let ops = Summary::of(&[150.0, 180.0]).unwrap();
        let cleaning = Summary::of(&[-40.0, -50.0]).unwrap();
        assert_has(
            &md,
            &format!(
                "| {e} | IZC | {:.0} ± {:.0} | {:.2} ± {:.2} | 0 | 0.00 ± 0.00 | {:+.1}% ± {:.1} |",
                ops.mean, ops.ci95, tput.mean, tput.ci95, cleaning.mean, cleaning.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| IZC throughput vs ZNS | 1.3-1.9x | {:.2}x ± {:.2} | yes |",
                tput.mean, tput.ci95
            ),
        );
        assert_has(
            &md,
            &format!(
                "| IZC cleaning time vs ZNS | 28.2-51.7% less | {:+.1}% ± {:.1} | yes |",
                cleaning.mean, cleaning.ci95
            ),
        );
        let j = json(ReproScale::Tiny, &results);
        assert_eq!(
            j["slides"][1]["ours_interval"][e]["ci95"].as_f64(),
            Some(tput.ci95)
        );
        assert_eq!(
            j["schemes"]["IZC"][e]["spread"]["ops_per_s"]["ci95"].as_f64(),
            Some(ops.ci95)
        );
        let one: Vec<ZnsPlusResult> = results.iter().filter(|r| r.seed == 1).cloned().collect();
        let md = markdown(ReproScale::Tiny, &one);
        assert!(!md.contains('±'), "{md}");
        assert_has(&md, &format!("| {e} | IZC | 150 | 1.50 |"));
        assert_has(&md, "| IZC throughput vs ZNS | 1.3-1.9x | 1.50x | yes |");
    }
}
