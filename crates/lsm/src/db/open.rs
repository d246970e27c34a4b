//! Opening a database: the zone budget check, MANIFEST and WAL recovery, the new WAL and
//! MANIFEST an open writes, the sweep of files nothing refers to, and `Db::open` itself.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use zonedb_device::ZonedDevice;
use zonedb_env::Env;
use zonedb_fs::placement::Lifetime;
use zonedb_fs::{WritableFile, ZoneFs};

use super::wal_recovery::WalRecovery;
use super::{
    Db, DbConfig, Inner, Lifetimes, Recovered, State, WalWriter, apply_batch, background,
    block_cache_with_hints, source,
};
use crate::batch::WriteBatch;
use crate::error::BackgroundError;
use crate::hints::{Hint, HintListener};
use crate::log_format::{LogWriter, RecoveryMode, read_log};
use crate::memtable::MemTable;
use crate::options::DbOptions;
use crate::sst::TableBuilder;
use crate::version::manifest::{self, ManifestWriter, parse_name, sst_name, wal_name};
use crate::version::{Graveyard, Version, VersionEdit};
use crate::{CorruptionKind, LsmError, LsmErrorKind};

/// Open zones the engine needs for writing: the WAL's, the MANIFEST's (held while it is
/// open), one for everything else (a flush or compaction output, CURRENT), and the slot LIZA
/// keeps for the WAL (other writers may use all but one). With fewer, a flush waits for a
/// token that the WAL and the MANIFEST never give back.
pub const MIN_IO_OPEN_ZONES: u32 = 4;
/// Active zones the engine needs for writing: the WAL's, the MANIFEST's and one more (zones
/// no writer holds can be finished to free theirs).
pub const MIN_IO_ACTIVE_ZONES: u32 = 3;

/// Refuses a file layer whose open or active zone budget is too small for the engine (a
/// read-only mount writes nothing and needs none).
fn check_zone_budget<E: Env, D: ZonedDevice>(fs: &ZoneFs<E, D>) -> Result<(), LsmError> {
    if fs.is_read_only() {
        return Ok(());
    }
    let (open, active) = fs.io_zone_budget();
    for (what, n, min) in [
        ("open", open, MIN_IO_OPEN_ZONES),
        ("active", active, MIN_IO_ACTIVE_ZONES),
    ] {
        if n < min {
            return Err(LsmError::InvalidArgument(format!(
                "the device allows {n} {what} zones for data (after {} reserved); the engine needs at least {min}: use a device with max {what} zones >= {}",
                zonedb_fs::RESERVED_ZONES,
                min + zonedb_fs::RESERVED_ZONES
            )));
        }
    }
    Ok(())
}

async fn recover_version<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    opts: &DbOptions,
    graveyard: &Graveyard,
) -> Result<Recovered, LsmError> {
    let mut version = Version::new(opts.num_levels as usize);
    let mut log_number = 0;
    let mut next_file = 2;
    let mut last_seq = 0;
    let mut manifest_number = None;
    match manifest::read_manifest(fs).await? {
        None => {
            if !opts.create_if_missing {
                return Err(LsmError::InvalidArgument(
                    "database does not exist (create_if_missing is false)".into(),
                ));
            }
        }
        Some((number, edits)) => {
            manifest_number = Some(number);
            next_file = next_file.max(number + 1);
            for e in &edits {
                version = version.apply(e, graveyard)?;
                log_number = e.log_number.unwrap_or(log_number);
                next_file = e.next_file_number.unwrap_or(next_file).max(next_file);
                last_seq = e.last_sequence.unwrap_or(last_seq).max(last_seq);
                for (_, f) in &e.new_files {
                    next_file = next_file.max(f.number + 1);
                }
            }
        }
    }
    // Files dropped by old edits are long gone (or orphans, removed after recovery).
    graveyard.forget_dead();
    for (_, f) in version.all_files() {
        if !fs.exists(&sst_name(f.meta.number)) {
            return Err(LsmError::corrupt(
                CorruptionKind::Missing,
                &sst_name(f.meta.number),
                0,
                "file named by the MANIFEST is missing",
            ));
        }
    }
    for n in &fs.list() {
        if let Some((num, _)) = parse_name(n) {
            next_file = next_file.max(num + 1);
        }
    }
    Ok(Recovered {
        version,
        log_number,
        manifest_number,
        next_file,
        last_seq,
    })
}

/// Replays the WALs at or after `log_number` into a memtable, as `wal_recovery_mode` allows,
/// and reports what it dropped.
async fn replay_wals<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    opts: &DbOptions,
    log_number: u64,
    last_seq: &mut u64,
) -> Result<(MemTable, WalRecovery), LsmError> {
    let mut logs: Vec<u64> = fs
        .list()
        .iter()
        .filter_map(|n| parse_name(n))
        .filter(|&(num, kind)| kind == "log" && num >= log_number)
        .map(|(num, _)| num)
        .collect();
    logs.sort_unstable();
    let mem = MemTable::new();
    let mode = opts.wal_recovery_mode;
    let mut report = WalRecovery {
        mode,
        ..WalRecovery::default()
    };
    let mut stopped = false;
    for &num in &logs {
        let name = wal_name(num);
        if stopped {
            report.logs_not_replayed.push(name);
            continue;
        }
        let data = fs.read_all(&name).await?;
        let len = data.len() as u64;
        let contents = read_log(&name, &data, mode)?;
        report.add_log(&name, len, &contents);
        for (at, rec) in &contents.records {
            match WriteBatch::from_data(&name, rec) {
                Ok(b) => {
                    // Logs at or after the MANIFEST's log number hold only unflushed writes
                    // (the last sequence it records may be newer than them).
                    let s = apply_batch(&mem, &b)?;
                    *last_seq = (*last_seq).max(s);
                }
                Err(e) => match mode {
                    RecoveryMode::AbsoluteConsistency
                    | RecoveryMode::TolerateCorruptedTailRecords => {
                        return Err(LsmError::corruption(&name, *at, e.to_string()));
                    }
                    RecoveryMode::PointInTimeRecovery => {
                        report.add_bad_batch(&name, len, *at, e.to_string());
                        stopped = true;
                        break;
                    }
                    RecoveryMode::SkipAnyCorruptedRecords => {
                        report.add_bad_batch(&name, len, *at, e.to_string());
                    }
                },
            }
        }
        if contents.stopped_early && mode == RecoveryMode::PointInTimeRecovery {
            stopped = true;
        }
    }
    Ok((mem, report))
}

/// The file numbers an open takes: the L0 table of the recovered memtable, the new WAL and
/// the new MANIFEST.
#[derive(Debug, Clone, Copy)]
struct OpenNumbers {
    sst: u64,
    wal: u64,
    manifest: u64,
    next_file: u64,
}

impl OpenNumbers {
    /// Numbers from `next_file` on; the L0 table takes one only when there is a memtable to
    /// flush.
    fn after(next_file: u64, flush: bool) -> Self {
        let sst = next_file;
        let wal = next_file + u64::from(flush);
        Self {
            sst,
            wal,
            manifest: wal + 1,
            next_file: wal + 2,
        }
    }

    /// Deletes what a failed open may have created (best effort: the next open deletes
    /// whatever the live MANIFEST does not refer to anyway).
    async fn delete_created<E: Env, D: ZonedDevice>(&self, fs: &Arc<ZoneFs<E, D>>) {
        for name in [
            sst_name(self.sst),
            wal_name(self.wal),
            manifest::manifest_name(self.manifest),
            format!("{:06}.dbtmp", self.manifest),
        ] {
            if fs.exists(&name) {
                let _ = fs.delete(&name).await;
            }
        }
    }
}

/// The writing half of an open: flushes the recovered memtable to L0, starts a new WAL and a
/// new MANIFEST holding the whole tree. Returns the new version, WAL and MANIFEST.
#[allow(clippy::too_many_arguments)]
async fn write_open_state<E: Env, D: ZonedDevice>(
    env: &E,
    fs: &Arc<ZoneFs<E, D>>,
    opts: &DbOptions,
    hints: &dyn HintListener,
    graveyard: &Graveyard,
    version: Version,
    (mem, regen): (&MemTable, Option<&Arc<dyn crate::elided::ValueRegenerator>>),
    numbers: OpenNumbers,
    last_seq: u64,
) -> Result<(Version, Option<WritableFile<E, D>>, ManifestWriter<E, D>), LsmError> {
    let mut edit = VersionEdit::default();
    if !mem.is_empty() {
        // Nothing is dropped at recovery (smallest snapshot 0), as before.
        let (nf, _) = background::write_memtable(
            env,
            fs,
            hints,
            TableBuilder::new(background::table_options(opts)).with_regenerator(regen.cloned()),
            mem,
            0,
            (numbers.sst, 0),
            &|_| None,
        )
        .await?;
        edit.new_files.extend(nf);
    }
    let version = version.apply(&edit, graveyard)?;
    let wal_file = if opts.disable_wal {
        None
    } else {
        Some(fs.create(&wal_name(numbers.wal), Lifetime::Short).await?)
    };
    let mut snap = version.snapshot_edit();
    snap.log_number = Some(numbers.wal);
    snap.next_file_number = Some(numbers.next_file);
    snap.last_sequence = Some(last_seq);
    let mw = match ManifestWriter::create(fs, numbers.manifest, &snap).await {
        Ok(mw) => mw,
        Err(e) => {
            // The new WAL is given up so that the caller can delete it.
            if let Some(f) = wal_file {
                f.abandon().await?;
            }
            return Err(e);
        }
    };
    Ok((version, wal_file, mw))
}

/// What an open leaves to run with.
struct OpenState<E: Env, D: ZonedDevice> {
    version: Version,
    wal_file: Option<WritableFile<E, D>>,
    manifest: Option<ManifestWriter<E, D>>,
    wal_number: u64,
    next_file: u64,
    /// Set when the device had no room for recovery's writes: the database opens for reading.
    read_only: Option<BackgroundError>,
}

/// Makes room, then writes the recovered state ([`write_open_state`]). When that finds no
/// space, deletes what it created and opens for reading only: the old MANIFEST and WALs
/// still describe the database.
#[allow(clippy::too_many_arguments)]
async fn open_state<E: Env, D: ZonedDevice>(
    env: &E,
    fs: &Arc<ZoneFs<E, D>>,
    opts: &DbOptions,
    hints: &dyn HintListener,
    graveyard: &Graveyard,
    version: Version,
    (mem, regen): (&MemTable, Option<&Arc<dyn crate::elided::ValueRegenerator>>),
    log_number: u64,
    current_manifest: Option<u64>,
    next_file: u64,
    last_seq: u64,
) -> Result<OpenState<E, D>, LsmError> {
    // A file layer that takes no writes (mounted read-only, or left so by a mount that found
    // no room for its own metadata, as on a full host file system): nothing is deleted,
    // created or written; the database opens for reading only, as on a full device.
    if let Err(why) = fs.check_writable() {
        let why = LsmError::Fs(why);
        if current_manifest.is_none() {
            return Err(why);
        }
        return Ok(OpenState {
            version,
            wal_file: None,
            manifest: None,
            wal_number: log_number,
            next_file,
            read_only: Some(BackgroundError {
                // No room (a full host file system), or mounted read-only on purpose.
                kind: if why.kind() == LsmErrorKind::NoSpace {
                    LsmErrorKind::NoSpace
                } else {
                    LsmErrorKind::InvalidArgument
                },
                what: format!("opened read-only: {why}"),
                source: Some(Arc::new(why)),
            }),
        });
    }
    // Space first: what the live MANIFEST does not refer to (orphans of a crash or of an open
    // that failed) is deleted before recovery asks for a zone.
    if let Some(current) = current_manifest {
        remove_stale(fs, &version, log_number, current).await?;
    }
    let numbers = OpenNumbers::after(next_file, !mem.is_empty());
    let opened = write_open_state(
        env,
        fs,
        opts,
        hints,
        graveyard,
        version.clone(),
        (mem, regen),
        numbers,
        last_seq,
    )
    .await;
    match opened {
        Ok((version, wal_file, mw)) => {
            // Delete what the new MANIFEST does not refer to.
            remove_stale(fs, &version, numbers.wal, numbers.manifest).await?;
            Ok(OpenState {
                version,
                wal_file,
                manifest: Some(mw),
                wal_number: numbers.wal,
                next_file: numbers.next_file,
                read_only: None,
            })
        }
        Err(e) => {
            numbers.delete_created(fs).await;
            if e.kind() != LsmErrorKind::NoSpace {
                return Err(e);
            }
            let st = fs.stats();
            Ok(OpenState {
                version,
                wal_file: None,
                manifest: None,
                wal_number: log_number,
                next_file: numbers.next_file,
                read_only: Some(BackgroundError {
                    kind: LsmErrorKind::NoSpace,
                    what: format!(
                        "opened read-only: recovery found no space on the zoned device ({e}); \
                         {} bytes live, {} bytes of garbage",
                        st.used_bytes, st.garbage_bytes
                    ),
                    source: Some(Arc::new(e)),
                }),
            })
        }
    }
}

/// Deletes WALs older than `wal_number`, SSTs not in `version`, other MANIFESTs, temp files.
async fn remove_stale<E: Env, D: ZonedDevice>(
    fs: &Arc<ZoneFs<E, D>>,
    version: &Version,
    wal_number: u64,
    manifest_number: u64,
) -> Result<(), LsmError> {
    let live: BTreeSet<u64> = version.all_files().map(|(_, f)| f.meta.number).collect();
    for n in fs.list() {
        let stale = match parse_name(&n) {
            Some((num, "log")) => num < wal_number,
            Some((num, "sst")) => !live.contains(&num),
            Some((num, "manifest")) => num != manifest_number,
            _ => std::path::Path::new(&n)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("dbtmp")),
        };
        if stale {
            fs.delete(&n).await?;
        }
    }
    Ok(())
}

impl<E: Env, D: ZonedDevice> Db<E, D> {
    /// Opens (or creates) the database kept in `fs` with default picker and no hints.
    ///
    /// # Errors
    /// See [`Db::open_with`].
    pub async fn open(fs: Arc<ZoneFs<E, D>>, options: DbOptions) -> Result<Self, LsmError> {
        Self::open_with(fs, DbConfig::new(options)).await
    }

    /// Opens the database kept in `fs`: replays the MANIFEST, replays WALs newer than the
    /// flushed state into a memtable and flushes it to L0, starts a new WAL and MANIFEST, and
    /// deletes files nothing refers to.
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] for bad options or a missing database without
    /// `create_if_missing`; [`LsmError::Corruption`] for damaged metadata or WAL damage the
    /// recovery mode does not tolerate; file layer errors.
    pub async fn open_with(fs: Arc<ZoneFs<E, D>>, cfg: DbConfig) -> Result<Self, LsmError> {
        let opts = cfg.options.clone();
        opts.validate()?;
        check_zone_budget(&fs)?;
        let env = fs.env().clone();
        let graveyard: Graveyard = Arc::default();
        let Recovered {
            version,
            log_number,
            manifest_number: current_manifest,
            next_file,
            mut last_seq,
        } = recover_version(&fs, &opts, &graveyard).await?;
        let (mem, wal_recovery) = replay_wals(&fs, &opts, log_number, &mut last_seq).await?;
        // Every hint reaches the zone layer's policies as well as the caller's listener.
        let hints: Arc<dyn HintListener> = Arc::new(crate::hints::ToZoneLayer {
            fs: fs.clone(),
            next: cfg.hints.clone(),
        });
        let OpenState {
            version,
            wal_file,
            manifest: mw,
            wal_number,
            next_file,
            read_only,
        } = open_state(
            &env,
            &fs,
            &opts,
            &*hints,
            &graveyard,
            version,
            (&mem, cfg.regenerator.as_ref()),
            log_number,
            current_manifest,
            next_file,
            last_seq,
        )
        .await?;
        let block_cache = block_cache_with_hints(&opts, hints.clone(), fs.wants_evicted_blocks());
        let mut state = State::new(&opts, version, wal_number, next_file, last_seq);
        if read_only.is_some() {
            // The recovered writes stay in memory (their WALs are kept).
            state.mem = Arc::new(mem);
        }
        state.bg_error = read_only;
        if wal_file.is_some() {
            hints.on_hint(&Hint::wal_created(wal_number));
        }
        let inner = Arc::new(Inner {
            env,
            tables: Arc::new(source::TableCache::new(
                fs.clone(),
                Some(block_cache.clone()),
            )),
            fs,
            opts,
            picker: cfg.picker,
            hints,
            block_cache,
            state: Mutex::new(state),
            writer: tokio::sync::Mutex::new(WalWriter {
                file: wal_file,
                log: LogWriter::new(),
                number: wal_number,
                scratch: zonedb_device::ElidedBytes::new(),
            }),
            queue: Mutex::new(Vec::new()),
            manifest: tokio::sync::Mutex::new(mw),
            graveyard,
            buffers: Arc::new(Mutex::new(Vec::new())),
            built_ahead: Mutex::new(Vec::new()),
            lifetimes: Mutex::new(Lifetimes::default()),
            bg_done: tokio::sync::Notify::new(),
            wal_recovery,
            regenerator: cfg
                .regenerator
                .clone()
                .map_or_else(std::sync::OnceLock::new, std::sync::OnceLock::from),
        });
        // A file whose last version goes outside a job's own purge is deleted then.
        let weak = Arc::downgrade(&inner);
        let clock = inner.env.clone();
        inner.graveyard.attach(
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    background::purge_released(&inner);
                }
            }),
            Box::new(move || clock.now()),
        );
        background::refresh_scores(&inner);
        background::maybe_schedule(&inner);
        Ok(Self::from_inner(inner))
    }
}
