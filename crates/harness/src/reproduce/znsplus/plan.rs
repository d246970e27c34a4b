//! The study's plan: its schemes (what each sets in the zone layer and on the device), its
//! experiments, each cell's work (a fill-and-delete run or an engine scenario) at the study's
//! scale, and the cells of a plan.

use super::*;

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

pub(super) const MIB: u64 = 1 << 20;

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
        ReproScale::Fraction(n) => u64::from(n),
    }
}

/// The divisor of the engine's device, memtables, SSTs, levels and dataset at `scale`
/// (`small`: 1/64, as the other studies; `tiny`: 1/256).
pub fn engine_divisor(scale: ReproScale) -> u64 {
    match scale {
        ReproScale::Small => 64,
        ReproScale::Paper => 1,
        ReproScale::Tiny => 256,
        ReproScale::Fraction(n) => u64::from(n),
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
        let (copy, copyback_aware, threaded_logging) =
            scheme_options(self.scheme).ok_or_else(|| unknown_scheme(self.scheme))?;
        Ok(FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("greedy", 20)
                .map_err(|e| HarnessError::config("fs.cleaner", e.to_string()))?,
            zone_copy: if copy == "izc" {
                ZoneCopy::Izc { copyback_aware }
            } else {
                ZoneCopy::Host
            },
            znsplus: zonedb_fs::ZnsPlusOptions {
                threaded_logging,
                threaded_trigger: scheme_trigger(self.scheme),
                ..zonedb_fs::ZnsPlusOptions::default()
            },
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
pub(super) fn workload_toml(w: &str, load: u64, ops: u64) -> Result<String, HarnessError> {
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
            mix = crate::reproduce::splitzns::ycsb_mix("ycsb-a").unwrap_or_default(),
        ),
        other => {
            return Err(HarnessError::unknown(
                "znsplus engine workload",
                other,
                ["overwrite", "ycsb-a"],
            ));
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
    let (copy, cab, threaded) = scheme_options(scheme).ok_or_else(|| unknown_scheme(scheme))?;
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

/// A scheme not in [`SCHEMES`].
fn unknown_scheme(scheme: &str) -> HarnessError {
    HarnessError::unknown("znsplus scheme", scheme, SCHEMES)
}

/// An experiment not in [`EXPERIMENTS`] (or a `chips-N` without a count).
fn unknown_experiment(experiment: &str) -> HarnessError {
    HarnessError::unknown("znsplus experiment", experiment, EXPERIMENTS)
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
        return Err(unknown_experiment(e));
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
                            .ok_or_else(|| unknown_experiment(chips))?;
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
