//! TEMPORARY stand-in until the RocksDB picker lands (same interface).
#![allow(missing_docs, clippy::missing_errors_doc)]

use zonedb_fs::placement::Lifetime;

use crate::key;
use crate::options::DbOptions;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub number: u64,
    pub file_size: u64,
    pub smallest: Vec<u8>,
    pub largest: Vec<u8>,
    pub smallest_seq: u64,
    pub largest_seq: u64,
    pub num_entries: u64,
    pub num_deletions: u64,
    pub being_compacted: bool,
}

#[derive(Debug, Clone)]
pub struct RunningCompaction {
    pub start_level: u32,
    pub output_level: u32,
    pub smallest_user_key: Vec<u8>,
    pub largest_user_key: Vec<u8>,
}

#[derive(Debug)]
pub struct PickerInput<'a> {
    pub levels: &'a [Vec<FileInfo>],
    pub running: &'a [RunningCompaction],
    pub next_compaction_index: &'a [usize],
    pub compact_cursor: &'a [Vec<u8>],
    pub options: &'a DbOptions,
}

#[derive(Debug, Clone)]
pub struct CompactionInputs {
    pub level: u32,
    pub files: Vec<u64>,
}

#[derive(Debug, Clone)]
pub enum CompactionReason {
    LevelL0FilesNum,
    LevelMaxLevelSize,
}

#[derive(Debug, Clone)]
pub struct CompactionPlan {
    pub start_level: u32,
    pub output_level: u32,
    pub inputs: Vec<CompactionInputs>,
    pub grandparents: Vec<u64>,
    pub trivial_move: bool,
    pub score: f64,
    pub reason: CompactionReason,
    pub max_output_file_size: u64,
    pub max_compaction_bytes: u64,
    pub bottommost: bool,
    pub next_compaction_index: Option<(u32, usize)>,
    pub compact_cursor: Option<(u32, Vec<u8>)>,
}

pub trait CompactionPicker: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &'static str;
    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan>;
}

#[derive(Debug, Clone, Copy, Default)]
pub struct LeveledPicker;

#[derive(Debug)]
pub struct LevelTargets {
    pub base_level: u32,
    pub targets: Vec<u64>,
}

pub fn level_targets(levels: &[Vec<FileInfo>], opts: &DbOptions) -> LevelTargets {
    let mut t = vec![0u64; levels.len()];
    let mut cur = opts.max_bytes_for_level_base as f64;
    for x in t.iter_mut().skip(1) {
        #[allow(clippy::cast_sign_loss)]
        let v = cur as u64;
        *x = v;
        cur *= opts.max_bytes_for_level_multiplier;
    }
    LevelTargets {
        base_level: 1,
        targets: t,
    }
}

pub fn compaction_scores(
    levels: &[Vec<FileInfo>],
    t: &LevelTargets,
    opts: &DbOptions,
) -> Vec<(u32, f64)> {
    let mut out = Vec::new();
    for (l, files) in levels
        .iter()
        .enumerate()
        .take(levels.len().saturating_sub(1))
    {
        let live: Vec<&FileInfo> = files.iter().filter(|f| !f.being_compacted).collect();
        let s = if l == 0 {
            live.len() as f64 / f64::from(opts.level0_file_num_compaction_trigger)
        } else {
            live.iter().map(|f| f.file_size).sum::<u64>() as f64 / t.targets[l] as f64
        };
        out.push((l as u32, s));
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

pub fn estimated_pending_compaction_bytes(
    _l: &[Vec<FileInfo>],
    _t: &LevelTargets,
    _o: &DbOptions,
) -> u64 {
    0
}

pub fn calculate_sst_write_hint(level: u32, base_level: u32) -> Lifetime {
    if level == 0 || level < base_level {
        return Lifetime::Medium;
    }
    match level - base_level {
        0 => Lifetime::Medium,
        1 => Lifetime::Long,
        _ => Lifetime::Extreme,
    }
}

fn overlaps(f: &FileInfo, lo: &[u8], hi: &[u8]) -> bool {
    key::user_key(&f.largest) >= lo && key::user_key(&f.smallest) <= hi
}

impl CompactionPicker for LeveledPicker {
    fn name(&self) -> &'static str {
        "stub"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let t = level_targets(input.levels, input.options);
        for (level, score) in compaction_scores(input.levels, &t, input.options) {
            if score < 1.0 {
                return None;
            }
            let l = level as usize;
            if input.running.iter().any(|r| {
                r.start_level == level
                    || r.output_level == level
                    || r.output_level == level + 1
                    || r.start_level == level + 1
            }) {
                continue;
            }
            let start: Vec<&FileInfo> = if l == 0 {
                input.levels[0].iter().collect()
            } else {
                input.levels[l].iter().take(1).collect()
            };
            if start.iter().any(|f| f.being_compacted) || start.is_empty() {
                continue;
            }
            let lo = start
                .iter()
                .map(|f| key::user_key(&f.smallest))
                .min()?
                .to_vec();
            let hi = start
                .iter()
                .map(|f| key::user_key(&f.largest))
                .max()?
                .to_vec();
            let out: Vec<&FileInfo> = input.levels[l + 1]
                .iter()
                .filter(|f| overlaps(f, &lo, &hi))
                .collect();
            if out.iter().any(|f| f.being_compacted) {
                continue;
            }
            let (lo2, hi2) = out.iter().fold((lo.clone(), hi.clone()), |(a, b), f| {
                (
                    a.min(key::user_key(&f.smallest).to_vec()),
                    b.max(key::user_key(&f.largest).to_vec()),
                )
            });
            let bottommost = input.levels[l + 2..]
                .iter()
                .flatten()
                .all(|f| !overlaps(f, &lo2, &hi2));
            return Some(CompactionPlan {
                start_level: level,
                output_level: level + 1,
                inputs: vec![
                    CompactionInputs {
                        level,
                        files: start.iter().map(|f| f.number).collect(),
                    },
                    CompactionInputs {
                        level: level + 1,
                        files: out.iter().map(|f| f.number).collect(),
                    },
                ],
                grandparents: Vec::new(),
                trivial_move: false,
                score,
                reason: CompactionReason::LevelMaxLevelSize,
                max_output_file_size: input.options.target_file_size_base,
                max_compaction_bytes: input.options.effective_max_compaction_bytes(),
                bottommost,
                next_compaction_index: None,
                compact_cursor: None,
            });
        }
        None
    }
}
