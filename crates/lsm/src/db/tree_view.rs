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
use crate::compaction::start_file::files_by_compaction_pri;
use crate::compaction::{LevelFile, compaction_scores, level_targets};
use crate::options::CompactionPri;
use crate::version::manifest::sst_name;

/// The tree as it is when an SST is placed.
#[derive(Debug)]
pub(crate) struct EngineTree<'a, E: Env, D: ZonedDevice> {
    fs: &'a Arc<ZoneFs<E, D>>,
    levels: Vec<Vec<TreeFile<'a>>>,
    scores: &'a [(u32, f64)],
    base_level: u32,
    /// The picker's view, for the compaction-priority order.
    picked: &'a [Vec<LevelFile<'a>>],
    /// Compaction priority and the round-robin cursors of the levels.
    pri: (CompactionPri, &'a [Vec<u8>]),
    target_file_size_bytes: u64,
}

impl<'a, E: Env, D: ZonedDevice> EngineTree<'a, E, D> {
    /// A view of `levels` (the picker's view of a version) with their `scores`, the
    /// compaction priority with the levels' round-robin cursors, and the SST size target.
    pub(crate) fn new(
        fs: &'a Arc<ZoneFs<E, D>>,
        levels: &'a [Vec<LevelFile<'a>>],
        scores: &'a [(u32, f64)],
        base_level: u32,
        pri: (CompactionPri, &'a [Vec<u8>]),
        target_file_size_bytes: u64,
    ) -> Self {
        let picked = levels;
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
            picked,
            pri,
            target_file_size_bytes,
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

    fn target_file_size_bytes(&self) -> u64 {
        self.target_file_size_bytes
    }

    fn files_by_compaction_pri(&self, level: u32) -> Vec<u64> {
        let l = level as usize;
        let Some(files) = self.picked.get(l) else {
            return Vec::new();
        };
        let cursor = self.pri.1.get(l).map_or(&[][..], Vec::as_slice);
        files_by_compaction_pri(self.picked, l, self.pri.0, cursor)
            .into_iter()
            .filter_map(|i| files.get(i))
            .filter(|f| !f.being_compacted)
            .map(|f| f.number)
            .collect()
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
    let (levels, cursors) = {
        let st = inner.lock();
        version = st.version.clone();
        (
            level_view(&version, &st.being_compacted),
            st.compact_cursor.clone(),
        )
    };
    let targets = level_targets(&levels, &inner.opts);
    let scores = compaction_scores(&levels, &targets, &inner.opts);
    let tree = EngineTree::new(
        &inner.fs,
        &levels,
        &scores,
        targets.base_level,
        (inner.opts.compaction_pri, &cursors),
        inner.opts.target_file_size_base,
    );
    policy.plan_sst(sst, &tree)
}
