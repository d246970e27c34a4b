//! `caza-artifact` and `caza-v1-artifact`: CAZA as the authors' code does it
//! (`lass-lab/CAZAandZACA_MSST24` at the paper's run commit `e4b644d`,
//! `plugin/zenfs/fs/zbd_zenfs.cc`), beside [`super::compaction_aware`] (`caza`, the paper's
//! §VI text). The run script (`script/benchmark.sh`) runs `allocation_scheme` 2 = `CAZA_ADV`,
//! so the paper's "CAZA" is `AllocateCompactionAwaredZoneV2`: `caza-artifact`. The fork's
//! `AllocateCompactionAwaredZone` (v1) is `caza-v1-artifact`.
//!
//! **CAZA-ADV** ([`adv_rule`], [`adv_candidates`]); "big" = more than 63/64 of the engine's
//! `target_file_size_base` (the fork: `IS_BIG_SSTABLE`, > 63 MiB with 64 MiB SSTs; scaled with
//! the SST size), level score = the engine's `S_level` (the fork's `PredictCompactionScore`:
//! its own byte count of the level over a fixed 256 MiB × 10^(level−1) target, and the DB's
//! L0 score for L0). Levels are the literal `level ± 1` (the fork's `DBImpl::*AdjacentFile*`):
//!
//! | SST | condition, in order | zones |
//! |---|---|---|
//! | any | level 0 | [`Rule::MostL0L1`]: most bytes of L0 + L1 SSTs (`AllocateMostL0FilesZone`) |
//! | big | level 1 | [`Rule::Downward`]: most bytes of overlapping level+1 SSTs (`DownwardAdjacentFileList`, `CalculateZoneScore`, `AllocateZoneBySortedScore`) |
//! | big | level 2 and `S[0] > S[2]` and `S[0] > S[1]` | downward |
//! | big | `S[level] > S[level−1]` | downward |
//! | big | the largest overlapping upper SST (`MostLargeUpperAdjacentFile`) exists and is big | [`Rule::UpperFile`]: its zones, most of its bytes first (`GetNearestZoneFromZoneFile`) |
//! | big | otherwise | downward |
//! | small | level 1 | most L0 + L1 bytes |
//! | small | the largest overlapping upper SST is big | its zones |
//! | small | otherwise | [`Rule::SameLevel`]: same-level nearest key (`AllocateSameLevelFilesZone`) |
//!
//! Zone scores are tie-broken by the **higher zone index** (`SortedByZoneScore` sorts
//! (score, index) pairs descending). The **same-level search** walks the list
//! `DBImpl::SameLevelFileList` returns, which is in **`FilesByCompactionPri` order**, not key
//! order, although the search assumes key order: the insertion point is the first listed file
//! whose smallest key is at or after the new SST's largest, then the outward walk of
//! [`super::compaction_aware::outward_from`] over list positions. We do what the code does
//! ([`same_level_order`]; the engine's compaction-priority order,
//! [`TreeView::files_by_compaction_pri`]). Files being compacted are left out everywhere
//! (the fork's `selected_as_input_` flag is never set: its null check is inverted).
//!
//! A zone qualifies when nobody holds it, it is written but not full and has **more than the
//! request's minimum capacity** left: **the SST may spill** ([`SstContext::spill`]); when the
//! zone fills, the file's next extent asks again with the same plan, as the fork's
//! `ZoneFile::Append` calls `AllocateIOZone` again with the same key range. No candidate
//! qualifies: an empty zone (the fork's CAZA opens one without taking an active token; here
//! only while an active token is free, since the device enforces its limit), then
//! [`super::liza_caza`].
//!
//! **CAZA v1** ([`v1_candidates`]): level ≥ 1: zones by bytes of overlapping SSTs of levels
//! `level+1` and `level−1` (`AdjacentFileList`), then for levels 0 and 1 the most L0 + L1
//! bytes, for deeper levels the same-level search; then the same empty zone and fallback.
//!
//! The fallback's open-zone match skips the zones of the compaction's input files
//! ([`SstContext::avoid`]); the engine does not tell the zone layer a compaction's inputs, so
//! they are taken as the SSTs being compacted in the output level and its upper neighbour
//! (other compactions' inputs on those levels included).

use std::collections::BTreeMap;

use super::compaction_aware::outward_from;
use super::lifetime::first_empty_zone;
use super::liza_caza::{allocate_after_open_token, apply_finish_threshold, open_token_or_wait};
use super::tree_view::overlapping;
use super::{
    AllocView, NewSst, Placement, PlacementDecision, PlacementPolicy, PlacementRequest, SstContext,
    TreeFile, TreeView, first_with_room,
};

/// CAZA-ADV as the authors' code does it (`AllocateCompactionAwaredZoneV2`).
#[derive(Debug, Default, Clone, Copy)]
pub struct CazaArtifact;

/// CAZA v1 as the authors' code does it (`AllocateCompactionAwaredZone`).
#[derive(Debug, Default, Clone, Copy)]
pub struct CazaV1Artifact;

impl PlacementPolicy for CazaArtifact {
    fn name(&self) -> &'static str {
        "caza-artifact"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        place_artifact(view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        Some(artifact_plan(sst, tree, adv_candidates(sst, tree).1))
    }
}

impl PlacementPolicy for CazaV1Artifact {
    fn name(&self) -> &'static str {
        "caza-v1-artifact"
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        place_artifact(view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        Some(artifact_plan(sst, tree, v1_candidates(sst, tree)))
    }
}

/// A spill-allowed plan trying `candidates`, avoiding the compaction's input zones.
fn artifact_plan(sst: &NewSst<'_>, tree: &dyn TreeView, candidates: Vec<u32>) -> SstContext {
    SstContext {
        spill: true,
        avoid: input_zones(sst, tree),
        ..SstContext::new(sst, candidates)
    }
}

/// `AllocateIOZone` of the fork with its CAZA part: finish threshold, open token, the first
/// candidate with room, an empty zone (active token free), then [`super::liza_caza`].
fn place_artifact(view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
    let mut zones = view.zones.to_vec();
    let finish = apply_finish_threshold(&mut zones, view, request);
    let finish = match open_token_or_wait(view, request, finish) {
        Ok(finish) => finish,
        Err(wait) => return wait,
    };
    if let Some(sst) = request.sst.filter(|s| s.spill) {
        if let Some(z) = first_with_room(
            &zones,
            sst.candidates.iter().copied(),
            request.min_capacity_bytes,
        ) {
            return PlacementDecision {
                finish,
                outcome: Placement::Active(z),
                from_context: true,
            };
        }
        let active = view.active_io_zones.saturating_sub(finish.len() as u32);
        if active < view.max_active_io_zones
            && let Some(z) = first_empty_zone(&zones)
        {
            return PlacementDecision {
                finish,
                outcome: Placement::Empty(z),
                from_context: false,
            };
        }
    }
    allocate_after_open_token(&zones, view, request, finish)
}

/// Which CAZA-ADV rule places an SST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The zones with most bytes of L0 and L1 SSTs.
    MostL0L1,
    /// The zones with most bytes of the overlapping SSTs of level+1.
    Downward,
    /// The zones of this upper-level SST (file number), most of its bytes first.
    UpperFile(u64),
    /// The zones of the same level's SSTs, in the fork's search order.
    SameLevel,
}

/// `IS_BIG_SSTABLE` scaled: more than 63/64 of `target_file_size_bytes` (0: never big).
pub fn is_big(size: u64, target_file_size_bytes: u64) -> bool {
    target_file_size_bytes > 0 && u128::from(size) * 64 > u128::from(target_file_size_bytes) * 63
}

/// `MostLargeUpperAdjacentFile`: the largest SST of level−1 overlapping the new SST, not
/// being compacted; the first of equals in the level's order. `None` for L0.
pub fn most_large_upper<'t>(sst: &NewSst<'_>, tree: &'t dyn TreeView) -> Option<&'t TreeFile<'t>> {
    let level = sst.level.checked_sub(1)?;
    let mut best: Option<&TreeFile<'_>> = None;
    for f in overlapping(tree.files(level), sst.smallest, sst.largest) {
        if f.size > best.map_or(0, |b| b.size) {
            best = Some(f);
        }
    }
    best
}

/// The CAZA-ADV rule for `sst` (table of the module docs).
pub fn adv_rule(sst: &NewSst<'_>, tree: &dyn TreeView) -> Rule {
    let level = sst.level;
    if level == 0 {
        return Rule::MostL0L1;
    }
    let target = tree.target_file_size_bytes();
    let big_upper = most_large_upper(sst, tree)
        .filter(|u| is_big(u.size, target))
        .map(|u| Rule::UpperFile(u.number));
    let score = |l: u32| tree.level_score(l);
    if is_big(sst.size, target) {
        let (s0, up, this) = (score(0), score(level - 1), score(level));
        if level == 1 || (level == 2 && s0 > this && s0 > up) || this > up {
            return Rule::Downward;
        }
        return big_upper.unwrap_or(Rule::Downward);
    }
    if level == 1 {
        return Rule::MostL0L1;
    }
    big_upper.unwrap_or(Rule::SameLevel)
}

/// The rule for `sst` and the zones it tries, in order.
pub fn adv_candidates(sst: &NewSst<'_>, tree: &dyn TreeView) -> (Rule, Vec<u32>) {
    let rule = adv_rule(sst, tree);
    let zones = match rule {
        Rule::MostL0L1 => most_l0_l1_zones(tree),
        Rule::Downward => {
            let below = overlapping(tree.files(sst.level + 1), sst.smallest, sst.largest);
            zones_by_score(tree, &below.iter().map(|f| f.number).collect::<Vec<_>>())
        }
        Rule::UpperFile(n) => tree
            .file_zones(&[n])
            .first()
            .map(|z| nearest_zones_of_file(z))
            .unwrap_or_default(),
        Rule::SameLevel => same_level_zones(sst, tree),
    };
    (rule, zones)
}

/// CAZA v1's zones for `sst`, in order (module docs).
pub fn v1_candidates(sst: &NewSst<'_>, tree: &dyn TreeView) -> Vec<u32> {
    if sst.level == 0 {
        return most_l0_l1_zones(tree);
    }
    let mut adjacent: Vec<u64> = Vec::new();
    for l in [Some(sst.level + 1), sst.level.checked_sub(1)]
        .into_iter()
        .flatten()
    {
        adjacent.extend(
            overlapping(tree.files(l), sst.smallest, sst.largest)
                .iter()
                .map(|f| f.number),
        );
    }
    let mut zones = zones_by_score(tree, &adjacent);
    let then = if sst.level == 1 {
        most_l0_l1_zones(tree)
    } else {
        same_level_zones(sst, tree)
    };
    for z in then {
        if !zones.contains(&z) {
            zones.push(z);
        }
    }
    zones
}

/// `AllocateMostL0FilesZone` over `SameLevelFileList(0)` and `(1)`.
fn most_l0_l1_zones(tree: &dyn TreeView) -> Vec<u32> {
    let mut files = tree.files_by_compaction_pri(0);
    files.extend(tree.files_by_compaction_pri(1));
    zones_by_score(tree, &files)
}

/// `CalculateZoneScore` + `SortedByZoneScore`: the zones holding `files`, by bytes of them,
/// most first, ties to the higher zone index.
pub fn zones_by_score(tree: &dyn TreeView, files: &[u64]) -> Vec<u32> {
    let mut score: BTreeMap<u32, u64> = BTreeMap::new();
    for zones in tree.file_zones(files) {
        for (z, bytes) in zones {
            *score.entry(z).or_default() += bytes;
        }
    }
    sorted_by_score(score.into_iter().collect())
}

/// `GetNearestZoneFromZoneFile`: a file's zones by its bytes there, most first, ties to the
/// higher zone index.
pub fn nearest_zones_of_file(zones: &[(u32, u64)]) -> Vec<u32> {
    sorted_by_score(zones.to_vec())
}

fn sorted_by_score(mut scored: Vec<(u32, u64)>) -> Vec<u32> {
    scored.retain(|&(_, s)| s > 0);
    scored.sort_by_key(|&(z, s)| std::cmp::Reverse((s, z)));
    scored.into_iter().map(|(z, _)| z).collect()
}

/// `AllocateSameLevelFilesZone`'s file order: over the listed files' smallest keys (list
/// order), the insertion point is the first at or after `hi`, then the outward walk.
pub fn same_level_order(smallest: &[&[u8]], hi: &[u8]) -> Vec<usize> {
    let idx = smallest
        .iter()
        .position(|s| *s >= hi)
        .unwrap_or(smallest.len());
    outward_from(idx, smallest.len())
}

/// The zones of the same level's SSTs in the fork's search order, each file's zones most of
/// its bytes first, without repeats.
fn same_level_zones(sst: &NewSst<'_>, tree: &dyn TreeView) -> Vec<u32> {
    let files = tree.files(sst.level);
    let by_number: BTreeMap<u64, &TreeFile<'_>> = files.iter().map(|f| (f.number, f)).collect();
    let listed: Vec<&TreeFile<'_>> = tree
        .files_by_compaction_pri(sst.level)
        .iter()
        .filter_map(|n| by_number.get(n).copied())
        .collect();
    let smallest: Vec<&[u8]> = listed.iter().map(|f| f.smallest).collect();
    let order: Vec<u64> = same_level_order(&smallest, sst.largest)
        .into_iter()
        .filter_map(|i| listed.get(i).map(|f| f.number))
        .collect();
    let mut out: Vec<u32> = Vec::new();
    for zones in tree.file_zones(&order) {
        for z in nearest_zones_of_file(&zones) {
            if !out.contains(&z) {
                out.push(z);
            }
        }
    }
    out
}

/// The zones holding the SSTs being compacted in `sst`'s level and its upper neighbour (the
/// compaction's inputs, as near as the tree tells); none for a flush.
pub fn input_zones(sst: &NewSst<'_>, tree: &dyn TreeView) -> Vec<u32> {
    if sst.level == 0 {
        return Vec::new();
    }
    let mut busy: Vec<u64> = Vec::new();
    for l in [tree.upper_level(sst.level), Some(sst.level)]
        .into_iter()
        .flatten()
    {
        busy.extend(
            tree.files(l)
                .iter()
                .filter(|f| f.being_compacted)
                .map(|f| f.number),
        );
    }
    let mut out: Vec<u32> = Vec::new();
    for zones in tree.file_zones(&busy) {
        for (z, _) in zones {
            if !out.contains(&z) {
                out.push(z);
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::super::tree_view::StaticTree;
    use super::super::{IoType, Lifetime, ZoneView};
    use super::*;

    /// SST size target of the test trees: "big" is more than 63 bytes.
    const TARGET: u64 = 64;

    /// L0: 1 (zone 1); L1: 10 [a,c] (zone 2), 11 [d,f] big (zones 3, 4); L2: 20 [a,b]
    /// (zone 5), 21 [c,e] (zones 6, 7, equal bytes), 22 [x,z] (zone 8); L3: 30 [a,z] (zone 9).
    fn tree() -> StaticTree<'static> {
        StaticTree {
            levels: vec![
                vec![TreeFile::idle(1, 10, b"a", b"z")],
                vec![
                    TreeFile::idle(10, 30, b"a", b"c"),
                    TreeFile::idle(11, 64, b"d", b"f"),
                ],
                vec![
                    TreeFile::idle(20, 30, b"a", b"b"),
                    TreeFile::idle(21, 30, b"c", b"e"),
                    TreeFile::idle(22, 30, b"x", b"z"),
                ],
                vec![TreeFile::idle(30, 64, b"a", b"z")],
            ],
            scores: vec![(0, 0.5), (1, 1.0), (2, 0.8)],
            base_level: 1,
            zones: vec![
                (1, vec![(1, 10)]),
                (10, vec![(2, 30)]),
                (11, vec![(3, 40), (4, 24)]),
                (20, vec![(5, 30)]),
                (21, vec![(6, 15), (7, 15)]),
                (22, vec![(8, 30)]),
                (30, vec![(9, 64)]),
            ],
            target_file_size_bytes: TARGET,
            pri_order: Vec::new(),
        }
    }

    fn sst(level: u32, size: u64, lo: &'static [u8], hi: &'static [u8]) -> NewSst<'static> {
        NewSst {
            number: 99,
            level,
            size,
            smallest: lo,
            largest: hi,
            temp: false,
        }
    }

    #[test]
    fn big_is_relative_to_the_sst_size_target() {
        assert!(!is_big(63, 64));
        assert!(is_big(64, 64));
        // Full scale: more than 63 MiB of a 64 MiB target.
        assert!(!is_big(63 << 20, 64 << 20));
        assert!(is_big((63 << 20) + 1, 64 << 20));
        assert!(!is_big(u64::MAX, 0));
    }

    #[test]
    fn flushes_and_small_l1_ssts_go_to_the_most_l0_l1_bytes() {
        let t = tree();
        // Zone bytes of L0 + L1: 3 → 40, 2 → 30, 4 → 24, 1 → 10.
        assert_eq!(
            adv_candidates(&sst(0, 10, b"a", b"b"), &t),
            (Rule::MostL0L1, vec![3, 2, 4, 1])
        );
        assert_eq!(
            adv_candidates(&sst(1, 10, b"a", b"b"), &t).0,
            Rule::MostL0L1
        );
    }

    #[test]
    fn big_l1_goes_down_by_zone_bytes_ties_to_the_higher_zone() {
        let t = tree();
        // L2 overlapping [b, d]: 20 (zone 5: 30) and 21 (zones 6, 7: 15 each).
        assert_eq!(
            adv_candidates(&sst(1, 64, b"b", b"d"), &t),
            (Rule::Downward, vec![5, 7, 6])
        );
    }

    #[test]
    fn big_ssts_follow_the_level_scores() {
        let mut t = tree();
        let big2 = sst(2, 64, b"d", b"e");
        // S[2] 0.8 < S[1] 1.0 and the largest overlapping L1 SST (11) is big: its zones.
        assert_eq!(adv_candidates(&big2, &t), (Rule::UpperFile(11), vec![3, 4]));
        // S[2] > S[1]: down.
        t.scores = vec![(0, 0.5), (1, 1.0), (2, 1.2)];
        assert_eq!(adv_rule(&big2, &t), Rule::Downward);
        // Level 2 with S[0] above both: down.
        t.scores = vec![(0, 3.0), (1, 1.0), (2, 0.8)];
        assert_eq!(adv_rule(&big2, &t), Rule::Downward);
        // Upper SST not big: down.
        t.scores = vec![(0, 0.5), (1, 1.0), (2, 0.8)];
        assert_eq!(adv_rule(&sst(2, 64, b"a", b"b"), &t), Rule::Downward);
    }

    #[test]
    fn small_ssts_go_to_a_big_upper_sst_else_the_same_level() {
        let t = tree();
        assert_eq!(adv_rule(&sst(2, 10, b"e", b"e"), &t), Rule::UpperFile(11));
        // Upper SST 10 is small: same level. New [c1, c2] at L2: insertion point 2 (22 starts
        // at "x"), walk 21, 22, 20.
        assert_eq!(
            adv_candidates(&sst(2, 10, b"c1", b"c2"), &t),
            (Rule::SameLevel, vec![7, 6, 8, 5])
        );
    }

    /// The same-level search walks the compaction-priority list, not key order (the fork's
    /// `SameLevelFileList` caveat).
    #[test]
    fn same_level_search_walks_the_compaction_priority_list() {
        let mut t = tree();
        t.pri_order = vec![(2, vec![22, 20, 21])];
        // List smallest keys: x, a, c; first at or after "c2" is "x" at position 0: scan
        // the list from the start.
        assert_eq!(
            adv_candidates(&sst(2, 10, b"c1", b"c2"), &t).1,
            vec![8, 5, 7, 6]
        );
        assert_eq!(same_level_order(&[b"x", b"a", b"c"], b"b"), vec![0, 1, 2]);
        assert_eq!(same_level_order(&[b"a", b"c", b"x"], b"d"), vec![1, 2, 0]);
    }

    #[test]
    fn v1_tries_both_neighbour_levels_then_its_fallback() {
        let t = tree();
        // L2 [d, e]: L3 30 (zone 9: 64) and L1 11 (3: 40, 4: 24) by bytes; then the same
        // level's search (21, 22, 20).
        assert_eq!(
            v1_candidates(&sst(2, 10, b"d", b"e"), &t),
            vec![9, 3, 4, 7, 6, 8, 5]
        );
        assert_eq!(v1_candidates(&sst(0, 10, b"a", b"b"), &t), vec![3, 2, 4, 1]);
    }

    #[test]
    fn input_zones_are_the_zones_of_ssts_being_compacted_nearby() {
        let mut t = tree();
        t.levels[1][1].being_compacted = true;
        t.levels[2][1].being_compacted = true;
        assert_eq!(input_zones(&sst(2, 10, b"d", b"e"), &t), vec![3, 4, 6, 7]);
        assert!(input_zones(&sst(0, 10, b"d", b"e"), &t).is_empty());
        // Being compacted: not a candidate of the rules either.
        assert_eq!(adv_rule(&sst(2, 10, b"e", b"e"), &t), Rule::SameLevel);
    }

    fn zone(index: u32, remaining: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: 1000,
            remaining_bytes: remaining,
            used_bytes: 1000 - remaining,
            lifetime: Lifetime::Long,
            busy: false,
        }
    }

    fn place(zones: &[ZoneView], plan: &SstContext, active: u32) -> PlacementDecision {
        let view = AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: active,
            max_open_io_zones: 14,
            max_active_io_zones: 14,
            finish_threshold_pct: 0,
            hybrid: None,
        };
        let req = PlacementRequest {
            lifetime: Lifetime::Long,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(plan),
        };
        CazaArtifact.place(&view, &req)
    }

    /// A candidate with any room takes the SST (spill); busy and full ones are skipped; then
    /// an empty zone while an active token is free, then liza-caza.
    #[test]
    fn places_into_the_first_candidate_with_room_then_an_empty_zone() {
        let plan = SstContext {
            size: 500,
            candidates: vec![1, 2, 3],
            spill: true,
            ..SstContext::default()
        };
        let mut zones = vec![zone(0, 1000), zone(1, 0), zone(2, 10), zone(3, 600)];
        let d = place(&zones, &plan, 2);
        assert_eq!((d.outcome, d.from_context), (Placement::Active(2), true));
        zones[2].busy = true;
        assert_eq!(place(&zones, &plan, 2).outcome, Placement::Active(3));
        zones[3].remaining_bytes = 0;
        let d = place(&zones, &plan, 1);
        assert_eq!((d.outcome, d.from_context), (Placement::Empty(0), false));
        // No active token: liza-caza (no partial zone of any use, finish nothing; wait).
        assert_eq!(
            place(&zones, &plan, 14).outcome,
            Placement::WaitForActiveToken
        );
    }
}
