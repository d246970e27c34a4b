//! SplitZNS's subzone commands (see [`crate::splitzns`] for addressing and the state machine).

use super::DeviceFuture;
use crate::DeviceError;
use crate::splitzns::{SplitZnsGeometry, SubzoneId, SubzoneInfo};

/// A device that splits zones into subzones (SplitZNS, ACM TACO 2023). A split zone's FINISH
/// and RESET are [`crate::ZonedDevice::manage`] with [`crate::ZoneOp::Finish`] /
/// [`crate::ZoneOp::Reset`]; its bytes are read with [`crate::ZonedDevice::read`].
pub trait SplitZones: Send + Sync {
    /// Subzone sizes.
    fn split_geometry(&self) -> SplitZnsGeometry;

    /// SPLIT: the empty wide `zone` becomes a split zone of `parts` empty subzones (`parts`
    /// must be [`SplitZnsGeometry::subzones`]), holding one open and one active token.
    fn split_zone(&self, zone: u32, parts: u32) -> DeviceFuture<'_, ()>;

    /// Descriptors of the subzones of split zone `zone`.
    ///
    /// # Errors
    /// [`DeviceError::SplitZone`] when `zone` is not split.
    fn report_subzones(&self, zone: u32) -> Result<Vec<SubzoneInfo>, DeviceError>;

    /// Zone append to a subzone: writes `data` at its write pointer (an empty subzone opens
    /// and gets a chip) and returns the device offset assigned.
    fn append_subzone<'a>(&'a self, subzone: SubzoneId, data: &'a [u8]) -> DeviceFuture<'a, u64>;

    /// The host finished writing a subzone (its SST is complete): it becomes full.
    fn finish_subzone(&self, subzone: SubzoneId) -> DeviceFuture<'_, ()>;

    /// MERGE: resets one subzone (erases only its chip's blocks that hold data).
    fn merge_subzone(&self, subzone: SubzoneId) -> DeviceFuture<'_, ()>;
}
