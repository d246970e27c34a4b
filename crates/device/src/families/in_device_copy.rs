//! ZNS+'s commands (ZNS+, OSDI 2021): in-device zone compaction (IZC, NVMe Simple Copy),
//! copyback, threaded logging's sparse writes, and its counters.

use super::DeviceFuture;
use crate::ElidedBytes;
use crate::flash::ZnsPlusStats;

/// A device that copies inside itself and takes sparse sequential writes (ZNS+).
pub trait InDeviceCopy: Send + Sync {
    /// In-device copy (NVMe Simple Copy; ZNS+'s IZC): copies the device byte ranges `sources`
    /// (offset, length) to the write pointer of `dest_zone`, in order, and returns the offset
    /// they start at. No byte crosses the host link.
    fn copy<'a>(&'a self, sources: &'a [(u64, u64)], dest_zone: u32) -> DeviceFuture<'a, u64>;

    /// TL_open: the full `zone` opens for threaded logging with `valid` (one flag per block of
    /// its capacity: the blocks the host still needs). The host then writes only into invalid
    /// blocks, in increasing order ([`InDeviceCopy::write_sparse`]); the device keeps the valid
    /// blocks readable and plugs them into its fresh flash blocks; a finish (or writing the
    /// last block) closes it.
    fn threaded_open<'a>(&'a self, zone: u32, valid: &'a [bool]) -> DeviceFuture<'a, ()>;

    /// Sparse sequential write: `data` at `offset`, at or beyond the write pointer of a zone
    /// opened by [`InDeviceCopy::threaded_open`], into blocks that were invalid then (the
    /// skipped blocks keep their valid data, or become padding).
    fn write_sparse<'a>(&'a self, offset: u64, data: &'a [u8]) -> DeviceFuture<'a, ()>;

    /// [`InDeviceCopy::write_sparse`] of a logical string (holes not stored where the device
    /// keeps them so).
    fn write_sparse_elided<'a>(
        &'a self,
        offset: u64,
        data: &'a ElidedBytes,
    ) -> DeviceFuture<'a, ()>;

    /// The flash page size and the die-and-plane slot of the page at device `offset`; a
    /// destination page whose source page is on the same slot can be copied back (no channel
    /// transfer). `None` where the device cannot tell (an offset out of range).
    fn copyback_slot(&self, offset: u64) -> Option<(u64, u32)>;

    /// ZNS+'s counters (IZC, plugging).
    fn znsplus_stats(&self) -> ZnsPlusStats;
}
