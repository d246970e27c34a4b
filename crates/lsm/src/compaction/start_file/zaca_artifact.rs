//! ZACA as the MSST'24 code runs it (the artifact form), beside [`super::zaca`] (the paper's
//! text form, §V-A: the highest `S_same`, equation 1).
//!
//! Ported from `LevelCompactionBuilder::PickFileToCompact()`
//! (`db/compaction/compaction_picker_level.cc`, RocksDB 7.4 at the paper's run commit e4b644d),
//! the branch taken when `compaction_scheme = MAX_INVALIDATION_COMPACTION`:
//!
//! 1. Walk **every** start-level file in `FilesByCompactionPri` order (RocksDB 7.4's default
//!    `kMinOverlappingRatio`; the artifact never set `compaction_pri`) from index 0, not from
//!    `NextCompactionIndex`.
//! 2. Skip a file being compacted; expand it to a clean cut and skip it if that fails or its
//!    range overlaps a running compaction into the output level; take the clean-cut
//!    output-level overlaps, skipping the candidate if they cannot be cut cleanly.
//! 3. A candidate set of exactly one file (one start file, nothing below: a trivial move)
//!    hands the whole pick to the stock loop at once (`goto baseline`), dropping any best
//!    candidate found so far.
//! 4. Score = [`ZoneLayout::max_invalidation_score`] (`GetMaxInvalidateCompactionScore`: the
//!    mean squared post-compaction invalid percentage of the zones the candidates touch).
//! 5. `file_size_score = ⌊⌊c · 100 / c₀⌋ · free% / 100⌋` (integers), with `c` the start
//!    file's compensated size (before clean-cut expansion) and `c₀` that of the first
//!    candidate scored. A candidate wins if its score beats the best so far, or equals it with
//!    a strictly larger `file_size_score`. The best starts at score 0 and `file_size_score` 0,
//!    so a candidate scoring 0 is still taken when its `file_size_score` is positive; ties are
//!    common (candidates sharing zones score alike) and at free% 0 the first one keeps them.
//! 6. The winner's clean-cut start files are the pick; `NextCompactionIndex` is not moved. No
//!    winner: the stock loop (`kMinOverlappingRatio` from `NextCompactionIndex`).
//!
//! Without a zone view (no ZenFS underneath: the code's score is then 0 and free% 100) it is
//! the stock loop.

use super::min_overlapping_ratio::MinOverlappingRatio;
use super::{StartFileRule, StartFiles, StartLevel};
use crate::compaction::invalidation_score::InvalidationScore;
use crate::compaction::levels::compensated_size;
use crate::compaction::view::{PickView, Picked};
use crate::compaction::zone_layout::ZoneLayout;

/// The artifact's ZACA start-file rule (`zaca-artifact`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ZacaArtifact;

impl StartFileRule for ZacaArtifact {
    fn name(&self) -> &'static str {
        "zaca-artifact"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        if let Some(layout) = s.view.zones
            && let Some(inputs) = pick_start_files(
                s.view,
                layout,
                s.start,
                s.output,
                layout.artifact_free_pct(),
            )
        {
            return StartFiles::Chosen(inputs);
        }
        MinOverlappingRatio.choose(s)
    }

    fn wants_zone_view(&self) -> bool {
        true
    }
}

/// The stock picker's order of `start`'s files (`kMinOverlappingRatio`).
fn stock_order(b: &PickView<'_>, start: usize, output: usize) -> Picked {
    let s = StartLevel {
        view: b,
        start,
        output,
        cursor: &[],
    };
    match MinOverlappingRatio.choose(&s) {
        StartFiles::Scan(o) | StartFiles::RoundRobin(o) | StartFiles::Chosen(o) => o,
    }
}

/// The artifact's candidate loop for a compaction from `start` into `output` with `free_pct`
/// free space: the chosen start files (indices into the level), or `None` when the stock loop
/// decides (a trivial-move candidate came up, or nothing won).
pub fn pick_start_files(
    b: &PickView<'_>,
    layout: &ZoneLayout,
    start: usize,
    output: usize,
    free_pct: u64,
) -> Option<Picked> {
    let mut best_score = InvalidationScore::default();
    let mut best_size_score = 0u64;
    let mut best: Option<Picked> = None;
    let mut first_compensated = 0u64;
    for i in stock_order(b, start, output) {
        let candidate = &b.levels[start][i];
        if candidate.being_compacted {
            continue;
        }
        let Some((inputs, out)) = b.candidate_group(start, output, i) else {
            continue;
        };
        if inputs.len() + out.len() == 1 {
            // `goto baseline`: the stock loop takes over, whatever was found before.
            return None;
        }
        let group = b
            .files(start, &inputs)
            .into_iter()
            .chain(b.files(output, &out))
            .map(|f| f.number);
        let score = layout.max_invalidation_score(group);
        let compensated = compensated_size(candidate, b.avg);
        if first_compensated == 0 {
            first_compensated = compensated;
        }
        let size_score = (compensated * 100)
            .checked_div(first_compensated)
            .unwrap_or(0)
            .saturating_mul(free_pct)
            / 100;
        if score > best_score || (score == best_score && size_score > best_size_score) {
            best_score = score;
            best_size_score = size_score;
            best = Some(inputs);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::picker::{LevelFile, RunningCompaction};
    use crate::compaction::zone_layout::ZoneUsage;
    use crate::version::FileMeta;

    fn meta(n: u64, lo: &str, hi: &str, size: u64) -> FileMeta {
        FileMeta::for_test(n, lo, hi, size)
    }

    fn lf(m: &FileMeta, busy: bool) -> LevelFile<'_> {
        LevelFile {
            meta: m,
            being_compacted: busy,
        }
    }

    /// Zones 0..4 of 100 bytes, all written and 100 valid, except as `valid` says; files in
    /// the zones given.
    fn zones(valid: &[(u32, u64)], files: &[(u64, u32, u64)]) -> ZoneLayout {
        let mut l = ZoneLayout::default();
        for z in 0..4 {
            let v = valid.iter().find(|(q, _)| *q == z).map_or(100, |p| p.1);
            l.zones.insert(
                z,
                ZoneUsage {
                    capacity_bytes: 100,
                    written_bytes: 100,
                    valid_bytes: v,
                },
            );
        }
        for &(n, z, b) in files {
            l.files.entry(n).or_default().push((z, b));
        }
        l
    }

    /// L1: 1 [a-c], 2 [d-f], 3 [g-i]; L2: 11 [a-b], 12 [d-e], 13 [g-h]. Every file 10 bytes.
    fn tree() -> (Vec<FileMeta>, Vec<FileMeta>) {
        (
            vec![
                meta(1, "a", "c", 10),
                meta(2, "d", "f", 10),
                meta(3, "g", "i", 10),
            ],
            vec![
                meta(11, "a", "b", 10),
                meta(12, "d", "e", 10),
                meta(13, "g", "h", 10),
            ],
        )
    }

    #[test]
    fn takes_the_group_leaving_its_zones_most_invalid() {
        let (l1, l2) = tree();
        let levels = vec![
            vec![],
            l1.iter().map(|m| lf(m, false)).collect::<Vec<_>>(),
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        // Group {1, 11} in zone 0 (valid 100 → 80: 20 %), {2, 12} in zone 1 where only 20
        // bytes are valid (→ 100 %), {3, 13} in zone 2 (20 %).
        let layout = zones(
            &[(1, 20)],
            &[
                (1, 0, 10),
                (11, 0, 10),
                (2, 1, 10),
                (12, 1, 10),
                (3, 2, 10),
                (13, 2, 10),
            ],
        );
        let v = PickView::new(&levels, &[], Some(&layout));
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![1]));
        // The same through the rule.
        let s = StartLevel {
            view: &v,
            start: 1,
            output: 2,
            cursor: &[],
        };
        assert_eq!(ZacaArtifact.choose(&s), StartFiles::Chosen(vec![1]));
    }

    #[test]
    fn skips_files_being_compacted_and_ranges_under_running_compactions() {
        let (l1, l2) = tree();
        let levels = vec![
            vec![],
            vec![lf(&l1[0], false), lf(&l1[1], true), lf(&l1[2], false)],
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        let layout = zones(
            &[(1, 20), (2, 40)],
            &[
                (1, 0, 10),
                (11, 0, 10),
                (2, 1, 10),
                (12, 1, 10),
                (3, 2, 10),
                (13, 2, 10),
            ],
        );
        let v = PickView::new(&levels, &[], Some(&layout));
        // File 2 (best zone) is busy: file 3 (zone 2: 40 → 20 valid, 80 %) wins over file 1.
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![2]));
        // A running compaction into L2 over [g, i] rules file 3 out too.
        let running = [RunningCompaction {
            start_level: 1,
            output_level: 2,
            smallest_user_key: b"g".to_vec(),
            largest_user_key: b"i".to_vec(),
        }];
        let v = PickView::new(&levels, &running, Some(&layout));
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![0]));
    }

    #[test]
    fn a_trivial_move_candidate_hands_over_to_the_stock_loop() {
        let (l1, l2) = tree();
        // L2 without 12: file 2 has nothing below; kMinOverlappingRatio puts it first (ratio
        // 0), so the loop meets it first and hands over even though file 1 would score.
        let l2: Vec<FileMeta> = l2.into_iter().filter(|m| m.number != 12).collect();
        let levels = vec![
            vec![],
            l1.iter().map(|m| lf(m, false)).collect::<Vec<_>>(),
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        let layout = zones(
            &[(0, 20)],
            &[(1, 0, 10), (11, 0, 10), (2, 1, 10), (3, 2, 10), (13, 2, 10)],
        );
        let v = PickView::new(&levels, &[], Some(&layout));
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), None);
        let s = StartLevel {
            view: &v,
            start: 1,
            output: 2,
            cursor: &[],
        };
        // The stock order: file 2 (ratio 0) first, then 1 and 3 (ratio 1024) by key.
        assert_eq!(ZacaArtifact.choose(&s), StartFiles::Scan(vec![1, 0, 2]));
        // The trivial-move file busy: the loop goes on and scores the others.
        let levels = vec![
            vec![],
            vec![lf(&l1[0], false), lf(&l1[1], true), lf(&l1[2], false)],
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        let v = PickView::new(&levels, &[], Some(&layout));
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![0]));
    }

    #[test]
    fn ties_go_to_the_larger_start_file_unless_nothing_is_free() {
        // L1: 1 [a-c] 10 B, 2 [d-f] 20 B, 3 [g-i] 10 B; L2: 11 [a-b] 10 B, 12 [d-e] 30 B,
        // 13 [g-h] 10 B. Ratios: 1 → 1024, 2 → 1536, 3 → 1024: order 1, 3, 2.
        let l1 = [
            meta(1, "a", "c", 10),
            meta(2, "d", "f", 20),
            meta(3, "g", "i", 10),
        ];
        let l2 = [
            meta(11, "a", "b", 10),
            meta(12, "d", "e", 30),
            meta(13, "g", "h", 10),
        ];
        let levels = vec![
            vec![],
            l1.iter().map(|m| lf(m, false)).collect::<Vec<_>>(),
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        // {1, 11}: 20 B of zone 0 (70 valid → 50 left, 50 %) → 2500.
        // {2, 12}: 50 B of zone 1 (100 valid → 50 left, 50 %) → 2500.
        // {3, 13}: 20 B of zone 2 (100 valid, 20 %) → 400.
        let layout = zones(
            &[(0, 70)],
            &[
                (1, 0, 10),
                (11, 0, 10),
                (2, 1, 20),
                (12, 1, 30),
                (3, 2, 10),
                (13, 2, 10),
            ],
        );
        let v = PickView::new(&levels, &[], Some(&layout));
        // free 10 %: file 1 first (c₀ = 10, file_size_score 100·10/100 = 10); file 2 ties on
        // score with 200·10/100 = 20 > 10 and wins.
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![1]));
        // free 0 %: every file_size_score is 0; the first of the tie (file 1) keeps it.
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 0), Some(vec![0]));
    }

    #[test]
    fn a_zero_score_wins_only_with_a_positive_size_score() {
        // Candidates without zones (files the file layer does not know): score 0 for all.
        let (l1, l2) = tree();
        let levels = vec![
            vec![],
            l1.iter().map(|m| lf(m, false)).collect::<Vec<_>>(),
            l2.iter().map(|m| lf(m, false)).collect(),
        ];
        let layout = zones(&[], &[]);
        let v = PickView::new(&levels, &[], Some(&layout));
        // free 10 %: the first candidate's file_size_score is 100·10/100 = 10 > 0 → taken.
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 10), Some(vec![0]));
        // free 0 %: nothing beats (0, 0) → the stock loop.
        assert_eq!(pick_start_files(&v, &layout, 1, 2, 0), None);
    }
}
