//! A zone whose last file was deleted still counts against the device's active-zone limit
//! until its reset is done (issue 46, defect 1). The layer used to give its token back when it
//! chose the zone for a reset, before the device flush that precedes resets: with two resets
//! in flight and the budget full, two writers were handed empty zones whose first writes the
//! device refused (`TooManyActive`), and closing them tried to close an empty zone
//! (`invalid transition: close from Empty`), leaving extents past the write pointer. Here the
//! device's resets take 2 ms before they take effect (the file-backed device's reset syncs its
//! zone records; an SSD erases), two files are deleted at once and two writers close while
//! the resets are in flight, at every start offset in steps of 250 us: every close succeeds,
//! fsck stays clean and the written files read back.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::sim::DelayedResets;
use zonedb_device::{Profile, ZnsSsd, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

/// How long after it is issued a reset takes effect.
const RESET_NS: u64 = 2_000_000;

/// Six open and six active zones: the layer's writer budget and its metadata zone leave the
/// device one zone spare.
fn device(env: &SimEnv) -> Arc<DelayedResets<SimEnv, ZnsSsd<SimEnv>>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 6;
    let ssd = ZnsSsd::new(env.clone(), p, Payload::memory(16)).unwrap();
    Arc::new(DelayedResets::new(env.clone(), ssd, RESET_NS))
}

/// Four files of four lifetimes fill four zones but 8 KiB each (each zone stays active);
/// `a` and `b` are deleted at once; `offset_ns` later, `e` and `f` (5000 bytes each, too big
/// for any active zone's room) are written and closed.
fn run(offset_ns: u64) {
    let env = SimEnv::new(SimConfig::default());
    let dev = device(&env);
    let (env2, dev2) = (env.clone(), dev.clone());
    env.run(async move {
        ZoneFs::<SimEnv, DelayedResets<SimEnv, ZnsSsd<SimEnv>>>::mkfs(dev2.as_ref(), 0)
            .await
            .unwrap();
        let opts = FsOptions {
            cleaner: zonedb_fs::cleaning::by_name("none", 0).unwrap(),
            write_buffer_bytes: 16 << 10,
            ..FsOptions::default()
        };
        let fs = ZoneFs::mount(env2.clone(), dev2.clone(), opts)
            .await
            .unwrap();
        let capacity = dev2.geometry().zone_capacity_bytes;
        let lifetimes = [
            ("a.sst", Lifetime::Short),
            ("b.sst", Lifetime::Medium),
            ("c.sst", Lifetime::Long),
            ("d.sst", Lifetime::Extreme),
        ];
        for (name, lifetime) in lifetimes {
            let mut f = fs.create(name, lifetime).await.unwrap();
            f.append(&vec![7; usize::try_from(capacity - (8 << 10)).unwrap()])
                .await
                .unwrap();
            f.close().await.unwrap();
        }
        let deletes: Vec<_> = ["a.sst", "b.sst"]
            .into_iter()
            .map(|name| {
                let fs = fs.clone();
                env2.spawn("delete", async move { fs.delete(name).await })
            })
            .collect();
        env2.sleep(offset_ns).await;
        let writers: Vec<_> = [("e.sst", 1u8), ("f.sst", 2u8)]
            .into_iter()
            .map(|(name, byte)| {
                let fs = fs.clone();
                env2.spawn("writer", async move {
                    let mut f = fs.create(name, Lifetime::Extreme).await?;
                    f.append(&[byte; 5000]).await?;
                    f.close().await
                })
            })
            .collect();
        for d in deletes {
            d.await.unwrap().unwrap();
        }
        for w in writers {
            let r = w.await.unwrap();
            assert!(r.is_ok(), "offset {offset_ns} ns: a writer failed: {r:?}");
        }
        let problems = fs.fsck_quiesced().await;
        assert!(
            problems.is_empty(),
            "offset {offset_ns} ns: fsck: {problems:?}"
        );
        assert_eq!(fs.read_all("e.sst").await.unwrap(), vec![1; 5000]);
        assert_eq!(fs.read_all("f.sst").await.unwrap(), vec![2; 5000]);
    })
    .unwrap();
}

#[test]
fn a_zone_being_reset_keeps_its_active_token() {
    for offset_ns in (0..=RESET_NS).step_by(250_000) {
        run(offset_ns);
    }
}
