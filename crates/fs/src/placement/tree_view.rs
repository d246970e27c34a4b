//! A read-only view of the LSM tree for zone-layer policies: its levels, each SST's key range
//! and size, the zones holding each SST, the level scores. The engine implements [`TreeView`]
//! over a snapshot of its current version (the zone layer does not know the engine's types);
//! CAZA and OAZA build their candidate zones from it
//! ([`PlacementPolicy::plan_sst`](super::PlacementPolicy::plan_sst)).

/// An SST as a [`TreeView`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeFile<'a> {
    /// File number.
    pub number: u64,
    /// Bytes.
    pub size: u64,
    /// Smallest user key.
    pub smallest: &'a [u8],
    /// Largest user key.
    pub largest: &'a [u8],
    /// Input of a running compaction (about to leave the tree).
    pub being_compacted: bool,
}

#[cfg(test)]
impl<'a> TreeFile<'a> {
    /// A file no compaction is consuming (tests).
    pub fn idle(number: u64, size: u64, smallest: &'a [u8], largest: &'a [u8]) -> Self {
        Self {
            number,
            size,
            smallest,
            largest,
            being_compacted: false,
        }
    }
}

impl TreeFile<'_> {
    /// Whether its key range overlaps the user keys `[lo, hi]`.
    pub fn overlaps(&self, lo: &[u8], hi: &[u8]) -> bool {
        self.largest >= lo && self.smallest <= hi
    }
}

/// A complete SST about to be written, as the engine describes it to the placement policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewSst<'a> {
    /// File number.
    pub number: u64,
    /// Level it is written to (0 for flushes).
    pub level: u32,
    /// Bytes.
    pub size: u64,
    /// Smallest user key.
    pub smallest: &'a [u8],
    /// Largest user key.
    pub largest: &'a [u8],
    /// A temporary SST: LLC's outputs past the start level's new cursor, which the next round
    /// from that level compacts again soon (`compaction_scheme = "llc-temp"`); `level-zones`
    /// keeps them in their own zones (the code's level-7 temporary zone group).
    pub temp: bool,
}

/// The LSM tree as it is now, read-only.
pub trait TreeView {
    /// Levels of the tree (L0 included), empty ones included.
    fn num_levels(&self) -> u32;

    /// The level L0 compacts into (dynamic level sizing may skip empty levels).
    fn base_level(&self) -> u32;

    /// `S_level` of `level` (0 for a level without a score).
    fn level_score(&self, level: u32) -> f64;

    /// The SSTs of `level`: levels 1 and deeper in key order, L0 in the engine's order; empty
    /// past the last level.
    fn files(&self, level: u32) -> &[TreeFile<'_>];

    /// For each file number, the zones holding the SST's bytes: (zone index, bytes), most bytes
    /// first (ties: lower zone first); empty for a file the zone layer does not hold.
    fn file_zones(&self, files: &[u64]) -> Vec<Vec<(u32, u64)>>;

    /// The engine's SST size target (`target_file_size_base`); 0 when unknown. CAZA-ADV
    /// ([`super::caza_artifact`]) calls an SST big relative to it.
    fn target_file_size_bytes(&self) -> u64 {
        0
    }

    /// The file numbers of `level` in the order the engine's compaction picker tries them
    /// (RocksDB's `FilesByCompactionPri`), files being compacted left out. The default is key
    /// order (L0: the engine's order).
    fn files_by_compaction_pri(&self, level: u32) -> Vec<u64> {
        idle_numbers(self.files(level))
    }

    /// The level an SST of `level` is merged with from above (L0 for the base level; none for
    /// L0).
    fn upper_level(&self, level: u32) -> Option<u32> {
        match level {
            0 => None,
            l if l <= self.base_level() => Some(0),
            l => Some(l - 1),
        }
    }

    /// The level an SST of `level` is merged into (the base level for L0; none past the last
    /// level).
    fn lower_level(&self, level: u32) -> Option<u32> {
        let l = if level == 0 {
            self.base_level()
        } else {
            level + 1
        };
        (l < self.num_levels() && l != level).then_some(l)
    }

    /// The deepest level holding files (0 for an empty tree).
    fn bottom_level(&self) -> u32 {
        (0..self.num_levels())
            .rev()
            .find(|&l| !self.files(l).is_empty())
            .unwrap_or(0)
    }
}

/// The numbers of `files` no compaction is consuming, in order.
pub fn idle_numbers(files: &[TreeFile<'_>]) -> Vec<u64> {
    files
        .iter()
        .filter(|f| !f.being_compacted)
        .map(|f| f.number)
        .collect()
}

/// Bytes of `files` overlapping the user keys `[lo, hi]`, skipping files being compacted.
/// `sorted` (levels 1 and deeper) narrows the search by binary search; L0 is scanned.
pub fn overlap_bytes(files: &[TreeFile<'_>], sorted: bool, lo: &[u8], hi: &[u8]) -> u64 {
    let (a, b) = if sorted {
        (
            files.partition_point(|f| f.largest < lo),
            files.partition_point(|f| f.smallest <= hi),
        )
    } else {
        (0, files.len())
    };
    files
        .get(a..b.max(a))
        .unwrap_or(&[])
        .iter()
        .filter(|f| !f.being_compacted && f.overlaps(lo, hi))
        .map(|f| f.size)
        .sum()
}

/// The files of `files` overlapping `[lo, hi]`, skipping files being compacted, in order.
pub fn overlapping<'f, 'k>(
    files: &'f [TreeFile<'k>],
    lo: &[u8],
    hi: &[u8],
) -> Vec<&'f TreeFile<'k>> {
    files
        .iter()
        .filter(|f| !f.being_compacted && f.overlaps(lo, hi))
        .collect()
}

/// A tree held in memory, for policies' unit tests and tools.
#[derive(Debug, Clone, Default)]
pub struct StaticTree<'a> {
    /// Files per level.
    pub levels: Vec<Vec<TreeFile<'a>>>,
    /// (level, score) pairs.
    pub scores: Vec<(u32, f64)>,
    /// Base level.
    pub base_level: u32,
    /// (file number, zones) pairs.
    pub zones: Vec<(u64, Vec<(u32, u64)>)>,
    /// [`TreeView::target_file_size_bytes`].
    pub target_file_size_bytes: u64,
    /// (level, file numbers) pairs: [`TreeView::files_by_compaction_pri`] of the levels
    /// listed (the others: key order).
    pub pri_order: Vec<(u32, Vec<u64>)>,
}

impl TreeView for StaticTree<'_> {
    fn num_levels(&self) -> u32 {
        self.levels.len() as u32
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
        files
            .iter()
            .map(|n| {
                self.zones
                    .iter()
                    .find(|(f, _)| f == n)
                    .map(|(_, z)| z.clone())
                    .unwrap_or_default()
            })
            .collect()
    }

    fn target_file_size_bytes(&self) -> u64 {
        self.target_file_size_bytes
    }

    fn files_by_compaction_pri(&self, level: u32) -> Vec<u64> {
        match self.pri_order.iter().find(|(l, _)| *l == level) {
            Some((_, order)) => order.clone(),
            None => idle_numbers(self.files(level)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f<'a>(number: u64, size: u64, lo: &'a [u8], hi: &'a [u8]) -> TreeFile<'a> {
        TreeFile::idle(number, size, lo, hi)
    }

    #[test]
    fn neighbour_levels_follow_the_base_level() {
        let t = StaticTree {
            levels: vec![
                vec![f(1, 10, b"a", b"z")],
                vec![],
                vec![],
                vec![f(2, 5, b"a", b"b")],
            ],
            base_level: 3,
            ..StaticTree::default()
        };
        assert_eq!(t.upper_level(0), None);
        assert_eq!(t.upper_level(3), Some(0));
        assert_eq!(t.lower_level(0), Some(3));
        assert_eq!(t.lower_level(3), None);
        assert_eq!(t.bottom_level(), 3);
        assert_eq!(StaticTree::default().bottom_level(), 0);
    }

    #[test]
    fn overlap_skips_files_being_compacted() {
        let mut files = vec![
            f(1, 10, b"a", b"c"),
            f(2, 20, b"d", b"f"),
            f(3, 40, b"g", b"i"),
        ];
        assert_eq!(overlap_bytes(&files, true, b"b", b"e"), 30);
        assert_eq!(overlap_bytes(&files, false, b"b", b"e"), 30);
        files[1].being_compacted = true;
        assert_eq!(overlap_bytes(&files, true, b"b", b"e"), 10);
        let o: Vec<u64> = overlapping(&files, b"c", b"z")
            .iter()
            .map(|f| f.number)
            .collect();
        assert_eq!(o, vec![1, 3]);
    }
}
