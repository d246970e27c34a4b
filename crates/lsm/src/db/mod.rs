//! The database: `Db::open` (recovery of the tree from the MANIFEST and of unflushed writes
//! from the WAL), the write path (group commit, stalls), the read path (get, iterators,
//! snapshots), and background flushes and compactions, all on one `Env`.
//!
//! - [`write`](mod@write) — group commit, WAL, memtable switch, write stalls.
//! - `background` — scheduling, flush, compaction jobs, SST output, install, obsolete files.
//! - [`iter`] — merging iterator and `DbIter`.
//! - [`source`] — tables over the zone layer, the table cache.
//! - [`stats`] — `DbStats`.

pub(crate) mod background;
pub mod check;
pub mod iter;
mod open;
pub use open::{MIN_IO_ACTIVE_ZONES, MIN_IO_OPEN_ZONES};
pub mod source;
pub mod stats;
pub(crate) mod tree_view;
pub mod wal_recovery;
pub mod write;
pub mod write_controller;
pub(crate) mod write_stall;
pub(crate) mod zones;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use zonedb_device::{IoClass, ZonedDevice};
use zonedb_env::Env;
use zonedb_fs::ZoneFs;

use crate::LsmError;
use crate::batch::WriteBatch;
use crate::block_cache::BlockCache;
use crate::compaction::CompactionPicker;
use crate::cost;
use crate::error::BackgroundError;
use crate::hints::{Hint, HintListener, NoHints};
use crate::key::{self, ValueType};
use crate::memtable::{Lookup, MemTable};
use crate::options::DbOptions;
use crate::version::manifest::{ManifestWriter, sst_name};
use crate::version::{FileMeta, Graveyard, Version};

pub use iter::DbIter;
pub use stats::{DbStats, FlushPhases, RunningCompactionInfo};
pub use wal_recovery::{WalDrop, WalRecovery};

use background::RunningCompaction;
use write::{Pending, WalWriter};

/// Everything needed to open a database besides the file layer.
#[derive(Debug, Clone)]
pub struct DbConfig {
    /// Engine options.
    pub options: DbOptions,
    /// Compaction picker (default: RocksDB's leveled picker).
    pub picker: Arc<dyn CompactionPicker>,
    /// Hint listener.
    pub hints: Arc<dyn HintListener>,
    /// The generator of elided values, registered at open (recovery may need it: a WAL
    /// with elided values flushed to a compressed L0 table); see
    /// [`Db::set_value_regenerator`].
    pub regenerator: Option<Arc<dyn crate::elided::ValueRegenerator>>,
}

impl DbConfig {
    /// Default picker and no hint listener.
    pub fn new(options: DbOptions) -> Self {
        Self {
            picker: crate::compaction::picker_for(&options),
            options,
            hints: Arc::new(NoHints),
            regenerator: None,
        }
    }

    /// The same, with `regen` as the generator of elided values.
    #[must_use]
    pub fn with_regenerator(mut self, regen: Arc<dyn crate::elided::ValueRegenerator>) -> Self {
        self.regenerator = Some(regen);
        self
    }
}

/// Mutable engine state, under one mutex that is never held across an await.
#[derive(Debug)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent flags of the engine's state"
)]
pub(crate) struct State {
    pub(crate) mem: Arc<MemTable>,
    pub(crate) mem_log: u64,
    /// Immutable memtables, oldest first, with the WAL that holds them.
    pub(crate) imm: Vec<(Arc<MemTable>, u64)>,
    pub(crate) version: Arc<Version>,
    pub(crate) last_seq: u64,
    pub(crate) next_file: u64,
    pub(crate) snapshots: BTreeMap<u64, usize>,
    pub(crate) running: Vec<RunningCompaction>,
    pub(crate) being_compacted: BTreeSet<u64>,
    pub(crate) next_compaction_index: Vec<usize>,
    pub(crate) compact_cursor: Vec<Vec<u8>>,
    pub(crate) flush_running: bool,
    /// Flush every immutable memtable even below `min_write_buffer_number_to_merge` (an
    /// explicit flush, a wait, the WAL size limit); cleared once none is left.
    pub(crate) flush_requested: bool,
    /// Bytes written to each live WAL, by log number.
    pub(crate) wal_bytes: BTreeMap<u64, u64>,
    /// The job number of the task waiting for zone cleaning to end before scheduling again
    /// (the authors' ZenFS blocking model, `FsOptions::zc_blocking_poll_ns`); one at a time.
    pub(crate) cleaning_waiter: Option<u64>,
    pub(crate) compactions_running: u32,
    /// Purge jobs running (`avoid_unnecessary_blocking_io`).
    pub(crate) purges_running: u32,
    pub(crate) pending_compaction_bytes: u64,
    /// Space accounting for compactions and the soft no-space error (RocksDB's
    /// `SstFileManager`).
    pub(crate) space: background::SpaceManager,
    pub(crate) bg_error: Option<BackgroundError>,
    /// A WAL write, sync or close failed: acknowledged writes it held may be lost, so no
    /// close is clean after it.
    pub(crate) wal_error: Option<BackgroundError>,
    pub(crate) closing: bool,
    pub(crate) closed: bool,
    pub(crate) next_job: u64,
    /// The delayed-write token bucket.
    pub(crate) write_ctl: write_controller::WriteController,
    pub(crate) stats: DbStats,
}

impl State {
    fn new(opts: &DbOptions, version: Version, wal: u64, next_file: u64, last_seq: u64) -> Self {
        let levels = opts.num_levels as usize;
        Self {
            mem: Arc::new(MemTable::new()),
            mem_log: wal,
            imm: Vec::new(),
            version: Arc::new(version),
            last_seq,
            next_file,
            snapshots: BTreeMap::new(),
            running: Vec::new(),
            being_compacted: BTreeSet::new(),
            next_compaction_index: vec![0; levels],
            compact_cursor: vec![Vec::new(); levels],
            flush_running: false,
            flush_requested: false,
            wal_bytes: BTreeMap::new(),
            cleaning_waiter: None,
            compactions_running: 0,
            purges_running: 0,
            pending_compaction_bytes: 0,
            space: background::SpaceManager::new(opts.write_buffer_size),
            bg_error: None,
            wal_error: None,
            closing: false,
            closed: false,
            next_job: 1,
            write_ctl: write_controller::WriteController::default(),
            stats: DbStats::default(),
        }
    }

    /// No flush, compaction or purge job is running.
    pub(crate) fn background_idle(&self) -> bool {
        !self.flush_running && self.compactions_running == 0 && self.purges_running == 0
    }

    pub(crate) fn new_file_number(&mut self) -> u64 {
        let n = self.next_file;
        self.next_file += 1;
        n
    }

    pub(crate) fn smallest_snapshot(&self) -> u64 {
        self.snapshots
            .keys()
            .next()
            .copied()
            .unwrap_or(self.last_seq)
    }
}

/// SST lifetimes: when each live file entered the tree (and at which level), and how long
/// each deleted file lived, by the level it was written to.
#[derive(Debug, Default)]
pub(crate) struct Lifetimes {
    pub(crate) born: BTreeMap<u64, (u32, u64)>,
    pub(crate) done: BTreeMap<u32, Vec<u64>>,
}

/// Shared engine internals.
#[derive(Debug)]
pub(crate) struct Inner<E: Env, D: ZonedDevice> {
    pub(crate) env: E,
    pub(crate) fs: Arc<ZoneFs<E, D>>,
    pub(crate) opts: DbOptions,
    pub(crate) picker: Arc<dyn CompactionPicker>,
    pub(crate) hints: Arc<dyn HintListener>,
    pub(crate) tables: Arc<source::TableCache<E, D>>,
    pub(crate) block_cache: Arc<BlockCache>,
    pub(crate) state: Mutex<State>,
    pub(crate) writer: tokio::sync::Mutex<WalWriter<E, D>>,
    pub(crate) queue: Mutex<Vec<Arc<Pending>>>,
    pub(crate) manifest: tokio::sync::Mutex<Option<ManifestWriter<E, D>>>,
    pub(crate) graveyard: Graveyard,
    /// Table-building buffers kept for reuse (shared with builders on other threads).
    pub(crate) buffers: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Flushes of immutable memtables being built ahead on other threads (simulation).
    pub(crate) built_ahead: Mutex<Vec<background::BuildAhead>>,
    /// Birth times of live SSTs and lifetimes of deleted ones.
    pub(crate) lifetimes: Mutex<Lifetimes>,
    /// Signalled whenever background work finishes (stalled writers and `flush` wait on it).
    pub(crate) bg_done: tokio::sync::Notify,
    /// What the open's WAL replay dropped.
    pub(crate) wal_recovery: WalRecovery,
    /// The generator that regenerates elided values ([`Db::set_value_regenerator`]).
    pub(crate) regenerator: std::sync::OnceLock<Arc<dyn crate::elided::ValueRegenerator>>,
}

impl<E: Env, D: ZonedDevice> Inner<E, D> {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// No flush, compaction or purge job is running or queued (a purge of files whose last
    /// version went is queued before its task runs: [`crate::version::Obsolete::purge_pending`]).
    pub(crate) fn background_idle(&self, st: &State) -> bool {
        st.background_idle() && !self.graveyard.purge_pending()
    }

    pub(crate) fn hint(&self, h: &Hint) {
        self.hints.on_hint(h);
    }

    /// The registered value regenerator, if any.
    pub(crate) fn regen(&self) -> Option<&dyn crate::elided::ValueRegenerator> {
        self.regenerator.get().map(|r| &**r)
    }

    /// The full bytes of an elided value's stub.
    pub(crate) fn regenerate(&self, stub: &[u8]) -> Result<Vec<u8>, LsmError> {
        crate::elided::regenerate(self.regen(), stub)
    }
}

/// A ZoneDB database on a zone file layer, in environment `E` (real or simulated).
///
/// Clones share one database. When the last clone is dropped without [`Db::close`], the drop
/// closes it (as RocksDB's destructor does): in real mode it flushes the WAL's buffer,
/// stops background work and releases the device, waiting at most
/// [`DROP_CLOSE_TIMEOUT_NS`] of real time; in simulation a drop cannot wait in virtual
/// time, so an unclosed store is left as a crash at that instant would leave it.
#[derive(Debug)]
pub struct Db<E: Env, D: ZonedDevice> {
    inner: Arc<Inner<E, D>>,
    /// Shared by the clones; the last one dropped closes the store.
    handle: Arc<CloseOnDrop<E, D>>,
}

impl<E: Env, D: ZonedDevice> Clone for Db<E, D> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            handle: self.handle.clone(),
        }
    }
}

/// How long dropping the last handle of an open store waits for its close (real mode): 60 s.
pub const DROP_CLOSE_TIMEOUT_NS: u64 = 60_000_000_000;

/// Closes the store when the last [`Db`] handle goes (background tasks hold only `Inner`).
#[derive(Debug)]
struct CloseOnDrop<E: Env, D: ZonedDevice> {
    inner: Arc<Inner<E, D>>,
}

impl<E: Env, D: ZonedDevice> Drop for CloseOnDrop<E, D> {
    fn drop(&mut self) {
        {
            let st = self.inner.lock();
            if st.closing || st.closed {
                return;
            }
        }
        let env = self.inner.env.clone();
        let deadline = env.now().saturating_add(DROP_CLOSE_TIMEOUT_NS);
        let inner = self.inner.clone();
        // A destructor has no one to report to: a failed close leaves what recovery handles.
        let _closed = env.run_blocking(zonedb_env::until(&env, deadline, Db::close_inner(&inner)));
    }
}

/// A consistent read view; released when dropped.
#[derive(Debug)]
pub struct Snapshot<E: Env, D: ZonedDevice> {
    seq: u64,
    inner: Arc<Inner<E, D>>,
}

impl<E: Env, D: ZonedDevice> Snapshot<E, D> {
    /// The snapshot's sequence number.
    pub fn sequence(&self) -> u64 {
        self.seq
    }
}

impl<E: Env, D: ZonedDevice> Drop for Snapshot<E, D> {
    fn drop(&mut self) {
        let mut st = self.inner.lock();
        if let Some(n) = st.snapshots.get_mut(&self.seq) {
            *n -= 1;
            if *n == 0 {
                st.snapshots.remove(&self.seq);
            }
        }
    }
}

/// Applies a batch to a memtable, returning the last sequence used.
pub(crate) fn apply_batch(mem: &MemTable, batch: &WriteBatch) -> Result<u64, LsmError> {
    let mut seq = batch.sequence();
    for op in batch.ops() {
        let op = op?;
        mem.add(seq, op.value_type, op.key, op.value);
        seq += 1;
    }
    Ok(seq.saturating_sub(1))
}

/// The block cache, reporting evictions as hints (with the blocks' stored bytes when the zone
/// layer wants them: HHZS's cache hint).
fn block_cache_with_hints(
    opts: &DbOptions,
    hints: Arc<dyn HintListener>,
    keep_raw: bool,
) -> Arc<BlockCache> {
    Arc::new(
        BlockCache::with_eviction_callback(
            opts.block_cache_size,
            Box::new(move |(file, offset), bytes, data| {
                hints.on_hint(&Hint::BlockEvicted {
                    file,
                    offset,
                    bytes,
                    data,
                });
            }),
        )
        .keeping_raw(keep_raw),
    )
}

/// What the MANIFEST says.
struct Recovered {
    version: Version,
    log_number: u64,
    /// The live MANIFEST's number (`None` for a new database).
    manifest_number: Option<u64>,
    next_file: u64,
    last_seq: u64,
}

impl<E: Env, D: ZonedDevice> Db<E, D> {
    /// What replaying the WALs at open dropped (damage the `wal_recovery_mode` tolerated);
    /// clean when nothing was.
    #[must_use]
    pub fn wal_recovery(&self) -> &WalRecovery {
        &self.inner.wal_recovery
    }

    /// Writes `value` under `key`.
    ///
    /// # Errors
    /// See [`Db::write`].
    pub async fn put(&self, key: &[u8], value: &[u8]) -> Result<(), LsmError> {
        let mut b = WriteBatch::with_capacity(key.len() + value.len() + 21);
        b.put(key, value);
        self.write(b).await
    }

    /// Writes under `key` the value of `len` bytes that the registered
    /// [`crate::elided::ValueRegenerator`] makes from `desc` (an elided value: see
    /// [`crate::elided`]): the batch holds the stub, never the bytes, and counts as the full
    /// value everywhere. The descriptor is not checked here: one the regenerator does not
    /// know fails the reads of the value and, where the engine must regenerate it (compressed
    /// tables, a WAL record or block whose compact form does not fit), the write path or the
    /// flush (a background error).
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] without a registered regenerator; otherwise see
    /// [`Db::write`].
    pub async fn put_elided(&self, key: &[u8], len: usize, desc: &[u8]) -> Result<(), LsmError> {
        if self.inner.regenerator.get().is_none() {
            return Err(LsmError::InvalidArgument(
                "an elided value without a registered value regenerator".into(),
            ));
        }
        let mut b = WriteBatch::with_capacity(key.len() + desc.len() + 24);
        b.put_elided(key, len, desc);
        self.write(b).await
    }

    /// Registers the generator of elided values (once; later calls are ignored and return
    /// `false`).
    pub fn set_value_regenerator(&self, r: Arc<dyn crate::elided::ValueRegenerator>) -> bool {
        self.inner.regenerator.set(r).is_ok()
    }

    /// Deletes `key` (writes a tombstone).
    ///
    /// # Errors
    /// See [`Db::write`].
    pub async fn delete(&self, key: &[u8]) -> Result<(), LsmError> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write(b).await
    }

    /// Applies a batch atomically (synced to the WAL if the `sync` option is set).
    ///
    /// # Errors
    /// A background error, a closed database, file layer errors.
    pub async fn write(&self, batch: WriteBatch) -> Result<(), LsmError> {
        let sync = self.inner.opts.sync;
        write::write(&self.inner, batch, sync).await
    }

    /// Applies a batch and syncs the WAL before returning, whatever the `sync` option says.
    ///
    /// # Errors
    /// See [`Db::write`].
    pub async fn write_sync(&self, batch: WriteBatch) -> Result<(), LsmError> {
        write::write(&self.inner, batch, true).await
    }

    /// The value of `key` now.
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LsmError> {
        let seq = self.inner.lock().last_seq;
        self.get_at_seq(key, seq).await
    }

    /// The value of `key` as of `snapshot`.
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn get_at(
        &self,
        key: &[u8],
        snapshot: &Snapshot<E, D>,
    ) -> Result<Option<Vec<u8>>, LsmError> {
        self.get_at_seq(key, snapshot.seq).await
    }

    async fn get_at_seq(&self, user_key: &[u8], seq: u64) -> Result<Option<Vec<u8>>, LsmError> {
        let (mem, imm, version) = {
            let mut st = self.inner.lock();
            if st.closed {
                return Err(LsmError::Closed);
            }
            st.stats.gets += 1;
            let imm: Vec<Arc<MemTable>> = st.imm.iter().rev().map(|(m, _)| m.clone()).collect();
            (st.mem.clone(), imm, st.version.clone())
        };
        self.inner.env.cpu(cost::GET_NS).await;
        for m in std::iter::once(&mem).chain(imm.iter()) {
            match m.get(user_key, seq) {
                Lookup::Value(v) => return Ok(Some(v)),
                Lookup::Elided(stub) => return self.inner.regenerate(&stub).map(Some),
                Lookup::Deleted => return Ok(None),
                Lookup::NotFound => {}
            }
        }
        let lookup = key::lookup_key(user_key, seq);
        for level in 0..version.levels.len() {
            for f in version.files_for_key(level, user_key) {
                let t = self
                    .inner
                    .tables
                    .get(f.meta.number, f.meta.file_size, IoClass::QueryRead)
                    .await?;
                if t.filter_excludes(user_key) {
                    continue;
                }
                if let Some((ik, v)) = t.get(&lookup).await? {
                    let p = key::parse(&ik).ok_or_else(|| {
                        LsmError::corruption(&sst_name(f.meta.number), 0, "malformed key")
                    })?;
                    return match p.value_type {
                        ValueType::Value => Ok(Some(v)),
                        ValueType::ElidedValue => self.inner.regenerate(&v).map(Some),
                        ValueType::Deletion => Ok(None),
                    };
                }
            }
        }
        Ok(None)
    }

    /// A snapshot of the current state.
    pub fn snapshot(&self) -> Snapshot<E, D> {
        let mut st = self.inner.lock();
        let seq = st.last_seq;
        *st.snapshots.entry(seq).or_insert(0) += 1;
        Snapshot {
            seq,
            inner: self.inner.clone(),
        }
    }

    /// An iterator over the current state (call a seek first). Async, so not a
    /// `std::iter::Iterator`.
    #[allow(
        clippy::iter_not_returning_iterator,
        reason = "RocksDB's name; the iterator is async"
    )]
    pub fn iter(&self) -> DbIter<E, D> {
        let seq = self.inner.lock().last_seq;
        self.iter_at_seq(seq)
    }

    /// An iterator over `snapshot`.
    pub fn iter_at(&self, snapshot: &Snapshot<E, D>) -> DbIter<E, D> {
        self.iter_at_seq(snapshot.seq)
    }

    fn iter_at_seq(&self, seq: u64) -> DbIter<E, D> {
        let (mem, imm, version) = {
            let st = self.inner.lock();
            let imm: Vec<Arc<MemTable>> = st.imm.iter().map(|(m, _)| m.clone()).collect();
            (st.mem.clone(), imm, st.version.clone())
        };
        let mut children = vec![iter::Child::mem(mem)];
        children.extend(imm.into_iter().map(iter::Child::mem));
        for f in &version.levels[0] {
            children.push(iter::Child::files(
                vec![f.clone()],
                self.inner.tables.clone(),
            ));
        }
        for l in version.levels.iter().skip(1).filter(|l| !l.is_empty()) {
            children.push(iter::Child::files(l.clone(), self.inner.tables.clone()));
        }
        DbIter::new(
            self.inner.env.clone(),
            iter::MergingIter::new(children),
            seq,
            version,
        )
        .with_regenerator(self.inner.regenerator.get().cloned())
    }

    /// Up to `limit` pairs with `start <= key < end` (`end` empty = no bound), in order.
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn scan(
        &self,
        start: &[u8],
        end: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LsmError> {
        let mut it = self.iter();
        it.seek(start).await?;
        let mut out = Vec::new();
        while it.valid() && out.len() < limit && (end.is_empty() || it.key() < end) {
            out.push((it.key().to_vec(), it.value().to_vec()));
            it.next().await?;
        }
        Ok(out)
    }

    /// Flushes the memtable and waits until every immutable memtable is in L0.
    ///
    /// # Errors
    /// A background error; file layer errors.
    pub async fn flush(&self) -> Result<(), LsmError> {
        Self::flush_inner(&self.inner).await
    }

    /// The handle of a database just opened.
    pub(crate) fn from_inner(inner: Arc<Inner<E, D>>) -> Self {
        Self {
            handle: Arc::new(CloseOnDrop {
                inner: inner.clone(),
            }),
            inner,
        }
    }

    async fn flush_inner(inner: &Arc<Inner<E, D>>) -> Result<(), LsmError> {
        {
            let mut w = inner.writer.lock().await;
            write::switch_memtable(inner, &mut w, true).await?;
        }
        inner.lock().flush_requested = true;
        background::maybe_schedule(inner);
        background::wait_until(inner, |st| st.imm.is_empty() && !st.flush_running).await
    }

    /// Waits until no flush or compaction is running or needed.
    ///
    /// # Errors
    /// A background error.
    pub async fn wait_for_compactions(&self) -> Result<(), LsmError> {
        self.inner.lock().flush_requested = true;
        background::maybe_schedule(&self.inner);
        let inner = &self.inner;
        background::wait_until(inner, |st| st.imm.is_empty() && inner.background_idle(st)).await?;
        loop {
            background::maybe_schedule(inner);
            if inner.background_idle(&inner.lock()) {
                return Ok(());
            }
            background::wait_until(inner, |st| inner.background_idle(st)).await?;
        }
    }

    /// Stops background work, syncs and closes the WAL and MANIFEST. With `disable_wal` the
    /// memtables are flushed first (RocksDB's `avoid_flush_during_shutdown = false`). As in
    /// RocksDB, no new compaction starts and a running one stops, its outputs deleted and its
    /// inputs left in place (call [`Db::wait_for_compactions`] first to settle the tree).
    ///
    /// # Errors
    /// File layer errors.
    pub async fn close(&self) -> Result<(), LsmError> {
        Self::close_inner(&self.inner).await
    }

    /// RocksDB's `FlushWAL`: writes the WAL's buffered write groups to the device, and with
    /// `sync` makes them durable (for `manual_wal_flush = true`, whose groups wait in the
    /// buffer; a no-op when nothing is buffered).
    ///
    /// # Errors
    /// [`LsmError::Closed`]; a failed WAL write stops writes as any WAL failure does.
    pub async fn flush_wal(&self, sync: bool) -> Result<(), LsmError> {
        {
            let st = self.inner.lock();
            if st.closing || st.closed {
                return Err(LsmError::Closed);
            }
        }
        let mut w = self.inner.writer.lock().await;
        if let Some(f) = &mut w.file {
            let r = if sync {
                f.sync().await
            } else {
                f.flush().await
            };
            if let Err(e) = r {
                return Err(write::wal_failed(&self.inner, e.into()));
            }
        }
        Ok(())
    }

    /// [`Db::close`] on the shared state (also run by the last handle's drop).
    async fn close_inner(inner: &Arc<Inner<E, D>>) -> Result<(), LsmError> {
        if inner.opts.disable_wal && inner.lock().bg_error.is_none() {
            Self::flush_inner(inner).await?;
        }
        inner.lock().closing = true;
        let _ = background::wait_until(inner, |st| inner.background_idle(st)).await;
        // Everything is closed even when a step fails; the first failure is returned (a WAL
        // that failed earlier fails here: acknowledged writes it buffered were lost, so the
        // close is not clean).
        let mut first: Result<(), LsmError> = Ok(());
        let keep = |first: &mut Result<(), LsmError>, r: Result<(), LsmError>| {
            if first.is_ok() {
                *first = r;
            }
        };
        let mut w = inner.writer.lock().await;
        if let Some(f) = w.file.take() {
            keep(&mut first, f.close().await.map_err(LsmError::from));
        }
        if let Some(m) = inner.manifest.lock().await.take() {
            keep(&mut first, m.close().await);
        }
        if first.is_ok() {
            keep(&mut first, background::delete_obsolete(inner).await);
        }
        // A clean close leaves everything durable (a device flush; free in simulation).
        keep(
            &mut first,
            inner.fs.sync_device().await.map_err(LsmError::from),
        );
        let mut st = inner.lock();
        st.closed = true;
        if let Some(e) = &st.wal_error {
            keep(&mut first, Err(LsmError::Background(e.clone())));
        }
        first
    }

    /// Why the database refuses writes, if it does: a background flush or compaction failed,
    /// or recovery found the device full and opened it for reading only
    /// ([`crate::LsmErrorKind::NoSpace`]).
    pub fn background_error(&self) -> Option<BackgroundError> {
        self.inner.lock().bg_error.clone()
    }

    /// Counters.
    pub fn stats(&self) -> DbStats {
        let st = self.inner.lock();
        let mut s = st.stats.clone();
        s.last_sequence = st.last_seq;
        s.level_files = st.version.levels.iter().map(|l| l.len() as u64).collect();
        s.level_bytes = (0..st.version.levels.len())
            .map(|l| st.version.level_bytes(l))
            .collect();
        s.pending_compaction_bytes = st.pending_compaction_bytes;
        let g = &self.inner.graveyard;
        (s.obsolete_sst_files, s.obsolete_sst_bytes) = g.pinned();
        (s.deletable_sst_files, s.deletable_sst_bytes) = g.deletable();
        let (pinned_peak, (deletable_peak_files, deletable_peak_bytes)) = g.peaks();
        s.peak_obsolete_sst_bytes = pinned_peak;
        (s.peak_deletable_sst_files, s.peak_deletable_sst_bytes) =
            (deletable_peak_files, deletable_peak_bytes);
        let waits = g.waits();
        s.obsolete_ssts_deleted = waits.files;
        s.deletable_sst_wait_max_ns = waits.max_ns;
        s.deletable_sst_byte_ms = waits.byte_ms;
        s.block_cache = self.inner.block_cache.stats();
        s
    }

    /// The compactions running now, oldest first. A running compaction holds the version it
    /// started from, so the oldest one bounds what `obsolete_sst_bytes` counts.
    pub fn running_compactions(&self) -> Vec<RunningCompactionInfo> {
        let st = self.inner.lock();
        let mut out: Vec<_> = st
            .running
            .iter()
            .filter(|r| !r.cascade_level)
            .map(|r| RunningCompactionInfo {
                job: r.job,
                start_level: r.view.start_level,
                output_level: r.view.output_level,
                started_ns: r.started_ns,
                input_files: r.input_files,
            })
            .collect();
        out.sort_by_key(|r| (r.started_ns, r.job));
        out
    }

    /// The current files, level by level: (level, metadata).
    pub fn files(&self) -> Vec<(u32, FileMeta)> {
        let v = self.inner.lock().version.clone();
        v.all_files()
            .map(|(level, f)| (level, f.meta.clone()))
            .collect()
    }

    /// Which zones hold the bytes of each SST: file number → (zone index, bytes) (a read-only
    /// view of the zone layer for pickers and tools).
    pub fn zone_view(&self) -> BTreeMap<u64, Vec<(u32, u64)>> {
        background::zone_view(&self.inner)
    }

    /// How long each SST deleted since open lived (ns, virtual time in simulation), by the
    /// level it was written to: the data for lifetime CDFs.
    pub fn sst_lifetimes(&self) -> BTreeMap<u32, Vec<u64>> {
        self.inner
            .lifetimes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .done
            .clone()
    }

    /// The file layer underneath.
    pub fn fs(&self) -> &Arc<ZoneFs<E, D>> {
        &self.inner.fs
    }

    /// The options in force.
    pub fn options(&self) -> &DbOptions {
        &self.inner.opts
    }
}
