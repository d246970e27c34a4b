//! The authors' allocation-retry blocking model (`alloc_retry_blocking_ns`): a writer that
//! finds no zone sleeps one (virtual) second per attempt, resets unused zones and tries again;
//! the attempts and the time are counted as I/O blocking.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use zonedb_device::ZnsSsd;
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::{Lifetime, by_name};
use zonedb_fs::{FsOptions, ZoneFs};

const SECOND_NS: u64 = 1_000_000_000;

/// A zone held by an open writer keeps free space but no zone can be had; a file filling
/// every other zone is deleted 2.5 s after the blocked writer first asks. Returns the fs
/// stats and the time the blocked writer took.
fn blocked_writer(placement: &str) -> (zonedb_fs::FsStats, u64) {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::six_token_device(&env);
    let (env2, dev2) = (env.clone(), dev.clone());
    let placement = placement.to_string();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev2.as_ref(), 0)
            .await
            .unwrap();
        let fs = ZoneFs::mount(
            env2.clone(),
            dev2.clone(),
            FsOptions {
                placement: by_name(&placement).unwrap(),
                alloc_retry_blocking_ns: 1_000_000_000,
                write_buffer_bytes: 64 << 10,
                ..FsOptions::default()
            },
        )
        .await
        .unwrap();
        let mut hold = fs.create("hold.sst", Lifetime::Medium).await.unwrap();
        hold.append(&[7; 4096]).await.unwrap();
        hold.sync().await.unwrap();
        let held = fs.file_zones(&["hold.sst"])[0][0].0;
        common::fill_all_but(&fs, held, 192 * 1024 - 4096).await;
        let t0 = env2.now();
        let deleter = {
            let (fs, env) = (fs.clone(), env2.clone());
            env2.spawn("deleter", async move {
                env.sleep_until(t0 + 5 * SECOND_NS / 2).await;
                fs.delete("big.sst").await.unwrap();
            })
        };
        let mut w = fs.create("w.sst", Lifetime::Long).await.unwrap();
        w.append(&[2; 4096]).await.unwrap();
        w.sync().await.unwrap();
        let took = env2.now() - t0;
        deleter.await.unwrap();
        w.close().await.unwrap();
        hold.close().await.unwrap();
        assert_eq!(fs.read_all("w.sst").await.unwrap(), vec![2; 4096]);
        (fs.stats(), took)
    })
    .unwrap()
}

#[test]
fn each_attempt_costs_a_second_and_is_counted() {
    for placement in ["liza", "liza-caza"] {
        let (stats, took) = blocked_writer(placement);
        // Attempts at 0, 1, 2 s fail; the one at 3 s (after the delete at 2.5 s) succeeds and
        // sleeps too: 4 attempts, 4 s.
        assert_eq!(stats.alloc_retries, 4, "{placement}");
        assert!(
            (4 * SECOND_NS..4 * SECOND_NS + SECOND_NS / 100)
                .contains(&stats.alloc_retry_blocking_ns),
            "{placement}: {}",
            stats.alloc_retry_blocking_ns
        );
        assert!(stats.io_blocking_ns >= stats.alloc_retry_blocking_ns);
        assert!(took >= 4 * SECOND_NS, "{placement}: {took}");
    }
}
