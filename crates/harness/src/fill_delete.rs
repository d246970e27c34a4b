//! The fill-and-delete experiment: SST-sized files are written and random old ones deleted to
//! keep live data near a target share of the capacity, until a multiple of the capacity has
//! been written or the device runs out of space. Without cleaning, zones holding a little live
//! data cannot be reset and space runs out; with a cleaner the layer keeps going at the price
//! of copied bytes (`zonedb fs fill-delete`). [`run_simulated`] runs it on a simulated device
//! from its spec to the end-of-run fsck (the CLI and `zonedb reproduce znsplus` share it).

use std::sync::Arc;

use zonedb_device::flash::ZnsPlusStats;
use zonedb_device::{DeviceStats, ElidedBytes, SimDevice, SimDeviceSpec, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};

use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsOptions, FsStats, ZoneFs};

use crate::db_bench::HarnessError;

/// The block `ops_per_s` counts: 4 KiB of user data.
pub const OP_BYTES: u64 = 4096;

/// Options of the experiment.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FillDeleteOptions {
    /// Stop after writing this many times the usable IO capacity.
    pub capacity_multiple: u64,
    /// Live data kept near this percentage of the usable IO capacity.
    pub live_pct: u64,
    /// Smallest file, as a percentage of the zone capacity.
    pub min_file_pct: u64,
    /// Largest file, as a percentage of the zone capacity.
    pub max_file_pct: u64,
    /// Seed of sizes, lifetimes and victims.
    pub seed: u64,
    /// Files are written as holes ([`ElidedBytes`]): the same sizes, device commands and
    /// times, but no byte is kept in memory (the device's payload holds only the holes' map),
    /// so a large simulated device fits in RAM. Nothing reads the data back.
    pub elide: bool,
}

impl Default for FillDeleteOptions {
    fn default() -> Self {
        Self {
            capacity_multiple: 3,
            live_pct: 60,
            min_file_pct: 20,
            max_file_pct: 100,
            seed: 1,
            elide: false,
        }
    }
}

/// What happened.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FillDeleteReport {
    /// The options run.
    pub options: FillDeleteOptions,
    /// Whether the layer ran out of space before the end.
    pub ran_out_of_space: bool,
    /// User bytes written when it stopped.
    pub user_bytes_written: u64,
    /// Usable capacity of the IO zones.
    pub capacity_bytes: u64,
    /// Files written.
    pub files_written: u64,
    /// Files deleted.
    pub files_deleted: u64,
    /// Space amplification when it stopped (at the failure, if it failed).
    pub space_amplification_at_end: f64,
    /// Virtual time of the run.
    pub virtual_time_ns: u64,
    /// The layer's statistics at the end.
    pub stats: FsStats,
    /// 4 KiB blocks of user data written per second of virtual time.
    pub ops_per_s: f64,
    /// Median time to write one file (create to close), µs of virtual time.
    pub latency_us_p50: f64,
    /// Its 99th percentile.
    pub latency_us_p99: f64,
    /// The longest file write.
    pub latency_us_max: f64,
}

/// Runs the experiment on a mounted, empty layer.
///
/// # Errors
/// Errors other than running out of space.
pub async fn run<E: Env, D: ZonedDevice>(
    fs: Arc<ZoneFs<E, D>>,
    opts: FillDeleteOptions,
) -> Result<FillDeleteReport, FsError> {
    let env = fs.env().clone();
    let t0 = env.now();
    let mut rng = zonedb_env::SimRng::seed_from_u64(opts.seed);
    let zone_cap = fs.device().geometry().zone_capacity_bytes;
    let capacity: u64 = fs.zone_report().iter().map(|z| z.max_capacity_bytes).sum();
    let target_live = capacity * opts.live_pct / 100;
    let goal = capacity * opts.capacity_multiple;
    let mut live: Vec<(String, u64)> = Vec::new();
    let mut live_bytes = 0u64;
    let (mut written, mut files, mut deleted) = (0u64, 0u64, 0u64);
    let chunk = vec![0x5au8; 256 << 10];
    let mut hole = ElidedBytes::new();
    hole.push_hole(chunk.len() as u64);
    let mut hist = crate::db_bench::new_hist();
    let mut out_of_space = false;
    while written < goal {
        while live_bytes > target_live && !live.is_empty() {
            let i = rng.gen_range(0..live.len() as u64) as usize;
            let (name, size) = live.swap_remove(i);
            fs.delete(&name).await?;
            live_bytes -= size;
            deleted += 1;
        }
        let lo = zone_cap * opts.min_file_pct / 100;
        let hi = (zone_cap * opts.max_file_pct / 100).max(lo + 1);
        let size = rng.gen_range(lo..hi).max(1);
        let lifetime = Lifetime::from_u8(rng.gen_range(3..6) as u8);
        let name = format!("{files:06}.sst");
        let started = env.now();
        let mut w = fs.create(&name, lifetime).await?;
        let mut left = size;
        let mut failed = false;
        while left > 0 {
            let n = left.min(chunk.len() as u64);
            let appended = if opts.elide {
                if n == chunk.len() as u64 {
                    w.append_elided(&hole).await
                } else {
                    w.append_elided(&hole.slice(0, n)).await
                }
            } else {
                w.append(&chunk[..usize::try_from(n).unwrap_or(0)]).await
            };
            match appended {
                Ok(()) => left -= n,
                Err(FsError::NoSpace) => {
                    failed = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !failed {
            match w.close().await {
                Ok(()) => {}
                Err(FsError::NoSpace) => failed = true,
                Err(e) => return Err(e),
            }
        }
        if failed {
            out_of_space = true;
            break;
        }
        // Whole nanoseconds, at least 1 (the histogram's lowest value).
        let _ = hist.record((env.now() - started).max(1));
        files += 1;
        written += size;
        live.push((name, size));
        live_bytes += size;
    }
    let stats = fs.stats();
    let virtual_time_ns = env.now() - t0;
    let us = |ns: u64| ns as f64 / 1e3;
    let q = |p: f64| {
        if hist.is_empty() {
            0.0
        } else {
            us(hist.value_at_quantile(p))
        }
    };
    Ok(FillDeleteReport {
        options: opts,
        ran_out_of_space: out_of_space,
        user_bytes_written: stats.user_bytes_written,
        capacity_bytes: capacity,
        files_written: files,
        files_deleted: deleted,
        space_amplification_at_end: stats.space_amplification,
        virtual_time_ns,
        ops_per_s: if virtual_time_ns == 0 {
            0.0
        } else {
            (stats.user_bytes_written / OP_BYTES) as f64 / (virtual_time_ns as f64 / 1e9)
        },
        latency_us_p50: q(0.5),
        latency_us_p99: q(0.99),
        latency_us_max: if hist.is_empty() { 0.0 } else { us(hist.max()) },
        stats,
    })
}

/// A fill-and-delete run on a simulated device ([`run_simulated`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct SimFillDelete {
    /// The device's profile, resolved (e.g. `splitzns-paper@1/8`).
    pub profile: String,
    /// Its flash chips.
    pub chips: u32,
    /// What the experiment reported.
    pub report: FillDeleteReport,
    /// The device's counters at the end.
    pub device: DeviceStats,
    /// A ZNS+ device's counters (`None` on other devices).
    pub znsplus: Option<ZnsPlusStats>,
}

impl SimFillDelete {
    /// Bytes that crossed the host link: the device's bytes read and written.
    pub fn host_link_bytes(&self) -> u64 {
        self.device.bytes_read + self.device.bytes_written
    }

    /// Zones reclaimed by threaded logging over all zones reclaimed (by it or by cleaning);
    /// 0 when none was.
    pub fn threaded_logging_share(&self) -> f64 {
        threaded_logging_share(&self.report.stats)
    }
}

/// `threaded_reclaims / (threaded_reclaims + gc_zone_resets)`, 0 when both are 0.
pub fn threaded_logging_share(s: &FsStats) -> f64 {
    let all = s.znsplus.threaded_reclaims + s.gc_zone_resets;
    if all == 0 {
        0.0
    } else {
        s.znsplus.threaded_reclaims as f64 / all as f64
    }
}

/// Builds the simulated device of `spec` (checker off) in a simulation seeded with `opts.seed`,
/// formats and mounts the zone layer with `fs_opts`, runs the experiment, then checks the
/// layer with fsck (no cleaning pass in flight, every file closed).
///
/// # Errors
/// Bad device settings ([`HarnessError::Device`]); the layer's errors other than running out
/// of space; [`HarnessError::Invariant`] when fsck finds a problem (the run's figures are
/// void); [`HarnessError::Sim`] if the simulation deadlocks.
pub fn run_simulated(
    spec: &SimDeviceSpec,
    fs_opts: FsOptions,
    opts: FillDeleteOptions,
) -> Result<SimFillDelete, HarnessError> {
    let profile = spec.profile()?;
    let env = SimEnv::new(SimConfig::with_seed(opts.seed));
    let dev = Arc::new(spec.build(env.clone())?);
    dev.set_checking(false);
    let env2 = env.clone();
    let dev2 = dev.clone();
    let outcome = env.run(async move {
        ZoneFs::<SimEnv, SimDevice<SimEnv>>::mkfs(dev2.as_ref(), 0).await?;
        let fs = ZoneFs::mount(env2, dev2, fs_opts).await?;
        let report = run(fs.clone(), opts).await?;
        crate::invariants::fsck(&fs).await?;
        Ok::<_, HarnessError>(report)
    });
    // Tasks still queued (the cleaner's loop) hold the device: end them with the run.
    env.kill_all_tasks();
    let report = outcome.map_err(HarnessError::Sim)??;
    Ok(SimFillDelete {
        profile: profile.name,
        chips: profile.flash.chips(),
        report,
        device: dev.stats(),
        znsplus: dev
            .capabilities()
            .in_device_copy
            .map(zonedb_device::InDeviceCopy::znsplus_stats),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn greedy() -> FsOptions {
        FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("greedy", 20).unwrap(),
            ..FsOptions::default()
        }
    }

    fn figures(r: &SimFillDelete) -> serde_json::Value {
        let mut v = serde_json::to_value(r).unwrap();
        v["report"]["options"]["elide"] = serde_json::Value::Null;
        v
    }

    #[test]
    fn elided_files_give_the_same_run_and_every_run_is_checked() {
        let spec = SimDeviceSpec::new("splitzns-paper", "1/256");
        let opts = FillDeleteOptions {
            live_pct: 70,
            ..FillDeleteOptions::default()
        };
        let dense = run_simulated(&spec, greedy(), opts.clone()).unwrap();
        let elided = run_simulated(
            &spec,
            greedy(),
            FillDeleteOptions {
                elide: true,
                ..opts.clone()
            },
        )
        .unwrap();
        assert!(!dense.report.ran_out_of_space);
        assert!(dense.report.stats.gc_copied_bytes > 0);
        assert_eq!(figures(&dense), figures(&elided));
        assert!(dense.report.ops_per_s > 0.0);
        assert!(dense.report.latency_us_p99 >= dense.report.latency_us_p50);
        assert!(dense.report.latency_us_max >= dense.report.latency_us_p99);
        assert!(dense.znsplus.is_none());
        assert_eq!(
            dense.host_link_bytes(),
            dense.device.bytes_read + dense.device.bytes_written
        );
        // A ZNS+ device with 4 chips in all reports its counters.
        let plus = run_simulated(
            &spec
                .clone()
                .chips(Some(4))
                .znsplus(Some(zonedb_device::flash::ZnsPlusConfig::reference())),
            greedy(),
            opts,
        )
        .unwrap();
        assert_eq!(plus.chips, 4);
        assert!(plus.znsplus.is_some());
        assert!(plus.threaded_logging_share().abs() < f64::EPSILON);
    }
}
