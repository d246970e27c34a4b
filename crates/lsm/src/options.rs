//! Engine options under the names RocksDB users know, with RocksDB's defaults, loadable from
//! TOML. Unknown keys and impossible values are errors that name the option.

use serde::Deserialize;

use crate::LsmError;

/// How compaction victims are chosen within a level (the level is always the highest
/// score). `rocksdb` is RocksDB's own picker with `compaction_pri` (with the default
/// `kMinOverlappingRatio` it is the MSST'24 artifact's Baseline); `sica`, `zaca`, `acc` are
/// the Same-Zone Compaction paper's schemes as its text states them; `zaca-artifact` and
/// `acc-artifact` are the same schemes as the paper's code runs them (the MSST'24 code's
/// `--compaction_scheme=1`; see `compaction::adaptive_artifact`); `llc` is Lifetime-Leveling
/// Compaction (see `compaction::lifetime_leveling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompactionScheme {
    /// RocksDB's leveled picker (`compaction_pri` order).
    #[default]
    Rocksdb,
    /// SICA: largest file first, fewest next-level overlapping bytes on ties.
    Sica,
    /// ZACA at every level whatever the free space (highest `S_same` first).
    Zaca,
    /// ACC: SICA above `acc_turning_point` percent free space or below
    /// `acc_min_start_level`, ZACA otherwise.
    Acc,
    /// The code's ZACA at every level whatever the free space (highest mean squared
    /// post-compaction invalid percentage of the touched zones).
    ZacaArtifact,
    /// The code's controller: the code's ZACA below `max_compaction_kick` percent free space
    /// from `max_compaction_start_level` on, the stock `kMinOverlappingRatio` loop otherwise.
    AccArtifact,
    /// Lifetime-Leveling Compaction (HotStorage'22): key-order round robin per level, L0
    /// drained eagerly, greedy input expansion, outputs split at the output level's cursor.
    Llc,
    /// [`Self::Llc`] with the code's next-level cursor sweep: the next-level files it passes
    /// are rewritten into the output level's active zone with the compaction.
    LlcRelocate,
    /// GearDB's gear compaction (FAST'19): RocksDB's picking (with `compaction_pri`), then a
    /// cascade into the next levels' compaction windows while the output level is full
    /// (`compaction::gear`).
    Gear,
}

impl CompactionScheme {
    /// Every scheme, by its name.
    pub const NAMES: [&'static str; 9] = [
        "rocksdb",
        "sica",
        "zaca",
        "acc",
        "zaca-artifact",
        "acc-artifact",
        "llc",
        "llc-relocate",
        "gear",
    ];

    /// The scheme called `name`.
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] naming the known schemes.
    pub fn from_name(name: &str) -> Result<Self, LsmError> {
        match name {
            "rocksdb" => Ok(Self::Rocksdb),
            "sica" => Ok(Self::Sica),
            "zaca" => Ok(Self::Zaca),
            "acc" => Ok(Self::Acc),
            "zaca-artifact" => Ok(Self::ZacaArtifact),
            "acc-artifact" => Ok(Self::AccArtifact),
            "llc" => Ok(Self::Llc),
            "llc-relocate" => Ok(Self::LlcRelocate),
            "gear" => Ok(Self::Gear),
            other => Err(LsmError::InvalidArgument(format!(
                "compaction_scheme '{other}': known: {}",
                Self::NAMES.join(", ")
            ))),
        }
    }
}

/// How a delayed write waits (between `level0_slowdown_writes_trigger` and the stop).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteDelay {
    /// Every delayed write group sleeps its bytes over `delayed_write_rate` (1 KiB at 16 MiB/s:
    /// 61 µs): a smooth slowdown that leaves the latency tail alone. The studies' results so
    /// far were measured with it.
    #[default]
    PerWrite,
    /// RocksDB's `WriteController::GetDelay` token bucket: groups pass on credit refilled at
    /// `delayed_write_rate` in 1 ms steps; one short of credit sleeps its deficit, never less
    /// than 1 ms, in 1001 µs steps (see `db::write_controller`). Slowdowns then show in the
    /// P99 as RocksDB's do.
    TokenBucket,
}

impl WriteDelay {
    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )]
    fn is_per_write(&self) -> bool {
        *self == Self::PerWrite
    }
}

/// Order in which files of a level are considered for compaction (RocksDB's `compaction_pri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
pub enum CompactionPri {
    /// Largest compensated size first.
    #[serde(rename = "kByCompensatedSize")]
    ByCompensatedSize,
    /// Oldest largest sequence number first.
    #[serde(rename = "kOldestLargestSeqFirst")]
    OldestLargestSeqFirst,
    /// Oldest smallest sequence number first.
    #[serde(rename = "kOldestSmallestSeqFirst")]
    OldestSmallestSeqFirst,
    /// Smallest ratio of overlapping bytes in the next level to the file's size (the default).
    #[default]
    #[serde(rename = "kMinOverlappingRatio")]
    MinOverlappingRatio,
    /// Files in key order from a per-level cursor.
    #[serde(rename = "kRoundRobin")]
    RoundRobin,
}

/// Block compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// None.
    #[default]
    None,
    /// LZ4.
    Lz4,
    /// Snappy (RocksDB's default codec; the `snap` crate).
    Snappy,
}

impl Compression {
    /// Every codec, by its name (db_bench's `--compression_type` values this engine has).
    pub const NAMES: [&'static str; 3] = ["none", "snappy", "lz4"];

    /// The codec called `name` (db_bench's `--compression_type`).
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] naming the known codecs.
    pub fn from_name(name: &str) -> Result<Self, LsmError> {
        match name {
            "none" => Ok(Self::None),
            "snappy" => Ok(Self::Snappy),
            "lz4" => Ok(Self::Lz4),
            other => Err(LsmError::InvalidArgument(format!(
                "compression_type '{other}': known: {}",
                Self::NAMES.join(", ")
            ))),
        }
    }
}

const ONE_SECOND_NS: u64 = 1_000_000_000;

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_one_second(v: &u64) -> bool {
    *v == ONE_SECOND_NS
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_five_seconds(v: &u64) -> bool {
    *v == 5 * ONE_SECOND_NS
}

/// Options of a database. Field names and defaults are RocksDB's.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
#[allow(clippy::struct_excessive_bools, reason = "RocksDB's option set")]
pub struct DbOptions {
    /// Memtable size that triggers a switch to a new memtable and a flush (64 MiB).
    pub write_buffer_size: u64,
    /// Memtables (active + immutable) before writes stop (2).
    pub max_write_buffer_number: u32,
    /// Immutable memtables a flush waits for and merges into one L0 SST (1). An explicit
    /// flush, a wait for compactions and `max_total_wal_size` flush whatever is immutable.
    pub min_write_buffer_number_to_merge: u32,
    /// Bytes of live WAL files above which the memtable is switched and every memtable
    /// flushed, so older WALs can be deleted (0 = no limit; RocksDB's 0 derives a limit that
    /// only matters with several column families).
    pub max_total_wal_size: u64,
    /// Target size of SSTs at level 1 (64 MiB).
    pub target_file_size_base: u64,
    /// Growth of the target file size per level (1).
    pub target_file_size_multiplier: u32,
    /// Compaction outputs never pass their level's target file size, index, filter,
    /// properties and footer included (false: RocksDB's rule, an output is closed once it
    /// has reached the target, so it ends a little past it). SplitZNS sizes its SSTs to the
    /// subzone, which an SST cannot pass. Left out of serialized options while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub target_file_size_hard_cap: bool,
    /// Target size of level 1 (256 MiB).
    pub max_bytes_for_level_base: u64,
    /// Growth of level targets (10).
    pub max_bytes_for_level_multiplier: f64,
    /// Dynamic level targets (true since RocksDB 8.4).
    pub level_compaction_dynamic_level_bytes: bool,
    /// Levels (7).
    pub num_levels: u32,
    /// L0 files that trigger a compaction (4).
    pub level0_file_num_compaction_trigger: u32,
    /// L0 files at which writes slow down (20).
    pub level0_slowdown_writes_trigger: u32,
    /// L0 files at which writes stop (36).
    pub level0_stop_writes_trigger: u32,
    /// Pending compaction bytes at which writes slow down (64 GiB).
    pub soft_pending_compaction_bytes_limit: u64,
    /// Pending compaction bytes at which writes stop (256 GiB).
    pub hard_pending_compaction_bytes_limit: u64,
    /// Rate writes are slowed to, bytes/s (16 MiB/s).
    pub delayed_write_rate: u64,
    /// How a delayed write waits: `per-write` (default) or `token-bucket` (RocksDB's write
    /// controller). Left out of serialized options at its default.
    #[serde(skip_serializing_if = "WriteDelay::is_per_write")]
    pub write_delay: WriteDelay,
    /// Background flushes and compactions together (2).
    pub max_background_jobs: u32,
    /// Largest compaction, bytes (0 = 25 × target_file_size_base).
    pub max_compaction_bytes: u64,
    /// Compaction order within a level.
    pub compaction_pri: CompactionPri,
    /// Victim selection scheme (`rocksdb`, `sica`, `zaca`, `acc`, `zaca-artifact`,
    /// `acc-artifact`, `llc`).
    pub compaction_scheme: CompactionScheme,
    /// ACC's turning point (`acc`, pseudocode 1): ZACA only at or below this free space,
    /// percent (25).
    pub acc_turning_point: u32,
    /// ACC's level constraint (`acc`): ZACA only for start levels at or above this (2; 0 = no
    /// constraint).
    pub acc_min_start_level: u32,
    /// LLC (`llc`, `llc-relocate`), the code's rule 6 `TEMP_FILE`: from start level 2 on,
    /// outputs are also cut at the start level's new cursor, and those past it (which the
    /// next round from that level compacts again) are written as temporary SSTs, which
    /// `level-zones` keeps in their own zones (the code's level-7 temporary zone group).
    /// Left out of serialized options while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub llc_temp_zones: bool,
    /// `acc-artifact`: the code's ZACA only while the free percentage (ZenFS's
    /// `CalculateFreePercent`) is below this (25, the MSST'24 db_bench default; 0 = never,
    /// 101 = always).
    pub max_compaction_kick: u32,
    /// `acc-artifact`: the code's ZACA only for start levels at or above this (2, the MSST'24
    /// db_bench default).
    pub max_compaction_start_level: u32,
    /// Data block size (4 KiB).
    pub block_size: u64,
    /// Restart interval of data blocks (16).
    pub block_restart_interval: u32,
    /// Bloom filter bits per key (10; 0 = no filter).
    pub bloom_bits_per_key: u32,
    /// Block compression (`none`, `snappy`, `lz4`).
    pub compression: Compression,
    /// Whether the leveled picker may compact L0 files into L0 when L0 → base is blocked
    /// (RocksDB's intra-L0 compaction; true). The Same-Zone Compaction paper's runs turn it
    /// off (their fork's `enable_intraL0_compaction=false`).
    pub enable_intra_l0_compaction: bool,
    /// Most parallel key ranges one compaction into a level below L0's is split into
    /// (RocksDB's `max_subcompactions`, db_bench's `--subcompactions`; 1 = no split).
    pub max_subcompactions: u32,
    /// Block cache capacity in bytes (32 MiB).
    pub block_cache_size: u64,
    /// Compaction input readahead, bytes (2 MiB; 0 = one read per data block). Compaction
    /// inputs are read through a buffer filled by reads this large (RocksDB's
    /// `FilePrefetchBuffer`). 2 MiB is RocksDB 8.x's default and the value RocksDB 7.4's
    /// `SanitizeOptions` (`db/db_impl/db_impl_open.cc`) gives a 0 when `use_direct_reads` is on.
    pub compaction_readahead_size: u64,
    /// Hand the deletes a finished flush or compaction sets off (obsolete WALs and SSTs, with
    /// the zone resets they cause) to a background purge job instead of doing them before the
    /// job gives its slot back (RocksDB's `avoid_unnecessary_blocking_io`, default false). With
    /// one flush at a time, a flush that deletes holds the next one back. Left out of
    /// serialized options while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub avoid_unnecessary_blocking_io: bool,
    /// How long a background slot waits after a compaction that failed or was cancelled for
    /// want of space, ns (RocksDB's one second in `BackgroundCallCompaction`; a simulation on
    /// a device `1/N` of the paper's divides it by N, as it does sizes). Left out of serialized
    /// options while 1 s.
    #[serde(skip_serializing_if = "is_one_second")]
    pub compaction_retry_wait_ns: u64,
    /// How often the no-space recovery poller checks free space, ns (RocksDB's
    /// `SstFileManagerImpl::ClearError`: five seconds; divided like
    /// `compaction_retry_wait_ns`). Left out of serialized options while 5 s.
    #[serde(skip_serializing_if = "is_five_seconds")]
    pub sst_file_manager_poll_ns: u64,
    /// Sync the WAL on every write.
    pub sync: bool,
    /// Skip the WAL.
    pub disable_wal: bool,
    /// Leave WAL write groups in the WAL's buffer until a sync, a full buffer or
    /// [`crate::Db::flush_wal`] (ZenFS's semantics; false). By default (false, RocksDB's) each
    /// write group is handed to the device before the write returns where the device's writes
    /// land in the host's page cache (the file-backed device,
    /// `ZonedDevice::host_cached_writes`), so an acknowledged write survives the end of the
    /// process however it ends; `sync = true` also survives a power loss. On a zoned block
    /// device (direct I/O) and the simulated devices a WAL write per group would be a device
    /// write of a padded block, so there the WAL stays buffered either way. Left out of
    /// serialized options while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub manual_wal_flush: bool,
    /// What WAL damage recovery tolerates (`kPointInTimeRecovery`).
    pub wal_recovery_mode: crate::log_format::RecoveryMode,
    /// Create the database if `CURRENT` is missing (true).
    pub create_if_missing: bool,
    /// MANIFEST size at which a new one is started with a snapshot of the tree (1 GiB).
    pub max_manifest_file_size: u64,
}

impl Default for DbOptions {
    fn default() -> Self {
        Self {
            write_buffer_size: 64 << 20,
            max_write_buffer_number: 2,
            min_write_buffer_number_to_merge: 1,
            max_total_wal_size: 0,
            target_file_size_base: 64 << 20,
            target_file_size_multiplier: 1,
            target_file_size_hard_cap: false,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            level_compaction_dynamic_level_bytes: true,
            num_levels: 7,
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            delayed_write_rate: 16 << 20,
            write_delay: WriteDelay::PerWrite,
            max_background_jobs: 2,
            max_compaction_bytes: 0,
            compaction_pri: CompactionPri::MinOverlappingRatio,
            compaction_scheme: CompactionScheme::Rocksdb,
            acc_turning_point: 25,
            acc_min_start_level: 2,
            llc_temp_zones: false,
            max_compaction_kick: 25,
            max_compaction_start_level: 2,
            block_size: 4 << 10,
            block_restart_interval: 16,
            bloom_bits_per_key: 10,
            compression: Compression::None,
            enable_intra_l0_compaction: true,
            max_subcompactions: 1,
            block_cache_size: 32 << 20,
            compaction_readahead_size: 2 << 20,
            avoid_unnecessary_blocking_io: false,
            compaction_retry_wait_ns: ONE_SECOND_NS,
            sst_file_manager_poll_ns: 5 * ONE_SECOND_NS,
            sync: false,
            disable_wal: false,
            manual_wal_flush: false,
            wal_recovery_mode: crate::log_format::RecoveryMode::PointInTimeRecovery,
            create_if_missing: true,
            max_manifest_file_size: 1 << 30,
        }
    }
}

impl DbOptions {
    /// Parses TOML (any subset of the fields) and validates the result.
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] naming the bad key or value.
    pub fn from_toml(text: &str) -> Result<Self, LsmError> {
        let opts: Self = toml::from_str(text).map_err(|e| {
            // The message shows the offending line, so the key is named.
            let msg = e
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            LsmError::InvalidArgument(format!("options: {msg}"))
        })?;
        opts.validate()?;
        Ok(opts)
    }

    /// `max_compaction_bytes` as RocksDB sanitises it (0 means 25 × `target_file_size_base`).
    pub fn effective_max_compaction_bytes(&self) -> u64 {
        if self.max_compaction_bytes == 0 {
            self.target_file_size_base.saturating_mul(25)
        } else {
            self.max_compaction_bytes
        }
    }

    /// Checks every value.
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] naming the option.
    pub fn validate(&self) -> Result<(), LsmError> {
        let bad = |name: &str, why: &str| Err(LsmError::InvalidArgument(format!("{name}: {why}")));
        if self.compaction_retry_wait_ns == 0 || self.sst_file_manager_poll_ns == 0 {
            return bad(
                "compaction_retry_wait_ns / sst_file_manager_poll_ns",
                "must be at least 1 ns",
            );
        }
        if self.max_manifest_file_size < 4 << 10 {
            return bad("max_manifest_file_size", "must be at least 4 KiB");
        }
        if self.write_buffer_size < 64 << 10 {
            return bad("write_buffer_size", "must be at least 64 KiB");
        }
        if self.max_write_buffer_number < 2 {
            return bad("max_write_buffer_number", "must be at least 2");
        }
        if self.min_write_buffer_number_to_merge == 0
            || self.min_write_buffer_number_to_merge >= self.max_write_buffer_number
        {
            return bad(
                "min_write_buffer_number_to_merge",
                "must be at least 1 and below max_write_buffer_number",
            );
        }
        if self.target_file_size_base == 0 {
            return bad("target_file_size_base", "must be positive");
        }
        if self.target_file_size_multiplier == 0 {
            return bad("target_file_size_multiplier", "must be positive");
        }
        if self.max_bytes_for_level_base == 0 {
            return bad("max_bytes_for_level_base", "must be positive");
        }
        if !(self.max_bytes_for_level_multiplier.is_finite()
            && self.max_bytes_for_level_multiplier > 1.0)
        {
            return bad(
                "max_bytes_for_level_multiplier",
                "must be a number greater than 1",
            );
        }
        if !(2..=16).contains(&self.num_levels) {
            return bad("num_levels", "must be between 2 and 16");
        }
        if self.level0_file_num_compaction_trigger == 0 {
            return bad("level0_file_num_compaction_trigger", "must be positive");
        }
        if self.level0_slowdown_writes_trigger < self.level0_file_num_compaction_trigger {
            return bad(
                "level0_slowdown_writes_trigger",
                "must be at least level0_file_num_compaction_trigger",
            );
        }
        if self.level0_stop_writes_trigger < self.level0_slowdown_writes_trigger {
            return bad(
                "level0_stop_writes_trigger",
                "must be at least level0_slowdown_writes_trigger",
            );
        }
        if self.hard_pending_compaction_bytes_limit > 0
            && self.hard_pending_compaction_bytes_limit < self.soft_pending_compaction_bytes_limit
        {
            return bad(
                "hard_pending_compaction_bytes_limit",
                "must be 0 (off) or at least soft_pending_compaction_bytes_limit",
            );
        }
        if self.max_background_jobs == 0 {
            return bad("max_background_jobs", "must be positive");
        }
        if self.block_size < 256 || self.block_size > 64 << 20 {
            return bad("block_size", "must be between 256 B and 64 MiB");
        }
        if self.block_restart_interval == 0 {
            return bad("block_restart_interval", "must be positive");
        }
        if self.bloom_bits_per_key > 64 {
            return bad("bloom_bits_per_key", "must be at most 64");
        }
        if self.delayed_write_rate == 0 {
            return bad("delayed_write_rate", "must be positive");
        }
        if !(1..=64).contains(&self.max_subcompactions) {
            return bad("max_subcompactions", "must be between 1 and 64");
        }
        if self.acc_turning_point > 100 {
            return bad("acc_turning_point", "must be a percentage (0-100)");
        }
        if self.max_compaction_kick > 101 {
            return bad(
                "max_compaction_kick",
                "must be a percentage (0-100; 101 = always)",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_rocksdbs_and_valid() {
        let o = DbOptions::default();
        o.validate().unwrap();
        assert_eq!(o.effective_max_compaction_bytes(), 25 * (64 << 20));
        assert_eq!(o.compaction_pri, CompactionPri::MinOverlappingRatio);
        assert_eq!(o.compaction_readahead_size, 2 << 20);
        let off = DbOptions::from_toml("compaction_readahead_size = 0").unwrap();
        assert_eq!(off.compaction_readahead_size, 0);
    }

    #[test]
    fn toml_sets_fields_by_rocksdb_names() {
        let o = DbOptions::from_toml(
            "write_buffer_size = 1048576\ncompaction_pri = \"kOldestSmallestSeqFirst\"\nlevel_compaction_dynamic_level_bytes = false\ncompression = \"lz4\"\n",
        )
        .unwrap();
        assert_eq!(o.write_buffer_size, 1 << 20);
        assert_eq!(o.compaction_pri, CompactionPri::OldestSmallestSeqFirst);
        assert!(!o.level_compaction_dynamic_level_bytes);
        assert_eq!(o.compression, Compression::Lz4);
        assert_eq!(o.num_levels, 7);
        let o = DbOptions::from_toml("compression = \"snappy\"\n").unwrap();
        assert_eq!(o.compression, Compression::Snappy);
        assert_eq!(
            Compression::from_name("snappy").unwrap(),
            Compression::Snappy
        );
        assert!(Compression::from_name("zstd").is_err());
    }

    #[test]
    fn toml_names_the_artifact_schemes_and_their_knobs() {
        let o = DbOptions::from_toml(
            "compaction_scheme = \"acc-artifact\"\nmax_compaction_kick = 30\nmax_compaction_start_level = 1\n",
        )
        .unwrap();
        assert_eq!(o.compaction_scheme, CompactionScheme::AccArtifact);
        assert_eq!(
            (o.max_compaction_kick, o.max_compaction_start_level),
            (30, 1)
        );
        let d = DbOptions::default();
        assert_eq!(
            (d.max_compaction_kick, d.max_compaction_start_level),
            (25, 2)
        );
        for name in CompactionScheme::NAMES {
            assert!(CompactionScheme::from_name(name).is_ok(), "{name}");
        }
        assert_eq!(
            CompactionScheme::from_name("zaca-artifact").unwrap(),
            CompactionScheme::ZacaArtifact
        );
    }

    #[test]
    fn toml_names_the_llc_scheme() {
        let o = DbOptions::from_toml("compaction_scheme = \"llc\"\n").unwrap();
        assert_eq!(o.compaction_scheme, CompactionScheme::Llc);
        assert_eq!(
            CompactionScheme::from_name("llc").unwrap(),
            CompactionScheme::Llc
        );
    }

    #[test]
    fn bad_options_are_clear_errors() {
        for (text, needle) in [
            ("write_bufer_size = 1", "write_bufer_size"),
            ("write_buffer_size = \"big\"", "write_buffer_size"),
            (
                "max_bytes_for_level_multiplier = 0.5",
                "max_bytes_for_level_multiplier",
            ),
            (
                "level0_slowdown_writes_trigger = 2",
                "level0_slowdown_writes_trigger",
            ),
            ("compaction_pri = \"kFastest\"", "compaction_pri"),
            ("compaction_scheme = \"magic\"", "compaction_scheme"),
            ("acc_turning_point = 101", "acc_turning_point"),
            ("max_compaction_kick = 102", "max_compaction_kick"),
            ("num_levels = 1", "num_levels"),
            ("max_subcompactions = 0", "max_subcompactions"),
            ("compression = \"zstd\"", "compression"),
            ("write_buffer_size = -5", "write_buffer_size"),
            ("[[[", ""),
        ] {
            let e = DbOptions::from_toml(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
