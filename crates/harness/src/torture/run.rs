//! One torture seed: rounds of open, check, workload with faults, and a clean close or a power
//! loss, on a simulated ZNS SSD in virtual time.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use zonedb_device::sim::spec::SimPayload;
use zonedb_device::{SimDevice, ZoneState, ZonedDevice};
use zonedb_env::{Env, SimConfig, SimEnv, SimRng};
use zonedb_fs::{FsOptions, ZoneFs};
use zonedb_lsm::LsmErrorKind;
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, Snapshot};

use super::config::TortureConfig;
use super::history::{History, State, Write, key, key_index, value};

type Dev = SimDevice<SimEnv>;
type Store = Db<SimEnv, Dev>;

/// What one seed did (all counts over the whole run).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SeedReport {
    /// The seed.
    pub seed: u64,
    /// Rounds run.
    pub rounds: u32,
    /// Writes issued (batches count once).
    pub writes: u64,
    /// Writes acknowledged.
    pub acked: u64,
    /// Synced writes acknowledged.
    pub synced: u64,
    /// Reads (gets, iterator steps, snapshot reads) whose result was checked.
    pub reads_checked: u64,
    /// Reads that returned an error (only while faults were on).
    pub read_errors: u64,
    /// Power losses.
    pub power_losses: u32,
    /// Power losses that tore writes.
    pub torn_power_losses: u32,
    /// Clean closes.
    pub clean_closes: u32,
    /// Opens that failed while read errors were on (each retried with them off).
    pub failed_opens: u32,
    /// Zones turned read-only.
    pub zones_read_only: u32,
    /// Zones taken offline.
    pub zones_offline: u32,
    /// Writes refused for lack of space.
    pub no_space_writes: u64,
    /// Opens that came up read-only (full device).
    pub read_only_opens: u32,
    /// Virtual time at the end (ns).
    pub virtual_ns: u64,
    /// CRC32C of the final contents (keys and values in order).
    pub digest: u32,
}

/// A seed that broke an invariant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TortureFailure {
    /// The seed.
    pub seed: u64,
    /// The round it happened in (`rounds` for the final check).
    pub round: u32,
    /// What went wrong.
    pub what: String,
    /// The last events before it.
    pub events: Vec<String>,
}

impl std::fmt::Display for TortureFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seed {} round {}: {}", self.seed, self.round, self.what)?;
        if !self.events.is_empty() {
            write!(f, "\n  last events: {}", self.events.join(" | "))?;
        }
        Ok(())
    }
}

/// How a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The store was closed cleanly: every acknowledged write must be there.
    Clean,
    /// Power was lost: every synced write must be there.
    PowerLoss,
}

/// State shared between the driver and the workload task.
#[derive(Debug, Default)]
#[allow(clippy::struct_excessive_bools, reason = "independent fault states")]
struct Shared {
    history: History,
    report: SeedReport,
    failure: Option<String>,
    events: Vec<String>,
    /// A zone was failed at some point (errors may follow at any time).
    zones_failed: bool,
    /// Read errors are being injected now.
    read_errors_on: bool,
    /// Read errors were on at some point since the last open.
    read_errors_since_open: bool,
    /// A write was refused for lack of space.
    full: bool,
    next_write: u64,
    /// The workload's current operation (named when a round hangs).
    doing: (u32, &'static str),
}

impl Shared {
    fn event(&mut self, at: u64, what: &str) {
        if self.events.len() == 24 {
            self.events.remove(0);
        }
        self.events.push(format!("{}us {what}", at / 1000));
    }

    /// Errors are allowed: a zone failed, or read errors were on at some point since the
    /// store was opened (a background job that hit one stops writes until the next open).
    fn faults_on(&self) -> bool {
        self.zones_failed || self.read_errors_on || self.read_errors_since_open
    }
}

type SharedRef = Arc<Mutex<Shared>>;

fn lock(s: &SharedRef) -> std::sync::MutexGuard<'_, Shared> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Virtual time an open (mount, fsck, recovery, full scan) may take before the seed fails as
/// stuck.
const OPEN_LIMIT_NS: u64 = 60_000_000_000;
/// Virtual time a round's workload and clean close may take (a round's own budget is well
/// under a second): more means the store stopped making progress.
const ROUND_LIMIT_NS: u64 = 60_000_000_000;

/// Runs `f` to completion, or fails when it has not finished `limit_ns` of virtual time later
/// (a hang is a broken invariant too: a write stalled forever, a recovery that loops).
fn run_bounded<T, F: Future<Output = T>>(
    env: &SimEnv,
    limit_ns: u64,
    what: &str,
    f: F,
) -> Result<T, String> {
    let deadline = env.now().saturating_add(limit_ns);
    let out = env
        .run(zonedb_env::until(env, deadline, f))
        .map_err(|e| format!("simulation ({what}): {e}"))?;
    out.ok_or_else(|| {
        format!(
            "{what} made no progress: unfinished after {} s of virtual time",
            limit_ns / 1_000_000_000
        )
    })
}

fn fs_options(cfg: &TortureConfig) -> Result<FsOptions, String> {
    Ok(FsOptions {
        cleaner: zonedb_fs::cleaning::by_name(cfg.cleaner, cfg.gc_threshold)
            .map_err(|e| e.to_string())?,
        placement: zonedb_fs::placement::by_name(cfg.placement).map_err(|e| e.to_string())?,
        write_buffer_bytes: cfg.fs_write_buffer,
        cleaning_interval_ns: cfg.cleaning_interval_ns,
        zone_append: cfg.zone_append,
        ..FsOptions::default()
    })
}

/// Mounts, fscks and opens the store, then reads everything it holds.
async fn open(env: &SimEnv, dev: &Arc<Dev>, cfg: &TortureConfig) -> Result<(Store, State), String> {
    let fs = ZoneFs::mount(env.clone(), dev.clone(), fs_options(cfg)?)
        .await
        .map_err(|e| format!("mount: {e}"))?;
    let problems = fs.fsck_quiesced().await;
    if !problems.is_empty() {
        return Err(format!(
            "fsck after mount: {} problems, first: {} {}",
            problems.len(),
            problems[0].file,
            problems[0].what
        ));
    }
    let db = Db::open(fs, cfg.options.clone())
        .await
        .map_err(|e| format!("open: {e}"))?;
    let all = db
        .scan(&[], &[], usize::MAX)
        .await
        .map_err(|e| format!("full scan after open: {e}"))?;
    let mut got = State::new();
    for (k, v) in all {
        let i = key_index(&k)
            .ok_or_else(|| format!("a key nobody wrote: {}", String::from_utf8_lossy(&k)))?;
        got.insert(i, v);
    }
    Ok((db, got))
}

/// Runs `cfg` to its end: `Ok` with what it did, or the first broken invariant.
///
/// # Errors
/// [`TortureFailure`] naming the seed, round and what broke.
pub fn run(cfg: &TortureConfig) -> Result<SeedReport, TortureFailure> {
    let env = SimEnv::new(SimConfig {
        seed: cfg.seed,
        shuffle_same_instant: true,
        ..SimConfig::default()
    });
    let shared: SharedRef = Arc::default();
    lock(&shared).report.seed = cfg.seed;
    let result = drive(&env, cfg, &shared);
    env.kill_all_tasks();
    let mut s = lock(&shared);
    s.report.virtual_ns = env.now();
    match result {
        Ok(()) => Ok(s.report.clone()),
        Err((round, what)) => Err(TortureFailure {
            seed: cfg.seed,
            round,
            what,
            events: std::mem::take(&mut s.events),
        }),
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "one round after another: open, check, workload, crash or close"
)]
fn drive(env: &SimEnv, cfg: &TortureConfig, shared: &SharedRef) -> Result<(), (u32, String)> {
    let dev = Arc::new(
        SimDevice::new(env.clone(), cfg.profile.clone(), &SimPayload::Memory)
            .map_err(|e| (0, format!("device: {e}")))?,
    );
    dev.set_checking(true);
    if cfg.faults.reset_delay_ns > 0 {
        let mut f = dev.faults();
        f.reset_delay_ns = cfg.faults.reset_delay_ns;
        dev.set_faults(f);
    }
    let d2 = dev.clone();
    env.run(async move { ZoneFs::<SimEnv, Dev>::mkfs(d2.as_ref(), 0).await })
        .map_err(|e| (0, format!("simulation: {e}")))?
        .map_err(|e| (0, format!("mkfs: {e}")))?;
    let mut rng = SimRng::seed_from_u64(cfg.seed ^ 0x746f_7274_7572_6501);
    let mut last_end = End::Clean;
    for round in 0..=cfg.rounds {
        let fail = |what: String| (round, what);
        // Open (retrying once with read errors off: they are transient), then check.
        let (db, got) = match open_round(env, &dev, cfg, shared) {
            Ok(x) => x,
            Err(first) => {
                if !lock(shared).read_errors_on {
                    return Err(fail(first));
                }
                env.kill_all_tasks();
                lock(shared).report.failed_opens += 1;
                set_read_errors(&dev, cfg, shared, false, env.now());
                open_round(env, &dev, cfg, shared)
                    .map_err(|e| fail(format!("{e} (first attempt, with read errors: {first})")))?
            }
        };
        {
            let mut s = lock(shared);
            let need = match last_end {
                End::Clean => s.history.acked,
                End::PowerLoss => s.history.synced,
            };
            if s.history.matching_prefix(&got, need).is_none() {
                let detail = s.history.describe_difference(&got, need);
                return Err(fail(format!(
                    "after a {} the store holds no prefix of the writes with the {} ones ({} writes, {} acknowledged, {} synced): {detail}",
                    if last_end == End::Clean {
                        "clean close"
                    } else {
                        "power loss"
                    },
                    if last_end == End::Clean {
                        "acknowledged"
                    } else {
                        "synced"
                    },
                    s.history.writes.len(),
                    s.history.acked,
                    s.history.synced,
                )));
            }
            if db.background_error().is_some() {
                s.report.read_only_opens += 1;
            }
            s.read_errors_since_open = s.read_errors_on;
            s.history = History::new(got.clone());
        }
        if round == cfg.rounds {
            let mut crc = 0u32;
            for (k, v) in &got {
                crc = crc32c::crc32c_append(crc, &key(*k));
                crc = crc32c::crc32c_append(crc, v);
            }
            lock(shared).report.digest = crc;
            let closed = run_bounded(env, ROUND_LIMIT_NS, "final close", async move {
                db.close().await
            })
            .map_err(fail)?;
            closed.map_err(|e| fail(format!("final close: {e}")))?;
            break;
        }
        lock(shared).report.rounds += 1;
        // The workload, ended by a power loss at a random instant or a clean close.
        let power_loss = cfg.faults.power_loss && rng.gen_range(0..100) < 55;
        let budget = u64::from(cfg.ops_per_round) * 60_000;
        let crash_at = env.now() + rng.gen_range(0..budget.max(1));
        let task_seed = rng.next_u64();
        let (s3, c3) = (shared.clone(), cfg.clone());
        let (e2, d2, s2, c2, db2) = (
            env.clone(),
            dev.clone(),
            shared.clone(),
            cfg.clone(),
            db.clone(),
        );
        let ran = run_bounded(env, ROUND_LIMIT_NS, "the round's workload", async move {
            let h = e2.spawn(
                "torture-workload",
                workload(e2.clone(), db2, d2, s2, c2, task_seed),
            );
            if power_loss {
                zonedb_env::until(&e2, crash_at, async move {
                    let _ = h.await;
                })
                .await;
                false
            } else {
                let _ = h.await;
                lock(&s3).doing = (c3.ops_per_round, "clean close");
                db.close().await.is_ok()
            }
        });
        let closed = ran.map_err(|e| {
            let s = lock(shared);
            fail(format!(
                "{e} (operation {} of {}: {})",
                s.doing.0, cfg.ops_per_round, s.doing.1
            ))
        })?;
        if let Some(f) = lock(shared).failure.take() {
            return Err(fail(f));
        }
        env.kill_all_tasks();
        let now = env.now();
        if closed {
            last_end = End::Clean;
            let mut s = lock(shared);
            s.report.clean_closes += 1;
            s.event(now, "clean close");
        } else {
            last_end = End::PowerLoss;
            let torn = cfg.faults.torn_writes;
            let mut f = dev.faults();
            f.torn_writes = torn;
            f.seed = rng.next_u64();
            dev.set_faults(f);
            dev.power_cycle()
                .map_err(|e| fail(format!("power cycle: {e}")))?;
            let mut s = lock(shared);
            s.report.power_losses += 1;
            s.report.torn_power_losses += u32::from(torn);
            s.event(
                now,
                &format!("power loss{}", if torn { " (torn)" } else { "" }),
            );
        }
    }
    Ok(())
}

fn open_round(
    env: &SimEnv,
    dev: &Arc<Dev>,
    cfg: &TortureConfig,
    shared: &SharedRef,
) -> Result<(Store, State), String> {
    let (e2, d2, c2) = (env.clone(), dev.clone(), cfg.clone());
    let r = run_bounded(env, OPEN_LIMIT_NS, "open", async move {
        open(&e2, &d2, &c2).await
    })?;
    let now = env.now();
    lock(shared).event(
        now,
        &match &r {
            Ok((_, s)) => format!("opened: {} keys", s.len()),
            Err(e) => format!("open failed: {e}"),
        },
    );
    r
}

fn set_read_errors(dev: &Dev, cfg: &TortureConfig, shared: &SharedRef, on: bool, now: u64) {
    let mut f = dev.faults();
    f.read_error_one_in = if on { cfg.faults.read_error_one_in } else { 0 };
    f.seed = f.seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    dev.set_faults(f);
    let mut s = lock(shared);
    s.read_errors_on = on;
    s.read_errors_since_open |= on;
    s.event(
        now,
        &format!("read errors {}", if on { "on" } else { "off" }),
    );
}

/// A fault event, drawn before each operation.
fn maybe_fault(env: &SimEnv, dev: &Dev, cfg: &TortureConfig, shared: &SharedRef, rng: &mut SimRng) {
    let now = env.now();
    let fm = cfg.faults;
    if fm.read_error_one_in > 0 && rng.gen_range(0..150) == 0 {
        let on = !lock(shared).read_errors_on;
        set_read_errors(dev, cfg, shared, on, now);
    }
    if fm.read_only_zones && rng.gen_range(0..700) == 0 {
        let zones = dev.report_zones(0, dev.geometry().zone_count);
        let with_data: Vec<u32> = zones
            .iter()
            // Data zones only: with every metadata zone failed there is nowhere to write
            // metadata, and mount refuses (a clear error, not a torture finding).
            .filter(|z| {
                z.index >= zonedb_fs::META_ZONES
                    && matches!(
                        z.state,
                        ZoneState::ImplicitlyOpen
                            | ZoneState::ExplicitlyOpen
                            | ZoneState::Closed
                            | ZoneState::Full
                    )
            })
            .map(|z| z.index)
            .collect();
        if !with_data.is_empty() {
            let z = with_data[rng.gen_range(0..with_data.len() as u64) as usize];
            if dev.fail_zone(z, false).is_ok() {
                let mut s = lock(shared);
                s.zones_failed = true;
                s.report.zones_read_only += 1;
                s.event(now, &format!("zone {z} read-only"));
            }
        }
    }
    if fm.offline_zones && rng.gen_range(0..700) == 0 {
        let zones = dev.report_zones(0, dev.geometry().zone_count);
        let empty: Vec<u32> = zones
            .iter()
            .filter(|z| z.index >= zonedb_fs::META_ZONES && z.state == ZoneState::Empty)
            .map(|z| z.index)
            .collect();
        // Keep a few empty zones: an offline zone is lost capacity.
        if empty.len() > 4 {
            let z = empty[rng.gen_range(0..empty.len() as u64) as usize];
            if dev.fail_zone(z, true).is_ok() {
                let mut s = lock(shared);
                s.zones_failed = true;
                s.report.zones_offline += 1;
                s.event(now, &format!("zone {z} offline"));
            }
        }
    }
}

/// Random puts, deletes, batches (some synced), gets, iterator runs, snapshots and flushes,
/// each read checked against the acknowledged state.
async fn workload(
    env: SimEnv,
    db: Store,
    dev: Arc<Dev>,
    shared: SharedRef,
    cfg: TortureConfig,
    seed: u64,
) {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut current = lock(&shared).history.base.clone();
    let mut snaps: Vec<(Snapshot<SimEnv, Dev>, State)> = Vec::new();
    for i in 0..cfg.ops_per_round {
        maybe_fault(&env, &dev, &cfg, &shared, &mut rng);
        let op = rng.gen_range(0..100);
        lock(&shared).doing = (
            i,
            match op {
                0..10 => "batch",
                10..55 => "write",
                55..72 => "get",
                72..82 => "iterator",
                82..88 => "snapshot",
                88..97 => "snapshot get",
                _ => "flush",
            },
        );
        let outcome = match op {
            0..55 => write_op(&db, &shared, &cfg, &mut rng, &mut current, op).await,
            55..72 => {
                let k = rng.gen_range(0..cfg.keys);
                let r = db.get(&key(k)).await;
                check_read(
                    &shared,
                    r.map(|v| (v == current.get(&k).cloned(), 1)),
                    || format!("get of key {k}"),
                )
            }
            72..82 => {
                let start = rng.gen_range(0..cfg.keys);
                let n = rng.gen_range(1..30) as usize;
                let r = if !snaps.is_empty() && rng.gen_range(0..2) == 0 {
                    let i = rng.gen_range(0..snaps.len() as u64) as usize;
                    let (s, st) = &snaps[i];
                    let mut it = db.iter_at(s);
                    iter_matches(&mut it, st, start, n).await
                } else {
                    let mut it = db.iter();
                    iter_matches(&mut it, &current, start, n).await
                };
                check_read(&shared, r, || format!("iterator from key {start}"))
            }
            82..88 => {
                if snaps.len() < 3 {
                    snaps.push((db.snapshot(), current.clone()));
                } else {
                    snaps.remove(rng.gen_range(0..3) as usize);
                }
                Ok(())
            }
            88..97 => {
                if snaps.is_empty() {
                    Ok(())
                } else {
                    let i = rng.gen_range(0..snaps.len() as u64) as usize;
                    let k = rng.gen_range(0..cfg.keys);
                    let (s, st) = &snaps[i];
                    let r = db.get_at(&key(k), s).await;
                    check_read(&shared, r.map(|v| (v == st.get(&k).cloned(), 1)), || {
                        format!("snapshot get of key {k}")
                    })
                }
            }
            _ => {
                let r = db.flush().await;
                match r {
                    Ok(()) => Ok(()),
                    Err(e) => Err(write_error(&shared, &e, "flush")),
                }
            }
        };
        match outcome {
            Ok(()) => {}
            Err(Stop::Failure(f)) => {
                lock(&shared).failure.get_or_insert(f);
                return;
            }
            Err(Stop::Refused) => return,
        }
    }
}

enum Stop {
    /// An invariant broke.
    Failure(String),
    /// A write was refused (under faults, or for lack of space): the round ends.
    Refused,
}

fn write_error(shared: &SharedRef, e: &zonedb_lsm::LsmError, what: &str) -> Stop {
    let mut s = lock(shared);
    if e.kind() == LsmErrorKind::NoSpace {
        s.full = true;
        s.report.no_space_writes += 1;
        return Stop::Refused;
    }
    if s.faults_on() {
        return Stop::Refused;
    }
    Stop::Failure(format!("{what} failed with no fault injected: {e}"))
}

fn check_read(
    shared: &SharedRef,
    r: Result<(bool, u64), zonedb_lsm::LsmError>,
    what: impl FnOnce() -> String,
) -> Result<(), Stop> {
    let mut s = lock(shared);
    match r {
        Ok((true, n)) => {
            s.report.reads_checked += n;
            Ok(())
        }
        Ok((false, _)) => Err(Stop::Failure(format!("{} returned wrong data", what()))),
        Err(e) => {
            if s.faults_on() {
                s.report.read_errors += 1;
                Ok(())
            } else {
                Err(Stop::Failure(format!(
                    "{} failed with no fault injected: {e}",
                    what()
                )))
            }
        }
    }
}

async fn iter_matches(
    it: &mut zonedb_lsm::DbIter<SimEnv, Dev>,
    want: &State,
    start: u64,
    n: usize,
) -> Result<(bool, u64), zonedb_lsm::LsmError> {
    it.seek(&key(start)).await?;
    let mut expected = want.range(start..);
    let mut steps = 0u64;
    while steps < n as u64 {
        let w = expected.next();
        match (it.valid(), w) {
            (false, None) => return Ok((true, steps)),
            (true, Some((k, v))) => {
                if it.key() != key(*k).as_slice() || it.value() != v.as_slice() {
                    return Ok((false, steps));
                }
            }
            _ => return Ok((false, steps)),
        }
        steps += 1;
        it.next().await?;
    }
    Ok((true, steps))
}

async fn write_op(
    db: &Store,
    shared: &SharedRef,
    cfg: &TortureConfig,
    rng: &mut SimRng,
    current: &mut State,
    op: u64,
) -> Result<(), Stop> {
    let count = if op < 10 { rng.gen_range(2..9) } else { 1 };
    let sync = rng.gen_range(0..10) == 0;
    let w_no = {
        let mut s = lock(shared);
        s.next_write += 1;
        s.next_write
    };
    let mut write: Write = Vec::new();
    let mut batch = WriteBatch::new();
    for _ in 0..count {
        let k = rng.gen_range(0..cfg.keys);
        if rng.gen_range(0..5) == 0 {
            batch.delete(&key(k));
            write.push((k, None));
        } else {
            let v = value(k, w_no, rng.gen_range(8..cfg.max_value + 1));
            batch.put(&key(k), &v);
            write.push((k, Some(v)));
        }
    }
    {
        let mut s = lock(shared);
        s.history.writes.push(write.clone());
        s.report.writes += 1;
    }
    let result = if sync {
        db.write_sync(batch).await
    } else {
        db.write(batch).await
    };
    match result {
        Ok(()) => {
            let mut s = lock(shared);
            s.history.acked = s.history.writes.len();
            s.report.acked += 1;
            if sync {
                s.history.synced = s.history.acked;
                s.report.synced += 1;
            }
            for (k, v) in write {
                match v {
                    Some(v) => current.insert(k, v),
                    None => current.remove(&k),
                };
            }
            Ok(())
        }
        Err(e) => Err(write_error(shared, &e, "write")),
    }
}
