//! Zone cleaning (garbage collection) policies: pure functions from a view of the zones to the
//! victims to clean. The file layer migrates the victims' live extents and resets them.
//!
//! - [`zenfs`]: ZenFS's GC rules (free space at or below 20 %, garbage threshold sweep).
//! - [`none`]: no cleaning.
//! - [`greedy`]: the papers' LDP baseline (below a free-space threshold, the zone with the
//!   least valid data).
//!
//! [`mechanism`] carries the policies' decisions out: migration of live extents, resets, the
//! background task.

pub mod greedy;
pub mod mechanism;
pub mod none;
pub mod zenfs;

use crate::placement::policy::ZoneView;

/// Zones as a cleaner sees them.
#[derive(Debug, Clone, Copy)]
pub struct CleaningView<'a> {
    /// IO zones in index order.
    pub zones: &'a [ZoneView],
}

impl CleaningView<'_> {
    /// Unwritten remaining capacity of all zones (ZenFS's `free`).
    pub fn free_bytes(&self) -> u64 {
        self.zones.iter().map(|z| z.remaining_bytes).sum()
    }

    /// Live bytes (ZenFS's `used`).
    pub fn used_bytes(&self) -> u64 {
        self.zones.iter().map(|z| z.used_bytes).sum()
    }

    /// Garbage in full zones (ZenFS's `reclaimable`).
    pub fn reclaimable_bytes(&self) -> u64 {
        self.zones
            .iter()
            .filter(|z| z.is_full())
            .map(|z| z.max_capacity_bytes - z.used_bytes.min(z.max_capacity_bytes))
            .sum()
    }

    /// `100 * free / (free + used + reclaimable)`, as ZenFS computes it.
    pub fn free_percent(&self) -> u64 {
        let (f, u, r) = (
            self.free_bytes(),
            self.used_bytes(),
            self.reclaimable_bytes(),
        );
        let total = f + u + r;
        (100 * f).checked_div(total).unwrap_or(100)
    }
}

/// A cleaning policy.
pub trait CleaningPolicy: Send + Sync + std::fmt::Debug {
    /// Name used on the command line and in reports (`zenfs`, `greedy`, `none`).
    fn name(&self) -> &'static str;

    /// Zones to clean now, in the order to clean them (empty: nothing to do).
    fn victims(&self, view: &CleaningView<'_>) -> Vec<u32>;

    /// A hint about what the engine does, in the order things happen. Must be quick; the
    /// default ignores it.
    fn on_hint(&self, _hint: &crate::hints::Hint) {}
}

/// One row of the cleaner registry: a name, a line of help, a builder taking greedy's
/// free-space trigger.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The name on the command line and in scenarios.
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Makes the cleaner; the argument is the free-space trigger, percent.
    pub build: fn(u32) -> std::sync::Arc<dyn CleaningPolicy>,
}

/// The cleaners by name, in the order help texts list them. A new cleaner is its own file
/// plus one row here.
pub static ENTRIES: &[Entry] = &[
    Entry {
        name: "none",
        help: "no cleaning",
        build: |_| std::sync::Arc::new(none::NoCleaner),
    },
    Entry {
        name: "greedy",
        help: "below the free-space trigger, the zone with the least valid data (LDP)",
        build: |threshold_pct| {
            std::sync::Arc::new(greedy::GreedyCleaner {
                free_threshold_pct: threshold_pct,
            })
        },
    },
    Entry {
        name: "zenfs",
        help: "ZenFS's rules (free space at or below 20 %, garbage threshold sweep)",
        build: |_| std::sync::Arc::new(zenfs::ZenFsCleaner),
    },
];

/// The cleaners' names, in [`ENTRIES`] order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ENTRIES.iter().map(|e| e.name)
}

/// The cleaner called `name` (a row of [`ENTRIES`]); `threshold_pct` is greedy's free-space
/// trigger.
///
/// # Errors
/// [`crate::FsError::UnknownName`] listing the known cleaners.
pub fn by_name(
    name: &str,
    threshold_pct: u32,
) -> Result<std::sync::Arc<dyn CleaningPolicy>, crate::FsError> {
    let e = ENTRIES
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| crate::UnknownName::new("cleaner", name, names()))?;
    Ok((e.build)(threshold_pct))
}

/// Zones for the cleaners' unit tests.
#[cfg(test)]
pub(crate) mod test_zones {
    use crate::placement::policy::{Lifetime, ZoneView};

    /// Capacity of every test zone.
    pub const CAP: u64 = 100;

    /// A zone of capacity [`CAP`] with `remaining` unwritten and `used` live bytes.
    pub fn zone(index: u32, remaining: u64, used: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: used,
            lifetime: Lifetime::Long,
            busy: false,
        }
    }
}
