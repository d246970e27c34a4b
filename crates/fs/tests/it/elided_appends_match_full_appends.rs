//! Elided appends through the file layer: a file appended with holes
//! (`WritableFile::append_elided`) reads back as its materialized bytes through `read`, and as
//! the appended logical string (holes where they were appended) through `read_elided`; the
//! same appends done with `append` of the materialized bytes leave identical device and file
//! layer counters, zone reports and virtual time, with cleaning, WAL framing, zone append and
//! the page cache; the device's payload memory holds only the stored bytes; cleaning migrates
//! holes as holes.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::sync::Arc;

use proptest::prelude::*;
use zonedb_device::{ElidedBytes, IoClass, ZnsSsd, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv, SimRng};
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{FsOptions, ZoneFs};

type Dev = ZnsSsd<SimEnv>;

fn device(env: &SimEnv) -> Arc<ZnsSsd<SimEnv>> {
    common::tiny_device(env)
}

/// A logical string of about `len` bytes whose value-like runs are holes: stored runs of 1-200
/// bytes between holes of 1-`max_hole` bytes (or no holes when `max_hole` is 0).
fn string(rng: &mut SimRng, len: u64, max_hole: u64) -> ElidedBytes {
    let mut e = ElidedBytes::new();
    while e.len() < len {
        let stored = rng.gen_range(1..200);
        let bytes: Vec<u8> = (0..stored).map(|_| rng.next_u64() as u8).collect();
        e.push_bytes(&bytes);
        if max_hole > 0 {
            e.push_hole(rng.gen_range(1..max_hole + 1));
        }
    }
    e
}

/// How a run appends.
#[derive(Debug, Clone, Copy)]
struct Setup {
    elided: bool,
    zone_append: bool,
    page_cache: bool,
    seed: u64,
}

/// What a run observed that must not depend on elision.
#[derive(Debug, PartialEq)]
struct Observed {
    device: String,
    fs: String,
    zones: String,
    now_ns: u64,
    /// Each live file's bytes (`read`).
    contents: Vec<Vec<u8>>,
}

/// What else the elided run saw: each live file's `read_elided`, what was appended to it, the
/// payload memory, and whether cleaning moved any extent.
struct Extra {
    elided_reads: Vec<ElidedBytes>,
    appended: Vec<ElidedBytes>,
    payload_bytes: u64,
    moved: bool,
}

/// SST-like and WAL-like files of random appends (some synced, some closed, one left open),
/// deletes, cleaning passes, a remount.
fn run(setup: Setup) -> (Observed, Extra) {
    let env = SimEnv::new(SimConfig {
        seed: setup.seed,
        ..SimConfig::default()
    });
    let dev = device(&env);
    let e2 = env.clone();
    let d2 = dev.clone();
    let (contents, extra) = env
        .run(async move {
            ZoneFs::<SimEnv, Dev>::mkfs(d2.as_ref(), 0).await.unwrap();
            let opts = || FsOptions {
                write_buffer_bytes: 16 << 10,
                cleaner: zonedb_fs::cleaning::by_name("greedy", 90).unwrap(),
                cleaning_interval_ns: 0,
                zone_append: setup.zone_append,
                page_cache_size_bytes: if setup.page_cache { 1 << 20 } else { 0 },
                ..FsOptions::default()
            };
            let fs = ZoneFs::mount(e2.clone(), d2.clone(), opts()).await.unwrap();
            let mut rng = SimRng::seed_from_u64(setup.seed);
            let mut files: Vec<(String, ElidedBytes)> = Vec::new();
            for n in 0..24u64 {
                let name = if n % 4 == 3 {
                    format!("{n:06}.log")
                } else {
                    format!("{n:06}.sst")
                };
                let mut w = fs
                    .create(&name, Lifetime::from_u8(2 + (n % 3) as u8))
                    .await
                    .unwrap();
                let mut all = ElidedBytes::new();
                let pieces = rng.gen_range(1..12);
                for _ in 0..pieces {
                    let len = rng.gen_range(1..40_000);
                    let max_hole = [0, 50, 5000][rng.gen_range(0..3) as usize];
                    let s = string(&mut rng, len, max_hole);
                    if setup.elided {
                        w.append_elided(&s).await.unwrap();
                    } else {
                        w.append(&s.materialize()).await.unwrap();
                    }
                    all.push(&s);
                    if rng.gen_range(0..4) == 0 {
                        w.sync().await.unwrap();
                    }
                }
                if n == 23 {
                    // Left open after a sync: mount recovers its tail.
                    w.sync().await.unwrap();
                    drop(w);
                } else {
                    w.close().await.unwrap();
                }
                files.push((name, all));
                if files.len() > 8 {
                    let victim = rng.gen_range(0..files.len() as u64 - 1) as usize;
                    let (name, _) = files.remove(victim);
                    fs.delete(&name).await.unwrap();
                }
            }
            let before: Vec<_> = files
                .iter()
                .map(|(n, _)| fs.stat(n).unwrap().extents)
                .collect();
            fs.clean_while_gaining().await.unwrap();
            let moved = files
                .iter()
                .zip(&before)
                .any(|((n, _), b)| &fs.stat(n).unwrap().extents != b);
            assert!(fs.fsck().is_empty(), "{:?}", fs.fsck());
            let before_remount = format!("{:?} {:?}", fs.stats(), fs.zone_report());
            drop(fs);
            let fs = ZoneFs::mount(e2.clone(), d2.clone(), opts()).await.unwrap();
            let mut contents = Vec::new();
            let mut elided_reads = Vec::new();
            let mut appended = Vec::new();
            for (name, all) in files {
                contents.push(fs.read_all(&name).await.unwrap());
                let size = fs.stat(&name).unwrap().size;
                elided_reads.push(
                    fs.read_elided(&name, 0, size, IoClass::QueryRead)
                        .await
                        .unwrap(),
                );
                appended.push(all);
            }
            let extra = Extra {
                elided_reads,
                appended,
                payload_bytes: d2.memory_payload_bytes().unwrap(),
                moved,
            };
            let fs_stats = format!("{before_remount} {:?}", fs.stats());
            let zones = format!("{:?}", fs.zone_report());
            ((contents, fs_stats, zones), extra)
        })
        .unwrap();
    let ((contents, fs, zones), extra) = (contents, extra);
    let observed = Observed {
        device: format!("{:?}", dev.stats()),
        fs,
        zones,
        now_ns: env.now(),
        contents,
    };
    (observed, extra)
}

fn check(zone_append: bool, page_cache: bool, seed: u64) {
    let setup = Setup {
        elided: false,
        zone_append,
        page_cache,
        seed,
    };
    let (full, full_extra) = run(setup);
    let (elided, extra) = run(Setup {
        elided: true,
        ..setup
    });
    assert_eq!(full, elided, "{setup:?}");
    for ((got, want), bytes) in extra
        .elided_reads
        .iter()
        .zip(&extra.appended)
        .zip(&full.contents)
    {
        assert_eq!(&got.materialize(), bytes);
        assert_eq!(&want.materialize(), bytes);
        if zone_append {
            // Zone appends carry materialized bytes.
            assert!(got.is_dense());
        } else {
            // Holes exactly where they were appended (the page cache keeps them as holes).
            assert!(got == want, "read_elided differs from what was appended");
        }
    }
    // The full run's device stored every byte; the elided one only the stored bytes.
    let stored: u64 = extra.appended.iter().map(|a| a.data().len() as u64).sum();
    let logical: u64 = extra.appended.iter().map(ElidedBytes::len).sum();
    assert!(full_extra.payload_bytes >= logical);
    if !zone_append {
        assert!(
            extra.payload_bytes < full_extra.payload_bytes,
            "{} vs {}",
            extra.payload_bytes,
            full_extra.payload_bytes
        );
        assert!(stored < logical);
    }
}

#[test]
fn elided_appends_leave_what_full_appends_leave() {
    check(false, false, 1);
}

#[test]
fn elided_appends_leave_what_full_appends_leave_with_zone_append() {
    check(true, false, 2);
}

#[test]
fn elided_appends_keep_their_holes_through_the_page_cache() {
    check(false, true, 3);
}

#[test]
fn cleaning_migrates_holes_as_holes() {
    // Find a seed whose cleaning moves extents (the greedy cleaner at 90%).
    let (seed, extra) = (10..40)
        .map(|seed| {
            let (_, e) = run(Setup {
                elided: true,
                zone_append: false,
                page_cache: false,
                seed,
            });
            (seed, e)
        })
        .find(|(_, e)| e.moved)
        .expect("some seed cleans");
    for (got, want) in extra.elided_reads.iter().zip(&extra.appended) {
        assert_eq!(got, want, "seed {seed}");
    }
}

/// Payload memory held after writing 2000 values of 24 stored bytes and a 1000-byte hole each
/// (elided) or their materialized bytes, and the file's size.
fn mostly_holes(elided: bool) -> (u64, u64) {
    let env = SimEnv::new(SimConfig::default());
    let dev = device(&env);
    let (d2, e2) = (dev.clone(), env.clone());
    env.run(async move {
        ZoneFs::<SimEnv, Dev>::mkfs(d2.as_ref(), 0).await.unwrap();
        let fs = ZoneFs::mount(e2, d2.clone(), FsOptions::default())
            .await
            .unwrap();
        let mut w = fs.create("000001.sst", Lifetime::Medium).await.unwrap();
        let mut value = ElidedBytes::new();
        value.push_bytes(&[7u8; 24]);
        value.push_hole(1000);
        for _ in 0..2000 {
            if elided {
                w.append_elided(&value).await.unwrap();
            } else {
                w.append(&value.materialize()).await.unwrap();
            }
        }
        w.close().await.unwrap();
        let back = fs.read_all("000001.sst").await.unwrap();
        assert!(
            back.chunks(1024)
                .all(|c| c[..24] == [7u8; 24] && c[24..].iter().all(|&b| b == 0))
        );
        (
            d2.memory_payload_bytes().unwrap(),
            fs.stat("000001.sst").unwrap().size,
        )
    })
    .unwrap()
}

#[test]
fn a_file_of_mostly_holes_takes_little_payload_memory() {
    let (full, size) = mostly_holes(false);
    let (elided, elided_size) = mostly_holes(true);
    assert_eq!((size, elided_size), (2000 * 1024, 2000 * 1024));
    // Exactly the holes are missing: 2 MB of file, 48 KB of stored bytes.
    assert_eq!(full - elided, 2000 * 1000);
    assert!(elided < full / 10, "{elided} of {full}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random hole patterns in random appends read back as the materialized bytes (`read`)
    /// and as the appended logical string (`read_elided`).
    #[test]
    fn random_hole_patterns_read_back(
        parts in proptest::collection::vec((0usize..3000, 0u64..9000), 1..30),
        wal in proptest::bool::ANY,
        split in 1usize..5,
    ) {
        let env = SimEnv::new(SimConfig::default());
        let dev = device(&env);
        let (d2, e2) = (dev.clone(), env.clone());
        let (want, read, elided) = env
            .run(async move {
                ZoneFs::<SimEnv, Dev>::mkfs(d2.as_ref(), 0).await.unwrap();
                let opts = FsOptions { write_buffer_bytes: 8 << 10, ..FsOptions::default() };
                let fs = ZoneFs::mount(e2, d2, opts).await.unwrap();
                let name = if wal { "000009.log" } else { "000009.sst" };
                let mut w = fs.create(name, Lifetime::Short).await.unwrap();
                let mut all = ElidedBytes::new();
                for (i, chunk) in parts.chunks(split).enumerate() {
                    let mut s = ElidedBytes::new();
                    for &(stored, hole) in chunk {
                        s.push_bytes(&vec![(i * 31 + stored) as u8; stored]);
                        s.push_hole(hole);
                    }
                    w.append_elided(&s).await.unwrap();
                    all.push(&s);
                    if i % 3 == 2 {
                        w.sync().await.unwrap();
                    }
                }
                w.close().await.unwrap();
                let read = fs.read_all(name).await.unwrap();
                let elided = fs.read_elided(name, 0, all.len(), IoClass::QueryRead).await.unwrap();
                (all, read, elided)
            })
            .unwrap();
        prop_assert_eq!(&read, &want.materialize());
        prop_assert_eq!(&elided, &want);
    }
}
