//! CPU cost of engine work, charged through `Env::cpu` so that simulated runs see CPU time
//! and contention between foreground and background work (in real mode the work has already
//! taken its time and the charge completes at once). Figures are of the order RocksDB shows on
//! one modern core; they are model parameters, not measurements of this code.

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
