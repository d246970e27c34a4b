//! Files written and read back through random operation sequences match an in-memory model,
//! in simulation and in real mode, across clean remounts and crashes (writers dropped without
//! closing). After a crash every synced byte is present and a file never holds anything but a
//! prefix of what was appended to it.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZoneFileDevice, ZonedDevice};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, WritableFile, ZoneFs};

/// A small device the file layer accepts: 32 zones of 256 KiB (192 KiB capacity), 8 open / 8 active.
pub fn small_profile() -> Profile {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 32;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 8;
    p.validate().unwrap();
    p
}

fn opts() -> FsOptions {
    FsOptions {
        write_buffer_bytes: 16 << 10,
        ..FsOptions::default()
    }
}

struct Open<E: Env, D: ZonedDevice> {
    w: WritableFile<E, D>,
    appended: Vec<u8>,
    synced: usize,
}

async fn scenario<E: Env, D: ZonedDevice>(env: E, dev: Arc<D>, seed: u64, steps: usize) {
    ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await.unwrap();
    let mut fs = ZoneFs::mount(env.clone(), dev.clone(), opts())
        .await
        .unwrap();
    let mut rng = SimRng::seed_from_u64(seed);
    // Closed files: exact contents. Open files: appended bytes and synced length.
    let mut closed: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut open: BTreeMap<String, Open<E, D>> = BTreeMap::new();
    let names = [
        "a.sst",
        "b.sst",
        "c.log",
        "d.log",
        "MANIFEST-000001",
        "e.sst",
        "dir/f.sst",
    ];
    let mut appended_total = 0usize;
    for step in 0..steps {
        let op = rng.gen_range(0..100);
        // Append, sync and close pick an open file; read, delete and rename a closed one.
        let pool: Vec<String> = match op {
            15..=69 => open.keys().cloned().collect(),
            70..=91 => closed.keys().cloned().collect(),
            _ => names.iter().map(|n| (*n).to_owned()).collect(),
        };
        let name = if pool.is_empty() {
            names[0].to_owned()
        } else {
            pool[rng.gen_range(0..pool.len() as u64) as usize].clone()
        };
        match op {
            0..=14 => {
                if open.contains_key(&name) || open.len() >= 3 {
                    continue;
                }
                let lt = Lifetime::from_u8(rng.gen_range(2..6) as u8);
                let w = fs.create(&name, lt).await.unwrap();
                closed.remove(&name);
                open.insert(
                    name,
                    Open {
                        w,
                        appended: Vec::new(),
                        synced: 0,
                    },
                );
            }
            15..=49 => {
                if let Some(o) = open.get_mut(&name) {
                    let n = rng.gen_range(1..40_000) as usize;
                    let data: Vec<u8> = (0..n)
                        .map(|i| (i as u64 ^ seed ^ step as u64) as u8)
                        .collect();
                    match o.w.append(&data).await {
                        Ok(()) => {
                            appended_total += data.len();
                            o.appended.extend_from_slice(&data);
                        }
                        Err(zonedb_fs::FsError::NoSpace) => {}
                        Err(e) => panic!("append: {e}"),
                    }
                }
            }
            50..=59 => {
                if let Some(o) = open.get_mut(&name) {
                    o.w.sync().await.unwrap();
                    o.synced = o.appended.len();
                }
            }
            60..=69 => {
                if let Some(o) = open.remove(&name) {
                    o.w.close().await.unwrap();
                    closed.insert(name, o.appended);
                }
            }
            70..=74 => {
                if closed.remove(&name).is_some() {
                    fs.delete(&name).await.unwrap();
                }
            }
            75..=79 => {
                let to = names[rng.gen_range(0..names.len() as u64) as usize].to_owned();
                if closed.contains_key(&name) && !open.contains_key(&to) {
                    fs.rename(&name, &to).await.unwrap();
                    let v = closed.remove(&name).unwrap();
                    closed.insert(to, v);
                }
            }
            80..=91 => {
                if let Some(want) = closed.get(&name) {
                    let off = rng.gen_range(0..want.len() as u64 + 1);
                    let len = rng.gen_range(0..50_000);
                    let got = fs.read(&name, off, len).await.unwrap();
                    let end = (off + len).min(want.len() as u64) as usize;
                    assert_eq!(
                        got,
                        want[off as usize..end],
                        "step {step}: read {name} at {off}+{len}"
                    );
                }
            }
            92..=95 => {
                // Clean remount: close everything first.
                for (n, o) in std::mem::take(&mut open) {
                    o.w.close().await.unwrap();
                    closed.insert(n, o.appended);
                }
                drop(fs);
                fs = ZoneFs::mount(env.clone(), dev.clone(), opts())
                    .await
                    .unwrap();
            }
            _ => {
                // Crash: writers vanish without closing; synced bytes must survive.
                let lost = std::mem::take(&mut open);
                drop(fs);
                fs = ZoneFs::mount(env.clone(), dev.clone(), opts())
                    .await
                    .unwrap();
                for (n, o) in lost {
                    let got = fs.read_all(&n).await.unwrap();
                    assert!(
                        got.len() >= o.synced,
                        "step {step}: {n} lost synced bytes ({} < {})",
                        got.len(),
                        o.synced
                    );
                    assert_eq!(
                        got,
                        o.appended[..got.len()],
                        "step {step}: {n} holds bytes never appended"
                    );
                    closed.insert(n, got);
                }
            }
        }
        // Every closed file reads back exactly.
        if step % 25 == 0 {
            for (n, want) in &closed {
                assert_eq!(&fs.read_all(n).await.unwrap(), want, "step {step}: {n}");
            }
            let mut listed: Vec<String> = closed.keys().cloned().collect();
            listed.extend(open.keys().cloned());
            listed.sort();
            assert_eq!(fs.list(), listed);
        }
    }
    for (_, o) in std::mem::take(&mut open) {
        o.w.close().await.unwrap();
    }
    let st = fs.stats();
    eprintln!(
        "seed {seed}: appended {appended_total} B, files {}, resets {} since the last mount",
        st.files, st.zone_resets
    );
    assert!(
        appended_total > 256 << 10,
        "the scenario should move real data"
    );
}

#[test]
fn simulated_device_matches_the_model() {
    for seed in 0..12 {
        let env = SimEnv::new(SimConfig::with_seed(seed));
        let p = small_profile();
        let dev = Arc::new(
            ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap(),
        );
        env.run(scenario(env.clone(), dev, seed, 400)).unwrap();
    }
}

#[test]
fn file_backed_device_matches_the_model() {
    for seed in 100..103 {
        let dir = tempfile::tempdir().unwrap();
        let dev = Arc::new(ZoneFileDevice::create(dir.path(), small_profile().zones).unwrap());
        let env = RealEnv::new(seed);
        env.block_on(scenario(env.clone(), dev, seed, 300));
    }
}
