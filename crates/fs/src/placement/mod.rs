//! Zone placement policies: pure functions from a read-only view of the zones (and the hints
//! received) to a decision the file layer carries out.
//!
//! - [`lifetime`]: LIZA, ZenFS's lifetime-based allocator, reproduced rule by rule.
//! - [`compaction_aware`]: CAZA, compaction-aware allocation (Same-Zone Compaction paper, §VI).
//! - [`liza_caza`] and [`caza_artifact`]: the authors' code forms of LIZA and CAZA (CAZA-ADV,
//!   CAZA v1) that produced the Same-Zone Compaction paper's figures.
//! - [`overlap_ratio`]: OAZA, overlapping-ratio-aware allocation (ASP-DAC'24 slides;
//!   reconstructed), and `oaza-band` (a fresh zone per overlap-ratio band when the target
//!   zone is full, instead of LIZA).
//! - [`selective`]: SplitZNS's selective allocator (LIZA for wide zones, subzones of split
//!   zones for deep SSTs), over what [`split`] shows of split zones
//!   ([`PlacementPolicy::place_subzone`]).
//! - [`level_zones`]: dedicated zones per level (GearDB's layout; the zone side of the
//!   SplitZNS paper's Gear and LLC baselines).
//!
//! [`registry`] holds them by name: one row per policy (name, help, builder).
//!
//! CAZA and OAZA need what only the engine knows (the SST's level and key range, the
//! overlapping SSTs of the neighbour levels and the zones holding them, the level scores). When
//! an SST is complete, the engine asks the policy to plan it ([`PlacementPolicy::plan_sst`])
//! with a read-only [`TreeView`] of the LSM tree; the policy builds its candidate zones there
//! and returns them in an [`SstContext`], which the engine passes with the file
//! ([`crate::ZoneFs::create_sst`]) and the policy reads back from [`PlacementRequest::sst`].
//! Hints about what the engine does reach policies through [`PlacementPolicy::on_hint`].

pub mod caza_artifact;
pub mod compaction_aware;
pub mod level_zones;
pub mod lifetime;
pub mod liza_caza;
pub mod overlap_ratio;
pub mod policy;
pub mod registry;
pub mod split;
pub mod tree_view;

pub use split::{SplitView, SplitZoneView, SubzonePlacement, WideFallback};
pub use tree_view::{NewSst, TreeFile, TreeView};

pub use policy::*;
pub use registry::{PlacementError, PlacementSettings};

/// The placement policy called `name` (a row of [`registry::ENTRIES`]) with each policy's
/// default settings ([`registry::build`] takes others).
///
/// # Errors
/// [`PlacementError::Unknown`] naming the known policies; [`PlacementError::Invalid`] for a
/// `liza+…` or `caza+…` name with keys unknown or out of order.
pub fn by_name(name: &str) -> registry::Built {
    registry::build(name, &PlacementSettings::default())
}
