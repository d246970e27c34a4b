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
    /// Bytes read by compactions.
    pub compaction_bytes_read: u64,
    /// Bytes written by compactions.
    pub compaction_bytes_written: u64,
    /// Compactions per start level.
    pub compactions_by_level: Vec<u64>,
    /// Time spent in flushes, ns (summed over jobs).
    pub flush_ns: u64,
    /// Time spent in compactions, ns (summed over jobs).
    pub compaction_ns: u64,
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
    /// Block cache counters.
    pub block_cache: CacheStats,
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
