//! `liza-caza`: the lifetime allocator of the authors' ZenFS fork that produced the Same-Zone
//! Compaction paper's figures (`lass-lab/CAZAandZACA_MSST24` at the run commit `e4b644d`,
//! `plugin/zenfs/fs/zbd_zenfs.cc`: `AllocateIOZone`, `GetBestOpenZoneMatch`,
//! `GetLifeTimeDiff`, `FinishCheapestIOZone`, `AllocateEmptyZone`,
//! `GetAnyLargestRemainingZone`), reproduced as a pure function. It is also the fallback of
//! [`super::caza_artifact`].
//!
//! One call of [`LizaCaza::place`] is one `AllocateIOZone` call without its CAZA part:
//!
//! 1. **Finish threshold** and **open token**: as upstream ([`super::lifetime`]).
//! 2. **Best open zone** ([`best_open_zone_match_code`]): among zones that are not busy, hold
//!    live data, are not full and have at least `min_capacity` left, **skipping zones tagged
//!    `NotSet`/`None`** and **zones holding the compaction's input files**
//!    ([`SstContext::avoid`](super::SstContext::avoid)), the least [`lifetime_diff_code`];
//!    the best starts at 100 and a zone replaces it only when **strictly** better, so the
//!    first best zone in index order wins and a diff-100 zone is never taken. Whatever diff
//!    the match has, it is **used** (the fork comments out upstream's release of a diff ≥ 50
//!    match): partly written zones are filled before an empty zone is opened.
//! 3. **Active token**: if none is free, finish the cheapest zone until one is (nothing to
//!    finish: [`Placement::WaitForActiveToken`]; the fork spins there).
//! 4. **Empty zone**: the first one in index order, tagged with the file's lifetime.
//! 5. **Any zone** ([`largest_remaining_zone`], `GetAnyLargestRemainingZone`): no empty zone:
//!    the non-busy zone with the most room, more than `min_capacity` (first of equals).
//! 6. Nothing: [`Placement::NoSpace`] (the fork returns no zone; its writer sleeps and retries,
//!    see `FsOptions::alloc_retry_blocking_ns`).
//!
//! Differences from upstream `liza` ([`super::lifetime`]), all verified in the fork's code:
//!
//! - lifetime diff `|zone − file|` for files with a hint of `Short` or longer (upstream: 50 for
//!   an equal lifetime, 100 for a shorter-lived zone): an equal-lifetime zone is the best
//!   match (0), a shorter-lived zone is acceptable;
//! - zones tagged `NotSet`/`None` are never matched, so `NotSet`/`None` files (MANIFEST) always
//!   open an empty zone;
//! - zones holding the compaction's inputs are skipped;
//! - strict "<": ties go to the first zone (upstream "≤": the last);
//! - no release of a diff ≥ 50 match, hence no relaxed-diff rule;
//! - the `GetAnyLargestRemainingZone` step before giving up.
//!
//! **Each difference on its own** ([`LizaCazaConfig`], one bool per [`LizaDifference`]): the
//! default is the whole of the fork's allocator (`liza-caza`); with every difference off it
//! decides exactly as upstream `liza` (a test checks it on generated zone states). A subset is
//! named `liza` followed by `+key` for each difference on, in the order of
//! [`LizaDifference::ALL`] (`liza+abs-diff+skip-untagged`; [`LizaCaza::by_name`]): the
//! same-zone ablation moves them one row at a time. Skipping the zones of the compaction's
//! inputs is not one of them: a plan lists those zones only under `caza+…+avoid-inputs`
//! ([`super::caza_artifact::CazaDifference::AvoidInputs`]), and every form here skips what a
//! plan lists (without a plan, nothing is skipped).
//!
//! Not modelled: the fork re-tags the zone step 5 returns with the file's lifetime and keeps
//! the active token it took for it (a token leak); here the zone keeps its tag and the active
//! count stays what the zones say. The fork passes the compaction's inputs only to the first
//! zone request of an output file (`ZoneFile::AllocateNewZone` clears them); here every request
//! of the file skips their zones.

use super::lifetime::{
    LIFETIME_DIFF_COULD_BE_WORSE, LIFETIME_DIFF_NOT_GOOD, cheapest_zone_to_finish,
    first_empty_zone, lifetime_diff, mark_finished, open_token_limit, zones_below_finish_threshold,
};
use super::policy::{
    AllocView, IoType, Lifetime, Placement, PlacementDecision, PlacementPolicy, PlacementRequest,
    ZoneView,
};

/// The authors' lifetime allocator, or upstream's with some of its differences
/// ([`LizaCazaConfig`]; the default: all of them). Stateless.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LizaCaza {
    /// Which of the fork's differences from upstream ZenFS it makes.
    pub config: LizaCazaConfig,
}

/// One difference of the fork's lifetime allocator from upstream ZenFS's ([`super::lifetime`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LizaDifference {
    /// `fill-partial`: the match is used whatever its diff, so partly written zones are filled
    /// before an empty zone is opened (upstream uses it only below diff 50, or at diff 50 when
    /// no active token is free).
    FillPartial,
    /// `abs-diff`: the lifetime diff is `|zone − file|` ([`lifetime_diff_code`]): an equal
    /// lifetime is the best match (0) and a shorter-lived zone is acceptable (upstream: 50 for
    /// an equal lifetime, 100 for a shorter-lived zone, [`super::lifetime::lifetime_diff`]).
    AbsDiff,
    /// `skip-untagged`: zones tagged `NotSet`/`None` are never matched.
    SkipUntagged,
    /// `strict`: a zone replaces the best match only when strictly better, so the first best
    /// zone wins and a diff-100 zone is never a match (upstream: `<=`, the last best zone,
    /// diff-100 zones included).
    Strict,
    /// `any-largest`: no empty zone: the non-busy zone with the most room
    /// (`GetAnyLargestRemainingZone`) before giving up.
    AnyLargest,
}

impl LizaDifference {
    /// Every difference, in the order of names and of the ablation's rows: `fill-partial`
    /// first, since after `abs-diff` and `strict` every match it would add is already used
    /// (then it could change nothing to measure).
    pub const ALL: [Self; 5] = [
        Self::FillPartial,
        Self::AbsDiff,
        Self::SkipUntagged,
        Self::Strict,
        Self::AnyLargest,
    ];

    /// Its key in placement names (`liza+abs-diff`).
    pub fn key(self) -> &'static str {
        match self {
            Self::FillPartial => "fill-partial",
            Self::AbsDiff => "abs-diff",
            Self::SkipUntagged => "skip-untagged",
            Self::Strict => "strict",
            Self::AnyLargest => "any-largest",
        }
    }

    /// What it changes, in a few words (ablation tables; no `|`, they are table cells).
    pub fn what(self) -> &'static str {
        match self {
            Self::FillPartial => {
                "best partly written zone used whatever its lifetime diff, before an empty zone (upstream: only below 50)"
            }
            Self::AbsDiff => {
                "lifetime diff = distance of the lifetimes, an equal one best (upstream: 50 equal, 100 shorter-lived)"
            }
            Self::SkipUntagged => "zones without a lifetime never matched",
            Self::Strict => {
                "ties to the first best zone, never a diff-100 one (upstream: the last, any)"
            }
            Self::AnyLargest => {
                "no empty zone: the zone with most room (GetAnyLargestRemainingZone)"
            }
        }
    }
}

/// Which of the fork's differences [`LizaCaza`] makes, one bool per [`LizaDifference`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "one independent difference each, on or off"
)]
pub struct LizaCazaConfig {
    /// [`LizaDifference::AbsDiff`].
    pub abs_diff: bool,
    /// [`LizaDifference::SkipUntagged`].
    pub skip_untagged: bool,
    /// [`LizaDifference::Strict`].
    pub strict: bool,
    /// [`LizaDifference::FillPartial`].
    pub fill_partial: bool,
    /// [`LizaDifference::AnyLargest`].
    pub any_largest: bool,
}

impl Default for LizaCazaConfig {
    fn default() -> Self {
        Self::CODE
    }
}

impl LizaCazaConfig {
    /// None of the differences: upstream ZenFS's allocator (`liza`).
    pub const UPSTREAM: Self = Self {
        abs_diff: false,
        skip_untagged: false,
        strict: false,
        fill_partial: false,
        any_largest: false,
    };

    /// All of them: the fork's allocator (`liza-caza`).
    pub const CODE: Self = Self {
        abs_diff: true,
        skip_untagged: true,
        strict: true,
        fill_partial: true,
        any_largest: true,
    };

    /// Whether it makes difference `d`.
    pub fn has(self, d: LizaDifference) -> bool {
        match d {
            LizaDifference::AbsDiff => self.abs_diff,
            LizaDifference::SkipUntagged => self.skip_untagged,
            LizaDifference::Strict => self.strict,
            LizaDifference::FillPartial => self.fill_partial,
            LizaDifference::AnyLargest => self.any_largest,
        }
    }

    /// The same with difference `d` on.
    #[must_use]
    pub fn with(mut self, d: LizaDifference) -> Self {
        *match d {
            LizaDifference::AbsDiff => &mut self.abs_diff,
            LizaDifference::SkipUntagged => &mut self.skip_untagged,
            LizaDifference::Strict => &mut self.strict,
            LizaDifference::FillPartial => &mut self.fill_partial,
            LizaDifference::AnyLargest => &mut self.any_largest,
        } = true;
        self
    }

    /// The keys of the differences it makes, in [`LizaDifference::ALL`] order.
    pub fn keys(self) -> Vec<&'static str> {
        LizaDifference::ALL
            .into_iter()
            .filter(|&d| self.has(d))
            .map(LizaDifference::key)
            .collect()
    }

    /// Its placement name: `liza-caza` with every difference, else `liza` and a `+key` for each
    /// one it makes (`liza` with none).
    pub fn name(self) -> &'static str {
        if self == Self::CODE {
            return "liza-caza";
        }
        composed_name("liza", &self.keys())
    }
}

impl LizaCaza {
    /// The allocator called `name`: `liza-caza`, or `liza+key+…` with keys of
    /// [`LizaDifference`] in the order of [`LizaDifference::ALL`]. `None`: not such a name;
    /// `Some(Err)`: a `liza+` name with a key unknown or out of order.
    pub fn by_name(name: &str) -> Option<Result<Self, String>> {
        if name == "liza-caza" {
            return Some(Ok(Self::default()));
        }
        let keys = name.strip_prefix("liza+")?;
        let known: Vec<&str> = LizaDifference::ALL.iter().map(|d| d.key()).collect();
        Some(parse_keys(keys, &known).map(|on| {
            let config = on.into_iter().fold(LizaCazaConfig::UPSTREAM, |c, i| {
                c.with(LizaDifference::ALL[i])
            });
            Self { config }
        }))
    }
}

/// `base` followed by `+key` for each of `keys`, as a `&'static str` (each distinct name is
/// allocated once: policies name themselves with `&'static str`).
pub(crate) fn composed_name(base: &str, keys: &[&str]) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, PoisonError};
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let name: String = std::iter::once(base)
        .chain(keys.iter().copied())
        .collect::<Vec<_>>()
        .join("+");
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&n) = names.get(name.as_str()) {
        return n;
    }
    let n: &'static str = Box::leak(name.into_boxed_str());
    names.insert(n);
    n
}

/// The indices into `known` of the `+`-separated keys of `keys`, which must come in the order
/// of `known`, each once.
pub(crate) fn parse_keys(keys: &str, known: &[&str]) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::new();
    for k in keys.split('+') {
        let Some(i) = known.iter().position(|x| *x == k) else {
            return Err(format!(
                "unknown key '{k}'; known, in order: {}",
                known.join("+")
            ));
        };
        if out.last().is_some_and(|&last| last >= i) {
            return Err(format!(
                "key '{k}' out of order or repeated; known, in order: {}",
                known.join("+")
            ));
        }
        out.push(i);
    }
    Ok(out)
}

impl PlacementPolicy for LizaCaza {
    fn name(&self) -> &'static str {
        self.config.name()
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        let mut zones = view.zones.to_vec();
        let finish = apply_finish_threshold(&mut zones, view, request);
        match open_token_or_wait(view, request, finish) {
            Ok(finish) => allocate_after_open_token(self.config, &zones, view, request, finish),
            Err(wait) => wait,
        }
    }
}

/// `GetLifeTimeDiff(zone_lt, file_lt)` of the fork (`zbd_zenfs.cc`): for a file hint of
/// `NotSet`/`None`, 0 when the zone has the same tag, else 100; otherwise `|zone − file|`.
pub fn lifetime_diff_code(zone: Lifetime, file: Lifetime) -> u32 {
    if matches!(file, Lifetime::NotSet | Lifetime::None) {
        return if zone == file {
            0
        } else {
            LIFETIME_DIFF_NOT_GOOD
        };
    }
    (zone as u32).abs_diff(file as u32)
}

/// The fork's `GetBestOpenZoneMatch`: `(best diff, zone)`, see the module docs; `avoid` are the
/// zones holding the compaction's input files.
pub fn best_open_zone_match_code(
    zones: &[ZoneView],
    file_lt: Lifetime,
    min_capacity: u64,
    avoid: &[u32],
) -> (u32, Option<u32>) {
    best_open_zone_match(LizaCazaConfig::CODE, zones, file_lt, min_capacity, avoid)
}

/// `GetBestOpenZoneMatch` with the differences of `config` (with none and nothing to avoid:
/// upstream's, [`super::lifetime::best_open_zone_match`]).
pub fn best_open_zone_match(
    config: LizaCazaConfig,
    zones: &[ZoneView],
    file_lt: Lifetime,
    min_capacity: u64,
    avoid: &[u32],
) -> (u32, Option<u32>) {
    let mut best_diff = LIFETIME_DIFF_NOT_GOOD;
    let mut best = None;
    for z in zones {
        if avoid.contains(&z.index)
            || (config.skip_untagged && matches!(z.lifetime, Lifetime::NotSet | Lifetime::None))
            || z.busy
            || z.used_bytes == 0
            || z.is_full()
            || z.remaining_bytes < min_capacity
        {
            continue;
        }
        let diff = if config.abs_diff {
            lifetime_diff_code(z.lifetime, file_lt)
        } else {
            lifetime_diff(z.lifetime, file_lt)
        };
        if diff < best_diff || (!config.strict && diff == best_diff) {
            best_diff = diff;
            best = Some(z.index);
        }
    }
    (best_diff, best)
}

/// `GetAnyLargestRemainingZone(min_capacity)`: the non-busy zone with the most remaining
/// capacity, strictly more than `min_capacity`; the first of equals.
pub fn largest_remaining_zone(zones: &[ZoneView], min_capacity: u64) -> Option<u32> {
    let mut best: Option<&ZoneView> = None;
    for z in zones {
        if !z.busy && z.remaining_bytes > best.map_or(min_capacity, |b| b.remaining_bytes) {
            best = Some(z);
        }
    }
    best.map(|z| z.index)
}

/// `ApplyFinishThreshold` (not for the WAL) on the working copy; the zones finished.
pub(crate) fn apply_finish_threshold(
    zones: &mut [ZoneView],
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> Vec<u32> {
    if request.io_type == IoType::Wal {
        return Vec::new();
    }
    let finish = zones_below_finish_threshold(zones, view.finish_threshold_pct);
    for &z in &finish {
        mark_finished(zones, z);
    }
    finish
}

/// `WaitForOpenIOZoneToken`: `Ok(finish)` when an open token is free, else the wait decision.
pub(crate) fn open_token_or_wait(
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    finish: Vec<u32>,
) -> Result<Vec<u32>, PlacementDecision> {
    if view.open_io_zones >= open_token_limit(view.max_open_io_zones, request.io_type) {
        return Err(PlacementDecision {
            finish,
            outcome: Placement::WaitForOpenToken,
            from_context: false,
        });
    }
    Ok(finish)
}

/// Steps 2-6 of the module docs with the differences of `config`, on the working copy `zones`
/// (finish threshold applied, `finish` the zones finished so far).
fn allocate_after_open_token(
    config: LizaCazaConfig,
    zones: &[ZoneView],
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
    mut finish: Vec<u32>,
) -> PlacementDecision {
    let decision = |finish, outcome| PlacementDecision {
        finish,
        outcome,
        from_context: false,
    };
    let avoid = request.sst.map_or(&[][..], |s| s.avoid.as_slice());
    let (diff, best) = best_open_zone_match(
        config,
        zones,
        request.lifetime,
        request.min_capacity_bytes,
        avoid,
    );
    let mut active = view.active_io_zones.saturating_sub(finish.len() as u32);
    if let Some(z) = best {
        // Upstream: below "could be worse", or exactly it when no active token is free (the
        // relaxed rule); the fork: whatever the diff.
        let no_token = active >= view.max_active_io_zones;
        if config.fill_partial
            || diff < LIFETIME_DIFF_COULD_BE_WORSE
            || (no_token && diff == LIFETIME_DIFF_COULD_BE_WORSE)
        {
            return decision(finish, Placement::Active(z));
        }
    }
    let mut zones = zones.to_vec();
    while active >= view.max_active_io_zones {
        let Some(z) = cheapest_zone_to_finish(&zones) else {
            return decision(finish, Placement::WaitForActiveToken);
        };
        mark_finished(&mut zones, z);
        active -= 1;
        finish.push(z);
    }
    if let Some(z) = first_empty_zone(&zones) {
        return decision(finish, Placement::Empty(z));
    }
    match largest_remaining_zone(&zones, request.min_capacity_bytes) {
        Some(z) if config.any_largest => decision(finish, Placement::Active(z)),
        _ => decision(finish, Placement::NoSpace),
    }
}

/// Generated allocator states and requests, for the tests that check a policy's forms decide
/// alike ([`super::caza_artifact`]'s too).
#[cfg(test)]
pub(crate) mod snapshots {
    use proptest::prelude::*;

    use super::super::{AllocView, IoType, Lifetime, PlacementRequest, SstContext, ZoneView};

    /// Zone capacity of the generated zones.
    pub(crate) const CAP: u64 = 1000;

    /// A zone state, tokens and a request, without a plan.
    #[derive(Debug, Clone)]
    pub(crate) struct Snapshot {
        pub(crate) zones: Vec<ZoneView>,
        pub(crate) open: u32,
        pub(crate) active: u32,
        pub(crate) max_open: u32,
        pub(crate) max_active: u32,
        pub(crate) finish_pct: u32,
        pub(crate) lifetime: Lifetime,
        pub(crate) io_type: IoType,
        pub(crate) min_capacity: u64,
    }

    impl Snapshot {
        pub(crate) fn view(&self) -> AllocView<'_> {
            AllocView {
                zones: &self.zones,
                open_io_zones: self.open,
                active_io_zones: self.active,
                max_open_io_zones: self.max_open,
                max_active_io_zones: self.max_active,
                finish_threshold_pct: self.finish_pct,
                hybrid: None,
            }
        }

        pub(crate) fn request<'a>(&self, sst: Option<&'a SstContext>) -> PlacementRequest<'a> {
            PlacementRequest {
                lifetime: self.lifetime,
                io_type: self.io_type,
                min_capacity_bytes: self.min_capacity,
                sst,
            }
        }
    }

    fn lifetime() -> impl Strategy<Value = Lifetime> {
        (0u8..6).prop_map(Lifetime::from_u8)
    }

    /// Empty, partly written (live data or none), or full; any lifetime tag; busy one time in
    /// five.
    fn zone(index: u32) -> impl Strategy<Value = ZoneView> {
        (0u8..4, 1..CAP, 0..=CAP, lifetime(), 0u8..5).prop_map(
            move |(kind, remaining, used, lifetime, busy)| {
                let remaining = match kind {
                    0 => CAP,
                    3 => 0,
                    _ => remaining,
                };
                let used = if kind == 2 || remaining == CAP {
                    0
                } else {
                    used.min(CAP - remaining).max(1)
                };
                ZoneView {
                    index,
                    max_capacity_bytes: CAP,
                    remaining_bytes: remaining,
                    used_bytes: used,
                    lifetime,
                    busy: busy == 0,
                }
            },
        )
    }

    /// Up to 10 zones, tokens from none to the limits, a finish threshold one time in three,
    /// SST-like and WAL requests.
    pub(crate) fn snapshot() -> impl Strategy<Value = Snapshot> {
        (1u32..=10)
            .prop_flat_map(|n| {
                (
                    (0..n).map(zone).collect::<Vec<_>>(),
                    (0u32..=6, 0u32..=6, 1u32..=6, 1u32..=6),
                    prop_oneof![2 => Just(0u32), 1 => 1u32..60],
                    lifetime(),
                    prop_oneof![4 => Just(IoType::Other), 1 => Just(IoType::Wal)],
                    prop_oneof![2 => Just(0u64), 1 => 1..=CAP],
                )
            })
            .prop_map(
                |(zones, (open, active, max_open, max_active), finish_pct, lifetime, io, min)| {
                    Snapshot {
                        zones,
                        open,
                        active,
                        max_open,
                        max_active,
                        finish_pct,
                        lifetime,
                        io_type: io,
                        min_capacity: min,
                    }
                },
            )
    }

    use super::super::lifetime::{
        LIFETIME_DIFF_NOT_GOOD, cheapest_zone_to_finish, first_empty_zone, mark_finished,
    };
    use super::super::{Placement, PlacementDecision};
    use super::{
        apply_finish_threshold, largest_remaining_zone, lifetime_diff_code, open_token_or_wait,
    };

    /// The fork's allocator as it was written before its differences became switches: the
    /// reference the full configuration must match ([`super::super::caza_artifact`]'s fallback too).
    pub(crate) fn reference(
        view: &AllocView<'_>,
        request: &PlacementRequest<'_>,
    ) -> PlacementDecision {
        let mut zones = view.zones.to_vec();
        let finish = apply_finish_threshold(&mut zones, view, request);
        let mut finish = match open_token_or_wait(view, request, finish) {
            Ok(finish) => finish,
            Err(wait) => return wait,
        };
        let decision = |finish, outcome| PlacementDecision {
            finish,
            outcome,
            from_context: false,
        };
        let avoid = request.sst.map_or(&[][..], |s| s.avoid.as_slice());
        let mut best_diff = LIFETIME_DIFF_NOT_GOOD;
        let mut best = None;
        for z in &zones {
            if avoid.contains(&z.index)
                || matches!(z.lifetime, Lifetime::NotSet | Lifetime::None)
                || z.busy
                || z.used_bytes == 0
                || z.is_full()
                || z.remaining_bytes < request.min_capacity_bytes
            {
                continue;
            }
            let diff = lifetime_diff_code(z.lifetime, request.lifetime);
            if diff < best_diff {
                best_diff = diff;
                best = Some(z.index);
            }
        }
        if let Some(z) = best {
            return decision(finish, Placement::Active(z));
        }
        let mut active = view.active_io_zones.saturating_sub(finish.len() as u32);
        while active >= view.max_active_io_zones {
            let Some(z) = cheapest_zone_to_finish(&zones) else {
                return decision(finish, Placement::WaitForActiveToken);
            };
            mark_finished(&mut zones, z);
            active -= 1;
            finish.push(z);
        }
        if let Some(z) = first_empty_zone(&zones) {
            return decision(finish, Placement::Empty(z));
        }
        match largest_remaining_zone(&zones, request.min_capacity_bytes) {
            Some(z) => decision(finish, Placement::Active(z)),
            None => decision(finish, Placement::NoSpace),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SstContext;
    use super::*;

    const CAP: u64 = 1000;

    fn zone(index: u32, lifetime: Lifetime, remaining: u64, used: u64) -> ZoneView {
        ZoneView {
            index,
            max_capacity_bytes: CAP,
            remaining_bytes: remaining,
            used_bytes: used,
            lifetime,
            busy: false,
        }
    }

    fn empty(index: u32) -> ZoneView {
        zone(index, Lifetime::NotSet, CAP, 0)
    }

    fn view(zones: &[ZoneView], active: u32, max_active: u32) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: active,
            max_open_io_zones: 14,
            max_active_io_zones: max_active,
            finish_threshold_pct: 0,
            hybrid: None,
        }
    }

    fn req(lifetime: Lifetime, sst: Option<&SstContext>) -> PlacementRequest<'_> {
        PlacementRequest {
            lifetime,
            io_type: IoType::Other,
            min_capacity_bytes: 0,
            sst,
        }
    }

    #[test]
    fn diff_is_the_distance_and_exact_for_unset_hints() {
        assert_eq!(lifetime_diff_code(Lifetime::Long, Lifetime::Long), 0);
        assert_eq!(lifetime_diff_code(Lifetime::Short, Lifetime::Extreme), 3);
        assert_eq!(lifetime_diff_code(Lifetime::Extreme, Lifetime::Medium), 2);
        assert_eq!(lifetime_diff_code(Lifetime::NotSet, Lifetime::NotSet), 0);
        assert_eq!(lifetime_diff_code(Lifetime::Long, Lifetime::None), 100);
    }

    /// The choice order: equal lifetime first, then the nearest, first zone of equals; busy,
    /// full, dead, untagged and avoided zones skipped.
    #[test]
    fn best_match_order() {
        let mut busy = zone(0, Lifetime::Long, 500, 10);
        busy.busy = true;
        let zones = [
            busy,
            zone(1, Lifetime::Long, 0, 10),      // full
            zone(2, Lifetime::Long, 500, 0),     // no live data
            zone(3, Lifetime::NotSet, 500, 10),  // untagged
            zone(4, Lifetime::Extreme, 500, 10), // diff 1
            zone(5, Lifetime::Medium, 500, 10),  // diff 1, later
            zone(6, Lifetime::Long, 500, 10),    // diff 0
            zone(7, Lifetime::Long, 500, 10),    // diff 0, later
        ];
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[]),
            (0, Some(6))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[6]),
            (0, Some(7))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 0, &[6, 7]),
            (1, Some(4))
        );
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::Long, 501, &[]),
            (100, None)
        );
        // NotSet files never match (untagged zones are skipped).
        assert_eq!(
            best_open_zone_match_code(&zones, Lifetime::NotSet, 0, &[]),
            (100, None)
        );
    }

    /// A partly written zone of the same lifetime is filled even with an active token free
    /// (upstream LIZA opens an empty zone there), and with none free (no finish).
    #[test]
    fn fills_partly_written_zones_before_opening_empty_ones() {
        let zones = [zone(0, Lifetime::Medium, 500, 10), empty(1)];
        for max_active in [1, 14] {
            let v = view(&zones, 1, max_active);
            let d = LizaCaza::default().place(&v, &req(Lifetime::Medium, None));
            assert_eq!(d.outcome, Placement::Active(0));
            assert!(d.finish.is_empty());
        }
        let v = view(&zones, 1, 14);
        assert_eq!(
            super::super::lifetime::Liza
                .place(&v, &req(Lifetime::Medium, None))
                .outcome,
            Placement::Empty(1)
        );
    }

    #[test]
    fn avoids_the_zones_of_the_compaction_inputs() {
        let zones = [zone(0, Lifetime::Medium, 500, 10), empty(1)];
        let sst = SstContext {
            avoid: vec![0],
            ..SstContext::default()
        };
        let v = view(&zones, 1, 14);
        assert_eq!(
            LizaCaza::default()
                .place(&v, &req(Lifetime::Medium, Some(&sst)))
                .outcome,
            Placement::Empty(1)
        );
    }

    #[test]
    fn finishes_the_cheapest_zone_for_a_token_then_opens_an_empty_zone() {
        let zones = [
            zone(0, Lifetime::NotSet, 300, 10),
            zone(1, Lifetime::NotSet, 200, 10),
            empty(2),
        ];
        let v = view(&zones, 2, 2);
        let d = LizaCaza::default().place(&v, &req(Lifetime::Long, None));
        assert_eq!(d.finish, vec![1]);
        assert_eq!(d.outcome, Placement::Empty(2));
    }

    #[test]
    fn without_an_empty_zone_takes_the_roomiest_zone_then_no_space() {
        let zones = [
            zone(0, Lifetime::NotSet, 300, 10),
            zone(1, Lifetime::NotSet, 400, 10),
            zone(2, Lifetime::NotSet, 400, 10),
            zone(3, Lifetime::Long, 0, 10),
        ];
        let v = view(&zones, 3, 14);
        assert_eq!(
            LizaCaza::default()
                .place(&v, &req(Lifetime::Long, None))
                .outcome,
            Placement::Active(1)
        );
        assert_eq!(largest_remaining_zone(&zones, 400), None);
        let full = [zone(0, Lifetime::Long, 0, 10)];
        let v = view(&full, 0, 14);
        assert_eq!(
            LizaCaza::default()
                .place(&v, &req(Lifetime::Long, None))
                .outcome,
            Placement::NoSpace
        );
    }

    #[test]
    fn waits_for_tokens() {
        let mut z = zone(0, Lifetime::NotSet, 300, 10);
        z.busy = true;
        let zones = [z, empty(1)];
        let v = view(&zones, 1, 1);
        assert_eq!(
            LizaCaza::default()
                .place(&v, &req(Lifetime::Long, None))
                .outcome,
            Placement::WaitForActiveToken
        );
        let mut v = view(&zones, 0, 14);
        v.open_io_zones = 13;
        assert_eq!(
            LizaCaza::default()
                .place(&v, &req(Lifetime::Long, None))
                .outcome,
            Placement::WaitForOpenToken
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// No difference on: upstream `liza`, decision for decision; all on: the fork's
        /// allocator as it was written, with and without zones to avoid.
        #[test]
        fn no_difference_is_liza_and_every_difference_is_the_forks_allocator(
            snap in snapshots::snapshot(),
            avoid in proptest::collection::vec(0u32..10, 0..3),
        ) {
            use super::super::lifetime::Liza;
            let (view, request) = (snap.view(), snap.request(None));
            let upstream = LizaCaza { config: LizaCazaConfig::UPSTREAM };
            proptest::prop_assert_eq!(upstream.place(&view, &request), Liza.place(&view, &request));
            let plan = SstContext { avoid, ..SstContext::default() };
            for r in [request, snap.request(Some(&plan))] {
                proptest::prop_assert_eq!(
                    LizaCaza::default().place(&view, &r),
                    snapshots::reference(&view, &r)
                );
            }
        }
    }

    /// Each difference alone changes a decision upstream makes (so each ablation row can
    /// move something).
    #[test]
    fn each_difference_alone_changes_a_decision() {
        let one = |d: LizaDifference| LizaCaza {
            config: LizaCazaConfig::UPSTREAM.with(d),
        };
        let upstream = LizaCaza {
            config: LizaCazaConfig::UPSTREAM,
        };
        let decide = |p: &LizaCaza, zones: &[ZoneView], active: u32, lt: Lifetime| {
            p.place(&view(zones, active, 14), &req(lt, None)).outcome
        };
        // A shorter-lived zone: upstream diff 100 (never used); |zone - file| = 1.
        let shorter = [zone(0, Lifetime::Medium, 500, 10), empty(1)];
        let d = LizaDifference::AbsDiff;
        assert_eq!(
            decide(&upstream, &shorter, 1, Lifetime::Long),
            Placement::Empty(1)
        );
        assert_eq!(
            decide(&one(d), &shorter, 1, Lifetime::Long),
            Placement::Active(0)
        );
        // An untagged partly written zone is a (diff 0) match for an untagged file upstream.
        let untagged = [zone(0, Lifetime::NotSet, 500, 10), empty(1)];
        let d = LizaDifference::SkipUntagged;
        assert_eq!(
            decide(&upstream, &untagged, 1, Lifetime::NotSet),
            Placement::Active(0)
        );
        assert_eq!(
            decide(&one(d), &untagged, 1, Lifetime::NotSet),
            Placement::Empty(1)
        );
        // Two equally good zones: upstream takes the last, strict the first.
        let equal = [
            zone(0, Lifetime::Extreme, 500, 10),
            zone(1, Lifetime::Extreme, 500, 10),
        ];
        let d = LizaDifference::Strict;
        assert_eq!(
            decide(&upstream, &equal, 2, Lifetime::Long),
            Placement::Active(1)
        );
        assert_eq!(
            decide(&one(d), &equal, 2, Lifetime::Long),
            Placement::Active(0)
        );
        // An equal-lifetime zone (diff 50) with a token free: upstream opens an empty zone.
        let same = [zone(0, Lifetime::Long, 500, 10), empty(1)];
        let d = LizaDifference::FillPartial;
        assert_eq!(
            decide(&upstream, &same, 1, Lifetime::Long),
            Placement::Empty(1)
        );
        assert_eq!(
            decide(&one(d), &same, 1, Lifetime::Long),
            Placement::Active(0)
        );
        // No empty zone and no match: upstream gives up.
        let full = [
            zone(0, Lifetime::NotSet, 300, 0),
            zone(1, Lifetime::Long, 0, 10),
        ];
        let d = LizaDifference::AnyLargest;
        assert_eq!(
            decide(&upstream, &full, 1, Lifetime::Long),
            Placement::NoSpace
        );
        assert_eq!(
            decide(&one(d), &full, 1, Lifetime::Long),
            Placement::Active(0)
        );
    }

    #[test]
    fn every_subset_is_named_and_found_by_its_name() {
        for bits in 0u32..(1 << LizaDifference::ALL.len()) {
            let config = LizaDifference::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .fold(LizaCazaConfig::UPSTREAM, |c, (_, d)| c.with(d));
            let name = config.name();
            let p = LizaCaza { config };
            assert_eq!(p.name(), name);
            if config == LizaCazaConfig::UPSTREAM {
                assert_eq!(name, "liza");
                continue;
            }
            assert_eq!(LizaCaza::by_name(name), Some(Ok(p)), "{name}");
        }
        assert_eq!(LizaCazaConfig::CODE.name(), "liza-caza");
        assert_eq!(
            LizaCazaConfig::UPSTREAM
                .with(LizaDifference::Strict)
                .with(LizaDifference::AbsDiff)
                .name(),
            "liza+abs-diff+strict"
        );
        assert_eq!(LizaCaza::by_name("liza"), None);
        assert_eq!(LizaCaza::by_name("caza+strict"), None);
        for bad in [
            "liza+strict+abs-diff",
            "liza+strict+strict",
            "liza+nope",
            "liza+",
        ] {
            assert!(matches!(LizaCaza::by_name(bad), Some(Err(_))), "{bad}");
        }
    }
}
