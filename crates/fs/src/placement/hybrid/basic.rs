//! The HHZS paper's basic schemes `Bh` (§2.3): the WAL and the SSTs of levels `L0 .. L(h-1)`
//! on the SSD, levels `Lh` and up on the HDD; when the SSD has no empty zone the write goes
//! to the HDD (no migration: SSD space comes back when compaction deletes SSD SSTs). No SSD
//! zone is reserved for the WAL.

use zonedb_device::Tier;

use super::{HybridScheme, Target};
use crate::hints::Hint;
use crate::placement::{
    AllocView, HybridContext, NewSst, PlacementDecision, PlacementPolicy, PlacementRequest,
    SstContext, TreeView,
};

/// `Bh`: levels below `h` on the SSD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Basic {
    /// The first level kept on the HDD.
    pub h: u32,
}

/// Placement names of `B1` .. `B4`.
pub const NAMES: [&str; 4] = ["hybrid-b1", "hybrid-b2", "hybrid-b3", "hybrid-b4"];

impl Basic {
    /// `Bh` for a name of [`NAMES`].
    pub fn by_name(name: &str) -> Option<Self> {
        let i = NAMES.iter().position(|n| *n == name)?;
        Some(Self {
            h: u32::try_from(i).ok()? + 1,
        })
    }

    /// The device of an SST at `level`.
    pub fn tier(self, level: u32) -> Tier {
        if level < self.h { Tier::Ssd } else { Tier::Hdd }
    }
}

impl HybridScheme for Basic {
    fn target(&self, _: &AllocView<'_>, _: &HybridContext, r: &PlacementRequest<'_>) -> Target {
        Target::Sst(self.tier(r.sst.map_or(0, |s| s.level)))
    }
}

impl PlacementPolicy for Basic {
    fn name(&self) -> &'static str {
        NAMES[(self.h as usize).clamp(1, NAMES.len()) - 1]
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        super::place(self, view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, _tree: &dyn TreeView) -> Option<SstContext> {
        Some(SstContext::new(sst, Vec::new()))
    }

    fn on_hint(&self, _hint: &Hint) {}
}
