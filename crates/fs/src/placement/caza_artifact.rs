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
//!
//! **Each difference on its own.** [`CazaArtifactConfig`] switches each difference from CAZA
//! as §VI states it ([`super::compaction_aware`], `caza`) on or off, one
//! [`CazaDifference`] each, plus the fallback's differences from upstream LIZA
//! ([`LizaCazaConfig`], [`super::liza_caza`]). With none on it decides exactly as `caza`, with
//! all on exactly as the code forms above (tests check both on generated states and trees):
//!
//! | key | difference | off (§VI) |
//! |---|---|---|
//! | `adv` / `v1` | the candidate zones by CAZA-ADV's rules / v1's | §VI's direction, neighbour order and same-level search |
//! | `pri-order` | the same-level search walks the `FilesByCompactionPri` list (with `adv` or `v1`) | key order |
//! | `spill` | a candidate with any room takes the SST, which may spill | the whole SST must fit |
//! | `finish-first` | the finish threshold is applied before the candidates are tried (the decision finishes those zones) | candidates as they are; the fallback applies it |
//! | `empty-first` | no candidate: an empty zone, while an active token is free, before the fallback | the fallback |
//! | `avoid-inputs` | the plan lists the compaction's input zones, which the fallback's open-zone match skips | nothing skipped |
//! | `fill-partial`, `abs-diff`, `skip-untagged`, `strict`, `any-largest` | the fallback is the fork's allocator, difference by difference ([`LizaDifference`]) | upstream `liza` |
//!
//! A subset is named `caza` followed by `+key` for each difference on, the fallback's first,
//! each group in the table's order (`caza+abs-diff+adv+spill`; [`CazaArtifact::by_name`]); all
//! of them are `caza-artifact` (with `adv`) and `caza-v1-artifact` (with `v1`). The
//! same-zone ablation moves them one row at a time.

use std::collections::BTreeMap;

use super::compaction_aware::{CazaContext, candidate_zones, outward_from};
use super::lifetime::{first_empty_zone, open_token_limit};
use super::liza_caza::{
    LizaCaza, LizaCazaConfig, LizaDifference, apply_finish_threshold, composed_name, parse_keys,
};
use super::policy::{
    AllocView, Placement, PlacementDecision, PlacementPolicy, PlacementRequest, SstContext,
    first_fitting, first_with_room,
};
use super::tree_view::{NewSst, TreeFile, TreeView};
use super::tree_view::{idle_numbers, overlapping};

/// CAZA as the authors' code does it (`AllocateCompactionAwaredZoneV2`, or v1), or as §VI
/// states it with some of the code's differences ([`CazaArtifactConfig`]; the default: all of
/// CAZA-ADV's, `caza-artifact`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CazaArtifact {
    /// Which of the code's differences from §VI it makes.
    pub config: CazaArtifactConfig,
}

/// Which rules list a plan's candidate zones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CazaRules {
    /// §VI ([`super::compaction_aware::candidate_zones`]).
    Text,
    /// CAZA-ADV ([`adv_candidates`]).
    Adv,
    /// CAZA v1 ([`v1_candidates`]).
    V1,
}

/// One difference of the authors' CAZA code from §VI besides its fallback's (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CazaDifference {
    /// `adv`: CAZA-ADV's rules list the candidates.
    Adv,
    /// `v1`: CAZA v1's rules list the candidates.
    V1,
    /// `pri-order`: the rules' same-level search walks the compaction-priority list.
    PriorityOrder,
    /// `spill`: a candidate with any room takes the SST.
    Spill,
    /// `finish-first`: the finish threshold before the candidates.
    FinishFirst,
    /// `empty-first`: an empty zone before the fallback.
    EmptyFirst,
    /// `avoid-inputs`: the fallback skips the zones of the compaction's inputs.
    AvoidInputs,
}

impl CazaDifference {
    /// Every difference, in the order of the module docs' table (and of names).
    pub const ALL: [Self; 7] = [
        Self::Adv,
        Self::V1,
        Self::PriorityOrder,
        Self::Spill,
        Self::FinishFirst,
        Self::EmptyFirst,
        Self::AvoidInputs,
    ];

    /// Its key in placement names (`caza+adv`).
    pub fn key(self) -> &'static str {
        match self {
            Self::Adv => "adv",
            Self::V1 => "v1",
            Self::PriorityOrder => "pri-order",
            Self::Spill => "spill",
            Self::FinishFirst => "finish-first",
            Self::EmptyFirst => "empty-first",
            Self::AvoidInputs => "avoid-inputs",
        }
    }

    /// What it changes, in a few words (ablation tables; no `|`, they are table cells).
    pub fn what(self) -> &'static str {
        match self {
            Self::Adv => "candidates by CAZA-ADV's rules (AllocateCompactionAwaredZoneV2)",
            Self::V1 => "candidates by v1's rules (AllocateCompactionAwaredZone)",
            Self::PriorityOrder => "same-level search over FilesByCompactionPri, not key order",
            Self::Spill => "a candidate with any room takes the SST, which spills",
            Self::FinishFirst => {
                "finish threshold before the candidates (no effect at finish_threshold 0)"
            }
            Self::EmptyFirst => "no candidate: an empty zone before the fallback",
            Self::AvoidInputs => "the fallback skips the zones of the compaction's inputs",
        }
    }
}

/// Which of the code's differences [`CazaArtifact`] makes: one bool per [`CazaDifference`]
/// (the rules one of three), and its fallback's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "one independent difference each, on or off"
)]
pub struct CazaArtifactConfig {
    /// [`CazaDifference::Adv`] or [`CazaDifference::V1`], or §VI's.
    pub rules: CazaRules,
    /// [`CazaDifference::PriorityOrder`].
    pub priority_order: bool,
    /// [`CazaDifference::Spill`].
    pub spill: bool,
    /// [`CazaDifference::FinishFirst`].
    pub finish_first: bool,
    /// [`CazaDifference::EmptyFirst`].
    pub empty_zone_first: bool,
    /// [`CazaDifference::AvoidInputs`].
    pub avoid_inputs: bool,
    /// The fallback: upstream LIZA with these of the fork's differences.
    pub fallback: LizaCazaConfig,
}

impl Default for CazaArtifactConfig {
    fn default() -> Self {
        Self::ADV_CODE
    }
}

impl CazaArtifactConfig {
    /// None of the differences: CAZA as §VI states it (`caza`).
    pub const TEXT: Self = Self {
        rules: CazaRules::Text,
        priority_order: false,
        spill: false,
        finish_first: false,
        empty_zone_first: false,
        avoid_inputs: false,
        fallback: LizaCazaConfig::UPSTREAM,
    };

    /// `AllocateCompactionAwaredZoneV2` (`caza-artifact`).
    pub const ADV_CODE: Self = Self {
        rules: CazaRules::Adv,
        priority_order: true,
        spill: true,
        finish_first: true,
        empty_zone_first: true,
        avoid_inputs: true,
        fallback: LizaCazaConfig::CODE,
    };

    /// `AllocateCompactionAwaredZone` (`caza-v1-artifact`).
    pub const V1_CODE: Self = Self {
        rules: CazaRules::V1,
        ..Self::ADV_CODE
    };

    /// Whether it makes difference `d`.
    pub fn has(self, d: CazaDifference) -> bool {
        match d {
            CazaDifference::Adv => self.rules == CazaRules::Adv,
            CazaDifference::V1 => self.rules == CazaRules::V1,
            CazaDifference::PriorityOrder => self.priority_order,
            CazaDifference::Spill => self.spill,
            CazaDifference::FinishFirst => self.finish_first,
            CazaDifference::EmptyFirst => self.empty_zone_first,
            CazaDifference::AvoidInputs => self.avoid_inputs,
        }
    }

    /// The same with difference `d` on (`adv` and `v1` replace each other).
    #[must_use]
    pub fn with(mut self, d: CazaDifference) -> Self {
        match d {
            CazaDifference::Adv => self.rules = CazaRules::Adv,
            CazaDifference::V1 => self.rules = CazaRules::V1,
            CazaDifference::PriorityOrder => self.priority_order = true,
            CazaDifference::Spill => self.spill = true,
            CazaDifference::FinishFirst => self.finish_first = true,
            CazaDifference::EmptyFirst => self.empty_zone_first = true,
            CazaDifference::AvoidInputs => self.avoid_inputs = true,
        }
        self
    }

    /// The same with the fallback's difference `d` on.
    #[must_use]
    pub fn with_fallback(mut self, d: LizaDifference) -> Self {
        self.fallback = self.fallback.with(d);
        self
    }

    /// The keys of the differences it makes: the fallback's, then its own, each in order.
    pub fn keys(self) -> Vec<&'static str> {
        let mut keys = self.fallback.keys();
        keys.extend(
            CazaDifference::ALL
                .into_iter()
                .filter(|&d| self.has(d))
                .map(CazaDifference::key),
        );
        keys
    }

    /// Its placement name: `caza-artifact` or `caza-v1-artifact` with every difference, else
    /// `caza` and a `+key` for each one it makes (`caza` with none).
    pub fn name(self) -> &'static str {
        if self == Self::ADV_CODE {
            return "caza-artifact";
        }
        if self == Self::V1_CODE {
            return "caza-v1-artifact";
        }
        composed_name("caza", &self.keys())
    }
}

impl CazaArtifact {
    /// CAZA v1 as the authors' code does it (`caza-v1-artifact`).
    pub fn v1() -> Self {
        Self {
            config: CazaArtifactConfig::V1_CODE,
        }
    }

    /// The policy called `name`: `caza-artifact`, `caza-v1-artifact`, or `caza+key+…` with the
    /// keys of [`LizaDifference`] and then of [`CazaDifference`], each group in its `ALL`
    /// order. `None`: not such a name; `Some(Err)`: a `caza+` name with a key unknown, out of
    /// order, or both `adv` and `v1`.
    pub fn by_name(name: &str) -> Option<Result<Self, String>> {
        match name {
            "caza-artifact" => return Some(Ok(Self::default())),
            "caza-v1-artifact" => return Some(Ok(Self::v1())),
            _ => {}
        }
        let keys = name.strip_prefix("caza+")?;
        let liza = LizaDifference::ALL.len();
        let known: Vec<&str> = LizaDifference::ALL
            .iter()
            .map(|d| d.key())
            .chain(CazaDifference::ALL.iter().map(|d| d.key()))
            .collect();
        Some(parse_keys(keys, &known).and_then(|on| {
            let mut config = CazaArtifactConfig::TEXT;
            for i in on {
                match i.checked_sub(liza) {
                    None => config = config.with_fallback(LizaDifference::ALL[i]),
                    Some(j) => {
                        let d = CazaDifference::ALL[j];
                        if d == CazaDifference::V1 && config.rules == CazaRules::Adv {
                            return Err("'adv' and 'v1' exclude each other".into());
                        }
                        config = config.with(d);
                    }
                }
            }
            Ok(Self { config })
        }))
    }
}

/// The differences of a placement of the LIZA or CAZA family from its text form: `(text form,
/// keys of the differences it makes)`, as [`CazaArtifactConfig::keys`] lists them (`liza` and
/// `caza`: none; `liza-caza`: every [`LizaDifference`]). `None` for other names.
pub fn differences(name: &str) -> Option<(&'static str, Vec<&'static str>)> {
    match name {
        "liza" => return Some(("liza", Vec::new())),
        "caza" => return Some(("caza", Vec::new())),
        _ => {}
    }
    if let Some(Ok(p)) = LizaCaza::by_name(name) {
        return Some(("liza", p.config.keys()));
    }
    if let Some(Ok(p)) = CazaArtifact::by_name(name) {
        return Some(("caza", p.config.keys()));
    }
    None
}

impl PlacementPolicy for CazaArtifact {
    fn name(&self) -> &'static str {
        self.config.name()
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        place_with(self.config, view, request)
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        let c = self.config;
        let candidates = match c.rules {
            CazaRules::Text => candidate_zones(&CazaContext::from_tree(sst, tree)),
            CazaRules::Adv => adv_candidates_with(sst, tree, c.priority_order).1,
            CazaRules::V1 => v1_candidates_with(sst, tree, c.priority_order),
        };
        Some(SstContext {
            spill: c.spill,
            avoid: if c.avoid_inputs {
                input_zones(sst, tree)
            } else {
                Vec::new()
            },
            ..SstContext::new(sst, candidates)
        })
    }
}

/// One zone request: `AllocateIOZone` of the fork with its CAZA part, each step as `config`
/// says (module docs). The candidates need an open token; without one, or without a plan, or
/// when neither a candidate nor (`empty-first`) an empty zone takes the extent, the fallback
/// decides from the zones as they are.
fn place_with(
    config: CazaArtifactConfig,
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> PlacementDecision {
    let fallback = || {
        LizaCaza {
            config: config.fallback,
        }
        .place(view, request)
    };
    let Some(sst) = request.sst else {
        return fallback();
    };
    if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
        return fallback();
    }
    let mut zones = view.zones.to_vec();
    let finish = if config.finish_first {
        apply_finish_threshold(&mut zones, view, request)
    } else {
        Vec::new()
    };
    let candidates = sst.candidates.iter().copied();
    let chosen = if sst.spill {
        first_with_room(&zones, candidates, request.min_capacity_bytes)
    } else {
        let after = AllocView {
            zones: &zones,
            ..*view
        };
        first_fitting(&after, request, candidates, sst.size)
    };
    if let Some(z) = chosen {
        return PlacementDecision {
            finish,
            outcome: Placement::Active(z),
            from_context: true,
        };
    }
    if config.empty_zone_first {
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
    fallback()
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
    adv_candidates_with(sst, tree, true)
}

/// [`adv_candidates`], the same-level search in the compaction-priority list's order
/// (`priority_order`, the code's) or in key order.
pub fn adv_candidates_with(
    sst: &NewSst<'_>,
    tree: &dyn TreeView,
    priority_order: bool,
) -> (Rule, Vec<u32>) {
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
        Rule::SameLevel => same_level_zones(sst, tree, priority_order),
    };
    (rule, zones)
}

/// CAZA v1's zones for `sst`, in order (module docs).
pub fn v1_candidates(sst: &NewSst<'_>, tree: &dyn TreeView) -> Vec<u32> {
    v1_candidates_with(sst, tree, true)
}

/// [`v1_candidates`], the same-level search in the compaction-priority list's order
/// (`priority_order`, the code's) or in key order.
pub fn v1_candidates_with(sst: &NewSst<'_>, tree: &dyn TreeView, priority_order: bool) -> Vec<u32> {
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
        same_level_zones(sst, tree, priority_order)
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
/// its bytes first, without repeats; the files listed in the compaction-priority order
/// (`priority_order`, the fork's) or in key order.
fn same_level_zones(sst: &NewSst<'_>, tree: &dyn TreeView, priority_order: bool) -> Vec<u32> {
    let files = tree.files(sst.level);
    let by_number: BTreeMap<u64, &TreeFile<'_>> = files.iter().map(|f| (f.number, f)).collect();
    let numbers = if priority_order {
        tree.files_by_compaction_pri(sst.level)
    } else {
        idle_numbers(files)
    };
    let listed: Vec<&TreeFile<'_>> = numbers
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
        CazaArtifact::default().place(&view, &req)
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

    /// A generated tree, owned (the view borrows its keys): L0 files over any key range, L1-L3
    /// in key order without overlaps, some being compacted, each file in one or two zones of
    /// 0..10, the levels' scores, a compaction-priority order per level, and the new SST.
    #[derive(Debug, Clone)]
    struct OwnedTree {
        levels: Vec<Vec<OwnedFile>>,
        scores: Vec<(u32, f64)>,
        base_level: u32,
        zones: Vec<(u64, Vec<(u32, u64)>)>,
        pri_order: Vec<(u32, Vec<u64>)>,
        sst: (u32, u64, [u8; 1], [u8; 1]),
    }

    /// (number, size, smallest, largest, being compacted).
    type OwnedFile = (u64, u64, [u8; 1], [u8; 1], bool);

    impl OwnedTree {
        fn view(&self) -> StaticTree<'_> {
            StaticTree {
                levels: self
                    .levels
                    .iter()
                    .map(|l| {
                        l.iter()
                            .map(|(n, size, lo, hi, busy)| TreeFile {
                                number: *n,
                                size: *size,
                                smallest: lo,
                                largest: hi,
                                being_compacted: *busy,
                            })
                            .collect()
                    })
                    .collect(),
                scores: self.scores.clone(),
                base_level: self.base_level,
                zones: self.zones.clone(),
                target_file_size_bytes: TARGET,
                pri_order: self.pri_order.clone(),
            }
        }

        fn sst(&self) -> NewSst<'_> {
            let (level, size, lo, hi) = &self.sst;
            NewSst {
                number: 99,
                level: *level,
                size: *size,
                smallest: lo,
                largest: hi,
                temp: false,
            }
        }
    }

    fn owned_tree() -> impl proptest::strategy::Strategy<Value = OwnedTree> {
        use proptest::collection::{btree_set, vec};
        use proptest::prelude::*;
        let l0 = vec((b'a'..=b'z', b'a'..=b'z'), 0..4);
        let deeper = vec(btree_set(b'a'..=b'z', 0..10), 3);
        (
            l0,
            deeper,
            vec(prop_oneof![Just(0u64), 1u64..=80], 20),
            vec(any::<u8>(), 20),
            vec((0u32..10, 0u32..10, 1u64..60, 0u64..60), 20),
            vec(0.0f64..3.0, 4),
            1u32..=2,
            any::<u64>(),
            (0u32..4, 1u64..=80, b'a'..=b'z', b'a'..=b'z'),
        )
            .prop_map(
                |(l0, deeper, sizes, busy, zones, scores, base, shuffle, sst)| {
                    let mut number = 0u64;
                    let mut next = || {
                        number += 1;
                        number
                    };
                    let mut levels: Vec<Vec<OwnedFile>> = Vec::new();
                    let file = |lo: u8, hi: u8, n: u64| {
                        let i = (n as usize) % 20;
                        (
                            n,
                            sizes[i].max(1),
                            [lo.min(hi)],
                            [lo.max(hi)],
                            busy[i] % 5 == 0,
                        )
                    };
                    levels.push(l0.iter().map(|&(a, b)| file(a, b, next())).collect());
                    for keys in &deeper {
                        let keys: Vec<u8> = keys.iter().copied().collect();
                        levels.push(
                            keys.chunks_exact(2)
                                .map(|k| file(k[0], k[1], next()))
                                .collect(),
                        );
                    }
                    let zones = levels
                        .iter()
                        .flatten()
                        .map(|f| {
                            let (first, second, first_bytes, second_bytes) =
                                zones[(f.0 as usize) % 20];
                            let mut held = vec![(first, first_bytes)];
                            if second_bytes > 0 && second != first {
                                held.push((second, second_bytes));
                            }
                            held.sort_by_key(|&(z, bytes)| (std::cmp::Reverse(bytes), z));
                            (f.0, held)
                        })
                        .collect();
                    let mut state = shuffle | 1;
                    let pri_order = (0..levels.len() as u32)
                        .map(|l| {
                            let mut idle: Vec<u64> = levels[l as usize]
                                .iter()
                                .filter(|f| !f.4)
                                .map(|f| f.0)
                                .collect();
                            for i in (1..idle.len()).rev() {
                                state ^= state << 13;
                                state ^= state >> 7;
                                state ^= state << 17;
                                idle.swap(i, (state % (i as u64 + 1)) as usize);
                            }
                            (l, idle)
                        })
                        .collect();
                    let (level, size, a, b) = sst;
                    OwnedTree {
                        levels,
                        scores: scores
                            .into_iter()
                            .enumerate()
                            .map(|(l, s)| (l as u32, s))
                            .collect(),
                        base_level: base,
                        zones,
                        pri_order,
                        sst: (level, size, [a.min(b)], [a.max(b)]),
                    }
                },
            )
    }

    /// A plan for the generated snapshot: up to 4 candidates of its zones, an SST size, spill
    /// or not, zones to avoid.
    fn plan() -> impl proptest::strategy::Strategy<Value = SstContext> {
        use proptest::collection::vec;
        use proptest::prelude::*;
        (
            vec(0u32..10, 0..4),
            1u64..1500,
            any::<bool>(),
            vec(0u32..10, 0..3),
        )
            .prop_map(|(candidates, size, spill, avoid)| SstContext {
                number: 7,
                level: 2,
                size,
                candidates,
                spill,
                avoid,
            })
    }

    /// The code's CAZA step as it was written before its differences became switches
    /// (`place_artifact`), over the fork's allocator as it was written.
    fn reference(view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        use super::super::liza_caza::snapshots;
        let mut zones = view.zones.to_vec();
        let finish = apply_finish_threshold(&mut zones, view, request);
        if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
            return PlacementDecision {
                finish,
                outcome: Placement::WaitForOpenToken,
                from_context: false,
            };
        }
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
        // The fork's allocator after the same finish threshold and open token.
        snapshots::reference(view, request)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// With no difference on, the decisions are `caza`'s; with all, the code's (a plan
        /// always spills there), with or without a plan.
        #[test]
        fn no_difference_is_caza_and_every_difference_is_the_code(
            snap in super::super::liza_caza::snapshots::snapshot(),
            plan in plan(),
        ) {
            use super::super::compaction_aware::Caza;
            let view = snap.view();
            let text = CazaArtifact { config: CazaArtifactConfig::TEXT };
            let plain = SstContext { avoid: Vec::new(), ..plan.clone() };
            for r in [snap.request(None), snap.request(Some(&plain))] {
                proptest::prop_assert_eq!(text.place(&view, &r), Caza.place(&view, &r));
            }
            let spilling = SstContext { spill: true, ..plan };
            for r in [snap.request(None), snap.request(Some(&spilling))] {
                proptest::prop_assert_eq!(CazaArtifact::default().place(&view, &r), reference(&view, &r));
                proptest::prop_assert_eq!(CazaArtifact::v1().place(&view, &r), reference(&view, &r));
            }
        }

        /// The same for the plans: `caza`'s with no difference on; with all, CAZA-ADV's and
        /// v1's candidates, spilling, avoiding the input zones.
        #[test]
        fn plans_with_no_difference_are_cazas_and_with_all_the_codes(tree in owned_tree()) {
            use super::super::compaction_aware::Caza;
            let (t, new) = (tree.view(), tree.sst());
            let text = CazaArtifact { config: CazaArtifactConfig::TEXT };
            proptest::prop_assert_eq!(text.plan_sst(&new, &t), Caza.plan_sst(&new, &t));
            let code = |candidates| SstContext {
                spill: true,
                avoid: input_zones(&new, &t),
                ..SstContext::new(&new, candidates)
            };
            proptest::prop_assert_eq!(
                CazaArtifact::default().plan_sst(&new, &t),
                Some(code(adv_candidates(&new, &t).1))
            );
            proptest::prop_assert_eq!(
                CazaArtifact::v1().plan_sst(&new, &t),
                Some(code(v1_candidates(&new, &t)))
            );
        }
    }

    /// Each difference alone changes a plan or a decision `caza` makes.
    #[test]
    fn each_difference_alone_changes_something() {
        use super::super::compaction_aware::Caza;
        let one = |d: CazaDifference| CazaArtifact {
            config: CazaArtifactConfig::TEXT.with(d),
        };
        let t = tree();
        // Rules: a flush goes to the most L0 + L1 bytes (ADV) / overlapping L2 + same level
        // (v1 at L1); §VI goes next to the smallest overlapping base-level SST.
        let flush = sst(0, 10, b"a", b"b");
        let plan = |p: &dyn PlacementPolicy, s: &NewSst<'_>| p.plan_sst(s, &t).unwrap().candidates;
        assert_ne!(plan(&one(CazaDifference::Adv), &flush), plan(&Caza, &flush));
        let l1 = sst(1, 10, b"b", b"d");
        assert_ne!(plan(&one(CazaDifference::V1), &l1), plan(&Caza, &l1));
        // Priority order: the same-level search of ADV over a shuffled list.
        let mut shuffled = t.clone();
        shuffled.pri_order = vec![(2, vec![22, 20, 21])];
        let small = sst(2, 10, b"c1", b"c2");
        let adv = one(CazaDifference::Adv);
        let adv_pri = CazaArtifact {
            config: adv.config.with(CazaDifference::PriorityOrder),
        };
        assert_ne!(
            adv.plan_sst(&small, &shuffled).unwrap().candidates,
            adv_pri.plan_sst(&small, &shuffled).unwrap().candidates
        );
        // Avoid inputs: the plan lists them.
        let mut busy = t.clone();
        busy.levels[2][1].being_compacted = true;
        let avoid = one(CazaDifference::AvoidInputs)
            .plan_sst(&small, &busy)
            .unwrap();
        assert_eq!(avoid.avoid, vec![6, 7]);
        assert!(Caza.plan_sst(&small, &busy).unwrap().avoid.is_empty());
        // Placement: zone 2 has 10 bytes left, zone 3 is below a 50% finish threshold.
        let zones = [zone(0, 1000), zone(1, 0), zone(2, 10), zone(3, 400)];
        let p = SstContext {
            size: 100,
            candidates: vec![2, 3],
            ..SstContext::default()
        };
        let decide = |policy: &CazaArtifact, plan: &SstContext, threshold: u32| {
            let view = AllocView {
                zones: &zones,
                open_io_zones: 0,
                active_io_zones: 2,
                max_open_io_zones: 14,
                max_active_io_zones: 14,
                finish_threshold_pct: threshold,
                hybrid: None,
            };
            let req = PlacementRequest {
                lifetime: Lifetime::Long,
                io_type: IoType::Other,
                min_capacity_bytes: 0,
                sst: Some(plan),
            };
            (policy.place(&view, &req), Caza.place(&view, &req))
        };
        // Spill: the plan says so, and a spilling plan takes the first candidate with room.
        assert!(
            one(CazaDifference::Spill)
                .plan_sst(&small, &t)
                .unwrap()
                .spill
        );
        assert!(!Caza.plan_sst(&small, &t).unwrap().spill);
        let spill = SstContext {
            spill: true,
            ..p.clone()
        };
        let (a, _) = decide(&one(CazaDifference::Spill), &spill, 0);
        let (_, b) = decide(&one(CazaDifference::Spill), &p, 0);
        assert_eq!(
            (a.outcome, b.outcome),
            (Placement::Active(2), Placement::Active(3))
        );
        let (a, b) = decide(&one(CazaDifference::FinishFirst), &p, 50);
        assert_eq!((a.finish, a.outcome), (vec![2, 3], Placement::Empty(0)));
        assert_eq!((b.finish, b.outcome), (vec![], Placement::Active(3)));
        let none = SstContext {
            candidates: vec![],
            ..p
        };
        let long = [zone(0, 1000), zone(3, 400)];
        let view = AllocView {
            zones: &long,
            open_io_zones: 0,
            active_io_zones: 1,
            max_open_io_zones: 14,
            max_active_io_zones: 14,
            finish_threshold_pct: 0,
            hybrid: None,
        };
        let req = PlacementRequest {
            lifetime: Lifetime::Medium,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst: Some(&none),
        };
        // Zone 3 (tagged long) suits a medium-lifetime file upstream (diff 1); the empty zone
        // comes first with `empty-first`.
        assert_eq!(Caza.place(&view, &req).outcome, Placement::Active(3));
        assert_eq!(
            one(CazaDifference::EmptyFirst).place(&view, &req).outcome,
            Placement::Empty(0)
        );
    }

    #[test]
    fn every_subset_is_named_and_found_by_its_name() {
        let all = |rules: CazaDifference| {
            let mut c = CazaArtifactConfig::TEXT.with(rules);
            for d in CazaDifference::ALL.into_iter().skip(2) {
                c = c.with(d);
            }
            LizaDifference::ALL
                .into_iter()
                .fold(c, CazaArtifactConfig::with_fallback)
        };
        assert_eq!(all(CazaDifference::Adv), CazaArtifactConfig::ADV_CODE);
        assert_eq!(all(CazaDifference::V1), CazaArtifactConfig::V1_CODE);
        assert_eq!(CazaArtifactConfig::TEXT.name(), "caza");
        for bits in 0u32..(1 << 12) {
            let mut c = CazaArtifactConfig::TEXT;
            for (i, d) in LizaDifference::ALL.into_iter().enumerate() {
                if bits & (1 << i) != 0 {
                    c = c.with_fallback(d);
                }
            }
            for (i, d) in CazaDifference::ALL.into_iter().enumerate() {
                if bits & (1 << (i + 5)) != 0 {
                    c = c.with(d);
                }
            }
            let name = c.name();
            if c == CazaArtifactConfig::TEXT {
                continue;
            }
            let p = CazaArtifact::by_name(name).unwrap().unwrap();
            assert_eq!(p.config, c, "{name}");
            assert_eq!(p.name(), name);
            assert_eq!(differences(name), Some(("caza", c.keys())), "{name}");
        }
        assert_eq!(
            CazaArtifactConfig::TEXT
                .with(CazaDifference::Spill)
                .with_fallback(LizaDifference::Strict)
                .name(),
            "caza+strict+spill"
        );
        assert_eq!(differences("caza"), Some(("caza", vec![])));
        assert_eq!(differences("liza"), Some(("liza", vec![])));
        assert_eq!(
            differences("liza-caza").map(|d| d.1.len()),
            Some(LizaDifference::ALL.len())
        );
        assert_eq!(differences("oaza"), None);
        for bad in [
            "caza+spill+adv",
            "caza+adv+v1",
            "caza+oops",
            "caza+spill+spill",
        ] {
            assert!(matches!(CazaArtifact::by_name(bad), Some(Err(_))), "{bad}");
        }
        assert!(CazaArtifact::by_name("caza").is_none());
        assert!(crate::placement::by_name("caza+adv+v1").is_err());
        assert_eq!(
            crate::placement::by_name("caza+any-largest+spill")
                .unwrap()
                .name(),
            "caza+any-largest+spill"
        );
    }
}
