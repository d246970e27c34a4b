//! Flags shared by the commands that run the engine (`bench`, `ycsb`): where the database
//! lives (simulated device or a file-backed one in `--db`) and the engine options under
//! RocksDB's names; and running a job on that store in the right environment.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use zonedb_device::flash::Scheduler;
use zonedb_device::sim::spec::SimPayload;
use zonedb_device::{
    DeviceError, Profile, RealDevice, SimDevice, SimDeviceSpec, ZoneFileDevice, ZonedDevice,
};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv};
use zonedb_fs::FsOptions;
use zonedb_lsm::options::{CompactionPri, CompactionScheme, Compression, DbOptions};

use super::CliError;

pub fn flag_bool(s: &str) -> Result<bool, String> {
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

fn parse_scheme(s: &str) -> Result<CompactionScheme, String> {
    CompactionScheme::from_name(s).map_err(|e| e.to_string())
}

fn parse_compression(s: &str) -> Result<Compression, String> {
    Compression::from_name(s).map_err(|e| e.to_string())
}

/// Where the database lives.
#[derive(Debug, Clone, Args)]
#[command(rename_all = "snake_case")]
pub struct StoreArgs {
    /// `sim` (virtual time, simulated ZNS SSD) or `real` (file-backed zoned device in --db).
    #[arg(long, default_value = "sim")]
    pub mode: String,
    /// Directory of the database's device (real mode).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A Linux host-managed zoned block device to run on (real mode), such as /dev/nvme0n1.
    #[arg(long, conflicts_with = "db")]
    pub device: Option<PathBuf>,
    /// With --device: send zone appends through io_uring NVMe passthrough.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    pub zone_append: bool,
    /// Reopen the database in --db instead of starting fresh.
    #[arg(long, num_args = 0..=1, default_value = "false", default_missing_value = "true", value_parser = flag_bool)]
    pub use_existing_db: bool,
    /// Real mode: run flush, compaction and zone cleaning threads at nice 19 (RocksDB's
    /// `LowerThreadPoolCPUPriority` with `kLow`), so foreground operations go first and write
    /// stalls, not the scheduler, hold a writer back. Default true; `=false` for equal priority.
    #[arg(long, num_args = 0..=1, default_value = "true", default_missing_value = "true", value_parser = flag_bool)]
    pub lower_background_cpu_priority: bool,
    /// Device profile (geometry of a new real device; the simulated device in sim mode; the
    /// accepted names come from the profile list).
    #[arg(long, default_value = "splitzns-paper", help = profile_help())]
    pub profile: String,
    /// Scale of the profile.
    #[arg(long, default_value = "1/8")]
    pub scale: String,
    /// Zone cleaner of the file layer (the accepted names come from the registry).
    #[arg(long, default_value = "zenfs", help = cleaner_help())]
    pub cleaner: String,
    /// Zone placement of the file layer (the accepted names come from the registry).
    #[arg(long, default_value = "liza", help = placement_help())]
    pub placement: String,
    /// The authors' ZenFS blocking model: while zone cleaning runs, no flush or compaction
    /// starts; checked again every this many ms (their ZenFS: 1000). 0 = off.
    #[arg(long, default_value_t = 0)]
    pub zc_blocking_poll_ms: u64,
    /// The authors' allocation-retry blocking model: a writer whose zone allocation finds no
    /// space sleeps this long and retries (their ZenFS fork: 1000); 0 = clean in the
    /// foreground instead.
    #[arg(long, default_value_t = 0)]
    pub alloc_retry_blocking_ms: u64,
    /// Divide the zone layer's time constants (`--zc_blocking_poll_ms`,
    /// `--alloc_retry_blocking_ms`, the cleaner's 10 s period) by the scale's N, as sizes are
    /// (a scenario's `fs.scale_time_constants`); `=false` keeps the paper's values.
    #[arg(long, default_value = "true", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set, value_parser = flag_bool)]
    pub scale_time_constants: bool,
    /// Open zone limit of the device (the profile's own if absent; 0 = none).
    #[arg(long)]
    pub max_open_zones: Option<u32>,
    /// Active zone limit of the device (the profile's own if absent; 0 = none).
    #[arg(long)]
    pub max_active_zones: Option<u32>,
    /// Sim mode: how the simulated SSD orders work queued on a die (the accepted names come
    /// from the scheduler list).
    #[arg(long, help = scheduler_help())]
    pub scheduler: Option<String>,
    /// Page cache of the file layer's reads, bytes (0 = off: every read goes to the device).
    #[arg(long, default_value_t = 0)]
    pub page_cache_size: u64,
    /// Largest readahead window of the page cache, KiB (Linux's read_ahead_kb).
    #[arg(long, default_value_t = 128)]
    pub readahead_kb: u64,
}

impl StoreArgs {
    /// The device profile these flags describe.
    ///
    /// # Errors
    /// Unknown profile, bad scale or limits.
    pub fn profile(&self) -> Result<Profile, CliError> {
        let scheduler = self
            .scheduler
            .as_deref()
            .map(Scheduler::by_name)
            .transpose()?;
        Ok(SimDeviceSpec::new(&self.profile, &self.scale)
            .zone_limits(self.max_open_zones, self.max_active_zones)
            .scheduler(scheduler)
            .profile()?)
    }
}

/// Engine options under RocksDB's names.
#[derive(Debug, Args)]
#[command(rename_all = "snake_case")]
pub struct EngineArgs {
    /// Engine options from a TOML file (RocksDB names); the flags below override it.
    #[arg(long)]
    options_file: Option<PathBuf>,
    /// Memtable size in bytes before it is flushed (default 64 MiB).
    #[arg(long)]
    write_buffer_size: Option<u64>,
    /// Memtables in memory at most, the active one included; writes stall at the limit
    /// (default 2).
    #[arg(long)]
    max_write_buffer_number: Option<u32>,
    /// Compaction output SST size in bytes (default 64 MiB).
    #[arg(long)]
    target_file_size_base: Option<u64>,
    /// Compaction outputs never pass the target file size, footer included (RocksDB's rule,
    /// the default false, ends them a little past it)
    #[arg(long, value_parser = flag_bool, num_args = 0..=1, default_missing_value = "true")]
    target_file_size_hard_cap: Option<bool>,
    /// Target size of level 1 in bytes (default 256 MiB).
    #[arg(long)]
    max_bytes_for_level_base: Option<u64>,
    /// Each level's target size over the previous level's (default 10).
    #[arg(long)]
    max_bytes_for_level_multiplier: Option<f64>,
    /// Level targets derived from the last level's size, as RocksDB's option (default true;
    /// false: static targets from `max_bytes_for_level_base`).
    #[arg(long, value_parser = flag_bool)]
    level_compaction_dynamic_level_bytes: Option<bool>,
    /// L0 files that start an L0 compaction (default 4).
    #[arg(long)]
    level0_file_num_compaction_trigger: Option<u32>,
    /// L0 files at which writes are slowed (default 20).
    #[arg(long)]
    level0_slowdown_writes_trigger: Option<u32>,
    /// L0 files at which writes stop until compaction catches up (default 36).
    #[arg(long)]
    level0_stop_writes_trigger: Option<u32>,
    /// Flushes and compactions run at once (default 2).
    #[arg(long)]
    max_background_jobs: Option<u32>,
    /// Start-file order of a compaction: 0-4 or kByCompensatedSize, kOldestLargestSeqFirst,
    /// kOldestSmallestSeqFirst, kMinOverlappingRatio, kRoundRobin (default
    /// kMinOverlappingRatio).
    #[arg(long, value_parser = parse_pri)]
    compaction_pri: Option<CompactionPri>,
    /// Victim selection (the accepted names come from the registry).
    #[arg(long, value_parser = parse_scheme, help = scheme_help())]
    compaction_scheme: Option<CompactionScheme>,
    /// ACC: ZACA only at or below this free space, percent (default 25).
    #[arg(long)]
    acc_turning_point: Option<u32>,
    /// ACC: ZACA only from this start level on (default 2; 0 = every level).
    #[arg(long)]
    acc_min_start_level: Option<u32>,
    /// LLC (`llc`, `llc-relocate`): outputs past the start level's new cursor go to a
    /// temporary zone group (the code's level 7) on `level-zones` (default false).
    #[arg(long, value_parser = flag_bool, num_args = 0..=1, default_missing_value = "true")]
    llc_temp_zones: Option<bool>,
    /// acc-artifact: the code's ZACA only below this free space, percent (default 25; 101 =
    /// always).
    #[arg(long)]
    max_compaction_kick: Option<u32>,
    /// acc-artifact: the code's ZACA only from this start level on (default 2).
    #[arg(long)]
    max_compaction_start_level: Option<u32>,
    /// SST data block size in bytes, before compression (default 4 KiB).
    #[arg(long)]
    block_size: Option<u64>,
    /// Bloom bits per key (-1 = engine default 10, 0 = none, at most 64).
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-1..=64))]
    bloom_bits: Option<i64>,
    /// Block cache bytes (default 32 MiB).
    #[arg(long)]
    cache_size: Option<u64>,
    /// Compaction input readahead, bytes (default 2 MiB; 0 = one read per data block).
    #[arg(long)]
    compaction_readahead_size: Option<u64>,
    /// Sync the WAL on every write (default false).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    sync: Option<bool>,
    /// Skip the WAL (default false).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    disable_wal: Option<bool>,
    /// Keep WAL write groups in the WAL's buffer until a sync or a full buffer (ZenFS's
    /// semantics; false: each group reaches the file-backed device's host cache before the
    /// write returns, as RocksDB's default; default false).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    manual_wal_flush: Option<bool>,
    /// Data block compression (db_bench's flag; option `compression`).
    #[arg(long = "compression_type", value_parser = parse_compression, help = compression_help())]
    compression: Option<Compression>,
    /// Allow L0 → L0 compactions when L0 → base is blocked (default true; the MSST'24 fork's
    /// db_bench spells it --enable_intraL0_compaction, also accepted).
    #[arg(long, alias = "enable_intraL0_compaction", num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    enable_intra_l0_compaction: Option<bool>,
    /// Delete the files a finished flush or compaction made obsolete in a background purge
    /// job (RocksDB's option; default false: the job deletes them before it ends)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = flag_bool)]
    avoid_unnecessary_blocking_io: Option<bool>,
    /// Split a compaction below L0 into up to this many key ranges run in parallel
    /// (db_bench's flag; option max_subcompactions, default 1).
    #[arg(long = "subcompactions", alias = "max_subcompactions")]
    max_subcompactions: Option<u32>,
}

/// The engine options the flags describe (`use_existing_db` turns `create_if_missing` off).
pub fn engine_options(a: &EngineArgs, use_existing_db: bool) -> Result<DbOptions, CliError> {
    let mut o = match &a.options_file {
        Some(p) => {
            let text = zonedb_harness::input::read_to_string(p).map_err(CliError::io(p))?;
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
        target_file_size_hard_cap,
        max_bytes_for_level_base,
        max_bytes_for_level_multiplier,
        level_compaction_dynamic_level_bytes,
        level0_file_num_compaction_trigger,
        level0_slowdown_writes_trigger,
        level0_stop_writes_trigger,
        max_background_jobs,
        compaction_pri,
        compaction_scheme,
        acc_turning_point,
        acc_min_start_level,
        llc_temp_zones,
        max_compaction_kick,
        max_compaction_start_level,
        block_size,
        compaction_readahead_size,
        sync,
        disable_wal,
        manual_wal_flush,
        compression,
        enable_intra_l0_compaction,
        max_subcompactions,
        avoid_unnecessary_blocking_io
    );
    if let Some(b) = a.bloom_bits
        && b >= 0
    {
        o.bloom_bits_per_key = u32::try_from(b).unwrap_or(u32::MAX);
    }
    if let Some(c) = a.cache_size {
        o.block_cache_size = c;
    }
    o.create_if_missing = !use_existing_db;
    o.validate().map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(o)
}

/// The file layer options the flags describe.
pub fn fs_options(a: &StoreArgs) -> Result<FsOptions, CliError> {
    let div = if a.scale_time_constants {
        u64::from(
            zonedb_device::profile::parse_scale(&a.scale)
                .map_err(|e| CliError::Usage(e.to_string()))?,
        )
    } else {
        1
    };
    let scaled = |ms| zonedb_harness::scenario::scale_ms_to_ns(ms, div);
    Ok(FsOptions {
        cleaner: zonedb_fs::cleaning::by_name(&a.cleaner, 20)
            .map_err(|e| CliError::Usage(e.to_string()))?,
        placement: zonedb_fs::placement::by_name(&a.placement)
            .map_err(|e| CliError::Usage(e.to_string()))?,
        zone_append: a.zone_append,
        zc_blocking_poll_ns: scaled(a.zc_blocking_poll_ms),
        alloc_retry_blocking_ns: scaled(a.alloc_retry_blocking_ms),
        cleaning_interval_ns: scaled(zonedb_harness::scenario::DEFAULT_CLEANING_INTERVAL_MS),
        page_cache_size_bytes: a.page_cache_size,
        readahead_kb: a.readahead_kb,
        ..FsOptions::default()
    })
}

/// A job to run on the store, in whichever environment the mode asks for.
pub trait StoreJob {
    /// What it returns.
    type Out;
    /// Runs with `fresh` = the device was just created or is to be reformatted.
    async fn run<E: Env, D: ZonedDevice>(
        self,
        env: &E,
        dev: &Arc<D>,
        fresh: bool,
    ) -> Result<Self::Out, CliError>;
}

/// Runs `job` on the store `a` describes (a simulated device of `profile`, or the
/// file-backed device in `--db`).
pub fn run_on_store<J: StoreJob>(
    a: &StoreArgs,
    profile: &Profile,
    seed: u64,
    job: J,
) -> Result<J::Out, CliError> {
    match a.mode.as_str() {
        "sim" => {
            if a.device.is_some() || a.zone_append {
                return Err(CliError::Usage(
                    "--device and --zone_append need --mode real".into(),
                ));
            }
            if a.use_existing_db {
                return Err(CliError::Usage(
                    "--use_existing_db needs --mode real (a simulated device lives for one run)"
                        .into(),
                ));
            }
            let env = SimEnv::new(SimConfig {
                seed,
                ..SimConfig::default()
            });
            let dev = Arc::new(SimDevice::new(
                env.clone(),
                profile.clone(),
                &SimPayload::Memory,
            )?);
            let e2 = env.clone();
            env.run(async move { job.run(&e2, &dev, true).await })?
        }
        "real" => {
            let dev = open_real(a, profile)?;
            let dev = Arc::new(dev);
            let env = RealEnv::new(seed);
            if !a.lower_background_cpu_priority {
                env.set_background_nice(0);
            }
            env.block_on(job.run(&env, &dev, !a.use_existing_db))
        }
        other => Err(CliError::Usage(format!(
            "unknown --mode '{other}'; known: sim, real"
        ))),
    }
}

/// The real-mode device `a` names: the block device of `--device`, or the file-backed device
/// in `--db` (created with `profile`'s geometry when absent and not reopening).
fn open_real(a: &StoreArgs, profile: &Profile) -> Result<RealDevice, CliError> {
    if let Some(path) = &a.device {
        let dev = RealDevice::open_block(path)?;
        if a.zone_append {
            enable_zone_append(&dev)?;
        }
        return Ok(dev);
    }
    if a.zone_append {
        return Err(CliError::Usage(
            "--zone_append needs --device (an NVMe ZNS namespace)".into(),
        ));
    }
    let dir =
        a.db.as_ref()
            .ok_or_else(|| CliError::Usage("--mode real needs --db DIR or --device PATH".into()))?;
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
    Ok(RealDevice::File(dev))
}

/// Turns on zone append through io_uring passthrough on a block device.
pub fn enable_zone_append(dev: &RealDevice) -> Result<(), CliError> {
    match dev {
        #[cfg(target_os = "linux")]
        RealDevice::Block(b) => Ok(b.enable_zone_append()?),
        RealDevice::File(_) => Err(CliError::Usage(
            "--zone_append needs a zoned block device (--device)".into(),
        )),
    }
}

/// `--cleaner`'s help: every name the cleaner registry accepts.
fn cleaner_help() -> String {
    let names: Vec<&str> = zonedb_fs::cleaning::names().collect();
    format!("Zone cleaner of the file layer: {}", names.join(", "))
}

/// `--placement`'s help: every name the placement registry accepts.
fn placement_help() -> String {
    format!(
        "Zone placement of the file layer: {} (the families liza+KEY+... and caza+KEY+... are \
         the Same-Zone paper's text-to-code steps)",
        zonedb_fs::placement::registry::names().join(", ")
    )
}

/// `--compaction_scheme`'s help: every scheme the engine accepts, with what the main ones are.
fn scheme_help() -> String {
    format!(
        "Victim selection: {} (rocksdb: compaction_pri order, the MSST'24 Baseline; sica, zaca, \
         acc: the Same-Zone paper's text; *-artifact: its code; llc: Lifetime-Leveling \
         Compaction, llc-relocate with its code's cursor sweep; gear: GearDB's cascade; \
         default rocksdb)",
        CompactionScheme::NAMES.join(", ")
    )
}

/// `--profile`'s help: every flash profile the device crate knows.
fn profile_help() -> String {
    format!(
        "Device profile (geometry of a new real device; the simulated device in sim mode): {}",
        zonedb_device::profile::PROFILE_NAMES.join(", ")
    )
}

/// `--scheduler`'s help: every scheduler the simulated SSD accepts.
fn scheduler_help() -> String {
    format!(
        "Sim mode: how the simulated SSD orders work queued on a die: {} (priority: query \
         reads first, then background reads, writes, erases; query-first: query reads first). \
         Default: the profile's, fifo",
        Scheduler::names().join(", ")
    )
}

/// `--compression_type`'s help: every compression the engine accepts.
fn compression_help() -> String {
    format!(
        "Data block compression (db_bench's flag; option `compression`): {} (default none)",
        Compression::NAMES.join(", ")
    )
}
