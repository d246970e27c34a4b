//! Cleaning on a device whose zone capacity equals its zone size (as on the `splitzns-paper`
//! profile): migrated extents must stay inside one zone each, never overlap another file, and
//! every file must read back byte for byte. Before the fix, an extent copied across two
//! migration zones that happened to be neighbours was merged into one extent crossing the
//! zone end, so fsck found overlaps and reads returned another file's bytes.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd};
use zonedb_env::{SimConfig, SimEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

fn device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.zone_capacity_bytes = p.zones.zone_size_bytes;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap())
}

fn contents(name: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 * 131 + name * 7) as u8)
        .collect()
}

/// Writes files of 20-300 KiB (so most span zones) with `cleaner`, deleting random ones to keep
/// `keep`, cleaning after every file; checks fsck and every file's bytes after each cleaning pass.
fn churn(cleaner: &str, keep: usize, seed: u64) -> u64 {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = device(&env);
    let e2 = env.clone();
    let cleaner = zonedb_fs::cleaning::by_name(cleaner, 90).unwrap();
    env.run(async move {
        ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(dev.as_ref(), 0)
            .await
            .unwrap();
        let opts = FsOptions {
            write_buffer_bytes: 16 << 10,
            cleaner,
            cleaning_interval_ns: 0,
            ..FsOptions::default()
        };
        let fs = ZoneFs::mount(e2, dev, opts).await.unwrap();
        let mut rng = SimRng::seed_from_u64(seed);
        let mut live: BTreeMap<u64, usize> = BTreeMap::new();
        for n in 0..120u64 {
            let len = rng.gen_range(20_000..300_000) as usize;
            let name = format!("{n:06}.sst");
            let lifetime = Lifetime::from_u8(rng.gen_range(2..6) as u8);
            let mut w = match fs.create(&name, lifetime).await {
                Ok(w) => w,
                Err(zonedb_fs::FsError::NoSpace) => break,
                Err(e) => panic!("{e}"),
            };
            let data = contents(n, len);
            if w.append(&data).await.is_err() || w.close().await.is_err() {
                fs.delete(&name).await.unwrap();
                break;
            }
            live.insert(n, len);
            while live.len() > keep {
                let victim = *live
                    .keys()
                    .nth(rng.gen_range(0..live.len() as u64) as usize)
                    .unwrap();
                live.remove(&victim);
                fs.delete(&format!("{victim:06}.sst")).await.unwrap();
            }
            fs.clean_while_gaining().await.unwrap();
            let problems = fs.fsck();
            assert!(problems.is_empty(), "after file {n}: {problems:?}");
            for (&m, &len) in &live {
                let got = fs.read_all(&format!("{m:06}.sst")).await.unwrap();
                assert!(got == contents(m, len), "file {m} reads back other bytes");
            }
        }
        fs.stats().gc_copied_bytes
    })
    .unwrap()
}

#[test]
fn greedy_cleaning_keeps_every_extent_inside_its_zone() {
    let copied: u64 = (0..6).map(|seed| churn("greedy", 6, seed)).sum();
    assert!(copied > 1 << 20, "cleaning copied only {copied} bytes");
}

#[test]
fn zenfs_cleaning_keeps_every_extent_inside_its_zone() {
    let copied: u64 = (0..6).map(|seed| churn("zenfs", 32, seed)).sum();
    assert!(copied > 0, "cleaning never ran");
}
