//! What placement policies see of split zones (SplitZNS) and what they decide about subzones.
//!
//! On a device that splits zones ([`zonedb_device::SplitZones::split_geometry`]), the file
//! layer asks the placement policy, before the wide-zone decision, whether a complete SST goes
//! to a subzone ([`super::PlacementPolicy::place_subzone`]), with a [`SplitView`]: the zones
//! as the wide policy sees them (split zones show busy there, so wide placement, finishes and
//! cleaning never touch them), the tokens, and the split zones with their subzones. A subzone
//! holds exactly one SST.

use zonedb_device::SubzoneId;

use super::policy::AllocView;

/// One split zone as the subzone allocator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SplitZoneView {
    /// Zone index on the device.
    pub index: u32,
    /// Subzones holding data and no writer (each holds one SST, finished when it was closed).
    pub full_subzones: u32,
    /// The first subzone that is empty, not held by a writer and not being merged.
    pub free_subzone: Option<u32>,
    /// The split zone holds its open and active tokens (it is open on the device); a write to
    /// an empty subzone of an inactive one takes them again.
    pub active: bool,
    /// A command on the split zone is in flight (split, finish, reset): not to be taken now.
    pub busy: bool,
}

/// Zones, tokens and split zones as the subzone allocator sees them.
#[derive(Debug, Clone, Copy)]
pub struct SplitView<'a> {
    /// The zones and tokens of the wide decision (split zones show busy).
    pub alloc: AllocView<'a>,
    /// The split zones, in index order.
    pub split_zones: &'a [SplitZoneView],
    /// Writable bytes of one subzone.
    pub subzone_capacity_bytes: u64,
    /// Device block: an SST takes its size rounded up to it.
    pub block_bytes: u64,
}

impl SplitView<'_> {
    /// Whether an active token is free (to split a zone or reactivate an inactive split zone).
    pub fn active_token_free(&self) -> bool {
        self.alloc.active_io_zones < self.alloc.max_active_io_zones
    }
}

/// Why an SST that a policy wanted in a subzone goes to a wide zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WideFallback {
    /// The SST is larger than a subzone (an SST never spans subzones).
    TooLarge,
    /// No split zone has a free subzone and the cap on split zones is reached.
    SplitCap,
    /// No split zone with a free subzone can be used and no active token is free to split
    /// a zone or reactivate a split zone.
    NoActiveToken,
    /// No split zone has a free subzone and no empty wide zone is left to split.
    NoEmptyZone,
}

/// Where a complete SST goes, as the subzone allocator decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubzonePlacement {
    /// Into this empty subzone of a split zone.
    Subzone(SubzoneId),
    /// Split this empty wide zone (it becomes open, taking an active token) and write into
    /// its first subzone.
    Split(u32),
    /// No open token is free for the writer: wait until one is released and ask again.
    WaitForOpenToken,
    /// Into a wide zone after all (the wide decision places it), for this reason.
    Wide(WideFallback),
}
