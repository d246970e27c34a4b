//! Options of a mounted file layer: the core layer's, and one part per paper feature that
//! has options of its own (ZNS+'s threaded logging, [`ZnsPlusOptions`]). The other features
//! take theirs from the placement policy (HHZS's migration and SSD cache, SplitZNS's
//! subzones).

use std::sync::Arc;

use crate::cleaning::CleaningPolicy;
use crate::cleaning::none::NoCleaner;
use crate::placement::lifetime::Liza;
use crate::placement::policy::PlacementPolicy;
pub use crate::znsplus::options::ZnsPlusOptions;

/// Options of a mounted file layer.
#[derive(Debug, Clone)]
pub struct FsOptions {
    /// Where new extents go.
    pub placement: Arc<dyn PlacementPolicy>,
    /// Which zones are cleaned.
    pub cleaner: Arc<dyn CleaningPolicy>,
    /// Finish threshold in percent (used by mkfs; stored in the superblock).
    pub finish_threshold_pct: u32,
    /// Write buffer of each writable file (rounded up to the device block).
    pub write_buffer_bytes: u64,
    /// Period of the background cleaner (ZenFS: 10 s); 0 = no background cleaning.
    pub cleaning_interval_ns: u64,
    /// Mount without writing anything (tools); writes are refused.
    pub read_only: bool,
    /// Write file data (WAL and SST pieces) with zone append instead of writes at the write
    /// pointer; the offset the device assigns must be the write pointer the layer expects.
    pub zone_append: bool,
    /// The authors' ZenFS blocking model (0 = off): while zone cleaning runs, the engine starts
    /// no flush or compaction and checks again every this many nanoseconds. Their
    /// `ZenFS::GetFreeSpace` sleeps 1 s at a time while cleaning runs, and RocksDB's
    /// `MaybeScheduleFlushOrCompaction` calls it; [`ZoneFs::wait_for_cleaning`] counts the
    /// wait as I/O blocking.
    pub zc_blocking_poll_ns: u64,
    /// The authors' allocation-retry blocking model (their ZenFS fork,
    /// `ZoneFile::AllocateNewZone`): when a writer's zone allocation finds no space, sleep
    /// this long, try again, reset unused zones, and repeat while more than an eighth of a
    /// zone is unwritten (their 128 MiB of 1 GiB zones); every attempt in the loop costs one
    /// sleep, the successful one included, and the loop counts as I/O blocking. 0 = off: clean
    /// in the foreground instead (the fork: 1 s). Nanoseconds, so that a scaled run divides it
    /// without rounding it away.
    pub alloc_retry_blocking_ns: u64,
    /// Page cache for reads, bytes (0 = off: every read goes to the device). Models ZenFS's
    /// buffered reads through the kernel's page cache ([`crate::page_cache`]).
    pub page_cache_size_bytes: u64,
    /// Largest readahead window of the page cache, KiB (Linux's `read_ahead_kb`, 128).
    pub readahead_kb: u64,
    /// How cleaning moves live data ([`ZoneCopy`]).
    pub zone_copy: ZoneCopy,
    /// ZNS+'s hybrid recycling (threaded logging), off by default.
    pub znsplus: ZnsPlusOptions,
}

/// How zone cleaning moves live data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZoneCopy {
    /// Read into the host and written back (ZenFS), 128 KiB at a time.
    #[default]
    Host,
    /// ZNS+'s in-device zone compaction ([`zonedb_device::InDeviceCopy::copy`]), a command of
    /// at most the device's block limit at a time; no byte crosses the host link.
    Izc {
        /// Copyback-aware destination allocation (CAB): each destination page takes a fully
        /// live source page on its own die and plane when there is one; `false` (CUB): the
        /// live data's own order.
        copyback_aware: bool,
    },
}

impl Default for FsOptions {
    fn default() -> Self {
        Self {
            placement: Arc::new(Liza),
            cleaner: Arc::new(NoCleaner),
            finish_threshold_pct: 0,
            write_buffer_bytes: 1 << 20,
            cleaning_interval_ns: 10_000_000_000,
            read_only: false,
            zone_append: false,
            zc_blocking_poll_ns: 0,
            alloc_retry_blocking_ns: 0,
            page_cache_size_bytes: 0,
            readahead_kb: 128,
            zone_copy: ZoneCopy::Host,
            znsplus: ZnsPlusOptions::default(),
        }
    }
}
