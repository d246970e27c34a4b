//! Start-file rules: which files of the start level a leveled compaction tries first (the
//! level itself is always the one with the highest score). One rule per file:
//!
//! - [`by_compensated_size`], [`oldest_largest_seq_first`], [`oldest_smallest_seq_first`],
//!   [`min_overlapping_ratio`], [`round_robin`] — RocksDB's `compaction_pri` orders.
//! - [`sica`] — SICA, the size-based rule of the Same-Zone Compaction paper.
//! - [`zaca`] — ZACA as the paper states it: start files scored by `S_same` (equation 1).
//! - [`zaca_artifact`] — ZACA as the MSST'24 code runs it: the mean squared post-compaction
//!   invalid percentage of the touched zones (`GetMaxInvalidateCompactionScore`), candidates
//!   in `kMinOverlappingRatio` order, trivial moves handed to the stock loop.
//!
//! A new rule is one file implementing [`StartFileRule`] plus one line in [`RULES`]; a rule
//! defined elsewhere (a test, another crate) runs through the engine with
//! [`super::RulePicker`].

pub mod by_compensated_size;
pub mod min_overlapping_ratio;
pub mod oldest_largest_seq_first;
pub mod oldest_smallest_seq_first;
pub mod round_robin;
pub mod sica;
pub mod zaca;
pub mod zaca_artifact;

use super::picker::LevelFile;
use super::view::{PickView, Picked};
use crate::options::CompactionPri;

pub use by_compensated_size::ByCompensatedSize;
pub use min_overlapping_ratio::MinOverlappingRatio;
pub use oldest_largest_seq_first::OldestLargestSeqFirst;
pub use oldest_smallest_seq_first::OldestSmallestSeqFirst;
pub use round_robin::RoundRobin;
pub use sica::Sica;
pub use zaca::Zaca;
pub use zaca_artifact::ZacaArtifact;

/// The compaction a rule chooses start files for.
#[derive(Debug, Clone, Copy)]
pub struct StartLevel<'a> {
    /// The tree.
    pub view: &'a PickView<'a>,
    /// Start level.
    pub start: usize,
    /// Output level.
    pub output: usize,
    /// The start level's round-robin cursor (an internal key; empty = from the start).
    pub cursor: &'a [u8],
}

impl StartLevel<'_> {
    /// The start level's files.
    pub fn files(&self) -> &[LevelFile<'_>] {
        &self.view.levels[self.start]
    }
}

/// What a rule answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartFiles {
    /// Try the start level's files in this order (indices into the level), from the level's
    /// `NextCompactionIndex`, skipping files being compacted; the first file that cuts cleanly
    /// is taken and the index moves to it.
    Scan(Picked),
    /// RocksDB's `kRoundRobin` scan: this order from its first file, stopping at a file being
    /// compacted; the level's cursor moves past the file taken.
    RoundRobin(Picked),
    /// These start files (indices), already checked by the rule: not being compacted, cut
    /// cleanly, clear of running compactions into the output level. `NextCompactionIndex`
    /// stays where it is.
    Chosen(Picked),
}

/// How the start files of a leveled compaction are chosen.
pub trait StartFileRule: Send + Sync + std::fmt::Debug {
    /// Name (as in reports and [`by_name`]).
    fn name(&self) -> &'static str;

    /// The start files for a compaction from `s.start` into `s.output`.
    fn choose(&self, s: &StartLevel<'_>) -> StartFiles;

    /// Whether the rule reads [`PickView::zones`] (the picker then asks for the zone view).
    fn wants_zone_view(&self) -> bool {
        false
    }
}

/// Every rule the crate defines, by name.
pub static RULES: &[&dyn StartFileRule] = &[
    &ByCompensatedSize,
    &OldestLargestSeqFirst,
    &OldestSmallestSeqFirst,
    &MinOverlappingRatio,
    &RoundRobin,
    &Sica,
    &Zaca,
    &ZacaArtifact,
];

/// The rule called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn StartFileRule> {
    RULES.iter().copied().find(|r| r.name() == name)
}

/// The rule of RocksDB's `compaction_pri`.
pub fn for_compaction_pri(pri: CompactionPri) -> &'static dyn StartFileRule {
    match pri {
        CompactionPri::ByCompensatedSize => &ByCompensatedSize,
        CompactionPri::OldestLargestSeqFirst => &OldestLargestSeqFirst,
        CompactionPri::OldestSmallestSeqFirst => &OldestSmallestSeqFirst,
        CompactionPri::MinOverlappingRatio => &MinOverlappingRatio,
        CompactionPri::RoundRobin => &RoundRobin,
    }
}

/// The order in which `level`'s files are tried under `pri` (`UpdateFilesByCompactionPri`),
/// as indices into `levels[level]`. Ties go to the smaller smallest key (RocksDB 6.14 leaves
/// them unspecified; a fixed order keeps runs deterministic).
pub fn files_by_compaction_pri(
    levels: &[Vec<LevelFile<'_>>],
    level: usize,
    pri: CompactionPri,
    cursor: &[u8],
) -> Vec<usize> {
    let view = PickView::new(levels, &[], None);
    let s = StartLevel {
        view: &view,
        start: level,
        output: level + 1,
        cursor,
    };
    match for_compaction_pri(pri).choose(&s) {
        StartFiles::Scan(order) | StartFiles::RoundRobin(order) | StartFiles::Chosen(order) => {
            order
        }
    }
}

/// Indices of `files` sorted by `cmp` (over indices), ties by smallest key (stable).
pub(crate) fn sorted_by(
    files: &[LevelFile<'_>],
    cmp: impl Fn(usize, usize) -> std::cmp::Ordering,
) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..files.len()).collect();
    idx.sort_by(|&a, &b| {
        cmp(a, b).then_with(|| crate::key::compare(&files[a].smallest, &files[b].smallest))
    });
    idx
}
