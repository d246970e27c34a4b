//! The last step before a writer fails for want of space: when every zone with room is held
//! by other writers and one of them is an SST writer, the writer waits for that zone to come
//! back (an SST is closed soon) instead of failing a write with room on the device; a zone the
//! WAL holds is not waited for (the WAL keeps it), so that writer fails at once. A cleaning
//! pass that finds a victim but no zone to migrate its live data into frees nothing: the
//! writer still waits rather than fail.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::ZnsSsd;
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsError, FsOptions, ZoneFs};

const SECOND_NS: u64 = 1_000_000_000;

/// `holder` holds the only zone with room (4 KiB written of 192 KiB); a file fills every
/// other zone; `holder` is closed 2.5 s later. With `victim`, the greedy cleaner runs and one
/// full zone holds 20 KiB of a live file and 160 KiB of a deleted one (its live data has
/// nowhere to go until `holder` is closed). Returns the blocked writer's outcome, the time it
/// took, and the fs stats.
fn blocked_writer(
    holder: &'static str,
    victim: bool,
) -> (Result<(), FsError>, u64, zonedb_fs::FsStats) {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::six_token_device(&env);
    let (env2, dev2) = (env.clone(), dev.clone());
    let out = env
        .run(async move {
            ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev2.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(
                env2.clone(),
                dev2.clone(),
                FsOptions {
                    write_buffer_bytes: 64 << 10,
                    cleaner: zonedb_fs::cleaning::by_name(
                        if victim { "greedy" } else { "none" },
                        90,
                    )
                    .unwrap(),
                    ..FsOptions::default()
                },
            )
            .await
            .unwrap();
            let mut hold = fs.create(holder, Lifetime::Medium).await.unwrap();
            hold.append(&[7; 4096]).await.unwrap();
            hold.sync().await.unwrap();
            let held = fs.file_zones(&[holder])[0][0].0;
            if victim {
                // A long-lived file opens a zone; a short-lived one fills most of the rest of
                // it (LIZA puts it there) and is deleted.
                let mut keep = fs.create("keep.sst", Lifetime::Extreme).await.unwrap();
                keep.append(&[3; 20 << 10]).await.unwrap();
                keep.close().await.unwrap();
                let mut dead = fs.create("dead.sst", Lifetime::Short).await.unwrap();
                dead.append(&[4; 160 << 10]).await.unwrap();
                dead.close().await.unwrap();
                assert_eq!(
                    fs.file_zones(&["keep.sst"])[0][0].0,
                    fs.file_zones(&["dead.sst"])[0][0].0
                );
                fs.delete("dead.sst").await.unwrap();
            }
            let hold_room = 192 * 1024 - 4096 - if holder.ends_with(".log") { 8 } else { 0 };
            common::fill_all_but(&fs, held, hold_room).await;
            let t0 = env2.now();
            let closer = {
                let env = env2.clone();
                env2.spawn("closer", async move {
                    env.sleep_until(t0 + 5 * SECOND_NS / 2).await;
                    hold.close().await.unwrap();
                })
            };
            let mut w = fs.create("w.sst", Lifetime::Medium).await.unwrap();
            let wrote = async {
                w.append(&[2; 4096]).await?;
                w.sync().await
            }
            .await;
            let took = env2.now() - t0;
            closer.await.unwrap();
            if wrote.is_ok() {
                w.close().await.unwrap();
                assert_eq!(fs.read_all("w.sst").await.unwrap(), vec![2; 4096]);
                if victim {
                    assert_eq!(fs.read_all("keep.sst").await.unwrap(), vec![3; 20 << 10]);
                } else {
                    assert_eq!(fs.file_zones(&["w.sst"])[0][0].0, held);
                }
                assert_eq!(fs.read_all(holder).await.unwrap().len(), 4096);
            }
            (wrote, took, fs.stats())
        })
        .unwrap();
    env.kill_all_tasks();
    out
}

#[test]
fn a_writer_waits_for_the_zone_an_sst_writer_holds_and_takes_it() {
    let (wrote, took, stats) = blocked_writer("hold.sst", false);
    wrote.unwrap();
    assert!(took >= 5 * SECOND_NS / 2, "took {took} ns");
    assert!(stats.last_resort_waits >= 1, "{stats:?}");
    assert!(stats.io_blocking_ns >= 5 * SECOND_NS / 2, "{stats:?}");
}

#[test]
fn a_zone_the_wal_holds_is_not_waited_for() {
    let (wrote, took, stats) = blocked_writer("000007.log", false);
    assert!(matches!(wrote, Err(FsError::NoSpace)), "{wrote:?}");
    assert!(took < SECOND_NS, "took {took} ns");
    assert_eq!(stats.last_resort_waits, 0, "{stats:?}");
}

#[test]
fn a_cleaning_pass_with_nowhere_to_migrate_does_not_fail_the_write() {
    let (wrote, took, stats) = blocked_writer("hold.sst", true);
    wrote.unwrap();
    assert!(took >= 5 * SECOND_NS / 2, "took {took} ns");
    assert!(stats.last_resort_waits >= 1, "{stats:?}");
    assert!(stats.cleaning_runs >= 1, "{stats:?}");
}
