//! What is measured per cell (`ZnsPlusFigures`, from a fill-and-delete run or an engine
//! run), the results, and the study's JSON (means over seeds, with their spread).

use super::*;

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
    pub(super) fn counters(
        fs: &FsStats,
        dev: &zonedb_device::DeviceStats,
        z: Option<ZnsPlusStats>,
    ) -> Self {
        let z = z.unwrap_or_default();
        Self {
            cleaning_time_ns: fs.cleaning_ns,
            host_link_bytes: dev.bytes_read + dev.bytes_written,
            device_write_bytes: fs.device_bytes_written,
            gc_copied_bytes: fs.gc_copied_bytes,
            gc_zone_resets: fs.gc_zone_resets,
            threaded_reclaims: fs.znsplus.threaded_reclaims,
            threaded_logging_share: fill_delete::threaded_logging_share(fs),
            metadata_write_bytes: fs.metadata_bytes_written,
            izc_commands: fs.znsplus.izc_commands,
            izc_bytes: fs.znsplus.izc_bytes,
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

pub(super) fn ratio(a: u64, b: u64) -> f64 {
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
pub(super) type Outcome = Result<ZnsPlusFigures, (String, bool)>;

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

/// The mean over seeds of `scheme` on `experiment` (numbers averaged field by field, counts
/// rounded), as JSON; `None` when no run of it finished.
pub(super) fn mean_json(
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
pub(super) fn figure(
    results: &[ZnsPlusResult],
    scheme: &str,
    experiment: &str,
    key: &str,
) -> Option<f64> {
    mean_json(results, scheme, experiment)?[key].as_f64()
}

/// `key` of `scheme` over `key` of ZNS on `experiment`.
pub(super) fn vs_zns(
    results: &[ZnsPlusResult],
    scheme: &str,
    experiment: &str,
    key: &str,
) -> Option<f64> {
    let a = figure(results, scheme, experiment, key)?;
    let b = figure(results, "ZNS", experiment, key)?;
    (b > 0.0).then(|| a / b)
}

/// The experiments present in `results`, in the study's order.
pub(super) fn experiments_run(results: &[ZnsPlusResult]) -> Vec<&'static str> {
    EXPERIMENTS
        .iter()
        .copied()
        .filter(|e| results.iter().any(|r| r.experiment == *e))
        .collect()
}

/// The study's JSON: `schemes` with an object per scheme, each with an object per experiment
/// ([`ISSUE_KEYS`] and more); `slides` (each claim beside ours); `failed`.
pub fn json(scale: ReproScale, results: &[ZnsPlusResult]) -> serde_json::Value {
    let mut j = figures_json(scale, results);
    crate::reproduce::claims::insert(&mut j, &claim_specs(results), results, scale.name());
    j
}

/// [`json`] without its claims.
pub fn figures_json(scale: ReproScale, results: &[ZnsPlusResult]) -> serde_json::Value {
    let seeds = crate::reproduce::seeds::seeds_of(results);
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
    serde_json::json!({
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
    })
}
