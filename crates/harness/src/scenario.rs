//! Scenario files (TOML): a device profile and scale, the file layer's policies, engine options
//! under RocksDB's names, a workload, a seed, and optional `[[compare]]` variants that override
//! any of those. A run is a pure function of the resolved scenario.
//!
//! ```toml
//! name = "default"
//! seed = 1
//! [device]
//! profile = "splitzns-paper"
//! scale = "1/64"
//! [fs]
//! cleaner = "zenfs"
//! [engine]
//! write_buffer_size = 4194304
//! [workload]
//! benchmarks = "fillrandom,overwrite,readrandom"
//! num = 200000
//! [[compare]]
//! name = "greedy cleaning"
//! fs = { cleaner = "greedy" }
//! ```
//!
//! Studies derive their configurations from a base file with typed [`Override`]s
//! ([`Scenario::base`], [`Scenario::with`]).

use serde::{Deserialize, Serialize};

use crate::benchmark::{BENCHMARKS, Benchmark};
use crate::db_bench::{BenchConfig, HarnessError};

mod overrides;

pub use overrides::Override;

fn default_seed() -> u64 {
    1
}

/// The device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeviceSection {
    /// Profile name (`zonedb device profiles`).
    pub profile: String,
    /// Scale `1/N`.
    pub scale: String,
    /// Flash chips in all, every zone striped over them (`Profile::with_chips`; the
    /// profile's own array if absent; applied before `chips_per_zone`). Left out of
    /// serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chips: Option<u32>,
    /// Chips each zone is striped over (the profile's own if absent).
    pub chips_per_zone: Option<u32>,
    /// Zone size in MiB at full scale with the device's capacity fixed (SplitZNS Fig 3:
    /// 128 MiB is 4 chips x one block row, 1 GiB two rows over 16 chips on
    /// `splitzns-paper`; the zone count follows). Applied before `scale`; the profile's own
    /// if absent. Left out of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_size_mib: Option<u32>,
    /// Erase block size in KiB at full scale (SplitZNS's knob: Fig 3 keeps every zone size
    /// over all chips, Fig 16b every chip count at one zone size, by resizing blocks). Applied
    /// first, before `zone_size_mib` and `scale`; the profile's own if absent. Left out of
    /// serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_kib: Option<u32>,
    /// Block erase latency (tBERS) in µs (the profile's own if absent). Left out of
    /// serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_erase_us: Option<u32>,
    /// Only the first this many zones of the profile (all if absent); open / active limits
    /// above it are clipped to it. Left out of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_count: Option<u32>,
    /// Open zone limit (the profile's own if absent; 0 = none).
    pub max_open_zones: Option<u32>,
    /// Active zone limit (the profile's own if absent; 0 = none).
    pub max_active_zones: Option<u32>,
    /// How die work waits for its die, the queueing discipline (flash): `fifo` (the
    /// profile's own: a die starts its operations in issue order, each once its data is ready,
    /// as the open ZNS emulators book a chip at submission) or `per-die` (work-conserving
    /// per-die queues: a die that frees serves the first issued of the operations that are
    /// ready). Give every scheme of a comparison the same one: SplitZNS's `read_scheduler`
    /// puts query reads first within it (on `per-die` that is all it changes; on `fifo`, whose
    /// booking at issue cannot be reordered, the device then queues its work and books read
    /// transfers when their die work is done), and `scheduler` only orders within it when
    /// both are given. Absent: the discipline `scheduler` names (`fifo` without it). Left out
    /// of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queueing: Option<String>,
    /// The order queued die work is served in, with the discipline it implies unless
    /// `queueing` is given (flash; the profile's own, `fifo`, if absent): `fifo` (issue
    /// order, booked at issue), `per-die` (issue order on per-die queues), `query-first`
    /// (query reads first, the rest in issue order; per-die queues), `priority` (query reads,
    /// background reads, programs, erases; per-die queues), `fifo-query-first` and
    /// `fifo-priority` (those orders on FIFO queueing). Left out of serialized scenarios when
    /// absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// When a zone reset or a SplitZNS MERGE completes: `after-erase` (the default) or
    /// `at-once` (FEMU's timing: the erase still occupies the dies). Left out of serialized
    /// scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset_ack: Option<String>,
    /// The device kind: `zns` (the default; an HM-SMR HDD for a disk profile), `splitzns`
    /// (split zones, with the accelerations of `[device.splitzns]`) or `hybrid` (a ZNS SSD's
    /// zones, then an HM-SMR HDD's: `[device.ssd]` and `[device.hdd]`). Left out of serialized
    /// scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// SplitZNS accelerations (`ring`, `ring_bytes`, `read_scheduler`, `prefetcher`,
    /// `prefetch_bytes`) for `kind = "splitzns"`; all on, paper sizes, when absent.
    /// `read_scheduler` puts query reads first within `queueing` and changes nothing else
    /// about how the device queues. Left out of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub splitzns: Option<zonedb_device::SplitZnsConfig>,
    /// ZNS+'s commands (`copyback_ns`, `read_program_ns`, `max_copy_blocks`,
    /// `max_threaded_zones`) for `kind = "znsplus"`; the reference's values (840 / 940 µs, 512,
    /// 6) when absent. Left out of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub znsplus: Option<zonedb_device::flash::ZnsPlusConfig>,
    /// `kind = "hybrid"`: the SSD (a flash profile), a device section of its own. Left out of
    /// serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssd: Option<Box<DeviceSection>>,
    /// `kind = "hybrid"`: the HDD (a disk profile), a device section of its own. Left out of
    /// serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdd: Option<Box<DeviceSection>>,
}

impl Default for DeviceSection {
    fn default() -> Self {
        Self {
            profile: "splitzns-paper".into(),
            scale: "1/64".into(),
            chips: None,
            chips_per_zone: None,
            zone_size_mib: None,
            block_kib: None,
            block_erase_us: None,
            zone_count: None,
            max_open_zones: None,
            max_active_zones: None,
            queueing: None,
            scheduler: None,
            reset_ack: None,
            kind: None,
            splitzns: None,
            znsplus: None,
            ssd: None,
            hdd: None,
        }
    }
}

/// The zone file layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "a scenario file's independent [fs] switches, each under its own name"
)]
pub struct FsSection {
    /// Placement policy (a name of `zonedb_fs::placement::registry`).
    pub placement: String,
    /// Cleaner: `none`, `greedy`, `zenfs`.
    pub cleaner: String,
    /// Free-space threshold of the greedy cleaner, percent.
    pub gc_threshold: u32,
    /// ZenFS's finish threshold, percent.
    pub finish_threshold: u32,
    /// The authors' ZenFS blocking model: while zone cleaning runs no flush or compaction
    /// starts, checked every this many ms (their ZenFS: 1000); 0 = off. Divided by the
    /// device's scale with the other time constants (`scale_time_constants`).
    pub zc_blocking_poll_ms: u64,
    /// The authors' allocation-retry blocking model, ms per attempt (0 = off; their fork:
    /// 1000): `zonedb_fs::fs::FsOptions::alloc_retry_blocking_ns`. Divided by the device's
    /// scale (`scale_time_constants`).
    pub alloc_retry_blocking_ms: u64,
    /// Period of the background zone cleaner, ms (ZenFS: 10 s); 0 = no background cleaning.
    /// Divided by the device's scale (`scale_time_constants`). Left out of JSON while 10000.
    #[serde(skip_serializing_if = "is_default_cleaning_interval")]
    pub cleaning_interval_ms: u64,
    /// Divide every time constant of the zone layer and its policies by the device's scale
    /// `1/N`, as sizes are divided: `zc_blocking_poll_ms`, `alloc_retry_blocking_ms`,
    /// `cleaning_interval_ms`, and the hybrid policies' 1 s migration and AUTO periods. A
    /// device N times smaller holds a run N times shorter (the bandwidth and latencies are the
    /// paper's), so a 1 s poll left as it is would weigh N times more. Rates (MiB/s) keep
    /// their value: bytes and seconds both shrink. `false` keeps the paper's wall-clock
    /// values at any scale (an ablation). Left out of JSON while true.
    #[serde(skip_serializing_if = "is_true")]
    pub scale_time_constants: bool,
    /// Page cache of buffered reads, bytes (0 = off). Left out of JSON while 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub page_cache_size: u64,
    /// Largest readahead window of the page cache, KiB (Linux's `read_ahead_kb`). Left out of
    /// JSON while 128.
    #[serde(skip_serializing_if = "is_default_readahead_kb")]
    pub readahead_kb: u64,
    /// `placement = "selective"` (SplitZNS's selective allocator, on a `kind = "splitzns"`
    /// device): SSTs of this level and deeper go to subzones (the paper: 4). Left out of JSON
    /// while 4.
    #[serde(skip_serializing_if = "is_default_selective_min_level")]
    pub selective_min_level: u32,
    /// `placement = "selective"`: at most this percentage of the IO zones split at once (the
    /// paper: 60). Left out of JSON while 60.
    #[serde(skip_serializing_if = "is_default_selective_max_split_pct")]
    pub selective_max_split_pct: u32,
    /// Hybrid placements that migrate (`hhzs-pm`, `hhzs`, `hybrid-bN-m`): the migration
    /// rate limit, MiB/s (HHZS: 4). Left out of JSON while 4.
    #[serde(skip_serializing_if = "is_default_migration_rate")]
    pub migration_rate_mib_s: u64,
    /// Hybrid migration's copy size, KiB (128). Left out of JSON while 128.
    #[serde(skip_serializing_if = "is_default_migration_chunk")]
    pub migration_chunk_kib: u64,
    /// HHZS placements: running compactions add their storage demand to the tiering rule
    /// (§3.3; `false` is an ablation counting only allocated zones). Left out of JSON while
    /// true.
    #[serde(skip_serializing_if = "is_true")]
    pub hhzs_compaction_demand: bool,
    /// How cleaning moves live data: `host` (read and write through the host, as ZenFS) or
    /// `izc` (ZNS+'s in-device zone compaction; a `kind = "znsplus"` device). Left out of
    /// JSON while `host`.
    #[serde(skip_serializing_if = "is_host")]
    pub zone_copy: String,
    /// `zone_copy = "izc"`: copyback-aware destination allocation (CAB; `false`: CUB, the
    /// order the live data has, which is what the ZNS+ artifact compiles). Left out of JSON
    /// while true.
    #[serde(skip_serializing_if = "is_true")]
    pub copyback_aware: bool,
    /// ZNS+'s hybrid recycling: reclaim a zone by threaded logging when that costs less than
    /// cleaning it (a `kind = "znsplus"` device). Left out of JSON while false.
    #[serde(skip_serializing_if = "is_false")]
    pub threaded_logging: bool,
    /// When threaded logging is weighed: `victim` (whenever the cleaner has a victim) or
    /// `need-ssr` (also only near F2FS's reserve, the artifact's `need_SSR`). Left out of JSON
    /// while `victim`.
    #[serde(skip_serializing_if = "is_victim")]
    pub threaded_trigger: String,
}

fn is_victim(v: &str) -> bool {
    v == "victim"
}

fn is_host(v: &str) -> bool {
    v == "host"
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_false(v: &bool) -> bool {
    !*v
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_migration_chunk(v: &u64) -> bool {
    *v == DEFAULT_MIGRATION_CHUNK_KIB
}

/// Hybrid migration's copy size, KiB.
const DEFAULT_MIGRATION_CHUNK_KIB: u64 = 128;

/// ZenFS's background cleaner period, ms.
pub const DEFAULT_CLEANING_INTERVAL_MS: u64 = 10_000;

/// `ms` milliseconds divided by `div`, in ns; at least 1 when `ms` is not 0, so that a
/// scaled constant never turns a model off. Scenarios ([`Scenario::scaled_ms_to_ns`]) and
/// `zonedb bench`'s flags scale their time constants with it.
pub fn scale_ms_to_ns(ms: u64, div: u64) -> u64 {
    if ms == 0 {
        return 0;
    }
    (ms.saturating_mul(1_000_000) / div.max(1)).max(1)
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_cleaning_interval(v: &u64) -> bool {
    *v == DEFAULT_CLEANING_INTERVAL_MS
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_migration_rate(v: &u64) -> bool {
    *v == DEFAULT_MIGRATION_RATE_MIB_S
}

/// HHZS's migration rate, MiB/s.
const DEFAULT_MIGRATION_RATE_MIB_S: u64 = 4;

impl FsSection {
    /// The placement policy of this section (`selective` with its two settings).
    ///
    /// # Errors
    /// [`HarnessError::Config`] for an unknown policy or bad settings.
    /// `time_div` divides the policies' periods ([`Scenario::time_div`]).
    pub fn placement_policy(
        &self,
        time_div: u64,
    ) -> Result<std::sync::Arc<dyn zonedb_fs::PlacementPolicy>, HarnessError> {
        use zonedb_fs::hybrid::placement::HybridSettings;
        use zonedb_fs::placement::registry::{self, PlacementSettings};
        let bad = |e: String| HarnessError::config("fs.placement", e);
        let entry = registry::entry(&self.placement).map_err(|e| bad(e.to_string()))?;
        if entry.pattern != registry::Pattern::Exact(zonedb_fs::split::selective::NAME)
            && (self.migration_rate_mib_s == 0 || self.migration_chunk_kib == 0)
        {
            return Err(bad(
                "migration_rate_mib_s and migration_chunk_kib must be at least 1".into(),
            ));
        }
        let settings = PlacementSettings {
            selective_min_level: self.selective_min_level,
            selective_max_split_pct: self.selective_max_split_pct,
            hybrid: HybridSettings {
                rate_bytes_per_s: self.migration_rate_mib_s.saturating_mul(1 << 20),
                chunk_bytes: self.migration_chunk_kib.saturating_mul(1 << 10),
                period_ns: (HybridSettings::default().period_ns / time_div.max(1)).max(1),
                compaction_demand: self.hhzs_compaction_demand,
            },
        };
        entry
            .make(&self.placement, &settings)
            .map_err(|e| bad(e.to_string()))
    }
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_selective_min_level(v: &u32) -> bool {
    *v == zonedb_fs::split::selective::DEFAULT_MIN_LEVEL
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_selective_max_split_pct(v: &u32) -> bool {
    *v == zonedb_fs::split::selective::DEFAULT_MAX_SPLIT_PCT
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_readahead_kb(v: &u64) -> bool {
    *v == DEFAULT_READAHEAD_KB
}

/// Linux's default `read_ahead_kb`.
const DEFAULT_READAHEAD_KB: u64 = 128;

impl Default for FsSection {
    fn default() -> Self {
        Self {
            placement: "liza".into(),
            cleaner: "zenfs".into(),
            gc_threshold: 20,
            finish_threshold: 0,
            zc_blocking_poll_ms: 0,
            alloc_retry_blocking_ms: 0,
            cleaning_interval_ms: DEFAULT_CLEANING_INTERVAL_MS,
            scale_time_constants: true,
            page_cache_size: 0,
            readahead_kb: DEFAULT_READAHEAD_KB,
            selective_min_level: zonedb_fs::split::selective::DEFAULT_MIN_LEVEL,
            selective_max_split_pct: zonedb_fs::split::selective::DEFAULT_MAX_SPLIT_PCT,
            migration_rate_mib_s: DEFAULT_MIGRATION_RATE_MIB_S,
            migration_chunk_kib: DEFAULT_MIGRATION_CHUNK_KIB,
            hhzs_compaction_demand: true,
            zone_copy: "host".into(),
            copyback_aware: true,
            threaded_logging: false,
            threaded_trigger: "victim".into(),
        }
    }
}

/// The workload: db_bench's benchmarks with its flags, or (`kind = "ycsb"`) a YCSB core
/// workload: `ycsb_file` (a property file, e.g. `workloads/workloada`) and/or `ycsb` (a table
/// of properties overriding it); the load phase runs first, then the transaction phase, then
/// one more transaction phase per `then` table (`[[workload.then]]` with a `ycsb` table of
/// properties over this one's: a zipfian load, then YCSB-A with 4 threads, say).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent TOML switches, one key each"
)]
pub struct WorkloadSection {
    /// `db_bench` (default) or `ycsb`.
    pub kind: String,
    /// YCSB property file.
    pub ycsb_file: Option<String>,
    /// YCSB properties (override the file).
    pub ycsb: toml::Table,
    /// Comma-separated db_bench benchmarks, run in order on one database.
    pub benchmarks: String,
    /// `--num`.
    pub num: u64,
    /// `--reads` (absent = num).
    pub reads: Option<u64>,
    /// `--writes`: writes per thread of the write benchmarks, keys still over `num` (absent =
    /// num). Left out of serialized scenarios when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<u64>,
    /// `--key_size`.
    pub key_size: usize,
    /// `--value_size`.
    pub value_size: usize,
    /// `--threads`.
    pub threads: u32,
    /// `--seek_nexts`.
    pub seek_nexts: u64,
    /// `--batch_size`.
    pub batch_size: u64,
    /// `--readwritepercent`.
    pub readwritepercent: u64,
    /// `--compression_ratio` of the value generator (0.5, db_bench's default).
    pub compression_ratio: f64,
    /// With `kind = "ycsb"`: run YCSB's load phase before the transactions (true; false is
    /// running `ycsb run` without `ycsb load`: the records come from the transactions, say
    /// updates with `upsert`, as a skewed load). Left out of JSON at its default.
    #[serde(skip_serializing_if = "is_true")]
    pub ycsb_load: bool,
    /// Closes the database and opens it again between phases (after YCSB's load, and
    /// before each `then` phase), as when each phase is its own process (`ycsb load` then
    /// `ycsb run`; a second db_bench with `--use_existing_db`): the reopen replays the WAL,
    /// flushes it to L0 and deletes it, and the block cache starts cold. The file layer stays
    /// mounted. Left out of JSON while false.
    #[serde(skip_serializing_if = "is_false")]
    pub reopen_between_phases: bool,
    /// Waits out the flushes and compactions still owed between phases (after YCSB's load,
    /// and before each `then` phase), as db_bench's `waitforcompaction` does: the memtable is
    /// flushed and the next phase starts on a tree that needs no compaction, so a short
    /// measured phase does not pay for work the one before it deferred. Before a reopen when
    /// both are set. Left out of JSON while false.
    #[serde(skip_serializing_if = "is_false")]
    pub wait_for_compactions_between_phases: bool,
    /// `--elide_values`: the workload hands the engine regenerable values as descriptors
    /// (issue 17; default true). The figures are the same either way, so it is left out of
    /// serialized scenarios (and of every report).
    #[serde(skip_serializing)]
    pub elide_values: bool,
    /// db_bench again on the same database, with other flags (`kind = "db_bench"`): each
    /// table overrides this section's keys (`benchmarks`, `num`, `threads`, ...; not
    /// `compression_ratio`) for one more phase, run after `benchmarks` as a second db_bench
    /// with `--use_existing_db` would (a load, then 4 threads x 1 M overwrites of its first
    /// keys, say). With `kind = "ycsb"` a table holds only `ycsb` (properties over this
    /// section's, not the record's shape: `fieldcount`, `fieldlength`, ...) and adds one more
    /// transaction phase ([`Self::ycsb_phases`]). Left out of JSON while empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub then: Vec<toml::Table>,
}

impl Default for WorkloadSection {
    fn default() -> Self {
        let b = BenchConfig::default();
        Self {
            kind: "db_bench".into(),
            ycsb_file: None,
            ycsb: toml::Table::new(),
            benchmarks: "fillrandom,readrandom".into(),
            num: b.num,
            reads: b.reads,
            writes: b.writes,
            key_size: b.key_size,
            value_size: b.value_size,
            threads: b.threads,
            seek_nexts: b.seek_nexts,
            batch_size: b.batch_size,
            readwritepercent: b.readwritepercent,
            compression_ratio: b.compression_ratio,
            ycsb_load: true,
            reopen_between_phases: false,
            wait_for_compactions_between_phases: false,
            elide_values: true,
            then: Vec::new(),
        }
    }
}

impl WorkloadSection {
    /// As db_bench flags, with `seed`.
    pub fn bench_config(&self, seed: u64) -> BenchConfig {
        BenchConfig {
            num: self.num,
            reads: self.reads,
            writes: self.writes,
            key_size: self.key_size,
            value_size: self.value_size,
            threads: self.threads,
            seed,
            seek_nexts: self.seek_nexts,
            batch_size: self.batch_size,
            readwritepercent: self.readwritepercent,
            compression_ratio: self.compression_ratio,
            elide_values: self.elide_values,
            progress: crate::db_bench::ProgressCounter::default(),
            verify: None,
            record: None,
        }
    }

    /// The db_bench phases: this section without its `then`, then each `then` table over it.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming a bad `then` table.
    pub fn phases(&self) -> Result<Vec<Self>, HarnessError> {
        let first = Self {
            then: Vec::new(),
            ..self.clone()
        };
        let bad = |i: usize, e: &dyn std::fmt::Display| {
            HarnessError::config(format!("workload.then[{i}]"), e.to_string())
        };
        let base = toml::Table::try_from(&first).map_err(|e| bad(0, &e))?;
        let mut out = vec![first.clone()];
        for (i, over) in self.then.iter().enumerate() {
            if over.contains_key("then") || over.contains_key("compression_ratio") {
                return Err(bad(i, &"sets then or compression_ratio"));
            }
            let mut t = base.clone();
            merge_tables(&mut t, over);
            let phase: Self = t.try_into().map_err(|e| bad(i, &e))?;
            phase.benchmark_list().map_err(|e| bad(i, &e))?;
            out.push(Self {
                elide_values: first.elide_values,
                ..phase
            });
        }
        Ok(out)
    }

    /// The YCSB workloads of this section's phases (`kind = "ycsb"`): its own (load, then
    /// transactions), then one per `then` table (transactions only) with that table's `ycsb`
    /// properties over this section's.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for bad properties, a `then` table with other keys than
    /// `ycsb`, or one that changes the records' shape (the values regenerated on reads are the
    /// first phase's).
    pub fn ycsb_phases(&self) -> Result<Vec<crate::ycsb::workload::CoreWorkload>, HarnessError> {
        let mut out = vec![self.ycsb_workload()?];
        for (i, over) in self.then.iter().enumerate() {
            let bad = |e: String| HarnessError::config(format!("workload.then[{i}]"), e);
            let (1, Some(toml::Value::Table(props))) = (over.len(), over.get("ycsb")) else {
                return Err(bad(
                    "with kind = \"ycsb\" a then table holds only a ycsb table".into(),
                ));
            };
            if let Some(k) = props.keys().find(|k| k.starts_with("field")) {
                return Err(bad(format!(
                    "sets {k}: a phase cannot change the records' shape"
                )));
            }
            let mut phase = Self {
                then: Vec::new(),
                ..self.clone()
            };
            merge_tables(&mut phase.ycsb, props);
            out.push(phase.ycsb_workload().map_err(|e| bad(e.to_string()))?);
        }
        Ok(out)
    }

    /// The YCSB workload this section describes (`kind = "ycsb"`).
    ///
    /// # Errors
    /// [`HarnessError::Io`] for an unreadable `ycsb_file`, [`HarnessError::Config`] for bad
    /// properties.
    pub fn ycsb_workload(&self) -> Result<crate::ycsb::workload::CoreWorkload, HarnessError> {
        let mut props = match &self.ycsb_file {
            Some(f) => crate::ycsb::workload::parse_properties(
                &crate::input::read_to_string(std::path::Path::new(f))
                    .map_err(HarnessError::io(f))?,
            ),
            None => std::collections::BTreeMap::new(),
        };
        for (k, v) in &self.ycsb {
            let v = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            props.insert(k.clone(), v);
        }
        crate::ycsb::workload::CoreWorkload::from_properties(&props)
    }

    /// The benchmarks, in order.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming an unknown benchmark.
    pub fn benchmark_list(&self) -> Result<Vec<Benchmark>, HarnessError> {
        Benchmark::parse_list(&self.benchmarks)
            .map_err(|e| HarnessError::unknown("workload.benchmarks", &e.0, BENCHMARKS))
    }
}

/// A resolved scenario (one configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name (the configuration's label in comparisons).
    pub name: String,
    /// Seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Device.
    #[serde(default)]
    pub device: DeviceSection,
    /// File layer.
    #[serde(default)]
    pub fs: FsSection,
    /// Engine options (RocksDB names; see `DbOptions`).
    #[serde(default)]
    pub engine: toml::Table,
    /// Workload.
    #[serde(default)]
    pub workload: WorkloadSection,
    /// Virtual-time sampling period of the time series, ms.
    #[serde(default = "default_sample_ms")]
    pub sample_interval_ms: u64,
    /// Modeled host CPU cores that foreground work, flushes and compactions contend for
    /// (`SimConfig::cores`; default 2). Left out of JSON at its default.
    #[serde(
        default = "default_host_cores",
        skip_serializing_if = "is_default_host_cores"
    )]
    pub host_cores: usize,
    /// Variants compared against this one (each overrides any of the fields above).
    #[serde(default)]
    pub compare: Vec<toml::Table>,
}

fn default_sample_ms() -> u64 {
    100
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_true(b: &bool) -> bool {
    *b
}

fn default_host_cores() -> usize {
    zonedb_env::SimConfig::default().cores
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_default_host_cores(n: &usize) -> bool {
    *n == default_host_cores()
}

/// `over` merged into `base` as a `[[compare]]` variant merges into its scenario: a table
/// into the table of the same name, key by key; anything else replaces.
pub fn merge_tables(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_tables(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

impl Scenario {
    /// Parses a scenario file and returns its configurations: the scenario itself first, then
    /// one per `[[compare]]` variant.
    ///
    /// # Errors
    /// [`HarnessError::Config`] naming the problem (TOML syntax, unknown keys, bad values).
    pub fn configurations(text: &str) -> Result<Vec<Self>, HarnessError> {
        let bad = |e: &dyn std::fmt::Display| HarnessError::config("scenario", e.to_string());
        let table: toml::Table = toml::from_str(text).map_err(|e| bad(&e))?;
        let base: Self = table.clone().try_into().map_err(|e| bad(&e))?;
        base.check()?;
        let mut out = vec![base.clone()];
        let mut plain = table;
        plain.remove("compare");
        for (i, v) in base.compare.iter().enumerate() {
            let mut t = plain.clone();
            merge_tables(&mut t, v);
            if !v.contains_key("name") {
                t.insert(
                    "name".into(),
                    toml::Value::String(format!("variant {}", i + 1)),
                );
            }
            let s: Self = t.try_into().map_err(|e| bad(&e))?;
            s.check()?;
            out.push(s);
        }
        Ok(out)
    }

    /// The engine options this scenario sets.
    ///
    /// # Errors
    /// [`HarnessError::Config`] for unknown or bad options.
    pub fn db_options(&self) -> Result<zonedb_lsm::options::DbOptions, HarnessError> {
        let bad = |e: &dyn std::fmt::Display| HarnessError::config("engine options", e.to_string());
        let text = toml::to_string(&self.engine).map_err(|e| bad(&e))?;
        zonedb_lsm::options::DbOptions::from_toml(&text).map_err(|e| bad(&e))
    }

    /// The divisor of the zone layer's and policies' time constants: N of the device's
    /// scale `1/N` (a hybrid's: its SSD's) while `fs.scale_time_constants`, else 1.
    ///
    /// # Errors
    /// [`HarnessError::Device`] for a malformed scale.
    pub fn time_div(&self) -> Result<u64, HarnessError> {
        if !self.fs.scale_time_constants {
            return Ok(1);
        }
        let scale = match (&self.device.kind, &self.device.ssd) {
            (Some(k), Some(ssd)) if k == "hybrid" => &ssd.scale,
            _ => &self.device.scale,
        };
        Ok(u64::from(zonedb_device::profile::parse_scale(scale)?))
    }

    /// `ms` milliseconds divided by [`Scenario::time_div`], in ns (at least 1 when `ms` is
    /// not 0, so a scaled constant never turns a model off).
    ///
    /// # Errors
    /// As [`Scenario::time_div`].
    pub fn scaled_ms_to_ns(&self, ms: u64) -> Result<u64, HarnessError> {
        Ok(scale_ms_to_ns(ms, self.time_div()?))
    }

    fn check(&self) -> Result<(), HarnessError> {
        // The name labels reports, tables and file names: no control characters (a NUL once
        // failed only when the report was written, after the run).
        if let Some(c) = self.name.chars().find(|c| c.is_control()) {
            return Err(HarnessError::config(
                "name",
                format!(
                    "{:?} contains the control character U+{:04X}; names label reports and files",
                    self.name,
                    u32::from(c)
                ),
            ));
        }
        self.db_options()?;
        self.fs.placement_policy(self.time_div()?)?;
        zonedb_fs::cleaning::by_name(&self.fs.cleaner, self.fs.gc_threshold)
            .map_err(|e| HarnessError::config("fs.cleaner", e.to_string()))?;
        match self.workload.kind.as_str() {
            "db_bench" => {}
            "ycsb" => {
                self.workload.ycsb_phases()?;
                return self.check_sampling();
            }
            other => {
                return Err(HarnessError::unknown(
                    "workload.kind",
                    other,
                    ["db_bench", "ycsb"],
                ));
            }
        }
        self.workload.benchmark_list()?;
        for (i, phase) in self.workload.phases()?.iter().enumerate() {
            let section = match i {
                0 => "workload".to_owned(),
                i => format!("workload.then[{}]", i - 1),
            };
            phase.bench_config(self.seed).validate_in(&section)?;
        }
        self.check_sampling()
    }

    fn check_sampling(&self) -> Result<(), HarnessError> {
        if self.sample_interval_ms == 0 {
            return Err(HarnessError::config("sample_interval_ms", "must be > 0"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_override_the_base_and_errors_name_the_key() {
        let text = r#"
            name = "base"
            [device]
            scale = "1/128"
            [engine]
            write_buffer_size = 1048576
            [workload]
            benchmarks = "fillrandom"
            num = 1000
            [[compare]]
            name = "greedy"
            fs = { cleaner = "greedy" }
            [[compare]]
            engine = { compaction_pri = "kByCompensatedSize" }
        "#;
        let c = Scenario::configurations(text).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[0].fs.cleaner.as_str(), c[1].fs.cleaner.as_str()),
            ("zenfs", "greedy")
        );
        assert_eq!(c[1].device.scale, "1/128");
        assert_eq!(c[2].name, "variant 2");
        assert_eq!(c[2].db_options().unwrap().write_buffer_size, 1 << 20);
        for bad in [
            "name = \"x\"\nbogus = 1",
            "name = \"x\"\n[engine]\nwrite_buffer_size = 5",
            "name = \"x\"\n[fs]\ncleaner = \"magic\"",
            "name = \"x\"\n[workload]\nbenchmarks = \"nosuch\"",
            "not toml at all [",
        ] {
            assert!(Scenario::configurations(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ycsb_then_tables_add_transaction_phases_and_the_load_can_be_skipped() {
        let text = r#"
            name = "zipfian load then A"
            [workload]
            kind = "ycsb"
            ycsb_load = false
            [workload.ycsb]
            recordcount = 1000
            operationcount = 1000
            readproportion = 0.0
            updateproportion = 1.0
            upsert = true
            requestdistribution = "zipfian"
            [[workload.then]]
            [workload.then.ycsb]
            operationcount = 400
            threadcount = 4
            readproportion = 0.5
            updateproportion = 0.5
        "#;
        let c = Scenario::configurations(text).unwrap();
        assert!(!c[0].workload.ycsb_load);
        let p = c[0].workload.ycsb_phases().unwrap();
        assert_eq!(p.len(), 2);
        assert!(p[0].upsert && p[1].upsert);
        assert_eq!((p[0].operationcount, p[0].threadcount), (1000, 1));
        assert_eq!((p[1].operationcount, p[1].threadcount), (400, 4));
        assert!((p[1].readproportion - 0.5).abs() < 1e-9);
        assert_eq!(p[1].recordcount, 1000);
        assert_eq!(crate::experiment::planned_ops(&c[0]).unwrap(), 1400);
        for bad in [
            "benchmarks = \"overwrite\"",
            "ycsb = { fieldlength = 10 }",
            "ycsb = { readproportion = 2.0 }",
        ] {
            let t = format!(
                "name = \"x\"\n[workload]\nkind = \"ycsb\"\nycsb = {{ recordcount = 10 }}\n[[workload.then]]\n{bad}\n"
            );
            assert!(Scenario::configurations(&t).is_err(), "{bad}");
        }
        // A default workload leaves the new key out of JSON.
        let d = &Scenario::configurations("name = \"x\"").unwrap()[0];
        assert!(!serde_json::to_string(d).unwrap().contains("ycsb_load"));
    }

    #[test]
    fn then_tables_add_phases_on_the_same_database() {
        let text = r#"
            name = "load then overwrite"
            [workload]
            benchmarks = "fillrandom"
            num = 1000
            value_size = 1024
            [[workload.then]]
            benchmarks = "overwrite"
            num = 100
            threads = 4
        "#;
        let c = Scenario::configurations(text).unwrap();
        let p = c[0].workload.phases().unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].num, p[0].threads), (1000, 1));
        assert_eq!((p[1].num, p[1].threads, p[1].value_size), (100, 4, 1024));
        assert_eq!(p[1].benchmarks, "overwrite");
        assert!(p.iter().all(|w| w.then.is_empty()));
        for bad in [
            "bogus = 1",
            "benchmarks = \"nosuch\"",
            "compression_ratio = 0.1",
        ] {
            let t = format!("name = \"x\"\n[[workload.then]]\n{bad}\n");
            assert!(Scenario::configurations(&t).is_err(), "{bad}");
        }
        // Left out of the JSON when absent.
        let d = &Scenario::configurations("name = \"d\"").unwrap()[0];
        assert!(!serde_json::to_string(d).unwrap().contains("then"));
    }

    #[test]
    fn the_papers_db_bench_setup_is_scenario_keys() {
        let text = r#"
            name = "paper setup"
            [engine]
            compression = "snappy"
            disable_wal = true
            enable_intra_l0_compaction = false
            max_subcompactions = 8
            [workload]
            compression_ratio = 0.25
        "#;
        let c = Scenario::configurations(text).unwrap();
        let o = c[0].db_options().unwrap();
        assert_eq!(o.compression, zonedb_lsm::options::Compression::Snappy);
        assert!(o.disable_wal);
        assert!(!o.enable_intra_l0_compaction);
        assert_eq!(o.max_subcompactions, 8);
        assert!((c[0].workload.bench_config(1).compression_ratio - 0.25).abs() < 1e-12);
        // Defaults: db_bench's ratio, RocksDB's switches.
        let d = Scenario::configurations("name = \"d\"").unwrap();
        let o = d[0].db_options().unwrap();
        assert!(o.enable_intra_l0_compaction && !o.disable_wal && o.max_subcompactions == 1);
        assert!((d[0].workload.compression_ratio - 0.5).abs() < 1e-12);
    }
}
