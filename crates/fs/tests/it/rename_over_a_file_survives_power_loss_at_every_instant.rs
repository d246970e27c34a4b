//! `rename(tmp, CURRENT)` replacing an existing `CURRENT` is how the engine switches MANIFEST:
//! a power loss at any instant of it must leave the old `CURRENT` or the new one, never
//! neither (a store without `CURRENT` reopens empty and its SSTs are deleted as stale).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

type Fs = ZoneFs<SimEnv, ZnsSsd<SimEnv>>;

async fn write_file(fs: &Arc<Fs>, name: &str, data: &[u8]) {
    let mut w = fs.create(name, Lifetime::Short).await.unwrap();
    w.append(data).await.unwrap();
    w.close().await.unwrap();
}

/// Writes `CURRENT` = "old", then `tmp` = "new", then renames `tmp` over `CURRENT` with the
/// power lost at `crash_at` (`u64::MAX`: never). Returns (rename start, rename end, what
/// `CURRENT` holds after remount).
fn run(crash_at: u64) -> (u64, u64, Option<Vec<u8>>) {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.max_open_zones = 6;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    let dev =
        Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap());
    let (env2, dev2) = (env.clone(), dev.clone());
    let (start, end) = env
        .run(async move {
            Fs::mkfs(dev2.as_ref(), 0).await.unwrap();
            let fs = ZoneFs::mount(env2.clone(), dev2, FsOptions::default())
                .await
                .unwrap();
            write_file(&fs, "CURRENT", b"old").await;
            write_file(&fs, "tmp", b"new").await;
            let start = env2.now();
            let done = zonedb_env::until(&env2, crash_at, fs.rename("tmp", "CURRENT")).await;
            if let Some(r) = done {
                r.unwrap();
            }
            (start, env2.now())
        })
        .unwrap();
    env.kill_all_tasks();
    dev.power_cycle().unwrap();
    let env2 = env.clone();
    let current = env
        .run(async move {
            let fs = ZoneFs::mount(env2, dev, FsOptions::default())
                .await
                .unwrap();
            fs.read_all("CURRENT").await.ok()
        })
        .unwrap();
    (start, end, current)
}

#[test]
fn rename_over_a_file_leaves_the_old_or_the_new_file_at_every_instant() {
    let (start, end, after) = run(u64::MAX);
    assert_eq!(after.as_deref(), Some(&b"new"[..]));
    assert!(end > start, "the rename took no virtual time");
    // (The rename's one record is on the device at once; the rest of the time is the reset of
    // the old file's zone. Before the fix a delete record went first, then that reset, then the
    // rename record: a crash in the reset left no CURRENT.)
    let steps = 400;
    for i in 0..=steps {
        // The last step is just past the end: the rename has returned, so it must be durable.
        let at = start + (end - start) * i / steps + u64::from(i == steps);
        let (_, _, got) = run(at);
        match got.as_deref() {
            Some(b"old" | b"new") => {}
            other => panic!(
                "power lost {} ns into the rename: CURRENT is {other:?}",
                at - start
            ),
        }
    }
}
