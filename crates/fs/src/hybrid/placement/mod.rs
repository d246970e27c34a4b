//! Placement on a hybrid device (a ZNS SSD and an HM-SMR HDD under one zone index space):
//! which device a file goes to, then a zone of that device.
//!
//! - [`basic`]: the HHZS paper's basic schemes `B1`–`B4` (levels below `h` on the SSD, the rest
//!   on the HDD, spill to the HDD when the SSD is full; §2.3).
//! - [`spandb_auto`]: SpanDB's AUTO (its `max_level` controller), as HHZS re-implemented it.
//! - [`hhzs`]: HHZS's write-guided placement (storage demand per level from flush and
//!   compaction hints, the tiering level, its SSD reservation; §3.3).
//!
//! What they share lives here: the zone mechanics every scheme follows on a hybrid (HHZS §3.2:
//! each SST in fresh zones, one SSD zone or several HDD zones; the WAL in its own zones; a
//! device's active limit kept by finishing done SST zones), and the per-device counts policies
//! decide from.

pub mod basic;
pub mod hhzs;
pub mod migration;
pub mod spandb_auto;
pub mod tracker;

use zonedb_device::{HybridLayout, Tier};

use crate::placement::lifetime::Liza;
use crate::placement::policy::{
    AllocView, HybridContext, IoType, Placement, PlacementDecision, PlacementPolicy,
    PlacementRequest, ZoneView,
};

/// The settings of the hybrid policies that a scenario can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridSettings {
    /// Migration's rate limit, bytes per second (HHZS: 4 MiB/s).
    pub rate_bytes_per_s: u64,
    /// Migration's copy size, bytes (128 KiB).
    pub chunk_bytes: u64,
    /// How often migration decides and AUTO's controller adjusts, ns (both: 1 s).
    pub period_ns: u64,
    /// HHZS: whether running compactions add their storage demand to the tiering rule
    /// (§3.3 step 1; `false` is an ablation that counts only allocated zones).
    pub compaction_demand: bool,
}

impl Default for HybridSettings {
    fn default() -> Self {
        let m = migration::MigrationSettings::default();
        Self {
            rate_bytes_per_s: m.rate_bytes_per_s,
            chunk_bytes: m.chunk_bytes,
            period_ns: m.period_ns,
            compaction_demand: true,
        }
    }
}

/// Where a file of a hybrid scheme goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The WAL (and other small log files): the reserved WAL zones of the SSD when the scheme
    /// reserves them, else any SSD zone with room, spilling to the HDD.
    Log,
    /// An SST to this device (the SSD spills to the HDD when it has no empty zone or token).
    Sst(Tier),
    /// Any other file (the MANIFEST): the HDD.
    Other,
}

/// Zones of one device in the view (IO zones only; the metadata zones are not in it).
pub fn tier_zones<'a>(
    view: &'a AllocView<'_>,
    layout: &'a HybridLayout,
    tier: Tier,
) -> impl Iterator<Item = &'a ZoneView> + 'a {
    view.zones
        .iter()
        .filter(move |z| layout.tier_of(z.index) == Some(tier))
}

/// The first `n` SSD IO zones: the WAL (and cache) zones of schemes that reserve them.
pub fn reserved_log_zones(view: &AllocView<'_>, layout: &HybridLayout, n: u32) -> Vec<u32> {
    tier_zones(view, layout, Tier::Ssd)
        .take(n as usize)
        .map(|z| z.index)
        .collect()
}

/// Zones of a device holding an open (writer) or active (partly written) zone resource.
fn tokens(zones: &[&ZoneView]) -> (u32, u32) {
    let open = zones.iter().filter(|z| z.busy).count();
    let active = zones.iter().filter(|z| z.busy || z.is_active()).count();
    (
        u32::try_from(open).unwrap_or(u32::MAX),
        u32::try_from(active).unwrap_or(u32::MAX),
    )
}

/// Whether `tier` can open one more zone, and the zones to finish first so its active limit
/// holds (done zones outside `keep`, fullest first: SST zones are never written again).
/// `None` without an open token, or when finishing cannot free an active one.
fn room_for_one(
    view: &AllocView<'_>,
    layout: &HybridLayout,
    tier: Tier,
    keep: &[u32],
) -> Option<Vec<u32>> {
    let zones: Vec<&ZoneView> = tier_zones(view, layout, tier).collect();
    let mut limits = layout.limits(tier);
    if tier == Tier::Ssd {
        // The metadata zones (the SSD's first) keep their tokens, as on one device.
        let keep = |l: u32| {
            if l == 0 {
                0
            } else {
                l.saturating_sub(crate::fs::RESERVED_ZONES).max(1)
            }
        };
        limits.max_open_zones = keep(limits.max_open_zones);
        limits.max_active_zones = keep(limits.max_active_zones);
    }
    let (open, mut active) = tokens(&zones);
    if limits.max_open_zones > 0 && open >= limits.max_open_zones {
        return None;
    }
    let mut finish = Vec::new();
    if limits.max_active_zones > 0 && active >= limits.max_active_zones {
        let mut done: Vec<&&ZoneView> = zones
            .iter()
            .filter(|z| !z.busy && z.is_active() && !keep.contains(&z.index))
            .collect();
        done.sort_by_key(|z| (z.remaining_bytes, z.index));
        for z in done {
            if active < limits.max_active_zones {
                break;
            }
            finish.push(z.index);
            active -= 1;
        }
        if active >= limits.max_active_zones {
            return None;
        }
    }
    Some(finish)
}

/// An empty zone of `tier` outside `exclude`, with the zones to finish first (`None` when the
/// device has none, or no open token).
pub fn fresh_zone(
    view: &AllocView<'_>,
    layout: &HybridLayout,
    tier: Tier,
    exclude: &[u32],
) -> Option<(u32, Vec<u32>)> {
    let empty = tier_zones(view, layout, tier)
        .find(|z| !z.busy && z.is_empty() && !exclude.contains(&z.index))?
        .index;
    Some((empty, room_for_one(view, layout, tier, exclude)?))
}

fn decision(finish: Vec<u32>, outcome: Placement) -> PlacementDecision {
    PlacementDecision {
        finish,
        outcome,
        from_context: false,
    }
}

/// Carries out `target` on a hybrid: the zone mechanics all hybrid schemes share.
/// `log_zones` are the zones reserved for the WAL (empty when the scheme reserves none).
pub fn place_target(
    view: &AllocView<'_>,
    ctx: &HybridContext,
    request: &PlacementRequest<'_>,
    target: Target,
    log_zones: &[u32],
) -> PlacementDecision {
    let layout = &ctx.layout;
    let need = request.min_capacity_bytes.max(1);
    let with_room = |z: &ZoneView| !z.busy && z.is_active() && z.remaining_bytes >= need;
    match target {
        Target::Log => {
            // Appends to a log zone with room (several WALs share one), else an empty one.
            let pool: Vec<&ZoneView> = if log_zones.is_empty() {
                tier_zones(view, layout, Tier::Ssd)
                    .filter(|z| z.is_empty() || z.lifetime == request.lifetime)
                    .collect()
            } else {
                view.zones
                    .iter()
                    .filter(|z| log_zones.contains(&z.index))
                    .collect()
            };
            if let Some(z) = pool.iter().find(|z| with_room(z)) {
                return decision(Vec::new(), Placement::Active(z.index));
            }
            if let Some(z) = pool.iter().find(|z| !z.busy && z.is_empty())
                && let Some(finish) = room_for_one(view, layout, Tier::Ssd, log_zones)
            {
                return decision(finish, Placement::Empty(z.index));
            }
            // No log zone: any fresh SSD zone, else the HDD.
            place_sst_in(view, layout, Tier::Ssd, log_zones)
        }
        Target::Other => {
            // Small long-lived files (the MANIFEST): an HDD zone of their lifetime with room,
            // else a fresh HDD zone; they never pin a WAL zone or an SSD SST zone.
            if let Some(z) = tier_zones(view, layout, Tier::Hdd)
                .filter(|z| z.lifetime == request.lifetime)
                .find(|z| with_room(z))
            {
                return decision(Vec::new(), Placement::Active(z.index));
            }
            place_sst_in(view, layout, Tier::Hdd, log_zones)
        }
        Target::Sst(tier) => place_sst_in(view, layout, tier, log_zones),
    }
}

fn place_sst_in(
    view: &AllocView<'_>,
    layout: &HybridLayout,
    tier: Tier,
    log_zones: &[u32],
) -> PlacementDecision {
    let tiers: &[Tier] = match tier {
        Tier::Ssd => &[Tier::Ssd, Tier::Hdd],
        Tier::Hdd => &[Tier::Hdd],
    };
    for &t in tiers {
        if let Some((z, finish)) = fresh_zone(view, layout, t, log_zones) {
            return decision(finish, Placement::Empty(z));
        }
    }
    // Every zone of the target is taken: wait for a writer to release one if any is busy.
    let busy = tiers
        .iter()
        .any(|&t| tier_zones(view, layout, t).any(|z| z.busy));
    decision(
        Vec::new(),
        if busy {
            Placement::WaitForOpenToken
        } else {
            Placement::NoSpace
        },
    )
}

/// Migration's snapshot of a scheme's SSTs: their levels and devices from `tracker`, read
/// rates from `reads` (query reads of each live SST so far), the empty SSD zones outside the
/// `log_zones` reserved ones.
pub fn migration_snapshot(
    tracker: &tracker::Tracker,
    (view, ctx): (&AllocView<'_>, &HybridContext),
    reads: &std::collections::BTreeMap<u64, u64>,
    hdd_read_rate: f64,
    (tiering, demand_below_tiering): (hhzs::Tiering, u64),
    ssd_level_limit: Option<u32>,
    log_zones: u32,
) -> migration::Snapshot {
    let logs = reserved_log_zones(view, &ctx.layout, log_zones);
    let empty_ssd_zones = tier_zones(view, &ctx.layout, Tier::Ssd)
        .filter(|z| !logs.contains(&z.index) && !z.busy && z.is_empty())
        .count() as u64;
    let ssts = tracker
        .ssts()
        .iter()
        .filter_map(|(&number, s)| {
            let tier = s.tier?;
            let age_s = (ctx.now_ns.saturating_sub(s.created_ns) as f64 / 1e9).max(1e-3);
            Some(migration::Candidate {
                number,
                level: s.level,
                tier,
                read_rate: reads.get(&number).copied().unwrap_or(0) as f64 / age_s,
                compacting: tracker.is_compacting(number),
            })
        })
        .collect();
    migration::Snapshot {
        ssts,
        tiering,
        empty_ssd_zones,
        demand_below_tiering,
        hdd_read_rate,
        ssd_level_limit,
    }
}

/// A hybrid scheme: says where each file goes; [`place`] carries it out.
pub trait HybridScheme: Send + Sync + std::fmt::Debug {
    /// Where the file of `request` goes (`request.sst` carries an SST's level).
    fn target(
        &self,
        view: &AllocView<'_>,
        ctx: &HybridContext,
        request: &PlacementRequest<'_>,
    ) -> Target;

    /// How many SSD zones the scheme keeps for the WAL (and its cache).
    fn log_zones(&self) -> u32 {
        0
    }

    /// Called with every decision taken for an SST (`tier` it went to, at `now_ns`).
    fn placed(&self, _sst: u64, _level: u32, _tier: Tier, _now_ns: u64) {}
}

/// The [`PlacementPolicy`] methods every hybrid scheme shares, inside its `impl`: `place`
/// by [`place`] (the scheme's [`HybridScheme::target`] carried out), and a tree view asked
/// for only so that each SST gets a context (its level) and an empty candidate list.
macro_rules! hybrid_placement_methods {
    () => {
        fn place(
            &self,
            view: &$crate::placement::policy::AllocView<'_>,
            request: &$crate::placement::policy::PlacementRequest<'_>,
        ) -> $crate::placement::policy::PlacementDecision {
            $crate::hybrid::placement::place(self, view, request)
        }

        fn wants_tree_view(&self) -> bool {
            true
        }

        fn plan_sst(
            &self,
            sst: &$crate::placement::tree_view::NewSst<'_>,
            _tree: &dyn $crate::placement::tree_view::TreeView,
        ) -> Option<$crate::placement::policy::SstContext> {
            Some($crate::placement::policy::SstContext::new(sst, Vec::new()))
        }
    };
}
pub(crate) use hybrid_placement_methods;

/// [`PlacementPolicy::place`] of a hybrid scheme; off a hybrid device, LIZA.
pub fn place<S: HybridScheme + ?Sized>(
    scheme: &S,
    view: &AllocView<'_>,
    request: &PlacementRequest<'_>,
) -> PlacementDecision {
    let Some(ctx) = view.hybrid else {
        return Liza.place(view, request);
    };
    let logs = reserved_log_zones(view, &ctx.layout, scheme.log_zones());
    let target = match (request.io_type, request.sst) {
        (IoType::Wal, _) => Target::Log,
        (_, None) => Target::Other,
        (_, Some(_)) => scheme.target(view, &ctx, request),
    };
    let d = place_target(view, &ctx, request, target, &logs);
    if let (Some(sst), Placement::Empty(z)) = (request.sst, d.outcome)
        && let Some(tier) = ctx.layout.tier_of(z)
    {
        scheme.placed(sst.number, sst.level, tier, ctx.now_ns);
    }
    d
}

#[cfg(test)]
mod tests {
    use zonedb_device::{HybridStats, TierLimits};

    use super::basic::Basic;
    use super::hhzs::Hhzs;
    use super::*;
    use crate::placement::policy::{Lifetime, SstContext};

    const SSD_CAP: u64 = 1000;
    const HDD_CAP: u64 = 250;

    /// Zones 0..3 metadata (not in the view), 3..9 SSD (6 IO zones), 9..29 HDD.
    fn layout(ssd_active: u32) -> HybridLayout {
        HybridLayout {
            ssd: TierLimits {
                zones: 9,
                zone_capacity_bytes: SSD_CAP,
                max_open_zones: ssd_active,
                max_active_zones: ssd_active,
            },
            hdd: TierLimits {
                zones: 20,
                zone_capacity_bytes: HDD_CAP,
                max_open_zones: 128,
                max_active_zones: 0,
            },
        }
    }

    fn zones() -> Vec<ZoneView> {
        (3..29)
            .map(|i| {
                let cap = if i < 9 { SSD_CAP } else { HDD_CAP };
                ZoneView {
                    index: i,
                    max_capacity_bytes: cap,
                    remaining_bytes: cap,
                    used_bytes: 0,
                    lifetime: Lifetime::NotSet,
                    busy: false,
                }
            })
            .collect()
    }

    fn view(zones: &[ZoneView], ssd_active: u32) -> AllocView<'_> {
        AllocView {
            zones,
            open_io_zones: 0,
            active_io_zones: 0,
            max_open_io_zones: 100,
            max_active_io_zones: 100,
            finish_threshold_pct: 0,
            hybrid: Some(HybridContext {
                layout: layout(ssd_active),
                stats: HybridStats::default(),
                now_ns: 0,
            }),
        }
    }

    fn sst(number: u64, level: u32) -> SstContext {
        SstContext {
            number,
            level,
            size: 900,
            ..SstContext::default()
        }
    }

    fn req(sst: Option<&SstContext>, io: IoType) -> PlacementRequest<'_> {
        PlacementRequest {
            lifetime: if io == IoType::Wal {
                Lifetime::Short
            } else {
                Lifetime::Medium
            },
            io_type: io,
            min_capacity_bytes: 0,
            sst,
        }
    }

    fn fill(zones: &mut [ZoneView], index: u32, written: u64) {
        let z = zones.iter_mut().find(|z| z.index == index).unwrap();
        z.remaining_bytes = z.max_capacity_bytes - written;
        z.used_bytes = written;
        z.lifetime = Lifetime::Medium;
    }

    #[test]
    fn basic_scheme_splits_levels_and_spills_to_the_hdd() {
        let mut zs = zones();
        let b3 = Basic::new(3, false);
        let l2 = sst(1, 2);
        let d = b3.place(&view(&zs, 14), &req(Some(&l2), IoType::Other));
        assert_eq!(d.outcome, Placement::Empty(3), "L2 to the first SSD zone");
        let l3 = sst(2, 3);
        let d = b3.place(&view(&zs, 14), &req(Some(&l3), IoType::Other));
        assert_eq!(d.outcome, Placement::Empty(9), "L3 to the HDD");
        for z in 3..9 {
            fill(&mut zs, z, 900);
        }
        let d = b3.place(&view(&zs, 14), &req(Some(&l2), IoType::Other));
        assert_eq!(
            d.outcome,
            Placement::Empty(9),
            "a full SSD spills to the HDD"
        );
    }

    #[test]
    fn ssd_active_limit_finishes_done_sst_zones_first() {
        let mut zs = zones();
        fill(&mut zs, 3, 900);
        fill(&mut zs, 4, 950);
        let d = Basic::new(3, false).place(&view(&zs, 4), &req(Some(&sst(1, 1)), IoType::Other));
        assert_eq!(d.outcome, Placement::Empty(5));
        assert_eq!(d.finish, vec![4], "the fullest done zone is finished");
    }

    #[test]
    fn hhzs_keeps_the_wal_in_its_zones_and_places_by_tiering_level() {
        let mut zs = zones();
        let hhzs = Hhzs::new(super::hhzs::HhzsConfig::default());
        // WAL: the first reserved zone, then appends to it.
        let d = hhzs.place(&view(&zs, 14), &req(None, IoType::Wal));
        assert_eq!(d.outcome, Placement::Empty(3));
        fill(&mut zs, 3, 100);
        zs[0].lifetime = Lifetime::Short;
        let d = hhzs.place(&view(&zs, 14), &req(None, IoType::Wal));
        assert_eq!(d.outcome, Placement::Active(3));
        // C_ssd = 6 - 2 = 4; one WAL zone in use (D0 = 1). Flushes go to the SSD, outside the
        // reserved zones.
        let d = hhzs.place(&view(&zs, 14), &req(Some(&sst(10, 0)), IoType::Other));
        assert_eq!(d.outcome, Placement::Empty(5));
        fill(&mut zs, 5, 900);
        // Two L1 SSTs on the SSD and a compaction into L1 with one input: D0 + A1 + D1 =
        // 1 + 2 + 1 >= 4 at L1, so t = 1 with 4 - 1 = 3 zones; an L1 SST still has one, an
        // L2 SST goes to the HDD.
        for n in [11, 12] {
            hhzs.placed(n, 1, Tier::Ssd, 0);
        }
        hhzs.on_hint(&crate::hints::Hint::FileDeleted { number: 10 });
        hhzs.on_hint(&crate::hints::Hint::CompactionStarted {
            job: 5,
            start_level: 0,
            output_level: 1,
            inputs: vec![crate::hints::LevelFiles {
                level: 0,
                files: vec![20],
            }],
            trivial_move: false,
        });
        let v = view(&zs, 14);
        let tiering = hhzs.tiering(&v, v.hybrid.as_ref().unwrap());
        assert_eq!((tiering.level, tiering.reserved), (1, 3));
        let d = hhzs.place(&v, &req(Some(&sst(13, 1)), IoType::Other));
        assert!(matches!(d.outcome, Placement::Empty(z) if z < 9), "{d:?}");
        let d = hhzs.place(&v, &req(Some(&sst(14, 2)), IoType::Other));
        assert!(matches!(d.outcome, Placement::Empty(z) if z >= 9), "{d:?}");
    }
}
