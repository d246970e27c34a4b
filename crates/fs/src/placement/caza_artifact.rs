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
    AllocView, NewSst, Placement, PlacementDecision, PlacementPolicy, PlacementRequest,
    SstContext, TreeFile, TreeView, first_with_room,
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
    target_file_size_bytes > 0
        && u128::from(size) * 64 > u128::from(target_file_size_bytes) * 63
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
    scored.sort_by(|a, b| (b.1, b.0).cmp(&(a.1, a.0)));
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
