//! The fuzz targets' seed corpora (`fuzz/corpus/<target>/`) replayed on stable: every seed,
//! and a few hundred deterministic mutations of each (bit flips, truncations, splices), go
//! through the same decoder entry points the cargo-fuzz targets call, which must never panic.
//! `cargo test --profile ci --test it -- --ignored fuzz_corpus_replays::write_seed_corpora`
//! regenerates the seeds from a real store (WAL, MANIFEST, SSTs, metadata log, zone file).
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{IoClass, Profile, ZnsSsd, ZoneFileDevice, ZonedDevice};
use zonedb_env::{SimConfig, SimEnv, SimRng};
use zonedb_fs::record::{Unframed, unframe};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::Db;
use zonedb_lsm::log_format::{RecoveryMode, read_log};
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::sst::{MemSource, Table};

type Target = (&'static str, fn(&[u8]));

/// Every fuzz target: its name (as in `fuzz/fuzz_targets/`) and entry point.
const TARGETS: [Target; 13] = [
    ("zonefile_header", zonedb_device::zonefile::fuzz::header),
    ("zone_records", zonedb_device::zonefile::fuzz::zone_records),
    ("zonefile_dir", zonedb_device::zonefile::fuzz::open_dir),
    ("zonefile_fsck", zonedb_fs::fsck::fuzz::zonefile_fsck),
    ("fs_record", zonedb_fs::record::fuzz::record),
    ("metadata_log", zonedb_fs::record::fuzz::metadata_log),
    ("sst_footer", zonedb_lsm::fuzz::sst_footer),
    ("sst_properties", zonedb_lsm::fuzz::sst_properties),
    ("sst_block", zonedb_lsm::fuzz::sst_block),
    ("sst_table", zonedb_lsm::fuzz::sst_table),
    ("log_records", zonedb_lsm::fuzz::log_records),
    ("write_batch", zonedb_lsm::fuzz::write_batch),
    ("version_edit", zonedb_lsm::fuzz::version_edit),
];

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
        .join(target)
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir(target))
        .unwrap_or_else(|e| panic!("corpus of {target}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// A deterministic mutation of `seed`.
fn mutate(seed: &[u8], rng: &mut SimRng) -> Vec<u8> {
    let mut d = seed.to_vec();
    for _ in 0..rng.gen_range(1..4) {
        let len = d.len() as u64;
        match rng.gen_range(0..5) {
            0 if len > 0 => {
                let i = rng.gen_range(0..len) as usize;
                d[i] ^= 1 << rng.gen_range(0..8);
            }
            1 if len > 0 => d.truncate(rng.gen_range(0..len) as usize),
            2 if len > 0 => {
                let i = rng.gen_range(0..len) as usize;
                d[i] = [0, 0xff, 0x7f, 0x80][rng.gen_range(0..4) as usize];
            }
            3 => {
                let i = rng.gen_range(0..len + 1) as usize;
                let n = rng.gen_range(1..9) as usize;
                d.splice(i..i, std::iter::repeat_n(rng.gen_range(0..256) as u8, n));
            }
            _ if len > 8 => {
                // Overwrite a varint-sized run with large values.
                let i = rng.gen_range(0..len - 8) as usize;
                d[i..i + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            }
            _ => {}
        }
    }
    d
}

#[test]
fn seed_corpora_and_their_mutations_never_panic() {
    for (name, f) in TARGETS {
        let seeds = seeds(name);
        assert!(!seeds.is_empty(), "{name}: empty seed corpus");
        let mut rng = SimRng::seed_from_u64(0x6675_7a7a);
        for s in &seeds {
            f(s);
            for _ in 0..300 {
                f(&mutate(s, &mut rng));
            }
        }
        f(&[]);
    }
}

/// A small table whose data blocks are compressed with `compression`.
fn compressed_table(compression: zonedb_lsm::options::Compression) -> Vec<u8> {
    use zonedb_lsm::key::{ValueType, internal_key};
    let mut b = zonedb_lsm::sst::TableBuilder::new(zonedb_lsm::sst::TableOptions {
        block_size: 512,
        restart_interval: 4,
        bloom_bits_per_key: 10,
        compression,
    });
    for i in 0..200u64 {
        let k = internal_key(format!("key{i:06}").as_bytes(), 1000 - i, ValueType::Value);
        b.add(
            &k,
            format!("value-{i}-{}", "x".repeat((i % 40) as usize)).as_bytes(),
        );
    }
    b.finish().0
}

#[test]
fn compressed_tables_and_their_mutations_never_panic() {
    use zonedb_lsm::options::Compression;
    let plain = compressed_table(Compression::None).len();
    let mut rng = SimRng::seed_from_u64(0x736e_6170);
    for c in [Compression::Snappy, Compression::Lz4] {
        let t = compressed_table(c);
        assert!(t.len() < plain, "{c:?}: blocks stored compressed");
        zonedb_lsm::fuzz::sst_table(&t);
        for _ in 0..1000 {
            zonedb_lsm::fuzz::sst_table(&mutate(&t, &mut rng));
        }
    }
}

#[test]
fn every_fuzz_target_has_a_corpus_and_a_harness() {
    for (name, _) in TARGETS {
        let target = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/fuzz_targets")
            .join(format!("{name}.rs"));
        let src = std::fs::read_to_string(&target).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(src.contains("fuzz_target!"), "{name}");
        assert!(corpus_dir(name).is_dir(), "{name}: no corpus");
    }
}

fn write(target: &str, i: usize, data: &[u8]) {
    let dir = corpus_dir(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("seed-{i:03}")), data).unwrap();
}

/// Builds a small store in simulation and writes what it finds on the device as seeds.
#[test]
#[ignore = "regenerates fuzz/corpus; run by hand"]
fn write_seed_corpora() {
    let env = SimEnv::new(SimConfig::default());
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = 40;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    let dev = Arc::new(ZnsSsd::new(env.clone(), p, Payload::memory(40)).unwrap());
    let (e2, d2) = (env.clone(), dev.clone());
    let files: Vec<(String, Vec<u8>)> = env
        .run(async move {
            ZoneFs::<SimEnv, ZnsSsd<SimEnv>>::mkfs(d2.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(e2.clone(), d2.clone(), FsOptions::default())
                .await
                .unwrap();
            let opts = DbOptions {
                write_buffer_size: 64 << 10,
                target_file_size_base: 16 << 10,
                max_bytes_for_level_base: 64 << 10,
                block_size: 1024,
                bloom_bits_per_key: 10,
                ..DbOptions::default()
            };
            let db = Db::open(fs.clone(), opts).await.unwrap();
            for i in 0..4000u64 {
                let k = format!("key{:06}", (i * 7919) % 1000);
                if i % 9 == 0 {
                    db.delete(k.as_bytes()).await.unwrap();
                } else {
                    db.put(
                        k.as_bytes(),
                        format!("value-{i}-{}", "x".repeat((i % 40) as usize)).as_bytes(),
                    )
                    .await
                    .unwrap();
                }
            }
            db.flush().await.unwrap();
            for i in 0..5u64 {
                let mut b = zonedb_lsm::batch::WriteBatch::new();
                b.put(format!("after-flush-{i}").as_bytes(), b"in the wal");
                b.delete(b"key000007");
                db.write_sync(b).await.unwrap();
            }
            let mut out = Vec::new();
            for name in fs.list() {
                out.push((name.clone(), fs.read_all(&name).await.unwrap()));
            }
            // The metadata log: the fullest metadata zone up to its write pointer.
            let z = d2
                .report_zones(0, zonedb_fs::META_ZONES)
                .into_iter()
                .max_by_key(|z| z.write_pointer - z.start)
                .unwrap();
            let meta = d2
                .read(z.start, z.write_pointer - z.start, IoClass::BackgroundRead)
                .await
                .unwrap();
            out.push(("metadata-zone".into(), meta));
            out
        })
        .unwrap();
    let mut n: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let put =
        |n: &mut std::collections::BTreeMap<&str, usize>, target: &'static str, data: &[u8]| {
            let i = n.entry(target).or_default();
            write(target, *i, data);
            *i += 1;
        };
    for (name, data) in &files {
        if name.ends_with(".log") || name.starts_with("MANIFEST") {
            put(&mut n, "log_records", data);
            let log = read_log(name, data, RecoveryMode::PointInTimeRecovery).unwrap();
            for (_, r) in log.records.iter().take(6) {
                put(
                    &mut n,
                    if name.ends_with(".log") {
                        "write_batch"
                    } else {
                        "version_edit"
                    },
                    r,
                );
            }
        } else if name.ends_with(".sst") && n.get("sst_table").copied().unwrap_or(0) < 3 {
            put(&mut n, "sst_table", data);
            put(&mut n, "sst_footer", data);
            let src = MemSource(Arc::new(data.clone()), name.clone());
            let table = env
                .run(Table::open(src, 1, data.len() as u64, None))
                .unwrap()
                .unwrap();
            put(&mut n, "sst_properties", &table.properties().encode());
            for i in 0..table.num_blocks().min(2) {
                let b = env.run(table.block(i)).unwrap().unwrap();
                put(&mut n, "sst_block", &b);
            }
        } else if name == "metadata-zone" {
            let mut with_block = vec![1u8];
            with_block.extend_from_slice(data);
            put(&mut n, "metadata_log", &with_block);
            let mut at = 0;
            while let Unframed::Record(payload, framed) = unframe(&data[at..], 4096) {
                put(&mut n, "fs_record", payload);
                at += framed;
                if n.get("fs_record").copied().unwrap_or(0) >= 8 {
                    break;
                }
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let g = Profile::by_name("tiny").unwrap().zones;
    drop(ZoneFileDevice::create(dir.path(), g).unwrap());
    put(
        &mut n,
        "zonefile_header",
        &std::fs::read(dir.path().join("HEADER")).unwrap(),
    );
    put(
        &mut n,
        "zone_records",
        &std::fs::read(dir.path().join("ZONES")).unwrap(),
    );
    for (target, count) in write_crafted_dir_seeds() {
        n.insert(target, count);
    }
    for (name, _) in TARGETS {
        assert!(n.get(name).copied().unwrap_or(0) > 0, "no seed for {name}");
    }
}

/// The crafted-directory seeds reach deep: the device opens and the file layer mounts with
/// both files (their mutations then exercise every check on the way).
#[test]
fn crafted_dir_seeds_open_and_mount() {
    for seed in seeds("zonefile_fsck") {
        let files = zonedb_device::zonefile::fuzz::with_crafted_dir(&seed, |dir, _| {
            let dev = Arc::new(ZoneFileDevice::open_read_only(dir).unwrap());
            let env = zonedb_env::RealEnv::new(0);
            let opts = FsOptions {
                read_only: true,
                ..FsOptions::default()
            };
            let fs = env.block_on(ZoneFs::mount(env.clone(), dev, opts)).unwrap();
            assert!(fs.fsck().is_empty(), "{:?}", fs.fsck());
            let mut names = fs.list();
            names.sort();
            names
        });
        assert_eq!(files, ["000004.log", "000005.sst"]);
    }
}

/// Writes the seeds of the crafted-directory targets (`zonefile_dir`, `zonefile_fsck`);
/// returns how many each got.
fn write_crafted_dir_seeds() -> [(&'static str, usize); 2] {
    let seeds = crafted_dir_seeds();
    for (i, data) in seeds.iter().enumerate() {
        write("zonefile_dir", i, data);
        write("zonefile_fsck", i, data);
    }
    [
        ("zonefile_dir", seeds.len()),
        ("zonefile_fsck", seeds.len()),
    ]
}

/// Regenerates the crafted-directory targets' seeds only.
#[test]
#[ignore = "regenerates fuzz/corpus/zonefile_{dir,fsck}; run by hand"]
fn write_crafted_dir_corpora() {
    write_crafted_dir_seeds();
}

/// Seeds of the crafted-directory targets (`zonedb_device::zonefile::fuzz::with_crafted_dir`'s
/// layout: flags, `HEADER`, `ZONES`, the start of `DATA`): a formatted 8-zone device with two
/// files (its metadata zone's log only), opened writable and read-only.
fn crafted_dir_seeds() -> Vec<Vec<u8>> {
    let g = zonedb_device::ZoneGeometry {
        zone_count: 8,
        zone_size_bytes: 64 << 10,
        zone_capacity_bytes: 48 << 10,
        block_size_bytes: 4096,
        max_open_zones: 6,
        max_active_zones: 6,
        zone_append_max_bytes: 16 << 10,
    };
    let dir = tempfile::tempdir().unwrap();
    let env = zonedb_env::RealEnv::new(0);
    // No background cleaner: it would keep the device (and its lock) open.
    let opts = || FsOptions {
        cleaning_interval_ns: 0,
        ..FsOptions::default()
    };
    {
        let dev = Arc::new(ZoneFileDevice::create(dir.path(), g.clone()).unwrap());
        env.block_on(async {
            ZoneFs::<zonedb_env::RealEnv, ZoneFileDevice>::mkfs(dev.as_ref(), 0)
                .await
                .unwrap();
            let fs = ZoneFs::mount(env.clone(), dev.clone(), opts())
                .await
                .unwrap();
            for (i, name) in ["000004.log", "000005.sst"].iter().enumerate() {
                let mut w = fs
                    .create(name, zonedb_fs::placement::Lifetime::Medium)
                    .await
                    .unwrap();
                w.append(&vec![b'a' + i as u8; 5000]).await.unwrap();
                w.close().await.unwrap();
            }
        });
    }
    // Each mount rolls the log to the next metadata zone: two more bring it back to zone 0,
    // where the crafted layout puts it.
    for _ in 0..2 {
        let dev = Arc::new(ZoneFileDevice::open(dir.path()).unwrap());
        drop(
            env.block_on(ZoneFs::mount(env.clone(), dev, opts()))
                .unwrap(),
        );
    }
    let meta = {
        let dev = ZoneFileDevice::open_read_only(dir.path()).unwrap();
        let z = dev
            .report_zones(0, zonedb_fs::META_ZONES)
            .into_iter()
            .max_by_key(|z| z.write_pointer - z.start)
            .unwrap();
        // The crafted layout puts its metadata at the start of DATA: zone 0.
        assert_eq!(z.index, 0, "the log rolled to another metadata zone");
        env.block_on(dev.read(z.start, z.write_pointer - z.start, IoClass::BackgroundRead))
            .unwrap()
    };
    // The files' data is not in the seed: their zones read as zeros.
    let zones = std::fs::read(dir.path().join("ZONES")).unwrap();
    let header = std::fs::read(dir.path().join("HEADER")).unwrap();
    [1u8, 3]
        .iter()
        .map(|&flags| {
            let mut s = vec![flags];
            s.extend_from_slice(&header);
            s.extend_from_slice(&zones);
            s.extend_from_slice(&meta);
            s
        })
        .collect()
}
