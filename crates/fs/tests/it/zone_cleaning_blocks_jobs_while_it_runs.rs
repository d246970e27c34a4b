//! The authors' ZenFS blocking model (`FsOptions::zc_blocking_poll_ns`): while a cleaning pass
//! runs, `cleaning_blocks_jobs` is true and `wait_for_cleaning` waits in whole poll steps,
//! counted as I/O blocking; with the model off neither ever holds anything back.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{Env, SimConfig, SimEnv};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

const POLL_NS: u64 = 1_000_000_000;

/// Fills a small device with files, deletes every other one and cleans, while a watcher task
/// asks the file layer every millisecond whether jobs are held back and waits when they are.
/// Returns (seen blocked, waits completed, I/O blocking ns).
fn run(poll_ns: u64) -> (bool, u64, u64) {
    let env = SimEnv::new(SimConfig {
        seed: 7,
        ..SimConfig::default()
    });
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 16;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    let dev =
        Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap());
    let e2 = env.clone();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let opts = FsOptions {
            write_buffer_bytes: 16 << 10,
            cleaner: zonedb_fs::cleaning::by_name("greedy", 95).unwrap(),
            cleaning_interval_ns: 0,
            zc_blocking_poll_ns: poll_ns,
            ..FsOptions::default()
        };
        let fs = Arc::new(ZoneFs::mount(e2.clone(), dev, opts).await.unwrap());
        let zone = p.zones.zone_capacity_bytes as usize;
        let mut n = 0;
        loop {
            let name = format!("{n:06}.sst");
            let mut w = fs.create(&name, Lifetime::Long).await.unwrap();
            if w.append(&vec![n as u8; zone / 3]).await.is_err() || w.close().await.is_err() {
                fs.delete(&name).await.unwrap();
                break;
            }
            n += 1;
            if n >= 30 {
                break;
            }
        }
        for i in (0..n).step_by(2) {
            fs.delete(&format!("{i:06}.sst")).await.unwrap();
        }
        let seen = Arc::new(AtomicBool::new(false));
        let waits = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (fs, seen, waits, done, env) = (
                fs.clone(),
                seen.clone(),
                waits.clone(),
                done.clone(),
                e2.clone(),
            );
            e2.spawn("watcher", async move {
                while !done.load(Ordering::SeqCst) {
                    if fs.cleaning_blocks_jobs() {
                        seen.store(true, Ordering::SeqCst);
                        fs.wait_for_cleaning().await;
                        assert!(!fs.cleaning_blocks_jobs());
                        waits.fetch_add(1, Ordering::SeqCst);
                    }
                    env.sleep(1_000_000).await;
                }
            })
        };
        fs.clean_while_gaining().await.unwrap();
        let st = fs.stats();
        assert!(st.gc_zone_resets >= 1, "cleaning reclaimed no victim");
        assert!(st.gc_zone_resets <= st.zone_resets);
        done.store(true, Ordering::SeqCst);
        let _ = watcher.await;
        // Nothing runs now: waiting returns at once and adds nothing.
        let before = fs.stats().io_blocking_ns;
        fs.wait_for_cleaning().await;
        assert_eq!(fs.stats().io_blocking_ns, before);
        (
            seen.load(Ordering::SeqCst),
            waits.load(Ordering::SeqCst),
            fs.stats().io_blocking_ns,
        )
    })
    .unwrap()
}

#[test]
fn zone_cleaning_holds_jobs_back_in_whole_poll_steps() {
    let (seen, waits, blocking_ns) = run(POLL_NS);
    assert!(seen, "the watcher never saw cleaning hold jobs back");
    assert!(waits >= 1);
    assert!(blocking_ns >= POLL_NS, "blocking {blocking_ns} ns");
    assert_eq!(blocking_ns % POLL_NS, 0, "waits are whole poll steps");
}

#[test]
fn with_the_model_off_nothing_is_held_back() {
    let (seen, waits, blocking_ns) = run(0);
    assert!(!seen);
    assert_eq!((waits, blocking_ns), (0, 0));
}
