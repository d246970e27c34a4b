//! Shared set-up for the engine's integration tests: a small simulated ZNS SSD, small engine
//! options that build a multi-level tree from a few thousand writes, and an op generator.
#![allow(dead_code, clippy::unwrap_used, reason = "test support")]

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::payload::Payload;
use zonedb_device::{Profile, ZnsSsd, ZonedDevice};
use zonedb_env::{Env, SimEnv, SimRng};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::Db;
use zonedb_lsm::options::DbOptions;

/// The `tiny` profile with `zones` zones and roomy open/active limits.
pub fn profile(zones: u32) -> Profile {
    let mut p = Profile::by_name("tiny").unwrap();
    p.zones.zone_count = zones;
    p.zones.max_open_zones = 8;
    p.zones.max_active_zones = 10;
    p.validate().unwrap();
    p
}

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
        // Small, so MANIFEST rolls happen (and are recovered from) in every test.
        max_manifest_file_size: 16 << 10,
        ..DbOptions::default()
    }
}

/// File layer options for tests (small write buffers so zone switches happen often).
pub fn fs_options() -> FsOptions {
    FsOptions {
        write_buffer_bytes: 16 << 10,
        ..FsOptions::default()
    }
}

/// A simulated device of `zones` zones with memory payload.
pub fn sim_device(env: &SimEnv, zones: u32) -> Arc<ZnsSsd<SimEnv>> {
    let p = profile(zones);
    Arc::new(ZnsSsd::new(env.clone(), p.clone(), Payload::memory(p.zones.zone_count)).unwrap())
}

/// Formats (if `format`) and mounts.
pub async fn mount<E: Env, D: ZonedDevice>(
    env: &E,
    dev: &Arc<D>,
    format: bool,
) -> Arc<ZoneFs<E, D>> {
    if format {
        ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await.unwrap();
    }
    ZoneFs::mount(env.clone(), dev.clone(), fs_options())
        .await
        .unwrap()
}

/// Formats and mounts with `opts` (a placement or cleaner of the test's own).
pub async fn format_and_mount_with<E: Env, D: ZonedDevice>(
    env: &E,
    dev: &Arc<D>,
    opts: FsOptions,
) -> Arc<ZoneFs<E, D>> {
    ZoneFs::<E, D>::mkfs(dev.as_ref(), 0).await.unwrap();
    ZoneFs::mount(env.clone(), dev.clone(), opts).await.unwrap()
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

/// db_bench's fillrandom in small: `ops` puts of random keys below `keys` (seeded by `seed`),
/// each value naming its key and operation; returns what each key last got.
pub async fn fill_random<E: Env, D: ZonedDevice>(
    db: &Db<E, D>,
    keys: u64,
    ops: u64,
    seed: u64,
) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut oracle = BTreeMap::new();
    let mut rng = SimRng::seed_from_u64(seed);
    for op in 0..ops {
        let k = rng.gen_range(0..keys);
        let v = value(k, op);
        db.put(&key(k), &v).await.unwrap();
        oracle.insert(key(k), v);
    }
    oracle
}

/// A test generator of elided values: the descriptor is a u64 seed (8 bytes LE); the value
/// is a compressible pattern of the seed, so Snappy finds something to do.
#[derive(Debug, Default)]
pub struct TestRegen;

impl zonedb_lsm::elided::ValueRegenerator for TestRegen {
    fn regenerate(&self, desc: &[u8], len: usize, out: &mut Vec<u8>) -> bool {
        let Ok(d) = <[u8; 8]>::try_from(desc) else {
            return false;
        };
        let seed = u64::from_le_bytes(d);
        out.extend((0..len as u64).map(|i| {
            let run = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i / 11)).wrapping_mul(31);
            b'a' + (run % 7) as u8 + if i % 5 == 0 { (seed % 13) as u8 } else { 0 }
        }));
        true
    }
}

/// The value [`TestRegen`] makes of `seed` and `len`.
pub fn regen_value(seed: u64, len: usize) -> Vec<u8> {
    let mut v = Vec::new();
    zonedb_lsm::elided::ValueRegenerator::regenerate(&TestRegen, &seed.to_le_bytes(), len, &mut v);
    v
}

/// One logical write of a crash workload: the keys it sets (`None` = delete).
pub type Op = Vec<(u64, Option<Vec<u8>>)>;

/// What a crash workload's writer issued.
#[derive(Debug, Default)]
pub struct WriteLog {
    /// Every write issued, in order.
    pub ops: Vec<Op>,
    /// Number of writes acknowledged when the last synced write was acknowledged.
    pub synced_prefix: usize,
}

/// Logs `op` as write number `i`, then commits `b` (synced if `sync`); `false` when the
/// write failed (the writer stops).
pub async fn logged_write<D: ZonedDevice>(
    db: &Db<SimEnv, D>,
    log: &std::sync::Mutex<WriteLog>,
    (i, op): (u64, Op),
    b: zonedb_lsm::batch::WriteBatch,
    sync: bool,
) -> bool {
    log.lock().unwrap().ops.push(op);
    let r = if sync {
        db.write_sync(b).await
    } else {
        db.write(b).await
    };
    if r.is_err() {
        return false;
    }
    if sync {
        log.lock().unwrap().synced_prefix = (i + 1) as usize;
    }
    true
}

/// A crash run: opens a fresh database with `cfg` on a simulated device, runs `writer` until
/// `crash_at` (ns), kills every task and cycles the device's power. Returns the environment
/// and device to reopen on, the virtual time the run ended, and what the writer issued.
pub fn run_until_power_loss<W, F>(
    seed: u64,
    crash_at: u64,
    cfg: zonedb_lsm::DbConfig,
    writer: W,
) -> (SimEnv, Arc<ZnsSsd<SimEnv>>, u64, WriteLog)
where
    W: FnOnce(Db<SimEnv, ZnsSsd<SimEnv>>, Arc<std::sync::Mutex<WriteLog>>) -> F + Send + 'static,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let env = crash_env(seed);
    let dev = sim_device(&env, 300);
    let (end, log) = run_on_until_power_loss(&env, &dev, fs_options(), crash_at, cfg, writer);
    dev.power_cycle().unwrap();
    (env, dev, end, log)
}

/// The environment of a crash run of `seed` (same-instant tasks shuffled).
pub fn crash_env(seed: u64) -> SimEnv {
    SimEnv::new(zonedb_env::SimConfig {
        seed,
        shuffle_same_instant: true,
        ..zonedb_env::SimConfig::default()
    })
}

/// [`run_until_power_loss`] on any device `dev` (formatted and mounted with `fs`); the caller
/// cycles the device's power. Returns the virtual time the run ended and what the writer
/// issued.
pub fn run_on_until_power_loss<D, W, F>(
    env: &SimEnv,
    dev: &Arc<D>,
    fs: FsOptions,
    crash_at: u64,
    cfg: zonedb_lsm::DbConfig,
    writer: W,
) -> (u64, WriteLog)
where
    D: ZonedDevice,
    W: FnOnce(Db<SimEnv, D>, Arc<std::sync::Mutex<WriteLog>>) -> F + Send + 'static,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let log: Arc<std::sync::Mutex<WriteLog>> = Arc::default();
    let (e2, d2, l2) = (env.clone(), dev.clone(), log.clone());
    env.run(async move {
        ZoneFs::<SimEnv, D>::mkfs(d2.as_ref(), 0).await.unwrap();
        let fs = ZoneFs::mount(e2.clone(), d2, fs).await.unwrap();
        let db = Db::open_with(fs, cfg).await.unwrap();
        let h = e2.spawn("writer", writer(db, l2));
        zonedb_env::until(&e2, crash_at, async move {
            let _ = h.await;
        })
        .await;
    })
    .unwrap();
    let end = env.now();
    env.kill_all_tasks();
    let log = std::mem::take(&mut *log.lock().unwrap());
    (end, log)
}

/// Asserts that `got` (keys `0..keys` recovered after a power loss) is the state after some
/// prefix of `log`'s writes that keeps every synced one (point-in-time recovery); returns the
/// length of that prefix.
pub fn assert_recovered_prefix(
    (seed, crash_at): (u64, u64),
    log: &WriteLog,
    got: &BTreeMap<u64, Vec<u8>>,
    keys: u64,
) -> usize {
    let mut state: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let apply = |state: &mut BTreeMap<u64, Vec<u8>>, op: &Op| {
        for (k, v) in op {
            match v {
                Some(v) => state.insert(*k, v.clone()),
                None => state.remove(k),
            };
        }
    };
    for op in &log.ops[..log.synced_prefix] {
        apply(&mut state, op);
    }
    let mismatched = |state: &BTreeMap<u64, Vec<u8>>, k: u64| state.get(&k) != got.get(&k);
    let mut diff: usize = (0..keys).filter(|&k| mismatched(&state, k)).count();
    let mut p = log.synced_prefix;
    while diff != 0 && p < log.ops.len() {
        let before: Vec<bool> = log.ops[p]
            .iter()
            .map(|(k, _)| mismatched(&state, *k))
            .collect();
        apply(&mut state, &log.ops[p]);
        // Count each key once even if the op touches it twice.
        let mut seen = Vec::new();
        for ((k, _), was) in log.ops[p].iter().zip(before) {
            if seen.contains(k) {
                continue;
            }
            seen.push(*k);
            let now = mismatched(&state, *k);
            match (was, now) {
                (true, false) => diff -= 1,
                (false, true) => diff += 1,
                _ => {}
            }
        }
        p += 1;
    }
    assert_eq!(
        diff,
        0,
        "seed {seed}, crash at {crash_at} ns: recovered state is no prefix of the writes \
         that keeps all {} synced ones ({} issued)",
        log.synced_prefix,
        log.ops.len()
    );
    p
}

/// After a power loss: opens the database on `fs` with `opts`, checks that it holds the state
/// after a prefix of `log` that keeps every synced write (keys `0..keys`; see
/// [`assert_recovered_prefix`]), that point reads agree with a scan, and that it takes writes
/// again; then closes it. `what` names the run in failures. Returns the prefix's length.
pub async fn reopen_and_verify<D: ZonedDevice>(
    fs: Arc<ZoneFs<SimEnv, D>>,
    opts: DbOptions,
    log: &WriteLog,
    (seed, crash_at): (u64, u64),
    keys: u64,
    what: &str,
) -> usize {
    let db = match Db::open(fs, opts).await {
        Ok(db) => db,
        Err(e) => panic!("{what} seed {seed}: reopen after power loss at {crash_at} ns: {e}"),
    };
    let got: BTreeMap<u64, Vec<u8>> = db
        .scan(&[], &[], usize::MAX)
        .await
        .unwrap()
        .into_iter()
        .map(|(k, v)| (std::str::from_utf8(&k).unwrap().parse().unwrap(), v))
        .collect();
    let p = assert_recovered_prefix((seed, crash_at), log, &got, keys);
    if std::env::var("ZONEDB_CRASH_DEBUG").is_ok() {
        eprintln!(
            "{what} seed {seed} crash {crash_at}: ops {} synced {} recovered keys {} prefix {p}",
            log.ops.len(),
            log.synced_prefix,
            got.len()
        );
    }
    for k in (0..keys).step_by(7) {
        assert_eq!(db.get(&key(k)).await.unwrap(), got.get(&k).cloned());
    }
    db.put(b"after", b"crash").await.unwrap();
    db.flush().await.unwrap();
    assert_eq!(
        db.get(b"after").await.unwrap().as_deref(),
        Some(&b"crash"[..])
    );
    db.close().await.unwrap();
    p
}
