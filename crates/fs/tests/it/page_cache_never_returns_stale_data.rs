//! The page cache of buffered reads (`page_cache_size_bytes`): files written, read (cached),
//! deleted, recreated under the same names with other bytes, and moved by cleaning always read
//! back their own bytes; a file whose extents cleaning moved is read from the device again (its
//! pages were dropped), a file left in place is served from the cache without a device read.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::{ZnsSsd, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

fn device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    common::tiny_device(env)
}

/// Formats `dev` and mounts it with `opts`.
async fn fresh(
    env: SimEnv,
    dev: &Arc<ZnsSsd<SimEnv>>,
    opts: FsOptions,
) -> Arc<ZoneFs<SimEnv, ZnsSsd<SimEnv>>> {
    ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
        .await
        .unwrap();
    ZoneFs::mount(env, dev.clone(), opts).await.unwrap()
}

/// File `n`'s bytes in generation `generation` (a name reused gets other bytes).
fn contents(n: u64, generation: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 * 131 + n * 7 + generation * 29) as u8)
        .collect()
}

/// Returns (files read again after cleaning moved them, files read from the cache).
fn churn(seed: u64) -> (u64, u64) {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = device(&env);
    let e2 = env.clone();
    env.run(async move {
        let opts = FsOptions {
            write_buffer_bytes: 16 << 10,
            cleaner: zonedb_fs::cleaning::by_name("greedy", 90).unwrap(),
            cleaning_interval_ns: 0,
            page_cache_size_bytes: 64 << 20,
            ..FsOptions::default()
        };
        let fs = fresh(e2, &dev, opts).await;
        let mut rng = SimRng::seed_from_u64(seed);
        // name -> (generation, length)
        let mut live: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
        let (mut moved_reads, mut cached_reads) = (0, 0);
        for step in 0..80u64 {
            // Reuse names: a recreated file must never show its predecessor's cached bytes.
            let n = rng.gen_range(0..12);
            let name = format!("{n:06}.sst");
            let len = rng.gen_range(20_000..200_000) as usize;
            if live.contains_key(&n) {
                fs.delete(&name).await.unwrap();
                live.remove(&n);
            }
            let Ok(mut w) = fs.create(&name, Lifetime::from_u8(2 + (n % 4) as u8)).await else {
                break;
            };
            if w.append(&contents(n, step, len)).await.is_err() || w.close().await.is_err() {
                fs.delete(&name).await.unwrap();
                break;
            }
            live.insert(n, (step, len));
            // Read everything (fills the cache).
            for (&m, &(g, l)) in &live {
                let got = fs.read_all(&format!("{m:06}.sst")).await.unwrap();
                assert!(
                    got == contents(m, g, l),
                    "step {step}: file {m} before cleaning"
                );
            }
            let before: BTreeMap<u64, _> = live
                .keys()
                .map(|&m| (m, fs.stat(&format!("{m:06}.sst")).unwrap().extents))
                .collect();
            // One pass: a zone cleaned and then refilled by a second pass could take a file's
            // extent back to its old address, which the extent comparison would miss.
            fs.clean_once().await.unwrap();
            for (&m, &(g, l)) in &live {
                let name = format!("{m:06}.sst");
                let moved = fs.stat(&name).unwrap().extents != before[&m];
                let reads = dev.stats().reads;
                // Unaligned pieces too: a page straddled, the last partial page.
                let got = fs.read(&name, 1000, 9000).await.unwrap();
                assert!(
                    got == contents(m, g, l)[1000..10_000],
                    "step {step}: file {m}"
                );
                let got = fs.read_all(&name).await.unwrap();
                assert!(
                    got == contents(m, g, l),
                    "step {step}: file {m} after cleaning"
                );
                let device_reads = dev.stats().reads - reads;
                if moved {
                    assert!(
                        device_reads > 0,
                        "step {step}: moved file {m} served stale pages"
                    );
                    moved_reads += 1;
                } else {
                    assert_eq!(
                        device_reads, 0,
                        "step {step}: cached file {m} read the device"
                    );
                    cached_reads += 1;
                }
            }
        }
        let s = fs.page_cache_stats().unwrap();
        assert!(s.hits > 0 && s.invalidated > 0 && s.reads > 0, "{s:?}");
        (moved_reads, cached_reads)
    })
    .unwrap()
}

#[test]
fn page_cache_never_returns_stale_data() {
    let (mut moved, mut cached) = (0, 0);
    for seed in 0..4 {
        let (m, c) = churn(seed);
        moved += m;
        cached += c;
    }
    assert!(moved > 0, "cleaning never moved a cached file");
    assert!(cached > 0, "no read was served by the cache");
}

/// Sequential reads of a file in 4 KiB pieces go to the device in growing windows: a few
/// large reads, not one per piece; with `readahead_kb = 0`, one per piece.
#[test]
fn sequential_reads_go_to_the_device_in_readahead_windows() {
    let reads = |readahead_kb: u64| {
        let env = SimEnv::new(SimConfig::with_seed(1));
        let dev = device(&env);
        let e2 = env.clone();
        env.run(async move {
            let opts = FsOptions {
                page_cache_size_bytes: 8 << 20,
                readahead_kb,
                ..FsOptions::default()
            };
            let fs = fresh(e2, &dev, opts).await;
            let data = contents(1, 1, 1 << 20);
            let mut w = fs.create("a.sst", Lifetime::from_u8(3)).await.unwrap();
            w.append(&data).await.unwrap();
            w.close().await.unwrap();
            let before = dev.stats().reads;
            for off in (0..1u64 << 20).step_by(4096) {
                let got = fs.read("a.sst", off, 4096).await.unwrap();
                assert!(got == data[off as usize..off as usize + 4096]);
            }
            let windows = fs.page_cache_stats().unwrap().reads;
            let extents = fs.stat("a.sst").unwrap().extents.len() as u64;
            (dev.stats().reads - before, windows, extents)
        })
        .unwrap()
    };
    // 256 pages: windows of 4, 8, 16, then 8 of 32 pages; a window crossing an extent's end is
    // one device read per extent piece.
    let (device, windows, extents) = reads(128);
    assert_eq!(windows, 11);
    assert!(
        device >= windows && device < windows + extents,
        "{device} device reads"
    );
    let (device, windows, _) = reads(0);
    assert_eq!((device, windows), (256, 256));
}
