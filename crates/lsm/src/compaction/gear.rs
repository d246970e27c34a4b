//! Gear compaction (`compaction_scheme = "gear"`): GearDB's cascading merge (Yao et al.,
//! FAST'19; `shared/reference/policies-in-prior-work.md` §3.1), the compaction policy of the
//! SplitZNS paper's Gear baseline, which rebuilt it on RocksDB ("we allocate dedicated zones
//! for SSTables from different levels and employ the Gear Compaction policy").
//!
//! Picking is RocksDB's leveled picker with the level's `compaction_pri` (the study sets
//! `kRoundRobin`, GearDB's LevelDB `compact_pointer_`). A merging plan from `L_i` into `L_o`
//! then grows one level at a time while the **gear condition** holds at the current level
//! `L_c` (starting at `L_c = L_o`), as `Compaction::need_gear_com` checks it:
//!
//! 1. `L_c` is at or over its target (`size(L_c) >= MaxBytes(L_c)`);
//! 2. `size(L_{c+1}) >= MaxBytes(L_c) / 4`;
//! 3. some file of `L_{c+1}`'s **compaction window** overlaps the range the cascade carries
//!    down: the plan's range at `L_o`, the spans taken at `L_c` below it.
//!
//! The overlapping window files, grouped into runs of consecutive files of `L_{c+1}` (GearDB's
//! `Range_key`s), each run widened to a clean cut, join the plan as inputs at `L_{c+1}`, and
//! each run's key span ([`CascadeLevel::spans`]) is where keys go one level deeper. A run is
//! left out when one of its files is being compacted or its range meets a running compaction
//! into `L_{c+1}`; with no run left the cascade stops.
//!
//! **Where an entry is written** (what the job does with [`CompactionPlan::cascade`]): an
//! entry read from `L_i` or `L_o` starts at `L_o`, one read from a cascade input at `L_j` starts
//! at `L_j`; it moves down from `L_m` to `L_{m+1}` while its user key lies in a span of
//! `L_{m+1}`, and is written where it stops. This is GearDB's staging (keys in a span go to the
//! next level's container, which is merged with that level's files, and so on), and it keeps
//! the tree's order: a version moved to `L_d` passed spans at every level in between, so no
//! file left at those levels holds its key, and versions from shallower sources stop at the
//! same level or above.
//!
//! **Windows** (`adjust_com_window_num`, `set_com_window_seq`): levels 1 and 2 have all their
//! zones in the window; from L3 on, the oldest quarter of the level's zones (integer division,
//! so a level of fewer than four zones has none). A zone belongs to a level when it holds one
//! of the level's files; zones are ordered by the oldest file of the level in them (GearDB
//! keeps the level's zones in allocation order and its window until it has fewer zones than
//! the quarter; here the window is recomputed at each pick). Without the zone view every file
//! of the level is in the window.
//!
//! Left out: GearDB's "dump" (outputs straight to `L_{o+1}` when nothing there overlaps) and
//! its trivial moves that rewrite a file into the next level's zone (here a trivial move edits
//! only the MANIFEST, as RocksDB's).

use std::collections::{BTreeMap, BTreeSet};

use super::leveled::LeveledPicker;
use super::levels::{LevelTargets, level_bytes, level_targets, range};
use super::picker::{CompactionInputs, CompactionPicker, CompactionPlan, LevelFile, PickerInput};
use super::view::{PickView, Picked};
use super::zone_layout::ZoneLayout;

/// GearDB's `COM_WINDOW_SCALE`: from L3 on, a level's window is a quarter of its zones.
pub const COM_WINDOW_SCALE: usize = 4;

/// The first level whose window is a fraction of its zones (levels above it: all zones).
pub const FIRST_SCALED_WINDOW_LEVEL: usize = 3;

/// GearDB's second gear condition: `L_{c+1}` holds at least `MaxBytes(L_c) / GEAR_NEXT_LEVEL_DIVISOR`.
pub const GEAR_NEXT_LEVEL_DIVISOR: u64 = 4;

/// One level a gear compaction cascades into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CascadeLevel {
    /// The level (`L_{o+1}`, `L_{o+2}`, ...).
    pub level: u32,
    /// User-key spans of its input runs, ascending and disjoint, each `[first, last]`
    /// inclusive: keys in them go down to this level.
    pub spans: Vec<(Vec<u8>, Vec<u8>)>,
}

impl CascadeLevel {
    /// Whether `user_key` lies in one of the spans.
    pub fn contains(&self, user_key: &[u8]) -> bool {
        self.span_of(user_key).is_some()
    }

    /// The index of the span `user_key` lies in. An output at this level must stay within
    /// one span: between two spans lie files of the level that the cascade does not rewrite.
    pub fn span_of(&self, user_key: &[u8]) -> Option<usize> {
        let i = self
            .spans
            .partition_point(|(_, hi)| hi.as_slice() < user_key);
        self.spans
            .get(i)
            .is_some_and(|(lo, _)| lo.as_slice() <= user_key)
            .then_some(i)
    }
}

/// Where an entry of user key `user_key` read from level `source` is written in a plan whose
/// output level is `output` with `cascade` below it.
pub fn destination(output: u32, cascade: &[CascadeLevel], source: u32, user_key: &[u8]) -> u32 {
    let mut at = source.max(output);
    for c in cascade {
        if c.level <= at {
            continue;
        }
        if c.level != at + 1 || !c.contains(user_key) {
            break;
        }
        at = c.level;
    }
    at
}

/// Gear compaction over RocksDB's leveled picking.
#[derive(Debug, Clone, Copy, Default)]
pub struct GearPicker;

impl CompactionPicker for GearPicker {
    fn name(&self) -> &'static str {
        "gear"
    }

    fn pick(&self, input: &PickerInput<'_>) -> Option<CompactionPlan> {
        let mut plan = LeveledPicker.pick(input)?;
        if !plan.trivial_move && plan.output_level > 0 {
            let v = PickView::new(input.levels, input.running, input.zones);
            let targets = level_targets(input.levels, input.options);
            extend(&mut plan, &v, &targets);
        }
        Some(plan)
    }

    fn wants_zone_view(&self) -> bool {
        true
    }
}

/// Grows `plan` by the gear cascade while the gear condition holds (see the module docs).
pub fn extend(plan: &mut CompactionPlan, v: &PickView<'_>, targets: &LevelTargets) {
    let Some(first) = plan_range(plan, v) else {
        return;
    };
    let mut carried = vec![first];
    let mut c = plan.output_level as usize;
    while c + 1 < v.levels.len() {
        let target = targets.targets.get(c).copied().unwrap_or(u64::MAX);
        let next_bytes = level_bytes(&v.levels[c + 1]);
        if target == u64::MAX
            || level_bytes(&v.levels[c]) < target
            || next_bytes < target / GEAR_NEXT_LEVEL_DIVISOR
        {
            break;
        }
        let window = window_files(v, c + 1);
        let runs = runs_into(v, c + 1, &carried, &window);
        if runs.is_empty() {
            break;
        }
        let mut spans = Vec::new();
        let mut files = Vec::new();
        for run in &runs {
            if let Some(span) = v.range_of(c + 1, run) {
                spans.push(span);
            }
            files.extend(v.files(c + 1, run).iter().map(|f| f.number));
        }
        plan.inputs.push(CompactionInputs {
            level: (c + 1) as u32,
            files,
        });
        plan.cascade.push(CascadeLevel {
            level: (c + 1) as u32,
            spans: spans.clone(),
        });
        carried = spans;
        c += 1;
    }
    if !plan.cascade.is_empty() {
        let deepest = c;
        let (lo, hi) = plan_range(plan, v).unwrap_or_default();
        plan.bottommost = v.levels[deepest + 1..]
            .iter()
            .flatten()
            .all(|f| !super::levels::overlaps(f, &lo, &hi));
    }
}

/// Smallest and largest user key over every input of `plan`.
fn plan_range(plan: &CompactionPlan, v: &PickView<'_>) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut all: Vec<&LevelFile<'_>> = Vec::new();
    for i in &plan.inputs {
        all.extend(
            v.levels[i.level as usize]
                .iter()
                .filter(|f| i.files.contains(&f.number)),
        );
    }
    range(all)
}

/// The runs of `level`'s window files overlapping the `carried` spans: consecutive files of
/// the level, each run widened to a clean cut; runs with a file being compacted or meeting a
/// running compaction into `level` are left out. Ascending, disjoint.
fn runs_into(
    v: &PickView<'_>,
    level: usize,
    carried: &[(Vec<u8>, Vec<u8>)],
    window: &BTreeSet<u64>,
) -> Vec<Picked> {
    let mut hit: BTreeSet<usize> = BTreeSet::new();
    for (lo, hi) in carried {
        hit.extend(
            v.overlapping(level, lo, hi)
                .into_iter()
                .filter(|&i| window.contains(&v.levels[level][i].number)),
        );
    }
    let mut runs: Vec<Picked> = Vec::new();
    for i in hit {
        match runs.last_mut() {
            Some(r) if r.last().is_some_and(|&l| l + 1 == i) => r.push(i),
            _ => runs.push(vec![i]),
        }
    }
    let mut kept: Vec<Picked> = Vec::new();
    for mut run in runs {
        if v.any_being_compacted(level, &run)
            || !v.expand_to_clean_cut(level, &mut run)
            || v.overlaps_running(&v.files(level, &run), level as u32)
        {
            continue;
        }
        // A clean cut can reach the run before it: merge them.
        match kept.last_mut() {
            Some(prev) if prev.last().is_some_and(|&l| l + 1 >= run[0]) => {
                prev.extend(run);
                prev.sort_unstable();
                prev.dedup();
            }
            _ => kept.push(run),
        }
    }
    kept
}

/// The file numbers of `level` in its compaction window.
pub fn window_files(v: &PickView<'_>, level: usize) -> BTreeSet<u64> {
    let files = &v.levels[level];
    let all = || files.iter().map(|f| f.number).collect();
    let Some(layout) = v.zones else {
        return all();
    };
    if level < FIRST_SCALED_WINDOW_LEVEL {
        return all();
    }
    window_of(layout, files.iter().map(|f| f.number))
}

/// The files among `files` in the oldest quarter of the zones holding them (zones ordered by
/// the oldest of these files in each; a file belongs to the zone of its first extent).
pub fn window_of(layout: &ZoneLayout, files: impl IntoIterator<Item = u64>) -> BTreeSet<u64> {
    let mut by_zone: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for n in files {
        if let Some(&(z, _)) = layout.files.get(&n).and_then(|e| e.first()) {
            by_zone.entry(z).or_default().push(n);
        }
    }
    let mut zones: Vec<(u64, u32)> = by_zone
        .iter()
        .map(|(&z, f)| (f.iter().copied().min().unwrap_or(u64::MAX), z))
        .collect();
    zones.sort_unstable();
    let num = zones.len() / COM_WINDOW_SCALE;
    zones
        .iter()
        .take(num)
        .flat_map(|(_, z)| by_zone[z].iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::picker::RunningCompaction;
    use crate::compaction::zone_layout::ZoneMap;
    use crate::options::DbOptions;
    use crate::version::FileMeta;

    fn meta(number: u64, lo: &str, hi: &str, size: u64) -> FileMeta {
        FileMeta::for_test(number, lo, hi, size)
    }

    fn span(lo: &str, hi: &str) -> (Vec<u8>, Vec<u8>) {
        (lo.as_bytes().to_vec(), hi.as_bytes().to_vec())
    }

    #[test]
    fn an_entry_goes_down_while_its_key_is_in_the_next_span() {
        let cascade = [
            CascadeLevel {
                level: 3,
                spans: vec![span("c", "f"), span("m", "p")],
            },
            CascadeLevel {
                level: 4,
                spans: vec![span("d", "e"), span("o", "z")],
            },
        ];
        // From the plan's levels (L1, L2): start at L2.
        assert_eq!(destination(2, &cascade, 1, b"a"), 2);
        assert_eq!(destination(2, &cascade, 2, b"c"), 3);
        assert_eq!(destination(2, &cascade, 1, b"d"), 4);
        assert_eq!(destination(2, &cascade, 2, b"n"), 3);
        // In L4's span but not L3's: an upper version stops at L2.
        assert_eq!(destination(2, &cascade, 1, b"q"), 2);
        // An L3 input's key outside L4's spans stays at L3; an L4 input's key stays at L4.
        assert_eq!(destination(2, &cascade, 3, b"g"), 3);
        assert_eq!(destination(2, &cascade, 4, b"q"), 4);
        assert!(
            CascadeLevel {
                level: 3,
                spans: vec![span("c", "f")]
            }
            .contains(b"f")
        );
    }

    fn levels_of(metas: &[Vec<FileMeta>]) -> Vec<Vec<LevelFile<'_>>> {
        metas
            .iter()
            .map(|l| {
                l.iter()
                    .map(|m| LevelFile {
                        meta: m,
                        being_compacted: false,
                    })
                    .collect()
            })
            .collect()
    }

    fn opts() -> DbOptions {
        DbOptions {
            max_bytes_for_level_base: 100,
            max_bytes_for_level_multiplier: 10.0,
            level_compaction_dynamic_level_bytes: false,
            ..DbOptions::default()
        }
    }

    fn plan_l1_to_l2(l1: u64, l2: Vec<u64>) -> CompactionPlan {
        CompactionPlan {
            start_level: 1,
            output_level: 2,
            inputs: vec![
                CompactionInputs {
                    level: 1,
                    files: vec![l1],
                },
                CompactionInputs {
                    level: 2,
                    files: l2,
                },
            ],
            grandparents: Vec::new(),
            trivial_move: false,
            score: 1.5,
            reason: super::super::picker::CompactionReason::LevelMaxLevelSize,
            max_output_file_size: 64,
            max_compaction_bytes: 1 << 30,
            bottommost: false,
            next_compaction_index: None,
            compact_cursor: None,
            split_at: None,
            cascade: Vec::new(),
            temp_after: None,
        }
    }

    /// L1 over its 100-byte target, L2 (target 1,000) full, L3 holding the rest.
    fn tree() -> Vec<Vec<FileMeta>> {
        vec![
            Vec::new(),
            vec![meta(10, "d", "k", 150)],
            vec![
                meta(20, "a", "c", 400),
                meta(21, "e", "h", 400),
                meta(22, "i", "m", 400),
            ],
            vec![
                meta(30, "a", "b", 500),
                meta(31, "f", "g", 500),
                meta(32, "h", "j", 500),
                meta(33, "x", "z", 500),
            ],
            Vec::new(),
        ]
    }

    #[test]
    fn a_full_output_level_cascades_into_the_overlapping_run_of_the_next() {
        let metas = tree();
        let levels = levels_of(&metas);
        let v = PickView::new(&levels, &[], None);
        let targets = level_targets(&levels, &opts());
        let mut plan = plan_l1_to_l2(10, vec![21, 22]);
        extend(&mut plan, &v, &targets);
        // L2 (1,200 bytes) is over 1,000 and L3 (2,000) over 250: files 31 and 32 overlap
        // [e, m] and are consecutive, one run.
        assert_eq!(
            plan.cascade,
            vec![CascadeLevel {
                level: 3,
                spans: vec![span("f", "j")]
            }]
        );
        assert_eq!(plan.inputs.last().unwrap().files, vec![31, 32]);
        // L3 (2,000) is under its 10,000 target: no deeper; nothing lies below L3.
        assert!(plan.bottommost);
    }

    #[test]
    fn no_cascade_when_the_output_level_is_under_its_target() {
        let mut metas = tree();
        metas[2].pop();
        let levels = levels_of(&metas);
        let v = PickView::new(&levels, &[], None);
        let targets = level_targets(&levels, &opts());
        let mut plan = plan_l1_to_l2(10, vec![21]);
        extend(&mut plan, &v, &targets);
        assert!(plan.cascade.is_empty());
        assert_eq!(plan.inputs.len(), 2);
    }

    #[test]
    fn a_run_being_compacted_or_meeting_a_running_compaction_is_left_out() {
        let metas = tree();
        let mut levels = levels_of(&metas);
        levels[3][1].being_compacted = true;
        let v = PickView::new(&levels, &[], None);
        let targets = level_targets(&levels, &opts());
        let mut plan = plan_l1_to_l2(10, vec![21, 22]);
        extend(&mut plan, &v, &targets);
        assert!(plan.cascade.is_empty());

        let levels = levels_of(&metas);
        let running = [RunningCompaction {
            start_level: 2,
            output_level: 3,
            smallest_user_key: b"g".to_vec(),
            largest_user_key: b"g".to_vec(),
        }];
        let v = PickView::new(&levels, &running, None);
        let mut plan = plan_l1_to_l2(10, vec![21, 22]);
        extend(&mut plan, &v, &targets);
        assert!(plan.cascade.is_empty());
    }

    #[test]
    fn the_window_is_the_oldest_quarter_of_a_deep_levels_zones() {
        let mut files: ZoneMap = ZoneMap::new();
        // Eight zones, file n in zone 100 - n (so zone order is not age order).
        for n in 1..=8u64 {
            files.insert(n, vec![(100 - n as u32, 10)]);
        }
        // A second, newer file in the oldest zone.
        files.insert(20, vec![(99, 10)]);
        let layout = ZoneLayout {
            files,
            ..ZoneLayout::default()
        };
        let w = window_of(&layout, [1, 2, 3, 4, 5, 6, 7, 8, 20]);
        assert_eq!(w, [1, 2, 20].into_iter().collect());
        // Fewer than four zones: no window.
        assert!(window_of(&layout, [1, 2, 3]).is_empty());
    }

    #[test]
    fn a_plan_outside_the_window_does_not_cascade() {
        let metas = tree();
        let levels = levels_of(&metas);
        let mut files: ZoneMap = ZoneMap::new();
        // L3's files in four zones; the oldest (file 30's) is the window.
        for (n, z) in [(30u64, 0u32), (31, 1), (32, 2), (33, 3)] {
            files.insert(n, vec![(z, 500)]);
        }
        let layout = ZoneLayout {
            files,
            ..ZoneLayout::default()
        };
        let v = PickView::new(&levels, &[], Some(&layout));
        let targets = level_targets(&levels, &opts());
        let mut plan = plan_l1_to_l2(10, vec![21, 22]);
        extend(&mut plan, &v, &targets);
        assert!(plan.cascade.is_empty());
        // A plan reaching file 30's range does.
        let mut plan = plan_l1_to_l2(10, vec![20, 21, 22]);
        extend(&mut plan, &v, &targets);
        assert_eq!(plan.cascade.len(), 1);
        assert_eq!(plan.inputs.last().unwrap().files, vec![30]);
    }
}
