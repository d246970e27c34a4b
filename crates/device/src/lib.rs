//! Zoned devices for ZoneDB: one core [`ZonedDevice`] trait (the NVMe ZNS command set), one
//! trait per optional command family a device reports through [`ZonedDevice::capabilities`]
//! ([`families`]), simulated devices timed in virtual time, and real ones.
//!
//! ```
//! use zonedb_device::sim::spec::SimPayload;
//! use zonedb_device::{IoClass, Profile, SimDevice, ZoneState, ZonedDevice};
//! use zonedb_env::{Env, SimConfig, SimEnv};
//!
//! let env = SimEnv::new(SimConfig::with_seed(1));
//! let dev = SimDevice::new(env.clone(), Profile::by_name("tiny")?, &SimPayload::Memory)?;
//! let e = env.clone();
//! env.run(async move {
//!     let start = dev.report_zones(1, 1)[0].start;
//!     dev.write(start, &[7u8; 4096]).await?; // at the zone's write pointer
//!     assert_eq!(dev.report_zones(1, 1)[0].state, ZoneState::ImplicitlyOpen);
//!     assert_eq!(dev.read(start, 4096, IoClass::QueryRead).await?, vec![7u8; 4096]);
//!     assert!(e.now() > 0, "the flash took its time (virtual)");
//!     Ok::<(), zonedb_device::DeviceError>(())
//! })??;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`families`]: the optional command families ([`SplitZones`], [`InDeviceCopy`], [`Tiers`])
//!   and their registry ([`Capabilities`]).
//! - [`zone`]: the NVMe ZNS zone state machine every model and backend shares.
//! - [`checker`]: the write-pointer checker run around every request.
//! - [`flash`]: flash geometry, zone-to-flash mapping and the per-chip/per-channel timing model.
//! - [`profile`]: named device profiles from the papers (`splitzns-paper`, `caza-paper`,
//!   `oaza-paper`, `zn540`, `tiny`) and scaling.
//! - [`sim`]: the simulated zoned device generic over its media ([`sim::SimZonedDevice`],
//!   [`sim::Media`]), and the one way to build one ([`sim::SimDeviceSpec`], [`sim::SimDevice`]).
//! - [`zns`]: the simulated ZNS SSD ([`ZnsSsd`]) = the simulated device over flash media.
//! - [`disk`]: the HM-SMR HDD model ([`disk::DiskMedia`], [`DiskProfile`], `st14000nm0007`) and
//!   [`SmrHdd`] = the simulated device over it.
//! - [`hybrid`]: [`HybridDevice`], a ZNS SSD and an HM-SMR HDD under one zone index space
//!   ([`hybrid_layout`]: what it tells the layers above).
//! - [`payload`]: where written bytes live (memory or a sparse file).
//! - [`zonefile`]: the file-backed zoned device for real mode.
//! - [`real`]: [`RealDevice`], the real-mode device whichever backend holds it.
//! - `blkzoned` (Linux): host-managed zoned block devices (NVMe ZNS, HM-SMR) through the kernel.
//! - [`bench`](mod@bench): the fio-like device microbenchmark behind `zonedb device bench`.
#![deny(unsafe_code)]
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
#![warn(clippy::pedantic)]
#![allow(
    clippy::module_name_repetitions,
    clippy::must_use_candidate,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation
)]

/// Implements [`ZonedDevice`] for a real-mode device whose requests complete when they are
/// issued: each call runs the type's `geometry_now`, `report_now`, `read_now`, `write_now`,
/// `manage_now`, `sync_now` or `stats_now` and returns a ready future.
macro_rules! ready_device {
    ($ty:ty) => {
        impl $crate::ZonedDevice for $ty {
            fn geometry(&self) -> &$crate::ZoneGeometry {
                self.geometry_now()
            }

            fn report_zones(&self, first: u32, count: u32) -> Vec<$crate::ZoneInfo> {
                self.report_now(first, count)
            }

            fn read(
                &self,
                offset: u64,
                len: u64,
                _class: $crate::IoClass,
            ) -> impl Future<Output = Result<Vec<u8>, $crate::DeviceError>> + Send {
                std::future::ready(self.read_now(offset, len))
            }

            fn write(
                &self,
                offset: u64,
                data: &[u8],
            ) -> impl Future<Output = Result<(), $crate::DeviceError>> + Send {
                std::future::ready(
                    self.write_now($crate::zonefile::Target::At(offset), data)
                        .map(|_| ()),
                )
            }

            fn append(
                &self,
                zone: u32,
                data: &[u8],
            ) -> impl Future<Output = Result<u64, $crate::DeviceError>> + Send {
                std::future::ready(self.write_now($crate::zonefile::Target::Append(zone), data))
            }

            fn manage(
                &self,
                zone: u32,
                op: $crate::ZoneOp,
            ) -> impl Future<Output = Result<(), $crate::DeviceError>> + Send {
                std::future::ready(self.manage_now(zone, op))
            }

            fn sync(&self) -> impl Future<Output = Result<(), $crate::DeviceError>> + Send {
                std::future::ready(self.sync_now())
            }

            fn stats(&self) -> $crate::DeviceStats {
                self.stats_now()
            }

            fn host_cached_writes(&self) -> bool {
                self.host_cached_now()
            }
        }
    };
}

pub mod bench;
#[cfg(target_os = "linux")]
pub mod blkzoned;
pub mod checker;
pub mod disk;
pub mod elided;
mod error;
pub mod families;
pub mod flash;
pub mod hybrid;
pub mod hybrid_layout;
pub mod links;
pub mod payload;
pub mod profile;
pub mod real;
pub mod sim;
pub mod splitzns;
pub mod zns;
pub mod zone;
pub mod zonefile;

use std::future::Future;

#[cfg(target_os = "linux")]
pub use blkzoned::BlkZonedDevice;
pub use disk::{DiskProfile, SmrHdd};
pub use elided::{ElidedBytes, Hole, RangeView};
pub use error::{DeviceError, DeviceErrorKind, SplitOp, SplitRefusal, ZoneOp};
pub use families::{Capabilities, DeviceFuture, InDeviceCopy, SplitZones, Tiers};
pub use hybrid::HybridDevice;
pub use hybrid_layout::{HybridLayout, HybridStats, Tier, TierLimits};
pub use profile::Profile;
pub use real::RealDevice;
pub use zone::{ZoneGeometry, ZoneInfo, ZoneState};
pub use zonefile::ZoneFileDevice;

pub use sim::{Faults, HybridSpec, SimDevice, SimDeviceSpec, SimZonedDevice};
pub use splitzns::{SplitZnsConfig, SplitZnsSsd, SubzoneId, SubzoneInfo, SubzoneState};
pub use zns::ZnsSsd;

/// Why a request is issued; device schedulers may order queued work by class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IoClass {
    /// A read on behalf of a user query (latency-critical).
    QueryRead,
    /// A read for compaction, cleaning or prefetch.
    BackgroundRead,
    /// Any write.
    #[default]
    Write,
    /// Erase work behind a reset.
    Erase,
}

/// Counters every device keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceStats {
    /// Bytes written by writes and appends.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Write and append commands completed.
    pub writes: u64,
    /// Read commands completed.
    pub reads: u64,
    /// Zone resets that changed a zone.
    pub zone_resets: u64,
    /// Zone finishes that changed a zone.
    pub zone_finishes: u64,
    /// Flash block erases (simulated devices; 0 elsewhere).
    pub block_erases: u64,
    /// Flash page operations (reads and programs) performed (simulated devices).
    pub page_ops: u64,
    /// Flush commands ([`ZonedDevice::sync`]) completed. Left out of JSON while 0, so the
    /// reports of simulations (whose zone layer never flushes a device without a volatile
    /// write cache) stay as they were.
    #[serde(skip_serializing_if = "is_zero")]
    pub syncs: u64,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if signature"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The refusal of a split-zone command by a device without split zones.
pub(crate) fn zone_split_unsupported() -> DeviceError {
    DeviceError::Unsupported {
        command: "zone split",
    }
}

/// A zoned block device: NVMe ZNS semantics, byte offsets, block-aligned requests.
///
/// Requests are validated and admitted in the order they are issued (the admission happens
/// synchronously when the future is created, so concurrent tasks writing one zone keep their
/// issue order); the returned future completes when the device would complete the request.
pub trait ZonedDevice: Send + Sync + 'static {
    /// Geometry and limits.
    fn geometry(&self) -> &ZoneGeometry;

    /// Zone descriptors of `count` zones from `first`.
    fn report_zones(&self, first: u32, count: u32) -> Vec<ZoneInfo>;

    /// Reads `len` bytes at `offset`; the range must be below the zone's write pointer.
    fn read(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, DeviceError>> + Send;

    /// Writes `data` at `offset`, which must be the zone's write pointer.
    fn write(
        &self,
        offset: u64,
        data: &[u8],
    ) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Zone append: writes `data` at the zone's write pointer and returns the offset assigned.
    fn append(
        &self,
        zone: u32,
        data: &[u8],
    ) -> impl Future<Output = Result<u64, DeviceError>> + Send;

    /// Zone management: open, close, finish or reset one zone. On a split zone, finish is
    /// SplitZNS's FINISH (deactivation) and reset its RESET (back to a wide zone).
    fn manage(&self, zone: u32, op: ZoneOp)
    -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Makes every completed write durable (a flush command). Simulated devices are durable at
    /// completion; file-backed devices sync their files.
    fn sync(&self) -> impl Future<Output = Result<(), DeviceError>> + Send;

    /// Whether completed writes can still be lost by a power loss (or host crash) until a
    /// [`ZonedDevice::sync`] (NVMe's Volatile Write Cache bit). The zone layer flushes only
    /// devices that have one; the simulated SSD's completed writes are durable.
    fn volatile_write_cache(&self) -> bool {
        true
    }

    /// Whether a completed write lands in the host's page cache (a file-backed device), so
    /// that it survives the end of the writing process, though not a power loss, without a
    /// [`ZonedDevice::sync`]. The engine hands every WAL write group to such a device before
    /// it acknowledges the write (RocksDB's default, `manual_wal_flush = false`). Elsewhere a
    /// write is a device command (direct I/O, or the simulated device, which models no host
    /// cache), and the WAL stays buffered as ZenFS keeps it, until a sync or a full buffer.
    fn host_cached_writes(&self) -> bool {
        false
    }

    /// Counters so far.
    fn stats(&self) -> DeviceStats;

    /// The optional command families this device has ([`families`]): none by default. A
    /// device that wraps another forwards its capabilities whole.
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::none()
    }

    /// Writes the logical string `data` at `offset` (the zone's write pointer), as
    /// [`ZonedDevice::write`] of `data.len()` bytes would: same command, same byte count, same
    /// timing. A device that can keep holes unstored (the simulated device) does; the default
    /// writes the holes as zeros.
    fn write_elided(
        &self,
        offset: u64,
        data: &ElidedBytes,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let bytes = if data.is_dense() {
            std::borrow::Cow::Borrowed(data.data())
        } else {
            std::borrow::Cow::Owned(data.materialize())
        };
        async move { self.write(offset, &bytes).await }
    }

    /// [`ZonedDevice::write_elided`] of the logical range `[at, at + len)` of `data` (clipped
    /// to it), without copying the range out when the device can take it borrowed.
    fn write_elided_range(
        &self,
        offset: u64,
        data: &ElidedBytes,
        at: u64,
        len: u64,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let piece = data.slice(at, len);
        async move { self.write_elided(offset, &piece).await }
    }

    /// Reads `len` bytes at `offset` as [`ZonedDevice::read`] does (same command, timing and
    /// errors), returning ranges written as holes as holes where the device kept them so
    /// (the default returns a string without holes).
    fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<ElidedBytes, DeviceError>> + Send {
        let read = self.read(offset, len, class);
        async move { read.await.map(ElidedBytes::from_vec) }
    }

    /// Bytes of written data the device holds in the host's memory (simulated devices with an
    /// in-memory payload); `None` when it keeps none there.
    fn memory_payload_bytes(&self) -> Option<u64> {
        None
    }

    /// The most bytes of written data the device ever held in the host's memory at once.
    fn peak_memory_payload_bytes(&self) -> Option<u64> {
        None
    }

    /// A read of `len` bytes at `offset` as [`ZonedDevice::read`] (same command, timing,
    /// counters and errors) whose bytes the caller does not want: a simulated device skips
    /// copying them out of its payload.
    fn read_discard(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<(), DeviceError>> + Send {
        let read = self.read_elided(offset, len, class);
        async move { read.await.map(drop) }
    }

    /// The `len` bytes at `offset` as the device holds them now (holes as holes), taken
    /// without a command: no time passes, no counter moves, no fault is drawn. For work that
    /// only needs the bytes while a separate, real read keeps the timing (the engine's
    /// compaction merges ahead on another thread in simulation). `None` when the device
    /// cannot (real devices; a range a read would refuse).
    fn peek_elided(&self, offset: u64, len: u64) -> Option<ElidedBytes> {
        let _ = (offset, len);
        None
    }
}
