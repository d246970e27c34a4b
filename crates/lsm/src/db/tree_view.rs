//! The engine's read-only view of its LSM tree for the zone layer's placement policies
//! ([`zonedb_fs::placement::TreeView`]): a snapshot of the current version (levels, each
//! SST's user-key range and size, which SSTs a compaction is consuming), the level scores and
//! base level, and the zones holding each SST (asked of the zone layer).

use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::{NewSst, SstContext, TreeFile, TreeView};

use super::Inner;
use super::background::level_view;
use crate::compaction::levels::{largest_uk, smallest_uk};
use crate::compaction::{LevelFile, compaction_scores, level_targets};
use crate::version::manifest::sst_name;

/// The tree as it is when an SST is placed.
#[derive(Debug)]
pub(crate) struct EngineTree<'a, E: Env, D: ZonedDevice> {
    fs: &'a Arc<ZoneFs<E, D>>,
    levels: Vec<Vec<TreeFile<'a>>>,
    scores: &'a [(u32, f64)],
    base_level: u32,
}

impl<'a, E: Env, D: ZonedDevice> EngineTree<'a, E, D> {
    /// A view of `levels` (the picker's view of a version) with their `scores`.
    pub(crate) fn new(
        fs: &'a Arc<ZoneFs<E, D>>,
        levels: &'a [Vec<LevelFile<'a>>],
        scores: &'a [(u32, f64)],
        base_level: u32,
    ) -> Self {
        let levels = levels
            .iter()
            .map(|l| {
                l.iter()
                    .map(|f| TreeFile {
                        number: f.number,
                        size: f.file_size,
                        smallest: smallest_uk(f),
                        largest: largest_uk(f),
                        being_compacted: f.being_compacted,
                    })
                    .collect()
            })
            .collect();
        Self {
            fs,
            levels,
            scores,
            base_level,
        }
    }
}

impl<E: Env, D: ZonedDevice> TreeView for EngineTree<'_, E, D> {
    fn num_levels(&self) -> u32 {
        u32::try_from(self.levels.len()).unwrap_or(u32::MAX)
    }

    fn base_level(&self) -> u32 {
        self.base_level
    }

    fn level_score(&self, level: u32) -> f64 {
        self.scores
            .iter()
            .find(|(l, _)| *l == level)
            .map_or(0.0, |(_, s)| *s)
    }

    fn files(&self, level: u32) -> &[TreeFile<'_>] {
        self.levels.get(level as usize).map_or(&[], Vec::as_slice)
    }

    fn file_zones(&self, files: &[u64]) -> Vec<Vec<(u32, u64)>> {
        let names: Vec<String> = files.iter().map(|&n| sst_name(n)).collect();
        self.fs.file_zones(&names)
    }
}

/// The placement policy's plan for a complete SST, from the tree as it is now (`None` when
/// the policy does not read the tree).
pub(crate) fn placement_context<E: Env, D: ZonedDevice>(
    inner: &Inner<E, D>,
    sst: &NewSst<'_>,
) -> Option<SstContext> {
    let policy = &inner.fs.options().placement;
    if !policy.wants_tree_view() {
        return None;
    }
    let version;
    let levels = {
        let st = inner.lock();
        version = st.version.clone();
        level_view(&version, &st.being_compacted)
    };
    let targets = level_targets(&levels, &inner.opts);
    let scores = compaction_scores(&levels, &targets, &inner.opts);
    let tree = EngineTree::new(&inner.fs, &levels, &scores, targets.base_level);
    policy.plan_sst(sst, &tree)
}
