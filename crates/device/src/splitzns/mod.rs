//! SplitZNS (ACM TACO 2023, `shared/papers/000_…`): split zones over the flash media.
//!
//! A SplitZNS device is the simulated device over [`SplitZnsMedia`]: wide zones behave exactly
//! as on the ZNS SSD ([`crate::ZnsSsd`]); an empty wide zone can be split into one subzone per
//! chip of the zone, each written, finished and reset (merged) on its own.
//!
//! **Addressing.** A subzone is `(zone, index)` ([`SubzoneId`]), `index < subzones per zone`
//! ([`SplitZnsGeometry`]); it owns the byte range `[zone start + index × subzone size, + subzone
//! size)` of its split zone's address range, of which the first `zone capacity / subzones` bytes
//! are writable. Reads and writes use ordinary device offsets in that range
//! ([`crate::ZonedDevice::read`], [`crate::ZonedDevice::write`] at the subzone's write pointer);
//! [`crate::SplitZones::append_subzone`], [`crate::SplitZones::finish_subzone`] and
//! [`crate::SplitZones::merge_subzone`] name the subzone; [`crate::SplitZones::split_zone`]
//! splits (the device's [`crate::SplitZones`] family: `dev.capabilities().split_zones`); the split zone's FINISH and RESET are [`crate::ZonedDevice::manage`] with
//! [`crate::ZoneOp::Finish`] / [`crate::ZoneOp::Reset`]; [`crate::SplitZones::report_subzones`]
//! reports. [`crate::ZonedDevice::report_zones`] shows an open split zone as explicitly open at
//! its start (it holds an open and an active token) and an inactive one as full.
//!
//! One concept per file:
//! - `state`: the split-zone state machine and the subzone-to-block map ([`SplitTable`]),
//!   with the two rules the paper leaves open.
//! - `chips`: the round-robin chip allocator ([`ChipAllocator`]).
//! - `ring`: the SubZone Ring ([`SubzoneRing`]): per-chip FIFO write buffer, per-subzone ring
//!   arrays, flush rounds of one unit per chip.
//! - `read_scheduler`: read pointers, compaction/query detection and its accuracy
//!   ([`ReadScheduler`]).
//! - `prefetch`: the Read Prefetcher's preread buffers ([`Prefetcher`]).
//! - `tickets`: completions shared by several waiters under the priority scheduler.
//! - `media`: [`SplitZnsMedia`], the flash media with all of the above.
//! - `device`: the split zones as the generic device's [`crate::sim::ZoneHook`] (admission,
//!   power cycle, reports) and the SplitZNS SSD's [`crate::SplitZones`] family.

mod chips;
pub(crate) mod device;
mod media;
mod prefetch;
mod read_scheduler;
mod ring;
mod state;
mod tickets;

pub use chips::ChipAllocator;
pub use media::SplitZnsMedia;
pub use prefetch::Prefetcher;
pub use read_scheduler::{ReadGuess, ReadScheduler};
pub use ring::SubzoneRing;
pub use state::{MAP_ENTRY_BYTES, SplitTable};

/// The simulated SplitZNS SSD: the simulated device over [`SplitZnsMedia`].
pub type SplitZnsSsd<E> = crate::sim::SimZonedDevice<E, SplitZnsMedia>;

/// Which SplitZNS accelerations are on and their sizes (the paper's breakdown: native = all
/// off, then +SZR, +RP, +RS; "+diff" is the host's selective allocation). Carried by
/// [`crate::SimDeviceSpec::splitzns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SplitZnsConfig {
    /// SubZone Ring (§4.4.1): subzone writes land in a power-loss-protected FIFO buffer and
    /// are flushed one program unit per chip at a time when it is full. Off: a subzone write
    /// completes when its chip has programmed it.
    pub ring: bool,
    /// Ring size, bytes; `None`: twice a wide zone's capacity (§5.1.1: "twice as large as a
    /// widezone"; §4.5.1 asks for at least one wide zone).
    pub ring_bytes: Option<u64>,
    /// Read Scheduler (§4.4.2): subzone reads the device takes for queries (not at the
    /// subzone's read pointer) go before every other queued die operation; compaction reads
    /// (at the read pointer) after. It adds only that order, within the profile's queueing
    /// discipline ([`crate::flash::Queueing`]), which it leaves as it is: query reads first
    /// on FIFO queueing ([`crate::flash::Scheduler::FifoQueryFirst`]) or on per-die queues
    /// ([`crate::flash::Scheduler::QueryFirst`]), the rest in issue order; a profile whose
    /// order already serves queries first (the class order) keeps it. Only on per-die queues
    /// is that all it changes: FIFO booking cannot reorder, so on FIFO queueing the device
    /// queues its work, which also books read transfers when their die work is done rather
    /// than at issue. Off: subzone reads keep the host's class.
    pub read_scheduler: bool,
    /// Read Prefetcher (§4.4.2): a compaction read that goes to flash prereads, on every other
    /// chip, the next bytes of one subzone that is a compaction input with an empty buffer.
    pub prefetcher: bool,
    /// Preread buffer per subzone, bytes; `None`: four flash pages (§5.1.1; §4.5.1 sizes it
    /// 512 KiB for its memory estimate).
    pub prefetch_bytes: Option<u64>,
}

impl Default for SplitZnsConfig {
    /// SplitZNS as evaluated: every acceleration on, paper sizes.
    fn default() -> Self {
        Self {
            ring: true,
            ring_bytes: None,
            read_scheduler: true,
            prefetcher: true,
            prefetch_bytes: None,
        }
    }
}

impl SplitZnsConfig {
    /// The paper's "native": split zones and the chip allocator, no acceleration.
    pub fn native() -> Self {
        Self {
            ring: false,
            read_scheduler: false,
            prefetcher: false,
            ..Self::default()
        }
    }
}

/// A subzone: the `index`-th subzone of split zone `zone`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct SubzoneId {
    /// The split zone.
    pub zone: u32,
    /// Which of its subzones.
    pub index: u32,
}

/// States of a subzone (host commands only move them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SubzoneState {
    /// Nothing written, no chip.
    Empty,
    /// Written by the host (opened by its first write), not finished.
    Open,
    /// Written to its capacity or finished by the host.
    Full,
}

/// States of a split zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitZoneState {
    /// Holds an open and an active token (after SPLIT, or a write reactivating it).
    Open,
    /// Deactivated by FINISH: every subzone empty or full, no token held.
    Inactive,
}

/// Sizes of a SplitZNS device's subzones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SplitZnsGeometry {
    /// Subzones per split zone (the chips of a zone).
    pub subzones: u32,
    /// Address space of a subzone, bytes (zone size / subzones).
    pub subzone_size_bytes: u64,
    /// Writable bytes of a subzone (zone capacity / subzones).
    pub subzone_capacity_bytes: u64,
}

impl SplitZnsGeometry {
    /// Device offset of a subzone's start on a device with zones of `zone_size_bytes`.
    pub fn subzone_start(&self, zone_size_bytes: u64, id: SubzoneId) -> u64 {
        u64::from(id.zone) * zone_size_bytes + u64::from(id.index) * self.subzone_size_bytes
    }
}

/// One subzone's descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SubzoneInfo {
    /// Which subzone.
    pub id: SubzoneId,
    /// Its state.
    pub state: SubzoneState,
    /// Device offset of its start.
    pub start: u64,
    /// Writable bytes.
    pub capacity_bytes: u64,
    /// Device offset of its write pointer (every acknowledged byte below it is readable).
    pub write_pointer: u64,
    /// Device offset of its actual write pointer: bytes below are on flash, the rest up to
    /// the write pointer sit in the SubZone Ring.
    pub flushed_pointer: u64,
    /// Device offset of its read pointer (the Read Scheduler's compaction position).
    pub read_pointer: u64,
    /// The chip serving it (global chip index), from its first write to its merge.
    pub chip: Option<u32>,
}

/// Counters of a SplitZNS device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SplitZnsStats {
    /// SPLIT commands carried out.
    pub splits: u64,
    /// Split-zone FINISH commands that deactivated a split zone.
    pub split_finishes: u64,
    /// Split-zone RESET commands (back to wide).
    pub split_resets: u64,
    /// Subzone finishes that changed a subzone.
    pub subzone_finishes: u64,
    /// MERGE commands that emptied a subzone.
    pub merges: u64,
    /// Split zones that a write to an empty subzone reactivated.
    pub reactivations: u64,
    /// Entries in the subzone-to-block map now.
    pub map_entries: u64,
    /// Bytes the map takes now (8 per entry).
    pub map_bytes: u64,
    /// The most bytes the map ever took.
    pub map_peak_bytes: u64,
    /// Subzone reads served from the SubZone Ring.
    pub ring_reads: u64,
    /// Flush rounds of the ring (one unit per chip each).
    pub ring_flush_rounds: u64,
    /// Program units the ring flushed.
    pub ring_units_flushed: u64,
    /// Bytes in the ring now (whole program units).
    pub ring_bytes: u64,
    /// The most bytes the ring held.
    pub ring_peak_bytes: u64,
    /// Subzone reads the host tagged as queries that the device took for queries.
    pub rs_query_as_query: u64,
    /// Subzone reads the host tagged as queries that the device took for compactions.
    pub rs_query_as_compaction: u64,
    /// Subzone reads the host tagged as background (compaction) that the device took for
    /// queries.
    pub rs_compaction_as_query: u64,
    /// Subzone reads the host tagged as background that the device took for compactions.
    pub rs_compaction_as_compaction: u64,
    /// Prereads issued by the Read Prefetcher.
    pub prereads: u64,
    /// Compaction reads served from a preread buffer.
    pub preread_hits: u64,
    /// Compaction reads that went to flash with the prefetcher on.
    pub preread_misses: u64,
}

impl SplitZnsStats {
    /// Subzone reads whose detected class agreed with the host's tag.
    pub fn rs_agreements(&self) -> u64 {
        self.rs_query_as_query + self.rs_compaction_as_compaction
    }

    /// Subzone reads whose detected class disagreed with the host's tag.
    pub fn rs_disagreements(&self) -> u64 {
        self.rs_query_as_compaction + self.rs_compaction_as_query
    }

    /// Detection accuracy (agreements over classified reads; 1 with none).
    pub fn rs_accuracy(&self) -> f64 {
        let n = self.rs_agreements() + self.rs_disagreements();
        if n == 0 {
            1.0
        } else {
            self.rs_agreements() as f64 / n as f64
        }
    }
}
