//! `PickView`: the tree as a start-file rule and the leveled picker see it (files per level,
//! borrowed from the version; running compactions; the zone layout), with the clean-cut and
//! overlap helpers both of them use (RocksDB's `ExpandInputsToCleanCut`,
//! `FilesRangeOverlapWithCompaction`, `GetOverlappingInputs`). Pure: no I/O.

use super::levels::{average_value_size, compensated_size, overlapping_inputs, range};
use super::picker::{LevelFile, RunningCompaction};
use super::zone_layout::ZoneLayout;

/// Indices of files into a level.
pub type Picked = Vec<usize>;

/// A snapshot of the tree for picking.
#[derive(Debug, Clone, Copy)]
pub struct PickView<'a> {
    /// Files per level (as [`super::PickerInput::levels`]).
    pub levels: &'a [Vec<LevelFile<'a>>],
    /// Average value size over all files (for compensated sizes).
    pub avg: u64,
    /// Running compactions.
    pub running: &'a [RunningCompaction],
    /// The zone layer's view, when the picker asked for it.
    pub zones: Option<&'a ZoneLayout>,
}

impl<'a> PickView<'a> {
    /// A view of `levels` (the average value size is computed here).
    pub fn new(
        levels: &'a [Vec<LevelFile<'a>>],
        running: &'a [RunningCompaction],
        zones: Option<&'a ZoneLayout>,
    ) -> Self {
        Self {
            levels,
            avg: average_value_size(levels),
            running,
            zones,
        }
    }

    /// The files of `level` at indices `idx`.
    pub fn files(&self, level: usize, idx: &[usize]) -> Vec<&'a LevelFile<'a>> {
        idx.iter().map(|&i| &self.levels[level][i]).collect()
    }

    fn index_of(&self, level: usize, f: &LevelFile<'_>) -> usize {
        self.levels[level]
            .iter()
            .position(|g| g.number == f.number)
            .unwrap_or(usize::MAX)
    }

    /// Smallest and largest user key of the files of `level` at `idx`.
    pub fn range_of(&self, level: usize, idx: &[usize]) -> Option<(Vec<u8>, Vec<u8>)> {
        range(self.files(level, idx))
    }

    /// Indices of `level` overlapping `[lo, hi]` (user keys).
    pub fn overlapping(&self, level: usize, lo: &[u8], hi: &[u8]) -> Picked {
        overlapping_inputs(self.levels, level, lo, hi)
            .into_iter()
            .map(|f| self.index_of(level, f))
            .collect()
    }

    /// Whether a file of `level` at `idx` is being compacted.
    pub fn any_being_compacted(&self, level: usize, idx: &[usize]) -> bool {
        idx.iter().any(|&i| self.levels[level][i].being_compacted)
    }

    /// `ExpandInputsToCleanCut`: re-overlap the inputs' range until the set stops growing
    /// (pulls in neighbours sharing a boundary user key); false if a file is being compacted.
    pub fn expand_to_clean_cut(&self, level: usize, idx: &mut Picked) -> bool {
        if level == 0 {
            return true;
        }
        loop {
            let Some((lo, hi)) = self.range_of(level, idx) else {
                return true;
            };
            let grown = self.overlapping(level, &lo, &hi);
            if grown.len() == idx.len() {
                break;
            }
            *idx = grown;
        }
        !self.any_being_compacted(level, idx)
    }

    /// The compaction file `i` of `start` would begin, as RocksDB's picker checks a candidate:
    /// `i` expanded to a clean cut, its range clear of running compactions into `output`, and
    /// the overlapping files of `output` expanded to a clean cut. `None` when a step refuses
    /// it. Whether `i` itself is being compacted is left to the caller (at level 0 the clean
    /// cut does not check it).
    pub fn candidate_group(
        &self,
        start: usize,
        output: usize,
        i: usize,
    ) -> Option<(Picked, Picked)> {
        let mut inputs = vec![i];
        if !self.expand_to_clean_cut(start, &mut inputs)
            || self.overlaps_running(&self.files(start, &inputs), output as u32)
        {
            return None;
        }
        let (lo, hi) = self.range_of(start, &inputs)?;
        let mut out = self.overlapping(output, &lo, &hi);
        if !out.is_empty() && !self.expand_to_clean_cut(output, &mut out) {
            return None;
        }
        Some((inputs, out))
    }

    /// `FilesRangeOverlapWithCompaction`: the user-key range of `files` overlaps a running
    /// compaction whose output level is `output_level`.
    pub fn overlaps_running(&self, files: &[&LevelFile<'_>], output_level: u32) -> bool {
        let Some((lo, hi)) = range(files.iter().copied()) else {
            return false;
        };
        self.running.iter().any(|r| {
            r.output_level == output_level
                && r.largest_user_key.as_slice() >= lo.as_slice()
                && r.smallest_user_key.as_slice() <= hi.as_slice()
        })
    }

    /// Compensated bytes of the files of `level` at `idx`.
    pub fn compensated(&self, level: usize, idx: &[usize]) -> u64 {
        idx.iter()
            .map(|&i| compensated_size(&self.levels[level][i], self.avg))
            .sum()
    }
}
