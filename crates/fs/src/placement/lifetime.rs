//! TEMPORARY STUB (replaced by the LIZA implementation).
use super::{AllocView, Placement, PlacementDecision, PlacementPolicy, PlacementRequest};
/// LIZA.
#[derive(Debug, Clone, Copy, Default)]
pub struct Liza;
impl PlacementPolicy for Liza {
    fn name(&self) -> &'static str {
        "liza"
    }
    fn place(&self, view: &AllocView<'_>, req: &PlacementRequest) -> PlacementDecision {
        let limit = if req.io_type == super::IoType::Wal {
            view.max_open_io_zones
        } else {
            view.max_open_io_zones.saturating_sub(1)
        };
        if view.open_io_zones >= limit {
            return PlacementDecision {
                finish: vec![],
                outcome: Placement::WaitForOpenToken,
            };
        }
        if let Some(z) = view
            .zones
            .iter()
            .filter(|z| {
                !z.busy
                    && z.used_bytes > 0
                    && !z.is_full()
                    && z.remaining_bytes >= req.min_capacity_bytes
                    && z.lifetime == req.lifetime
            })
            .last()
        {
            return PlacementDecision {
                finish: vec![],
                outcome: Placement::Active(z.index),
            };
        }
        if view.active_io_zones >= view.max_active_io_zones {
            return PlacementDecision {
                finish: vec![],
                outcome: Placement::WaitForActiveToken,
            };
        }
        match view.zones.iter().find(|z| z.is_empty() && !z.busy) {
            Some(z) => PlacementDecision {
                finish: vec![],
                outcome: Placement::Empty(z.index),
            },
            None => PlacementDecision {
                finish: vec![],
                outcome: Placement::NoSpace,
            },
        }
    }
}
