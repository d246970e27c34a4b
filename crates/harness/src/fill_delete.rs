//! The fill-and-delete experiment: SST-sized files are written and random old ones deleted to
//! keep live data near a target share of the capacity, until a multiple of the capacity has
//! been written or the device runs out of space. Without cleaning, zones holding a little live
//! data cannot be reset and space runs out; with a cleaner the layer keeps going at the price
//! of copied bytes (`zonedb fs fill-delete`).

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;

use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsStats, ZoneFs};

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
}

impl Default for FillDeleteOptions {
    fn default() -> Self {
        Self {
            capacity_multiple: 3,
            live_pct: 60,
            min_file_pct: 20,
            max_file_pct: 100,
            seed: 1,
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
        let mut w = fs.create(&name, lifetime).await?;
        let mut left = size;
        let mut failed = false;
        while left > 0 {
            let n = left.min(chunk.len() as u64);
            match w.append(&chunk[..usize::try_from(n).unwrap_or(0)]).await {
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
        files += 1;
        written += size;
        live.push((name, size));
        live_bytes += size;
    }
    let stats = fs.stats();
    Ok(FillDeleteReport {
        options: opts,
        ran_out_of_space: out_of_space,
        user_bytes_written: stats.user_bytes_written,
        capacity_bytes: capacity,
        files_written: files,
        files_deleted: deleted,
        space_amplification_at_end: stats.space_amplification,
        virtual_time_ns: env.now() - t0,
        stats,
    })
}
