//! LLC: Lifetime-Leveling Compaction (Jung and Shin, "Lifetime-leveling LSM-tree compaction
//! for ZNS SSD", HotStorage'22), a baseline of the SplitZNS paper ("LLC picks SSTables
//! sequentially based on the key range in each level as input SSTables of compactions").
//!
//! This is a reconstruction. The only public code is `jungjeeyoon/GearDB` at `4017320`, a
//! LevelDB fork, attributed to LLC by author and date. The rule numbers below are the ones in
//! `policies-in-prior-work.md` §3.2, which records what that code does.
//!
//! Implemented (as a pure picker over the tree snapshot, like the other schemes):
//!
//! 1. **Level choice.** Levels with a score of at least 1, highest first, with the scores of
//!    RocksDB's leveled picker ([`compaction_scores`]). If the best score is below 1 and L0
//!    has any file, L0 is picked anyway, so L0 is drained eagerly. As in the leveled picker,
//!    the base level is not tried in a pass where L0 → base has failed.
//!    L0 → base is RocksDB's: one compaction from L0 at a time; the oldest L0 file not being
//!    compacted, widened to every L0 file that transitively overlaps it; the base-level files
//!    it overlaps, cut cleanly. L0 inputs are not expanded (rule 4 needs key order, which L0
//!    does not have), and there is no intra-L0 compaction.
//! 2. **File choice, levels ≥ 1: strict key-order round robin.** The level's files in key
//!    order from its cursor, wrapping to the first file. The order is `kRoundRobin`'s
//!    ([`RoundRobin`]): it starts at the first file whose smallest key is past the cursor.
//!    The cursor is the largest key of a file taken, so this is the code's "smallest key ≥
//!    cursor". A file is skipped if it, a file its clean cut pulls in, or an overlapping
//!    next-level file is being compacted, or if its range overlaps a running compaction into
//!    the same output level. `kRoundRobin` stops at a busy file instead; this skips it, as
//!    the other pickers do.
//! 3. **The next-level cursor sweep** (`compaction_scheme = "llc-relocate"` only). The
//!    next-level files the sweep passes, those lying wholly after the start level's cursor and
//!    before the picked inputs, join the compaction's next-level inputs, so they are read and
//!    written again into the output level's active zone, as the code's `move_file` relocates
//!    them (its copy counted as compaction writes here). They are taken from the picked inputs
//!    backwards and the run stops at a file being compacted or at the cursor; the step is
//!    dropped if the grown set has no clean cut or meets a running compaction. Rule 4's
//!    expansion runs first, on the overlapping files alone, as the code's ratio counts only
//!    `inputs_[1]`. The wrapped case (no start-level file past the cursor, so every
//!    next-level file past it is relocated) is not taken: those files are not contiguous with
//!    the picked ones.
//! 4. **Greedy input expansion** (`EXPAND_SST`). Only when the next level has inputs: while
//!    there is a next file in the level (key order, no wrap), tentatively add it. Its clean
//!    cut must not need a file being compacted. Also add the next-level files the grown range
//!    overlaps, cut cleanly, none being compacted, and the range must stay clear of running
//!    compactions into the output level. The step is accepted iff bytes(level inputs) /
//!    bytes(next-level inputs) strictly increases **and** the next-level bytes stay below
//!    [`EXPANSION_LIMIT_FILES`] × the output level's target file size. The first step that
//!    fails ends the expansion. Sizes are file sizes, not compensated sizes, as the code's
//!    `TotalFileSize`. With no next-level inputs the ratio is infinite and cannot strictly
//!    increase, so there is no expansion. The code does the same (its expansion is guarded by
//!    `!inputs_[1].empty()`); the compaction is then a single file, usually a trivial move.
//! 5. **New cursor.** The level's cursor moves to the largest key of its picked inputs. It is
//!    the engine's per-level `kRoundRobin` cursor (`PickerInput::compact_cursor`,
//!    `CompactionPlan::compact_cursor`). The code instead stores the smaller of the next
//!    files' smallest keys in the two levels. Both put the next pick at the same start-level
//!    file.
//! 6. **Output cutting at the output level's cursor** (`SPLIT`). The plan carries the output
//!    level's cursor ([`CompactionPlan::split_at`]). [`super::output_cutting`] closes an
//!    output before the first key past it, so the next round from the output level starts
//!    on a file boundary.
//!
//! 7. **Temporary outputs** (rule 6's `TEMP_FILE`, with `llc_temp_zones = true`). From start
//!    level 2 on ("when L > 1"), outputs are also cut at the start level's new cursor, and
//!    those past it, the part of the next-level inputs the next round from the start level
//!    compacts again, are written as temporary SSTs ([`CompactionPlan::temp_after`]), which
//!    `level-zones` keeps in their own zones, as the code writes them to its level-7 zone
//!    group. The code's cursor is the next files' smallest key, ours the picked inputs'
//!    largest (rule 5): both cut between the same keys.
//!
//! Otherwise the plan is the leveled picker's (grandparents, bottommost, output file size).
//! That includes RocksDB's `IsTrivialMove`, which here moves metadata only.
//!
//! Left out:
//!
//! - **Rule 3 in plain `llc`**, whose results the studies published first; `llc-relocate`
//!   has it.
//! - **Rule 7, trivial zone moves** (relabelling a whole finished zone as the next level).
//! - **Seek-triggered L0 compaction.**
//! - The cursors are not written to the MANIFEST, unlike LevelDB's `compact_pointer_`. The
//!   engine keeps them in memory, as for `kRoundRobin`, so a reopened database starts every
//!   level from its first file.

use super::leveled::plan_for;
use super::levels::{LevelTargets, compaction_scores, level_targets, max_file_size_for_level};
use super::picker::{CompactionPicker, CompactionPlan, CompactionReason, LevelFile, PickerInput};
use super::start_file::{RoundRobin, StartFileRule, StartFiles, StartLevel};
use super::view::{PickView, Picked};
use crate::key;

/// Expansion stops before the next-level inputs reach this many target output files
/// (LevelDB's `ExpandedCompactionByteSizeLimit`, 25 × the target file size).
pub const EXPANSION_LIMIT_FILES: u64 = 25;

/// Lifetime-Leveling Compaction (`compaction_scheme = "llc"`, or `"llc-relocate"` with rule
/// 3's relocation).
#[derive(Debug, Clone, Copy, Default)]
pub struct LlcPicker {
    /// Rule 3: the next-level files the cursor sweep passes are rewritten with the compaction.
    pub relocate: bool,
}

impl CompactionPicker for LlcPicker {
    fn name(&self) -> &'static str {
        if self.relocate { "llc-relocate" } else { "llc" }
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let levels = input.levels;
        if levels.len() < 2 {
            return None;
        }
        let v = PickView::new(levels, input.running, input.zones);
        let targets = level_targets(levels, input.options);
        let base = targets.base_level as usize;
        let mut skipped_l0_to_base = false;
        for (level, score) in candidate_levels(levels, &targets, input) {
            let start = level as usize;
            if skipped_l0_to_base && start == base {
                continue;
            }
            let group = if start == 0 {
                pick_l0(&v, input, base)
            } else {
                pick_level(&v, input, &targets, start, self.relocate)
            };
            let Some(g) = group else {
                skipped_l0_to_base |= start == 0;
                continue;
            };
            let reason = if start == 0 {
                CompactionReason::LevelL0FilesNum
            } else {
                CompactionReason::LevelMaxLevelSize
            };
            let mut plan = plan_for(
                input, v, &targets, start, g.output, &g.inputs, &g.out, score, reason,
            )?;
            if start > 0 {
                plan.compact_cursor = v
                    .files(start, &g.inputs)
                    .iter()
                    .map(|f| f.largest.clone())
                    .max_by(|a, b| key::compare(a, b))
                    .map(|c| (level, c));
            }
            plan.split_at = input
                .compact_cursor
                .get(g.output)
                .filter(|c| g.output > 0 && !c.is_empty())
                .map(|c| key::user_key(c).to_vec());
            // Rule 6's TEMP_FILE: "when L > 1", outputs past the start level's new cursor.
            if input.options.llc_temp_zones && start > 1 && !plan.trivial_move {
                plan.temp_after = plan
                    .compact_cursor
                    .as_ref()
                    .map(|(_, c)| key::user_key(c).to_vec());
            }
            return Some(plan);
        }
        None
    }
}

/// Rule 1: the start levels to try, best first. These are the levels scoring at least 1.
/// If there are none and L0 has a file, the list is L0 alone.
fn candidate_levels(
    levels: &[Vec<LevelFile<'_>>],
    targets: &LevelTargets,
    input: &PickerInput<'_>,
) -> Vec<(u32, f64)> {
    let scores = compaction_scores(levels, targets, input.options);
    let due: Vec<(u32, f64)> = scores.iter().copied().filter(|s| s.1 >= 1.0).collect();
    if due.is_empty() && !levels[0].is_empty() {
        return scores.into_iter().filter(|s| s.0 == 0).collect();
    }
    due
}

/// A picked compaction: start-level and output-level inputs (indices into their levels).
struct Group {
    output: usize,
    inputs: Picked,
    out: Picked,
}

/// L0 → `output` (the base level), RocksDB's way. It is not picked while another compaction
/// from L0 runs. Otherwise it takes the oldest L0 file not being compacted, widened to every
/// L0 file that transitively overlaps it, and the output files cut cleanly.
fn pick_l0(v: &PickView<'_>, input: &PickerInput<'_>, output: usize) -> Option<Group> {
    if input.running.iter().any(|r| r.start_level == 0) {
        return None;
    }
    let l0 = &v.levels[0];
    let oldest = (0..l0.len()).rev().find(|&i| !l0[i].being_compacted)?;
    let (lo, hi) = v.range_of(0, &[oldest])?;
    let inputs = v.overlapping(0, &lo, &hi);
    if v.any_being_compacted(0, &inputs) {
        return None;
    }
    let (lo, hi) = v.range_of(0, &inputs)?;
    let mut out = v.overlapping(output, &lo, &hi);
    if v.any_being_compacted(output, &out) || !v.expand_to_clean_cut(output, &mut out) {
        return None;
    }
    if overlaps_running(v, 0, &inputs, output, &out) {
        return None;
    }
    Some(Group {
        output,
        inputs,
        out,
    })
}

/// Rules 2 and 4 for a level ≥ 1. The first file in key order from the level's cursor that
/// can be compacted now, then greedily expanded.
fn pick_level(
    v: &PickView<'_>,
    input: &PickerInput<'_>,
    targets: &LevelTargets,
    start: usize,
    relocate: bool,
) -> Option<Group> {
    let output = start + 1;
    if output >= v.levels.len() {
        return None;
    }
    let cursor = input
        .compact_cursor
        .get(start)
        .map_or(&[][..], Vec::as_slice);
    let order = match RoundRobin.choose(&StartLevel {
        view: v,
        start,
        output,
        cursor,
    }) {
        StartFiles::RoundRobin(o) | StartFiles::Scan(o) | StartFiles::Chosen(o) => o,
    };
    let limit = EXPANSION_LIMIT_FILES.saturating_mul(max_file_size_for_level(
        output as u32,
        targets.base_level,
        input.options,
    ));
    for i in order {
        if v.levels[start][i].being_compacted {
            continue;
        }
        let Some((mut inputs, mut out)) = v.candidate_group(start, output, i) else {
            continue;
        };
        if overlaps_running(v, start, &inputs, output, &out) {
            continue;
        }
        expand(v, start, output, &mut inputs, &mut out, limit);
        if relocate {
            sweep_passed(v, start, output, cursor, &inputs, &mut out);
        }
        return Some(Group {
            output,
            inputs,
            out,
        });
    }
    None
}

/// Rule 3: prepends to `out` the `output` files lying wholly after `cursor` (an internal key
/// of `start`) and before the `start` inputs, back from the inputs to the first file at or
/// before the cursor or being compacted. Leaves `out` alone if the grown set has no clean cut
/// or its range meets a running compaction into `output`.
fn sweep_passed(
    v: &PickView<'_>,
    start: usize,
    output: usize,
    cursor: &[u8],
    inputs: &[usize],
    out: &mut Picked,
) {
    if cursor.is_empty() {
        return;
    }
    let Some((lo, _)) = v.range_of(start, inputs) else {
        return;
    };
    let cur = key::user_key(cursor);
    let files = &v.levels[output];
    let mut i = out
        .first()
        .copied()
        .unwrap_or_else(|| files.partition_point(|f| key::user_key(&f.largest) < lo.as_slice()));
    let mut grown: Picked = Vec::new();
    while i > 0 {
        let f = &files[i - 1];
        if key::user_key(&f.smallest) <= cur || f.being_compacted {
            break;
        }
        grown.push(i - 1);
        i -= 1;
    }
    if grown.is_empty() {
        return;
    }
    grown.reverse();
    grown.extend(out.iter().copied());
    if v.expand_to_clean_cut(output, &mut grown)
        && !overlaps_running(v, start, inputs, output, &grown)
    {
        *out = grown;
    }
}

/// The user-key range of `inputs` and `out` overlaps a running compaction into `output`.
fn overlaps_running(
    v: &PickView<'_>,
    start: usize,
    inputs: &[usize],
    output: usize,
    out: &[usize],
) -> bool {
    let mut all = v.files(start, inputs);
    all.extend(v.files(output, out));
    v.overlaps_running(&all, output as u32)
}

/// Bytes of the files of `level` at `idx`.
fn bytes(v: &PickView<'_>, level: usize, idx: &[usize]) -> u64 {
    idx.iter().map(|&i| v.levels[level][i].file_size).sum()
}

/// `new.0 / new.1 > old.0 / old.1`, exactly (no division; a zero denominator never
/// increases).
fn ratio_increases(old: (u64, u64), new: (u64, u64)) -> bool {
    u128::from(new.0) * u128::from(old.1) > u128::from(old.0) * u128::from(new.1)
}

/// Rule 4: grow `inputs` (of `start`) to the right, one file and its clean cut at a time,
/// with the `output` files the grown range overlaps. A step is kept while the input ratio
/// strictly increases and the output-level bytes stay below `limit`. It stops at the first
/// step that fails, or that needs a busy file or a range a running compaction into `output`
/// holds.
fn expand(
    v: &PickView<'_>,
    start: usize,
    output: usize,
    inputs: &mut Picked,
    out: &mut Picked,
    limit: u64,
) {
    if out.is_empty() {
        return;
    }
    let files = &v.levels[start];
    let mut old = (bytes(v, start, inputs), bytes(v, output, out));
    while let Some(&last) = inputs.last() {
        let next = last + 1;
        if next >= files.len() || files[next].being_compacted {
            return;
        }
        let mut grown = inputs.clone();
        grown.push(next);
        if !v.expand_to_clean_cut(start, &mut grown) {
            return;
        }
        let Some((lo, hi)) = v.range_of(start, &grown) else {
            return;
        };
        let mut grown_out = v.overlapping(output, &lo, &hi);
        if v.any_being_compacted(output, &grown_out)
            || !v.expand_to_clean_cut(output, &mut grown_out)
            || overlaps_running(v, start, &grown, output, &grown_out)
        {
            return;
        }
        let new = (bytes(v, start, &grown), bytes(v, output, &grown_out));
        if new.1 >= limit || !ratio_increases(old, new) {
            return;
        }
        *inputs = grown;
        *out = grown_out;
        old = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::picker::RunningCompaction;
    use crate::key::{ValueType, internal_key};
    use crate::options::{CompactionScheme, DbOptions};
    use crate::version::FileMeta;

    fn meta(n: u64, lo: &str, hi: &str, size: u64) -> FileMeta {
        FileMeta::for_test(n, lo, hi, size)
    }

    /// Static levels: L1 target 1000 bytes, ×10; target file size 100 (so the expansion limit
    /// is 2500 bytes of L2); L0 trigger 4; 4 levels.
    fn opts() -> DbOptions {
        DbOptions {
            level_compaction_dynamic_level_bytes: false,
            max_bytes_for_level_base: 1000,
            max_bytes_for_level_multiplier: 10.0,
            target_file_size_base: 100,
            level0_file_num_compaction_trigger: 4,
            num_levels: 4,
            compaction_scheme: CompactionScheme::Llc,
            ..DbOptions::default()
        }
    }

    /// The cursor a test passes for `user_key` (as a plan stores it: an internal key).
    fn cursor(user_key: &str) -> Vec<u8> {
        internal_key(user_key.as_bytes(), 1, ValueType::Value)
    }

    /// The LLC pick over `levels`, with the files numbered in `busy` being compacted, the
    /// running compactions `running` and the per-level cursors `cursors`.
    fn pick(
        levels: &[Vec<FileMeta>],
        busy: &[u64],
        running: &[RunningCompaction],
        cursors: &[Vec<u8>],
        o: &DbOptions,
    ) -> Option<CompactionPlan> {
        let view: Vec<Vec<LevelFile<'_>>> = levels
            .iter()
            .map(|l| {
                l.iter()
                    .map(|m| LevelFile {
                        meta: m,
                        being_compacted: busy.contains(&m.number),
                    })
                    .collect()
            })
            .collect();
        let mut cursors = cursors.to_vec();
        cursors.resize(levels.len(), Vec::new());
        crate::compaction::picker_for(o).pick(&PickerInput {
            levels: &view,
            running,
            next_compaction_index: &vec![0; levels.len()],
            compact_cursor: &cursors,
            options: o,
            zones: None,
        })
    }

    fn inputs(p: &CompactionPlan, level: u32) -> Vec<u64> {
        p.inputs
            .iter()
            .find(|i| i.level == level)
            .map(|i| i.files.clone())
            .unwrap_or_default()
    }

    fn running(start: u32, lo: &str, hi: &str) -> RunningCompaction {
        RunningCompaction {
            start_level: start,
            output_level: start + 1,
            smallest_user_key: lo.as_bytes().to_vec(),
            largest_user_key: hi.as_bytes().to_vec(),
        }
    }

    /// L1: 1 [a-b], 2 [c-d], 3 [e-f], 4 [g-h], `l1` bytes each; L2 as given.
    fn tree(l1: u64, l2: Vec<FileMeta>) -> Vec<Vec<FileMeta>> {
        vec![
            Vec::new(),
            vec![
                meta(1, "a", "b", l1),
                meta(2, "c", "d", l1),
                meta(3, "e", "f", l1),
                meta(4, "g", "h", l1),
            ],
            l2,
            Vec::new(),
        ]
    }

    #[test]
    fn the_scheme_is_named_llc() {
        assert_eq!(crate::compaction::picker_for(&opts()).name(), "llc");
    }

    #[test]
    fn round_robin_advances_through_the_level_across_picks_and_wraps() {
        // L1 is 1200 bytes (score 1.2). Each L1 file overlaps one L2 file of its own size, so
        // every expansion step keeps the ratio at 1 and is refused: one file per pick.
        let levels = tree(
            300,
            vec![
                meta(11, "a", "b", 300),
                meta(12, "c", "d", 300),
                meta(13, "e", "f", 300),
                meta(14, "g", "h", 300),
            ],
        );
        let o = opts();
        let mut cursors = vec![Vec::new(); 4];
        let mut taken = Vec::new();
        for _ in 0..6 {
            let p = pick(&levels, &[], &[], &cursors, &o).unwrap();
            assert_eq!((p.start_level, p.output_level), (1, 2));
            assert_eq!(inputs(&p, 2), vec![inputs(&p, 1)[0] + 10]);
            taken.push(inputs(&p, 1)[0]);
            let (level, next) = p.compact_cursor.clone().unwrap();
            assert_eq!(level, 1);
            // The cursor is the largest key of the picked L1 file.
            let picked = levels[1]
                .iter()
                .find(|f| f.number == taken[taken.len() - 1]);
            assert_eq!(Some(&next), picked.map(|f| &f.largest));
            cursors[1] = next;
        }
        assert_eq!(taken, vec![1, 2, 3, 4, 1, 2]);
        // A cursor inside a file's range starts at the next file.
        cursors[1] = cursor("cc");
        let p = pick(&levels, &[], &[], &cursors, &o).unwrap();
        assert_eq!(inputs(&p, 1), vec![3]);
    }

    #[test]
    fn llc_relocate_rewrites_the_next_level_files_the_cursor_sweep_passes() {
        // Cursor at L1's "b": file 2 [c-d] is next. L2 file 21 lies wholly between the cursor
        // and file 2 (relocated with llc-relocate), 20 is at the cursor (never), 22 overlaps.
        let levels = tree(
            300,
            vec![
                meta(20, "a", "b", 300),
                meta(21, "b5", "b7", 300),
                meta(22, "c", "d", 300),
                meta(23, "e", "f", 300),
                meta(24, "g", "h", 300),
            ],
        );
        let cursors = vec![Vec::new(), cursor("b")];
        let plain = pick(&levels, &[], &[], &cursors, &opts()).unwrap();
        assert_eq!((inputs(&plain, 1), inputs(&plain, 2)), (vec![2], vec![22]));
        let o = DbOptions {
            compaction_scheme: CompactionScheme::LlcRelocate,
            ..opts()
        };
        assert_eq!(crate::compaction::picker_for(&o).name(), "llc-relocate");
        let swept = pick(&levels, &[], &[], &cursors, &o).unwrap();
        assert_eq!(
            (inputs(&swept, 1), inputs(&swept, 2)),
            (vec![2], vec![21, 22])
        );
        // A passed file being compacted stops the sweep; so does a running compaction into L2
        // over its range.
        let busy = pick(&levels, &[21], &[], &cursors, &o).unwrap();
        assert_eq!(inputs(&busy, 2), vec![22]);
        let held = pick(&levels, &[], &[running(1, "b6", "b6")], &cursors, &o).unwrap();
        assert_eq!(inputs(&held, 2), vec![22]);
        // With no overlapping L2 file the passed ones still join: no trivial move then.
        let sparse = tree(
            300,
            vec![meta(21, "b5", "b7", 300), meta(23, "e", "f", 300)],
        );
        let p = pick(&sparse, &[], &[], &cursors, &o).unwrap();
        assert_eq!((inputs(&p, 1), inputs(&p, 2)), (vec![2], vec![21]));
    }

    #[test]
    fn outputs_are_split_at_the_output_levels_cursor() {
        let levels = tree(300, vec![meta(11, "a", "h", 300)]);
        let o = opts();
        let p = pick(&levels, &[], &[], &[], &o).unwrap();
        assert_eq!(p.split_at, None, "no L2 cursor yet");
        let cursors = vec![Vec::new(), Vec::new(), cursor("b")];
        let p = pick(&levels, &[], &[], &cursors, &o).unwrap();
        assert_eq!(p.split_at.as_deref(), Some(&b"b"[..]));
    }

    #[test]
    fn with_temp_zones_outputs_past_the_start_cursor_are_temporary_from_l2_on() {
        // The tree moved down a level: L2 over its 10,000-byte target, L3 below it.
        let mut levels = tree(3000, vec![meta(11, "a", "z", 300)]);
        levels.remove(0);
        levels.insert(0, Vec::new());
        levels.insert(1, Vec::new());
        levels.truncate(4);
        let mut o = opts();
        o.llc_temp_zones = true;
        let p = pick(&levels, &[], &[], &[], &o).unwrap();
        assert_eq!(p.start_level, 2);
        // Expansion takes all four files (the ratio keeps rising): the new cursor is h, and
        // the outputs holding L3's keys past it, [h+, z], are temporary.
        assert_eq!(p.temp_after.as_deref(), Some(&b"h"[..]));
        o.llc_temp_zones = false;
        assert_eq!(pick(&levels, &[], &[], &[], &o).unwrap().temp_after, None);
        // From L1 ("when L > 1" in the code) never.
        let mut o = opts();
        o.llc_temp_zones = true;
        let p = pick(&tree(300, vec![meta(11, "a", "h", 300)]), &[], &[], &[], &o).unwrap();
        assert_eq!((p.start_level, p.temp_after), (1, None));
    }

    #[test]
    fn l0_is_drained_when_no_level_is_due() {
        let o = opts();
        // L0 one file (score 0.25), L1 100 bytes (0.1): nothing is due, L0 goes anyway.
        let levels = vec![
            vec![meta(5, "a", "z", 100)],
            vec![meta(1, "a", "c", 100)],
            Vec::new(),
            Vec::new(),
        ];
        let p = pick(&levels, &[], &[], &[], &o).unwrap();
        assert_eq!((p.start_level, p.output_level), (0, 1));
        assert_eq!(inputs(&p, 0), vec![5]);
        assert_eq!(inputs(&p, 1), vec![1]);
        assert!(p.score < 1.0);
        assert_eq!(p.compact_cursor, None, "L0 has no cursor");
        // Without an L0 file nothing is due and nothing is picked.
        let levels = vec![
            Vec::new(),
            vec![meta(1, "a", "c", 100)],
            Vec::new(),
            Vec::new(),
        ];
        assert_eq!(pick(&levels, &[], &[], &[], &o), None);
        // A due level goes before an L0 that is not.
        let mut levels = tree(300, vec![meta(11, "a", "b", 300)]);
        levels[0].push(meta(5, "a", "z", 100));
        let p = pick(&levels, &[], &[], &[], &o).unwrap();
        assert_eq!(p.start_level, 1);
        // An L0 compaction already running: not another one.
        let levels = vec![
            vec![meta(6, "a", "z", 100), meta(5, "a", "z", 100)],
            vec![meta(1, "a", "c", 100)],
            Vec::new(),
            Vec::new(),
        ];
        let r = [RunningCompaction {
            start_level: 0,
            output_level: 1,
            smallest_user_key: b"a".to_vec(),
            largest_user_key: b"z".to_vec(),
        }];
        assert_eq!(pick(&levels, &[5], &r, &[], &o), None);
    }

    #[test]
    fn expansion_goes_on_while_the_ratio_improves_and_stops_at_the_first_step_that_does_not() {
        // 1+11: 300/300 = 1. +2+12: 600/400 = 1.5, kept. +3+13: 900/1300 ≈ 0.69, refused,
        // and the expansion ends there although +4+14 (1200/1310) would beat 0.69.
        let levels = tree(
            300,
            vec![
                meta(11, "a", "b", 300),
                meta(12, "c", "d", 100),
                meta(13, "e", "f", 900),
                meta(14, "g", "h", 10),
            ],
        );
        let p = pick(&levels, &[], &[], &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![1, 2]);
        assert_eq!(inputs(&p, 2), vec![11, 12]);
        assert_eq!(p.compact_cursor, Some((1, cursor("d"))));
        // A next file with no L2 overlap raises the ratio (the L2 bytes stay): kept, to the
        // end of the level, without wrapping.
        let levels = tree(300, vec![meta(11, "a", "b", 300)]);
        let p = pick(&levels, &[], &[], &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![1, 2, 3, 4]);
        assert_eq!(inputs(&p, 2), vec![11]);
        // With no L2 inputs at all the ratio is infinite: no expansion (a trivial move).
        let levels = tree(300, vec![meta(12, "c", "d", 10)]);
        let p = pick(&levels, &[], &[], &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![1]);
        assert!(inputs(&p, 2).is_empty());
        assert!(p.trivial_move);
        // Started at the last file: nothing after it to add.
        let levels = tree(300, vec![meta(14, "g", "h", 300), meta(15, "i", "j", 1)]);
        let cursors = vec![Vec::new(), cursor("f")];
        let p = pick(&levels, &[], &[], &cursors, &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![4]);
    }

    #[test]
    fn expansion_keeps_the_next_level_below_25_target_files() {
        // Limit 25 × 100 = 2500 bytes of L2. 1+11: 300/2000. +2+12: 600/2400, kept (2400 <
        // 2500). +3+13: 900/2500 would improve the ratio but reaches the limit: refused.
        let l2 = vec![
            meta(11, "a", "b", 2000),
            meta(12, "c", "d", 400),
            meta(13, "e", "f", 100),
        ];
        let levels = tree(300, l2.clone());
        let p = pick(&levels, &[], &[], &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![1, 2]);
        assert_eq!(inputs(&p, 2), vec![11, 12]);
        // With target files of 200 bytes (limit 5000) the same tree expands to the end.
        let o = DbOptions {
            target_file_size_base: 200,
            ..opts()
        };
        let p = pick(&levels, &[], &[], &[], &o).unwrap();
        assert_eq!(inputs(&p, 1), vec![1, 2, 3, 4]);
        assert_eq!(inputs(&p, 2), vec![11, 12, 13]);
    }

    #[test]
    fn files_being_compacted_are_skipped() {
        // L1 files of 600 bytes: 1 and 3 are being compacted (with L2 11 and 13), the other
        // two still make L1 due (1200 / 1000).
        let levels = tree(
            600,
            vec![
                meta(11, "a", "b", 600),
                meta(12, "c", "d", 600),
                meta(13, "e", "f", 600),
                meta(14, "g", "h", 10),
            ],
        );
        let busy = [1, 11, 3, 13];
        let r = [running(1, "a", "b"), running(1, "e", "f")];
        // From the start: 1 is busy, 2 is taken; expanding to 3 is not possible (busy).
        let p = pick(&levels, &busy, &r, &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![2]);
        assert_eq!(inputs(&p, 2), vec![12]);
        assert_eq!(p.compact_cursor, Some((1, cursor("d"))));
        // After 2: 3 is busy, 4 is taken; then the scan wraps past busy 1 to 2.
        let cursors = vec![Vec::new(), cursor("d")];
        let p = pick(&levels, &busy, &r, &cursors, &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![4]);
        let cursors = vec![Vec::new(), cursor("h")];
        let p = pick(&levels, &busy, &r, &cursors, &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![2]);
        // A busy L2 file skips the L1 file that overlaps it. (From 2 on, the files after it
        // overlap no more L2 bytes, so each step raises the ratio and the pick runs to 4.)
        let levels = tree(300, vec![meta(11, "a", "b", 300), meta(12, "c", "d", 300)]);
        let r = [running(2, "a", "b")];
        let p = pick(&levels, &[11], &r, &[], &opts()).unwrap();
        assert_eq!(inputs(&p, 1), vec![2, 3, 4]);
        assert_eq!(inputs(&p, 2), vec![12]);
    }
}
