//! The engine's side of zone awareness: the zone layout under the tree (for ZACA / ACC and
//! the `S_same` / `S_inval` statistics), and the description of a complete SST that CAZA and
//! OAZA place from ([`SstContext`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::ZoneFs;
use zonedb_fs::placement::compaction_aware::nearest_by_key;
use zonedb_fs::placement::overlap_ratio::{OverlapRatioList, overlap_ratio};
use zonedb_fs::placement::{ContextNeeds, NeighbourSst, SstContext};

use crate::compaction::levels::{largest_uk, smallest_uk};
use crate::compaction::{LevelFile, ZoneLayout, ZoneUsage};
use crate::version::manifest::sst_name;

/// Same-level SSTs handed to CAZA's key search and OAZA's ratio search: the nearest this many.
/// Further ones are tried only after these, so this bounds the work per SST without changing
/// any decision where one of the nearest can take the SST.
const NEIGHBOURS_LISTED: usize = 32;

/// The zones' usage and free space (and, for `files`, which zones hold them).
pub(crate) fn zone_layout<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    files: &[u64],
) -> ZoneLayout {
    let names: Vec<String> = files.iter().map(|&n| sst_name(n)).collect();
    let per_file = fs.file_zones(&names);
    let mut layout = ZoneLayout {
        files: files.iter().copied().zip(per_file).collect(),
        zones: BTreeMap::new(),
        free_pct: 0.0,
    };
    let (mut free, mut total) = (0u64, 0u64);
    for z in fs.zone_report() {
        free += z.remaining_bytes;
        total += z.max_capacity_bytes;
        layout.zones.insert(
            z.index,
            ZoneUsage {
                capacity_bytes: z.max_capacity_bytes,
                written_bytes: z.max_capacity_bytes - z.remaining_bytes,
                valid_bytes: z.used_bytes,
            },
        );
    }
    layout.free_pct = if total == 0 {
        0.0
    } else {
        100.0 * free as f64 / total as f64
    };
    layout
}

/// A complete SST as the placement policies need to see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NewSst<'a> {
    pub(crate) number: u64,
    pub(crate) level: u32,
    pub(crate) size: u64,
    pub(crate) smallest: &'a [u8],
    pub(crate) largest: &'a [u8],
}

/// The tree as it is when an SST is placed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TreeShape<'a> {
    pub(crate) levels: &'a [Vec<LevelFile<'a>>],
    pub(crate) scores: &'a [(u32, f64)],
    pub(crate) base_level: u32,
}

impl TreeShape<'_> {
    fn score(&self, level: u32) -> f64 {
        self.scores
            .iter()
            .find(|(l, _)| *l == level)
            .map_or(0.0, |(_, s)| *s)
    }

    fn files(&self, level: u32) -> &[LevelFile<'_>] {
        self.levels.get(level as usize).map_or(&[], Vec::as_slice)
    }

    /// The level an SST of `level` is merged with from above (L0 for the base level).
    fn upper(&self, level: u32) -> Option<u32> {
        match level {
            0 => None,
            l if l <= self.base_level => Some(0),
            l => Some(l - 1),
        }
    }

    /// The level an SST of `level` is merged into (the base level for L0).
    fn lower(&self, level: u32) -> Option<u32> {
        let l = if level == 0 {
            self.base_level
        } else {
            level + 1
        };
        ((l as usize) < self.levels.len() && l != level).then_some(l)
    }

    /// The deepest level holding files.
    fn bottom(&self) -> u32 {
        self.levels
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i as u32)
    }

    /// OAZA's neighbour level of `level`: L+1, or L-1 at the bottom.
    fn ratio_neighbour(&self, level: u32) -> Option<u32> {
        if level < self.bottom() {
            self.lower(level)
        } else {
            self.upper(level)
        }
    }
}

/// Bytes of the files of `level` overlapping `[lo, hi]` (user keys), skipping files being
/// compacted. Sorted levels use binary search; L0 a scan.
fn overlap_bytes(files: &[LevelFile<'_>], sorted: bool, lo: &[u8], hi: &[u8]) -> u64 {
    let (a, b) = if sorted {
        (
            files.partition_point(|f| largest_uk(f) < lo),
            files.partition_point(|f| smallest_uk(f) <= hi),
        )
    } else {
        (0, files.len())
    };
    files
        .get(a..b.max(a))
        .unwrap_or(&[])
        .iter()
        .filter(|f| !f.being_compacted && largest_uk(f) >= lo && smallest_uk(f) <= hi)
        .map(|f| f.file_size)
        .sum()
}

fn overlapping<'a, 'f>(files: &'a [LevelFile<'f>], lo: &[u8], hi: &[u8]) -> Vec<&'a LevelFile<'f>> {
    files
        .iter()
        .filter(|f| !f.being_compacted && largest_uk(f) >= lo && smallest_uk(f) <= hi)
        .collect()
}

/// Builds the [`SstContext`] a policy with `needs` reads.
pub(crate) fn sst_context<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    needs: ContextNeeds,
    tree: &TreeShape<'_>,
    sst: &NewSst<'_>,
) -> SstContext {
    let mut ctx = SstContext {
        number: sst.number,
        level: sst.level,
        size: sst.size,
        level_score: tree.score(sst.level),
        upper_level_score: tree.upper(sst.level).map(|l| tree.score(l)),
        ..SstContext::default()
    };
    // (list, file) pairs whose zones are looked up in one batch at the end.
    let mut wanted: Vec<(u8, &LevelFile<'_>, f64)> = Vec::new();
    if needs.neighbours {
        for (list, level) in [(0u8, tree.upper(sst.level)), (1, tree.lower(sst.level))] {
            if let Some(l) = level {
                for f in overlapping(tree.files(l), sst.smallest, sst.largest) {
                    wanted.push((list, f, 0.0));
                }
            }
        }
        let same: Vec<&LevelFile<'_>> = tree
            .files(sst.level)
            .iter()
            .filter(|f| !f.being_compacted)
            .collect();
        let mut sorted = same.clone();
        if sst.level == 0 {
            sorted.sort_by(|a, b| smallest_uk(a).cmp(smallest_uk(b)));
        }
        let keys: Vec<(&[u8], &[u8])> = sorted
            .iter()
            .map(|f| (smallest_uk(f), largest_uk(f)))
            .collect();
        for i in nearest_by_key(&keys, sst.largest)
            .into_iter()
            .take(NEIGHBOURS_LISTED)
        {
            wanted.push((2, sorted[i], 0.0));
        }
    }
    if needs.overlap_ratios
        && let Some(n) = tree.ratio_neighbour(sst.level)
    {
        let next = tree.files(n);
        let sorted = n != 0;
        ctx.overlap_ratio = overlap_ratio(
            overlap_bytes(next, sorted, sst.smallest, sst.largest),
            sst.size,
        );
        let same = tree.files(sst.level);
        let list = OverlapRatioList::new(
            same.iter()
                .filter(|f| !f.being_compacted)
                .map(|f| {
                    let r = overlap_ratio(
                        overlap_bytes(next, sorted, smallest_uk(f), largest_uk(f)),
                        f.file_size,
                    );
                    (r, f.number)
                })
                .collect(),
        );
        for (r, number) in list.closest(ctx.overlap_ratio, NEIGHBOURS_LISTED) {
            if let Some(f) = same.iter().find(|f| f.number == number) {
                wanted.push((3, f, r));
            }
        }
    }
    let names: Vec<String> = wanted.iter().map(|(_, f, _)| sst_name(f.number)).collect();
    for ((list, f, ratio), zones) in wanted.into_iter().zip(fs.file_zones(&names)) {
        let n = NeighbourSst {
            number: f.number,
            size: f.file_size,
            zones,
            overlap_ratio: ratio,
        };
        match list {
            0 => ctx.upper.push(n),
            1 => ctx.lower.push(n),
            2 => ctx.same_level_by_key.push(n),
            _ => ctx.same_level_by_ratio.push(n),
        }
    }
    ctx
}
