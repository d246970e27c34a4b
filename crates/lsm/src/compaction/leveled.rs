//! RocksDB's leveled compaction picker (`LevelCompactionBuilder`), the 6.14/7.4 rule set:
//!
//! 1. Levels in descending score order, stopping below 1. L0 → base is not retried for the
//!    base level once skipped in the same pass.
//! 2. `PickFileToCompact`: no L0 pick while another compaction starting at L0 runs (one L0
//!    compaction at a time); files in the order of the level's start-file rule (RocksDB's
//!    `compaction_pri`, see [`super::start_file`]) from the level's
//!    `NextCompactionIndex`; skip files being compacted; expand to a clean cut (neighbours
//!    sharing a boundary user key); reject if the range overlaps a running compaction with the
//!    same output level or the output files cannot be cleanly cut.
//! 3. L0: widen to every L0 file transitively overlapping; fail if the output level's range is
//!    being compacted. If L0 → base fails: intra-L0 when L0 has trigger + 2 files (and
//!    `enable_intra_l0_compaction`).
//! 4. `SetupOtherInputs`: output-level overlaps, then grow the start level without changing the
//!    output set, within `max_compaction_bytes` (compensated sizes).
//! 5. Grandparents; trivial move when the output level gets no files, L0 files do not overlap,
//!    and each input plus its overlap two levels down fits `max_compaction_bytes`.

use std::sync::Arc;

use super::levels::{
    self, LevelTargets, compaction_scores, compensated_size, level_targets,
    max_file_size_for_level, overlapping_inputs, range,
};
use super::picker::{
    CompactionInputs, CompactionPicker, CompactionPlan, CompactionReason, LevelFile, PickerInput,
};
use super::start_file::{StartFileRule, StartFiles, StartLevel, for_compaction_pri};
use super::view::{PickView, Picked};

/// RocksDB's `kMinFilesForIntraL0Compaction`.
const MIN_FILES_FOR_INTRA_L0: usize = 4;

/// RocksDB's leveled picker: the start-file rule of `options.compaction_pri` at every level.
#[derive(Debug, Clone, Copy, Default)]
pub struct LeveledPicker;

/// One pick's state: the input, its tree view, the level targets, and the rule per level.
struct Builder<'a> {
    input: &'a PickerInput<'a>,
    v: PickView<'a>,
    levels: &'a [Vec<LevelFile<'a>>],
    targets: LevelTargets,
    avg: u64,
    rule: &'a dyn Fn(usize) -> &'a dyn StartFileRule,
}

/// What [`Builder::pick_file_to_compact`] found.
struct StartPick {
    /// Start inputs (indices into the level).
    inputs: Option<Picked>,
    /// Index into the rule's order where the scan stopped (the new `NextCompactionIndex`).
    stop: usize,
    /// New round-robin cursor.
    cursor: Option<Vec<u8>>,
    /// The rule asked for a round-robin scan (the cursor moves, not `NextCompactionIndex`).
    round_robin: bool,
}

impl<'a> Builder<'a> {
    fn files(&self, level: usize, idx: &[usize]) -> Vec<&'a LevelFile<'a>> {
        self.v.files(level, idx)
    }

    fn range_of(&self, level: usize, idx: &[usize]) -> Option<(Vec<u8>, Vec<u8>)> {
        self.v.range_of(level, idx)
    }

    fn overlapping(&self, level: usize, lo: &[u8], hi: &[u8]) -> Picked {
        self.v.overlapping(level, lo, hi)
    }

    fn any_being_compacted(&self, level: usize, idx: &[usize]) -> bool {
        self.v.any_being_compacted(level, idx)
    }

    fn expand_to_clean_cut(&self, level: usize, idx: &mut Picked) -> bool {
        self.v.expand_to_clean_cut(level, idx)
    }

    fn overlaps_running(&self, files: &[&LevelFile<'_>], output_level: u32) -> bool {
        self.v.overlaps_running(files, output_level)
    }

    fn compensated(&self, level: usize, idx: &[usize]) -> u64 {
        self.v.compensated(level, idx)
    }

    /// `PickFileToCompact` with the level's start-file rule.
    fn pick_file_to_compact(&self, start: usize, output: usize) -> StartPick {
        if start == 0 && self.input.running.iter().any(|r| r.start_level == 0) {
            return StartPick {
                inputs: None,
                stop: self.next_index(start),
                cursor: None,
                round_robin: false,
            };
        }
        let cursor = self
            .input
            .compact_cursor
            .get(start)
            .map_or(&[][..], Vec::as_slice);
        let choice = (self.rule)(start).choose(&StartLevel {
            view: &self.v,
            start,
            output,
            cursor,
        });
        let (order, round_robin) = match choice {
            StartFiles::Chosen(inputs) => {
                // A rule's own choice does not move `NextCompactionIndex`.
                return StartPick {
                    inputs: Some(inputs),
                    stop: self.next_index(start),
                    cursor: None,
                    round_robin: false,
                };
            }
            StartFiles::Scan(order) => (order, false),
            StartFiles::RoundRobin(order) => (order, true),
        };
        let stopped = |stop| StartPick {
            inputs: None,
            stop,
            cursor: None,
            round_robin,
        };
        let first = if round_robin {
            0
        } else {
            self.next_index(start)
        };
        let mut cmp_idx = first;
        while cmp_idx < order.len() {
            let i = order[cmp_idx];
            let f = &self.levels[start][i];
            if f.being_compacted {
                if round_robin {
                    return stopped(cmp_idx);
                }
                cmp_idx += 1;
                continue;
            }
            let Some((inputs, _)) = self.v.candidate_group(start, output, i) else {
                cmp_idx += 1;
                continue;
            };
            let cursor = round_robin
                .then(|| {
                    self.files(start, &inputs)
                        .iter()
                        .map(|f| f.largest.clone())
                        .max_by(|a, b| crate::key::compare(a, b))
                })
                .flatten();
            return StartPick {
                inputs: Some(inputs),
                stop: cmp_idx,
                cursor,
                round_robin,
            };
        }
        stopped(cmp_idx)
    }

    fn next_index(&self, level: usize) -> usize {
        self.input
            .next_compaction_index
            .get(level)
            .copied()
            .unwrap_or(0)
    }

    /// `PickIntraL0Compaction` / `FindIntraL0Compaction`: the newest-first run of L0 files
    /// (at least four) while the bytes per file removed keep falling, within
    /// `max_compaction_bytes`.
    /// Never with `enable_intra_l0_compaction = false` (the MSST'24 fork's switch; its
    /// `PickIntraL0Compaction` returns false whatever the flag).
    fn pick_intra_l0(&self) -> Option<Picked> {
        if !self.input.options.enable_intra_l0_compaction {
            return None;
        }
        let l0 = &self.levels[0];
        let trigger = self.input.options.level0_file_num_compaction_trigger as usize;
        if l0.len() < trigger + 2 || l0[0].being_compacted {
            return None;
        }
        let max_bytes = self.input.options.effective_max_compaction_bytes();
        let mut bytes = l0[0].file_size;
        let mut compensated = compensated_size(&l0[0], self.avg);
        let mut per_file = u64::MAX;
        let mut limit = 1;
        while limit < l0.len() {
            bytes += l0[limit].file_size;
            compensated += compensated_size(&l0[limit], self.avg);
            let new_per_file = bytes / limit as u64;
            if l0[limit].being_compacted || new_per_file > per_file || compensated > max_bytes {
                break;
            }
            per_file = new_per_file;
            limit += 1;
        }
        (limit >= MIN_FILES_FOR_INTRA_L0 && per_file < u64::MAX).then(|| (0..limit).collect())
    }

    /// `SetupOtherInputs`: the output-level files and a possibly grown start level.
    fn setup_other_inputs(
        &self,
        start: usize,
        output: usize,
        inputs: &mut Picked,
    ) -> Option<Picked> {
        let (lo, hi) = self.range_of(start, inputs)?;
        let mut out = self.overlapping(output, &lo, &hi);
        if self.any_being_compacted(output, &out) {
            return None;
        }
        if !out.is_empty() && !self.expand_to_clean_cut(output, &mut out) {
            return None;
        }
        if out.is_empty() {
            return Some(out);
        }
        let limit = self.input.options.effective_max_compaction_bytes();
        let out_size = self.compensated(output, &out);
        let mut all = self.files(start, inputs);
        all.extend(self.files(output, &out));
        let (all_lo, all_hi) = range(all)?;
        let mut expanded = self.overlapping(start, &all_lo, &all_hi);
        let mut grow = false;
        let clean = self.expand_to_clean_cut(start, &mut expanded);
        if clean
            && expanded.len() > inputs.len()
            && out_size + self.compensated(start, &expanded) < limit
            && !self.any_being_compacted(start, &expanded)
            && let Some((nlo, nhi)) = self.range_of(start, &expanded)
        {
            let mut out2 = self.overlapping(output, &nlo, &nhi);
            if !self.any_being_compacted(output, &out2)
                && self.expand_to_clean_cut(output, &mut out2)
                && out2.len() == out.len()
            {
                grow = true;
            }
        }
        if !grow && start > 0 {
            expanded = self.clean_within(start, &all_lo, &all_hi);
            if expanded.len() > inputs.len()
                && out_size + self.compensated(start, &expanded) < limit
                && !self.any_being_compacted(start, &expanded)
            {
                grow = true;
            }
        }
        if grow {
            *inputs = expanded;
        }
        Some(out)
    }

    /// `GetCleanInputsWithinInterval`: files of `level` (not L0) inside `[lo, hi]`, minus
    /// boundary files that share a user key with a neighbour outside.
    fn clean_within(&self, level: usize, lo: &[u8], hi: &[u8]) -> Picked {
        let files = &self.levels[level];
        let mut idx: Picked = (0..files.len())
            .filter(|&i| {
                levels::smallest_uk(&files[i]) >= lo && levels::largest_uk(&files[i]) <= hi
            })
            .collect();
        while let Some(&first) = idx.first() {
            if first > 0
                && levels::largest_uk(&files[first - 1]) == levels::smallest_uk(&files[first])
            {
                idx.remove(0);
            } else {
                break;
            }
        }
        while let Some(&last) = idx.last() {
            if last + 1 < files.len()
                && levels::smallest_uk(&files[last + 1]) == levels::largest_uk(&files[last])
            {
                idx.pop();
            } else {
                break;
            }
        }
        idx
    }

    fn grandparents(&self, output: usize, lo: &[u8], hi: &[u8]) -> Vec<u64> {
        for l in output + 1..self.levels.len() {
            let g = self.overlapping(l, lo, hi);
            if !g.is_empty() {
                return g.iter().map(|&i| self.levels[l][i].number).collect();
            }
        }
        Vec::new()
    }

    fn l0_non_overlapping(&self) -> bool {
        let mut l0: Vec<&LevelFile<'_>> = self.levels[0].iter().collect();
        l0.sort_by(|a, b| crate::key::compare(&a.smallest, &b.smallest));
        l0.windows(2)
            .all(|w| levels::largest_uk(w[0]) < levels::smallest_uk(w[1]))
    }

    /// `Compaction::IsTrivialMove`.
    fn is_trivial_move(
        &self,
        start: usize,
        output: usize,
        inputs: &[usize],
        out: &[usize],
    ) -> bool {
        if start == output || !out.is_empty() || (start == 0 && !self.l0_non_overlapping()) {
            return false;
        }
        let limit = self.input.options.effective_max_compaction_bytes();
        self.files(start, inputs).iter().all(|f| {
            if output + 1 >= self.levels.len() {
                return true;
            }
            let gp: u64 = overlapping_inputs(
                self.levels,
                output + 1,
                levels::smallest_uk(f),
                levels::largest_uk(f),
            )
            .iter()
            .map(|g| g.file_size)
            .sum();
            f.file_size + gp <= limit
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn plan(
        &self,
        start: usize,
        output: usize,
        inputs: &[usize],
        out: &[usize],
        score: f64,
        reason: CompactionReason,
        trivial: bool,
    ) -> Option<CompactionPlan> {
        let mut all = self.files(start, inputs);
        all.extend(self.files(output, out));
        let (lo, hi) = range(all)?;
        let grandparents = if output == 0 {
            Vec::new()
        } else {
            self.grandparents(output, &lo, &hi)
        };
        let bottommost = output != 0
            && self.levels[output + 1..]
                .iter()
                .flatten()
                .all(|f| !levels::overlaps(f, &lo, &hi));
        let mut inputs_v = vec![CompactionInputs {
            level: start as u32,
            files: self.files(start, inputs).iter().map(|f| f.number).collect(),
        }];
        if output != start {
            inputs_v.push(CompactionInputs {
                level: output as u32,
                files: self.files(output, out).iter().map(|f| f.number).collect(),
            });
        }
        Some(CompactionPlan {
            start_level: start as u32,
            output_level: output as u32,
            inputs: inputs_v,
            grandparents,
            trivial_move: trivial,
            score,
            reason,
            max_output_file_size: max_file_size_for_level(
                output as u32,
                self.targets.base_level,
                self.input.options,
            ),
            max_compaction_bytes: self.input.options.effective_max_compaction_bytes(),
            bottommost,
            next_compaction_index: None,
            compact_cursor: None,
            split_at: None,
            cascade: Vec::new(),
            temp_after: None,
        })
    }
}

impl CompactionPicker for LeveledPicker {
    fn name(&self) -> &'static str {
        "rocksdb-leveled"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let rule = for_compaction_pri(input.options.compaction_pri);
        pick_leveled(input, &|_| rule)
    }
}

/// RocksDB's leveled picking with one start-file rule at every level: the way to run a rule
/// defined outside this crate (`DbConfig::picker = Arc::new(RulePicker::new(rule))`).
#[derive(Debug, Clone)]
pub struct RulePicker {
    rule: Arc<dyn StartFileRule>,
}

impl RulePicker {
    /// Leveled picking with `rule` choosing the start files.
    pub fn new(rule: Arc<dyn StartFileRule>) -> Self {
        Self { rule }
    }
}

impl CompactionPicker for RulePicker {
    fn name(&self) -> &'static str {
        self.rule.name()
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let rule: &dyn StartFileRule = self.rule.as_ref();
        pick_leveled(input, &|_| rule)
    }

    fn wants_zone_view(&self) -> bool {
        self.rule.wants_zone_view()
    }
}

/// The plan RocksDB's picker builds for inputs chosen elsewhere (another picker's own
/// rules): grandparents, `IsTrivialMove`, bottommost, the output file size; no
/// `NextCompactionIndex` or cursor change (the caller sets them).
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_for(
    input: &PickerInput<'_>,
    v: PickView<'_>,
    targets: &LevelTargets,
    start: usize,
    output: usize,
    inputs: &[usize],
    out: &[usize],
    score: f64,
    reason: CompactionReason,
) -> Option<CompactionPlan> {
    // Only the start-file scan reads the rule; plans do not.
    let rule = |_: usize| &super::start_file::RoundRobin as &dyn StartFileRule;
    let b = Builder {
        input,
        v,
        levels: v.levels,
        targets: targets.clone(),
        avg: v.avg,
        rule: &rule,
    };
    let trivial = b.is_trivial_move(start, output, inputs, out);
    b.plan(start, output, inputs, out, score, reason, trivial)
}

/// RocksDB's leveled picking with the start files of each level chosen by `rule(level)`.
pub fn pick_leveled<'r>(
    input: &PickerInput<'_>,
    rule: &dyn Fn(usize) -> &'r dyn StartFileRule,
) -> Option<CompactionPlan> {
    let levels = input.levels;
    if levels.len() < 2 {
        return None;
    }
    let v = PickView::new(levels, input.running, input.zones);
    let rule = |level: usize| -> &dyn StartFileRule { rule(level) };
    let b = Builder {
        input,
        v,
        levels,
        targets: level_targets(levels, input.options),
        avg: v.avg,
        rule: &rule,
    };
    let base = b.targets.base_level as usize;
    let mut skipped_l0_to_base = false;
    for (level, score) in compaction_scores(levels, &b.targets, input.options) {
        if score < 1.0 {
            return None;
        }
        let start = level as usize;
        if skipped_l0_to_base && start == base {
            continue;
        }
        let output = if start == 0 { base } else { start + 1 };
        let StartPick {
            inputs: picked,
            stop,
            cursor,
            round_robin,
        } = b.pick_file_to_compact(start, output);
        let Some(mut inputs) = picked else {
            if start == 0 {
                skipped_l0_to_base = true;
                if let Some(intra) = b.pick_intra_l0() {
                    return b.plan(0, 0, &intra, &[], score, CompactionReason::IntraL0, false);
                }
            }
            continue;
        };
        // From here on a failure ends the pick (RocksDB returns no compaction).
        if start == 0 {
            let (lo, hi) = b.range_of(0, &inputs)?;
            inputs = b.overlapping(0, &lo, &hi);
            let (lo, hi) = b.range_of(0, &inputs)?;
            let out_range = b.overlapping(output, &lo, &hi);
            if b.any_being_compacted(output, &out_range) {
                return None;
            }
        }
        let out = b.setup_other_inputs(start, output, &mut inputs)?;
        let mut all = b.files(start, &inputs);
        all.extend(b.files(output, &out));
        if b.overlaps_running(&all, output as u32) {
            return None;
        }
        let trivial = b.is_trivial_move(start, output, &inputs, &out);
        let reason = if start == 0 {
            CompactionReason::LevelL0FilesNum
        } else {
            CompactionReason::LevelMaxLevelSize
        };
        let mut plan = b.plan(start, output, &inputs, &out, score, reason, trivial)?;
        if round_robin {
            plan.compact_cursor = cursor.map(|c| (level, c));
        } else {
            plan.next_compaction_index = Some((level, stop));
        }
        return Some(plan);
    }
    None
}
