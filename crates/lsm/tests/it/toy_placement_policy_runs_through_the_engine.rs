//! A placement policy defined entirely here, outside the engine and the zone layer, plugged in
//! through `FsOptions::placement`: "an SST goes to the lowest-numbered zone that can take it
//! whole, else where LIZA says". The engine runs on it (Db on ZoneFs on a simulated ZNS SSD):
//! the policy is asked to plan every flushed and compacted SST with a view of the tree (levels,
//! key ranges, sizes, the zones of every SST, scores), its rule places SSTs, it receives the
//! engine's hints, and every key reads back.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use zonedb_env::{SimConfig, SimEnv};
use zonedb_fs::hints::{FileKindHint, Hint};
use zonedb_fs::placement::lifetime::Liza;
use zonedb_fs::placement::{
    AllocView, NewSst, Placement, PlacementDecision, PlacementPolicy, PlacementRequest, SstContext,
    TreeView, first_fitting,
};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

/// The toy policy, and what it saw.
#[derive(Debug, Default)]
struct LowestZoneWithRoom {
    /// SSTs planned (each with a tree view).
    plans: AtomicU64,
    /// Deepest level holding files in any view it was given.
    deepest_level: AtomicU32,
    /// Most files in one view.
    most_files: AtomicU64,
    /// SSTs in a view the view gave no zones for (must stay 0: every SST of the tree is on
    /// the device).
    files_without_zones: AtomicU64,
    /// Plans whose SST level was outside the view's levels (must stay 0).
    bad_levels: AtomicU64,
    /// Zones its own rule chose.
    own_placements: AtomicU64,
    /// SST creations announced by hints.
    sst_hints: AtomicU64,
}

impl PlacementPolicy for LowestZoneWithRoom {
    fn name(&self) -> &'static str {
        "lowest-zone-with-room"
    }

    fn wants_tree_view(&self) -> bool {
        true
    }

    fn plan_sst(&self, sst: &NewSst<'_>, tree: &dyn TreeView) -> Option<SstContext> {
        self.plans.fetch_add(1, Ordering::Relaxed);
        if sst.level >= tree.num_levels() {
            self.bad_levels.fetch_add(1, Ordering::Relaxed);
        }
        let numbers: Vec<u64> = (0..tree.num_levels())
            .flat_map(|l| tree.files(l).iter().map(|f| f.number))
            .collect();
        let zones = tree.file_zones(&numbers);
        let empty = zones.iter().filter(|z| z.is_empty()).count() as u64;
        self.files_without_zones.fetch_add(empty, Ordering::Relaxed);
        self.most_files
            .fetch_max(numbers.len() as u64, Ordering::Relaxed);
        self.deepest_level
            .fetch_max(tree.bottom_level(), Ordering::Relaxed);
        // Every zone in index order is a candidate: the lowest one with room wins.
        Some(SstContext::new(sst, Vec::new()))
    }

    fn place(&self, view: &AllocView<'_>, request: &PlacementRequest<'_>) -> PlacementDecision {
        if let Some(sst) = request.sst
            && let Some(z) =
                first_fitting(view, request, view.zones.iter().map(|z| z.index), sst.size)
        {
            self.own_placements.fetch_add(1, Ordering::Relaxed);
            return PlacementDecision {
                finish: Vec::new(),
                outcome: Placement::Active(z),
                from_context: true,
            };
        }
        Liza.place(view, request)
    }

    fn on_hint(&self, hint: &Hint) {
        if let Hint::FileCreated {
            kind: FileKindHint::Sst,
            ..
        } = hint
        {
            self.sst_hints.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[test]
fn toy_placement_policy_runs_through_the_engine() {
    const KEYS: u64 = 5000;
    let env = SimEnv::new(SimConfig::with_seed(7));
    let dev = common::sim_device(&env, 80);
    let toy = Arc::new(LowestZoneWithRoom::default());
    let policy: Arc<dyn PlacementPolicy> = toy.clone();
    let e2 = env.clone();
    let fs_stats = env
        .run(async move {
            ZoneFs::<SimEnv, _>::mkfs(dev.as_ref(), 0).await.unwrap();
            let fs = ZoneFs::mount(
                e2,
                dev,
                FsOptions {
                    placement: policy,
                    ..common::fs_options()
                },
            )
            .await
            .unwrap();
            let opts = DbOptions {
                level_compaction_dynamic_level_bytes: false,
                ..common::small_options()
            };
            let db = Db::open(fs.clone(), opts).await.unwrap();
            let oracle = common::fill_random(&db, KEYS, 30_000, 7).await;
            db.wait_for_compactions().await.unwrap();
            for k in 0..KEYS {
                let got = db.get(&common::key(k)).await.unwrap();
                assert_eq!(got.as_ref(), oracle.get(&common::key(k)), "key {k}");
            }
            db.close().await.unwrap();
            fs.stats()
        })
        .unwrap();
    let plans = toy.plans.load(Ordering::Relaxed);
    assert!(plans > 20, "planned {plans} SSTs");
    assert!(
        toy.deepest_level.load(Ordering::Relaxed) >= 2,
        "the views never showed a deep tree"
    );
    assert!(toy.most_files.load(Ordering::Relaxed) > 5);
    assert_eq!(toy.files_without_zones.load(Ordering::Relaxed), 0);
    assert_eq!(toy.bad_levels.load(Ordering::Relaxed), 0);
    assert!(toy.own_placements.load(Ordering::Relaxed) > 0);
    // Every planned SST was announced by a hint first.
    assert!(toy.sst_hints.load(Ordering::Relaxed) >= plans);
    // The zone layer counted the plans and the placements the toy's rule made.
    assert!(fs_stats.sst_context_allocations >= fs_stats.sst_context_placements);
    assert!(fs_stats.sst_context_placements > 0);
}
