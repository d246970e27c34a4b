//! Engine counters (RocksDB's statistics under plain names), serializable for reports.

use crate::block_cache::CacheStats;

/// Counters since open.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DbStats {
    /// Write batches applied.
    pub write_batches: u64,
    /// Write groups committed (a group shares one WAL write).
    pub write_groups: u64,
    /// Operations (puts and deletes) applied.
    pub write_ops: u64,
    /// User bytes written (keys + values).
    pub user_bytes_written: u64,
    /// Bytes appended to WALs.
    pub wal_bytes: u64,
    /// WAL syncs.
    pub wal_syncs: u64,
    /// Point lookups.
    pub gets: u64,
    /// Memtable flushes.
    pub flushes: u64,
    /// Bytes written by flushes.
    pub flush_bytes_written: u64,
    /// Compactions run (including trivial moves).
    pub compactions: u64,
    /// Trivial moves.
    pub trivial_moves: u64,
    /// Compactions that cascaded below their output level (`compaction_scheme = "gear"`).
    pub gear_cascades: u64,
    /// Levels those compactions cascaded into, summed.
    pub gear_cascade_levels: u64,
    /// Bytes they wrote below their output level.
    pub gear_cascade_bytes_written: u64,
    /// Compaction outputs written as temporary SSTs (LLC with `llc_temp_zones`).
    pub temp_ssts_written: u64,
    /// Key ranges merged by compactions split into subcompactions (`max_subcompactions`;
    /// a compaction not split counts none).
    pub subcompactions: u64,
    /// Bytes read by compactions.
    pub compaction_bytes_read: u64,
    /// Bytes written by compactions.
    pub compaction_bytes_written: u64,
    /// Compactions per start level.
    pub compactions_by_level: Vec<u64>,
    /// Time spent in flushes, ns (summed over jobs).
    pub flush_ns: u64,
    /// Where that time went, by phase.
    pub flush_phases: FlushPhases,
    /// Time spent in compactions, ns (summed over jobs).
    pub compaction_ns: u64,
    /// Compactions that found the device full (each a soft error: its outputs deleted,
    /// writes going on; RocksDB's `kSoftError` for `NoSpace` in a compaction).
    pub compaction_no_space_errors: u64,
    /// Compactions cancelled for lack of room while a soft no-space error held (RocksDB's
    /// `COMPACTION_CANCELLED`).
    pub compactions_cancelled: u64,
    /// Soft no-space errors cleared once free space came back.
    pub no_space_recoveries: u64,
    /// Times writes stopped (L0 files, memtables or pending bytes at the stop limit).
    pub stall_stops: u64,
    /// Time writes spent stopped, ns.
    pub stall_stop_ns: u64,
    /// Times writes were delayed (slowdown triggers).
    pub stall_delays: u64,
    /// Time writes spent delayed, ns.
    pub stall_delay_ns: u64,
    /// Last sequence number.
    pub last_sequence: u64,
    /// Files per level.
    pub level_files: Vec<u64>,
    /// Bytes per level.
    pub level_bytes: Vec<u64>,
    /// Estimated bytes compaction still has to rewrite.
    pub pending_compaction_bytes: u64,
    /// SSTs out of the tree that an older version still holds (a running compaction keeps
    /// the version it started from, as RocksDB's does), so they stay on the device.
    pub obsolete_sst_files: u64,
    /// Their bytes (RocksDB's `rocksdb.obsolete-sst-files-size`).
    pub obsolete_sst_bytes: u64,
    /// The most `obsolete_sst_bytes` has been since open.
    pub peak_obsolete_sst_bytes: u64,
    /// SSTs no version holds any more and not deleted yet (waiting for a purge, or being
    /// deleted).
    pub deletable_sst_files: u64,
    /// Their bytes.
    pub deletable_sst_bytes: u64,
    /// The most `deletable_sst_files` and `deletable_sst_bytes` have been since open (each at
    /// its own moment; a compaction that lets go of an old version makes many deletable at
    /// once, until its purge has deleted them).
    pub peak_deletable_sst_files: u64,
    /// See `peak_deletable_sst_files`.
    pub peak_deletable_sst_bytes: u64,
    /// SSTs deleted once no version held them (compactions' inputs, files old versions
    /// held).
    pub obsolete_ssts_deleted: u64,
    /// The longest any of them stayed on the device once no version held it, ns.
    pub deletable_sst_wait_max_ns: u64,
    /// Their bytes times how long each stayed on the device once no version held it, in
    /// byte-milliseconds: divided by the run's length in ms, the mean bytes held by no
    /// version and not deleted.
    pub deletable_sst_byte_ms: u64,
    /// Block cache counters.
    pub block_cache: CacheStats,
    /// Zone-aware compaction statistics (the Same-Zone Compaction paper's measures).
    pub zone_compaction: ZoneCompactionStats,
}

/// The parts of a flush's time (environment clock, ns, summed over flushes). What
/// `flush_ns` holds beyond their sum is the flush's start (choosing the memtables and
/// building the table, which takes no simulated time) and flushes that failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FlushPhases {
    /// The table build's CPU cost, with the wait for a free core.
    pub build_ns: u64,
    /// Writing the table to the file layer: creating the file (zone allocation, and any wait
    /// for a zone or for cleaning), appending and closing it.
    pub write_ns: u64,
    /// Installing the new version (the MANIFEST record).
    pub install_ns: u64,
    /// Deleting the WALs the new version no longer needs and the SSTs no version holds any
    /// more, with the zone resets (and subzone merges) those deletes set off.
    pub delete_ns: u64,
}

impl FlushPhases {
    /// Adds `other`'s times to these.
    pub fn add(&mut self, other: &Self) {
        self.build_ns += other.build_ns;
        self.write_ns += other.write_ns;
        self.install_ns += other.install_ns;
        self.delete_ns += other.delete_ns;
    }
}

/// A compaction running now ([`crate::Db::running_compactions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningCompactionInfo {
    /// Job id.
    pub job: u64,
    /// Start level.
    pub start_level: u32,
    /// Output level.
    pub output_level: u32,
    /// When it started (the environment's clock), ns.
    pub started_ns: u64,
    /// Its input files.
    pub input_files: u32,
}

/// One merging compaction as the Same-Zone Compaction paper measures it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CompactionRecord {
    /// Job id.
    pub job: u64,
    /// Start level.
    pub start_level: u32,
    /// Bytes of the inputs (the victims).
    pub input_bytes: u64,
    /// `S_same` of the inputs when the compaction started (`None`: no zone data).
    pub s_same: Option<f64>,
    /// `S_inval` of the zones holding the inputs, once they are deleted.
    pub s_inval: Option<f64>,
    /// Free space of the device when it started, percent.
    pub free_pct: f64,
}

/// Aggregates over merging compactions (trivial moves read and delete nothing).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ZoneCompactionStats {
    /// Merging compactions measured.
    pub compactions: u64,
    /// Bytes of their inputs.
    pub input_bytes: u64,
    /// Per start level: sum of `S_same` and compactions counted.
    pub s_same_by_level: Vec<(f64, u64)>,
    /// Sum of `S_inval` and compactions counted.
    pub s_inval: (f64, u64),
    /// Time compactions waited for their input reads, ns.
    pub read_ns: u64,
    /// Input reads that waited: one per readahead window read from the device
    /// (`compaction_readahead_size`), or per data block without readahead; the reads opening
    /// a table count with the first.
    pub read_ops: u64,
    /// Every merging compaction, in order.
    #[serde(skip)]
    pub records: Vec<CompactionRecord>,
}

impl ZoneCompactionStats {
    /// Adds one compaction.
    pub fn record(&mut self, r: CompactionRecord) {
        self.compactions += 1;
        self.input_bytes += r.input_bytes;
        let l = r.start_level as usize;
        if self.s_same_by_level.len() <= l {
            self.s_same_by_level.resize(l + 1, (0.0, 0));
        }
        if let Some(s) = r.s_same {
            self.s_same_by_level[l].0 += s;
            self.s_same_by_level[l].1 += 1;
        }
        if let Some(s) = r.s_inval {
            self.s_inval.0 += s;
            self.s_inval.1 += 1;
        }
        self.records.push(r);
    }

    /// Mean `S_same` per start level (`None` where no compaction started).
    pub fn s_same_per_level(&self) -> Vec<Option<f64>> {
        self.s_same_by_level
            .iter()
            .map(|&(sum, n)| (n > 0).then(|| sum / n as f64))
            .collect()
    }

    /// The paper's average `S_same`: the mean of the per-level means.
    pub fn s_same_avg(&self) -> f64 {
        let per: Vec<f64> = self.s_same_per_level().into_iter().flatten().collect();
        if per.is_empty() {
            0.0
        } else {
            per.iter().sum::<f64>() / per.len() as f64
        }
    }

    /// Mean `S_inval` over compactions.
    pub fn s_inval_avg(&self) -> f64 {
        if self.s_inval.1 == 0 {
            0.0
        } else {
            self.s_inval.0 / self.s_inval.1 as f64
        }
    }

    /// Mean victim (input) bytes per compaction.
    pub fn avg_victim_bytes(&self) -> f64 {
        if self.compactions == 0 {
            0.0
        } else {
            self.input_bytes as f64 / self.compactions as f64
        }
    }

    /// CompactionRead latency: mean wait per input read request (a readahead window, or a data
    /// block without readahead), ns.
    pub fn read_latency_ns(&self) -> f64 {
        if self.read_ops == 0 {
            0.0
        } else {
            self.read_ns as f64 / self.read_ops as f64
        }
    }

    /// CompactionRead throughput: input bytes over the time spent waiting for them, MB/s.
    pub fn read_mb_per_s(&self) -> f64 {
        if self.read_ns == 0 {
            0.0
        } else {
            self.input_bytes as f64 / 1e6 / (self.read_ns as f64 / 1e9)
        }
    }
}

/// Write amplification by source: bytes each source wrote per user byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct WriteAmpParts {
    /// WAL records.
    pub wal: f64,
    /// Flushes (memtables to L0).
    pub flush: f64,
    /// Compactions.
    pub compaction: f64,
}

impl DbStats {
    /// Bytes written by the WAL, flushes and compactions per user byte.
    pub fn write_amp_parts(&self) -> WriteAmpParts {
        let u = self.user_bytes_written.max(1) as f64;
        WriteAmpParts {
            wal: self.wal_bytes as f64 / u,
            flush: self.flush_bytes_written as f64 / u,
            compaction: self.compaction_bytes_written as f64 / u,
        }
    }

    /// Write amplification of the tree: (flush + compaction bytes written) / user bytes.
    pub fn write_amplification(&self) -> f64 {
        if self.user_bytes_written == 0 {
            return 0.0;
        }
        (self.flush_bytes_written + self.compaction_bytes_written) as f64
            / self.user_bytes_written as f64
    }
}
