//! The engine against a `BTreeMap` oracle: random puts, deletes, batches, gets, scans,
//! snapshots, flushes and reopens, checked after every read; at the end a full scan and a get
//! of every key, and exactly one MANIFEST left. Small engine options build a multi-level tree
//! from a few thousand writes.

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZonedDevice;
use zonedb_env::{Env, SimRng};
use zonedb_fs::ZoneFs;
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::options::DbOptions;
use zonedb_lsm::{Db, DbStats, Snapshot};

use super::{Failure, ensure};

type Oracle = BTreeMap<Vec<u8>, Vec<u8>>;

/// Engine options scaled down ~1000×: 64 KiB memtables and files, 256 KiB L1.
pub fn small_options() -> DbOptions {
    DbOptions {
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        block_size: 1 << 10,
        block_cache_size: 256 << 10,
        level0_slowdown_writes_trigger: 8,
        level0_stop_writes_trigger: 12,
        max_background_jobs: 4,
        // Small, so MANIFEST rolls happen (and are recovered from) in every run.
        max_manifest_file_size: 16 << 10,
        ..DbOptions::default()
    }
}

/// Key `i` as db_bench would print it (16 bytes, zero-padded).
pub fn key(i: u64) -> Vec<u8> {
    format!("{i:016}").into_bytes()
}

/// A value that names its key and version, of a length that varies with both.
pub fn value(k: u64, version: u64) -> Vec<u8> {
    let len = ((k * 7 + version * 13) % 180 + 8) as usize;
    let mut v = format!("{k}:{version}:").into_bytes();
    v.resize(len, b'a' + (version % 26) as u8);
    v
}

const KEYS: u64 = 3000;

async fn check_scan<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    oracle: &Oracle,
    rng: &mut SimRng,
    op: u64,
) -> Result<(), Failure> {
    let start = key(rng.gen_range(0..KEYS));
    let limit = rng.gen_range(1..40) as usize;
    let got = db.scan(&start, &[], limit).await?;
    let want: Vec<(Vec<u8>, Vec<u8>)> = oracle
        .range(start.clone()..)
        .take(limit)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    ensure(
        got == want,
        format!("op {op}: scan from {}", String::from_utf8_lossy(&start)),
    )
}

async fn check_snapshot<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    snap: &(Snapshot<E, D>, Oracle),
    k: u64,
    op: u64,
) -> Result<(), Failure> {
    let (s, o) = snap;
    let kk = key(k);
    ensure(
        db.get_at(&kk, s).await?.as_ref() == o.get(&kk),
        format!("op {op}: snapshot get"),
    )?;
    let mut it = db.iter_at(s);
    it.seek(&kk).await?;
    for (wk, wv) in o.range(kk.clone()..).take(10) {
        ensure(it.valid(), format!("op {op}: snapshot iterator goes on"))?;
        ensure(
            (it.key(), it.value()) == (&wk[..], &wv[..]),
            format!("op {op}: snapshot scan"),
        )?;
        it.next().await?;
    }
    Ok(())
}

fn random_batch(rng: &mut SimRng, oracle: &mut Oracle, k: u64, op: u64) -> WriteBatch {
    let mut b = WriteBatch::new();
    for j in 0..rng.gen_range(1..8) {
        let kk = (k + j * 17) % KEYS;
        if rng.gen_range(0..4) == 0 {
            b.delete(&key(kk));
            oracle.remove(&key(kk));
        } else {
            let v = value(kk, op * 10 + j);
            b.put(&key(kk), &v);
            oracle.insert(key(kk), v);
        }
    }
    b
}

/// Opens a database on `fs` and runs `ops` random operations with `seed`; returns the open
/// database after the final checks.
///
/// # Errors
/// The first divergence from the oracle, or an unexpected error.
pub async fn run<E: Env, D: ZonedDevice>(
    fs: Arc<ZoneFs<E, D>>,
    seed: u64,
    ops: u64,
) -> Result<Db<E, D>, Failure> {
    let db_opts = small_options();
    let mut db = Db::open(fs.clone(), db_opts.clone()).await?;
    let mut oracle = Oracle::new();
    let mut rng = SimRng::seed_from_u64(seed);
    let mut snaps: Vec<(Snapshot<E, D>, Oracle)> = Vec::new();
    for op in 0..ops {
        let r = rng.gen_range(0..1000);
        let k = rng.gen_range(0..KEYS);
        match r {
            0..=449 => {
                let v = value(k, op);
                db.put(&key(k), &v).await?;
                oracle.insert(key(k), v);
            }
            450..=549 => {
                db.delete(&key(k)).await?;
                oracle.remove(&key(k));
            }
            550..=599 => {
                let b = random_batch(&mut rng, &mut oracle, k, op);
                db.write(b).await?;
            }
            600..=899 => {
                let got = db.get(&key(k)).await?;
                ensure(
                    got.as_ref() == oracle.get(&key(k)),
                    format!("op {op}: get {k}"),
                )?;
            }
            900..=969 => check_scan(&db, &oracle, &mut rng, op).await?,
            970..=984 => {
                if snaps.len() >= 3 {
                    snaps.remove(0);
                }
                snaps.push((db.snapshot(), oracle.clone()));
            }
            985..=989 => {
                if let Some(s) = snaps.first() {
                    check_snapshot(&db, s, k, op).await?;
                }
            }
            990..=994 => db.flush().await?,
            _ => {
                // Reopen: snapshots do not survive it.
                snaps.clear();
                db.close().await?;
                db = Db::open(fs.clone(), db_opts.clone()).await?;
            }
        }
    }
    db.wait_for_compactions().await?;
    let all = db.scan(&[], &[], usize::MAX).await?;
    let want: Vec<(Vec<u8>, Vec<u8>)> =
        oracle.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    ensure(all.len() == want.len(), "the full scan has every key")?;
    ensure(all == want, "the full scan equals the oracle")?;
    for (k, v) in &oracle {
        ensure(
            db.get(k).await?.as_ref() == Some(v),
            format!("get {} at the end", String::from_utf8_lossy(k)),
        )?;
    }
    let manifests = fs
        .list()
        .into_iter()
        .filter(|n| n.starts_with("MANIFEST-"))
        .count();
    ensure(
        manifests == 1,
        format!("one MANIFEST is left, found {manifests}"),
    )?;
    Ok(db)
}

/// Runs [`run`], closes the database, reopens it and checks that it still has a multi-level
/// tree's worth of files and reads the same; returns the engine counters of the first open.
///
/// # Errors
/// As [`run`].
pub async fn run_and_reopen<E: Env, D: ZonedDevice>(
    fs: Arc<ZoneFs<E, D>>,
    seed: u64,
    ops: u64,
) -> Result<DbStats, Failure> {
    let db = run(fs.clone(), seed, ops).await?;
    let stats = db.stats();
    let before = db.scan(&[], &[], usize::MAX).await?;
    db.close().await?;
    let db = Db::open(fs, small_options()).await?;
    let after = db.scan(&[], &[], usize::MAX).await?;
    ensure(before == after, "a reopened database reads the same")?;
    db.close().await?;
    Ok(stats)
}
