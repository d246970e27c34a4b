//! Flushes, compactions and the zone resets their deletes trigger, interleaved by the
//! simulator's seeded same-instant shuffle, on a device whose active-zone limit leaves the file
//! layer one zone of headroom (issue 46, defect 1). A zone whose last file was deleted still
//! counts against the device's active limit until its reset is done; were its token handed to
//! a writer before then, two resets in flight would let a writer's first write be refused
//! (`TooManyActive`), and closing that writer would try to close an empty zone, leaving an
//! extent past the write pointer. Every seed must finish with no background error, fsck clean
//! and every write readable.
//!
//! The simulated SSD applies a reset the instant it is issued, which leaves no window; the
//! device here lets each reset take effect 2 ms after it is issued, as the file-backed
//! device's (which syncs its zone records) and an SSD's (which erases) take time.
//!
//! This engine-level run did not hit the race before the fix on these seeds (the writers
//! rarely find the budget full while two resets are in flight); the file layer's
//! `a_zone_being_reset_keeps_its_active_token` is the deterministic reproduction. It stays
//! as the end-to-end check of the same configuration: oracle, fsck, remount.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::ZnsSsd;
use zonedb_device::payload::Payload;
use zonedb_device::sim::DelayedResets;
use zonedb_env::{Env, SimEnv};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::Db;

use crate::common;

/// How long after it is issued a reset takes effect.
const RESET_NS: u64 = 2_000_000;

/// The tiny profile with the open and active limits equal (as on the ZN540 and the papers'
/// devices), so the layer's writer budget plus its metadata zone leaves one zone spare.
fn tight_device(env: &SimEnv) -> Arc<DelayedResets<SimEnv, ZnsSsd<SimEnv>>> {
    let mut p = common::profile(512);
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 6;
    p.validate().unwrap();
    let ssd = ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap();
    Arc::new(DelayedResets::new(env.clone(), ssd, RESET_NS))
}

/// Puts per writer (keys are each writer's own: even and odd).
const OPS_PER_WRITER: u64 = 15_000;
const KEYS: u64 = 6_000;

fn run_seed(seed: u64) {
    let env = common::crash_env(seed);
    let dev = tight_device(&env);
    let e2 = env.clone();
    env.run(async move {
        let opts = FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("none", 0).unwrap(),
            ..common::fs_options()
        };
        let fs = common::format_and_mount_with(&e2, &dev, opts).await;
        let mut options = common::small_options();
        options.max_background_jobs = 4;
        let db = Db::open(fs.clone(), options).await.unwrap();
        // Two writers of 1000-byte values, as db_bench --threads 2 --value_size 1000.
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let db = db.clone();
                e2.spawn("writer", async move {
                    let mut rng = zonedb_env::SimRng::seed_from_u64(seed * 2 + w);
                    let mut last = std::collections::BTreeMap::new();
                    for op in 0..OPS_PER_WRITER {
                        let k = rng.gen_range(0..KEYS) * 2 + w;
                        let mut v = common::value(k, op);
                        v.resize(1000, b'v');
                        db.put(&common::key(k), &v).await.unwrap();
                        last.insert(common::key(k), v);
                    }
                    last
                })
            })
            .collect();
        let mut written = std::collections::BTreeMap::new();
        for w in writers {
            written.extend(w.await.unwrap());
        }
        db.flush().await.unwrap();
        db.wait_for_compactions().await.unwrap();
        assert!(
            db.background_error().is_none(),
            "seed {seed}: {:?}",
            db.background_error()
        );
        for (k, v) in &written {
            assert_eq!(
                db.get(k).await.unwrap().as_ref(),
                Some(v),
                "seed {seed}: key {k:?}"
            );
        }
        db.close().await.unwrap();
        let problems = fs.fsck_quiesced().await;
        assert!(problems.is_empty(), "seed {seed}: fsck: {problems:?}");
        drop(fs);
        let fs = ZoneFs::mount(e2.clone(), dev.clone(), common::fs_options())
            .await
            .unwrap();
        let problems = fs.fsck_quiesced().await;
        assert!(
            problems.is_empty(),
            "seed {seed}: fsck after remount: {problems:?}"
        );
    })
    .unwrap();
}

#[test]
fn zone_resets_never_take_a_live_writers_zone() {
    for seed in 0..6 {
        run_seed(seed);
    }
}
