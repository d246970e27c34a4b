//! CPU cost of engine work, charged through `Env::cpu` so that simulated runs see CPU time
//! and contention between foreground and background work (in real mode the work has already
//! taken its time and the charge completes at once). Figures are of the order RocksDB shows on
//! one modern core; they are model parameters, not measurements of this code.
//!
//! Block compression is charged per KiB of uncompressed data (keys and values): compressing
//! when a flush or compaction builds its outputs, decompressing a compaction's inputs as it
//! merges them. The rates are of the order published for one modern x86 core (the codecs'
//! own benchmark pages and lzbench): Snappy about 500 MB/s compressing and 1.5 GB/s
//! decompressing, LZ4 about 750 MB/s and 4 GB/s. Point reads are not charged a
//! decompression (their fixed [`GET_NS`] stands for the whole lookup).

use crate::options::Compression;

/// Fixed cost of a write batch (WAL encoding, memtable insert bookkeeping), ns.
pub const WRITE_BATCH_NS: u64 = 1_000;
/// Cost per operation in a batch (skiplist insert), ns.
pub const WRITE_OP_NS: u64 = 500;
/// Cost of a point lookup outside I/O (memtables, filters, index search), ns.
pub const GET_NS: u64 = 1_500;
/// Cost per entry merged by a flush or compaction, ns.
pub const MERGE_ENTRY_NS: u64 = 150;
/// Cost per byte written by a flush or compaction (block building, checksums), ns per KiB.
pub const BUILD_NS_PER_KIB: u64 = 250;
/// Cost per entry returned by an iterator, ns.
pub const ITER_ENTRY_NS: u64 = 100;
/// Snappy compression, ns per KiB of input (about 500 MB/s).
pub const SNAPPY_COMPRESS_NS_PER_KIB: u64 = 2_048;
/// Snappy decompression, ns per KiB of output (about 1.5 GB/s).
pub const SNAPPY_DECOMPRESS_NS_PER_KIB: u64 = 683;
/// LZ4 compression, ns per KiB of input (about 750 MB/s).
pub const LZ4_COMPRESS_NS_PER_KIB: u64 = 1_365;
/// LZ4 decompression, ns per KiB of output (about 4 GB/s).
pub const LZ4_DECOMPRESS_NS_PER_KIB: u64 = 256;

/// CPU time to compress `raw_bytes` of block data with `c`, ns.
pub fn compress_ns(c: Compression, raw_bytes: u64) -> u64 {
    let per_kib = match c {
        Compression::None => 0,
        Compression::Snappy => SNAPPY_COMPRESS_NS_PER_KIB,
        Compression::Lz4 => LZ4_COMPRESS_NS_PER_KIB,
    };
    raw_bytes / 1024 * per_kib
}

/// CPU time to decompress blocks holding `raw_bytes` of data compressed with `c`, ns.
pub fn decompress_ns(c: Compression, raw_bytes: u64) -> u64 {
    let per_kib = match c {
        Compression::None => 0,
        Compression::Snappy => SNAPPY_DECOMPRESS_NS_PER_KIB,
        Compression::Lz4 => LZ4_DECOMPRESS_NS_PER_KIB,
    };
    raw_bytes / 1024 * per_kib
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_compression_costs_nothing_and_snappy_compresses_slower_than_it_decompresses() {
        assert_eq!(compress_ns(Compression::None, 1 << 20), 0);
        assert_eq!(decompress_ns(Compression::None, 1 << 20), 0);
        // 1 MiB at ~500 MB/s is ~2.1 ms; at ~1.5 GB/s ~0.7 ms.
        assert_eq!(compress_ns(Compression::Snappy, 1 << 20), 2_097_152);
        assert_eq!(decompress_ns(Compression::Snappy, 1 << 20), 699_392);
        assert!(compress_ns(Compression::Lz4, 1 << 20) < compress_ns(Compression::Snappy, 1 << 20));
    }
}
