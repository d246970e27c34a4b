//! A compaction's merge computed ahead on another OS thread (simulation only), its I/O and
//! CPU charges replayed in virtual time by the compaction task.
//!
//! A merge's outputs are a pure function of its inputs' bytes, the plan and the options; only
//! its timing depends on the simulation (which reads wait for the device, when the CPU charges
//! land, what the placement policy sees when an output is written). So when the environment
//! can run pure computation beside its executor ([`Env::spawn_compute`]) and the device can
//! hand over the inputs' bytes without a command ([`ZoneFs::peek_file`]), the compaction task
//! takes those bytes at its start and a worker thread runs the same merge loop
//! ([`super::compaction_job::merge_loop`]) over them, recording what the task must do, in
//! order: the input reads of each seek and step (a table opened, a data block loaded), each
//! CPU charge, each finished output. The task replays that list: every table open goes through
//! the table cache, every block load through the block cache and the readahead buffer to the
//! device, at the same points and in the same order as the merge itself would issue them, and
//! every output is numbered, placed and written when the merge would. The device sees every
//! command it saw before, the results are byte-identical (the fingerprint and exactness tests
//! hold this), and the merging, filtering and building run on the second core.
//!
//! What the worker does not see: block cache hits (it verifies every block it reads, where a
//! merge would use a cached copy; the bytes are the same) and read errors (the replayed reads
//! meet them, at the same read as the merge would).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use zonedb_device::{ElidedBytes, IoClass, ZonedDevice};
use zonedb_env::Env;

use super::super::Inner;
use super::super::iter::{MergingIter, Tables};
use super::compaction_job::{
    MergeContext, MergeOutcome, MergeSink, ReplaySink, children_of, find_input, merge_loop,
};
use super::output::Builders;
use crate::compaction::CompactionPlan;
use crate::sst::format::{BlockHandle, TRAILER_LEN, verify_elided_range};
use crate::sst::{BlockSource, BuiltTable, ReadaheadBuffer, Table, TableBuilder};
use crate::version::Version;
use crate::version::manifest::sst_name;
use crate::{CorruptionKind, LsmError};

/// Entries merged before the first batch is sent to the task (which waits for it), and the
/// most between two batches (each batch doubles the next one's size up to it).
const FIRST_BATCH_ENTRIES: u64 = 256;
const BATCH_ENTRIES: u64 = 4096;
/// Batches the worker may be ahead of the task.
const BATCHES_AHEAD: usize = 64;
/// Smallest compaction (bytes of input files) merged ahead: below it, starting a thread and
/// copying the inputs costs more than the merge, which has little time to get ahead.
const MIN_INPUT_BYTES: u64 = 8 << 20;

/// One input read of the merge as the worker's tables log it (a block by its offset).
#[derive(Debug, Clone, Copy)]
enum Logged {
    /// Table `number` of `size` bytes opened.
    Open { number: u64, size: u64 },
    /// The data block at byte `offset` of table `number` loaded.
    Block { number: u64, offset: u64 },
}

/// The input reads the worker's tables log, drained by the sink after each seek or step of
/// the merging iterator. Most steps read nothing: `pending` lets the drain skip the lock.
#[derive(Debug, Default)]
struct ReadLog {
    pending: AtomicBool,
    reads: Mutex<Vec<Logged>>,
}

impl ReadLog {
    fn push(&self, read: Logged) {
        lock(&self.reads).push(read);
        self.pending.store(true, Ordering::Release);
    }

    /// Moves the logged reads into `into` (which the caller keeps for reuse).
    fn drain_into(&self, into: &mut Vec<Logged>) {
        if self.pending.swap(false, Ordering::AcqRel) {
            into.append(&mut lock(&self.reads));
        }
    }
}

/// One input read of the merge as the task replays it.
#[derive(Debug, Clone, Copy)]
enum Io {
    /// Table `number` of `size` bytes opened (through the table cache).
    Open { number: u64, size: u64 },
    /// Data block `block` of table `number` loaded.
    Block { number: u64, block: usize },
}

/// What the task does, in order.
enum Step {
    /// The input reads of one seek or step of the merging iterator (timed together).
    Io(Vec<Io>),
    /// CPU work of the merged entries (then the close check).
    Charge(u64),
    /// An output is complete (or failed to build).
    Cut(Result<BuiltTable, LsmError>),
    /// The merge failed here.
    Fail(LsmError),
    /// The worker panicked: the task panics with the same payload.
    Panic(Box<dyn std::any::Any + Send>),
    /// The merge ended.
    Done,
}

/// A merge running ahead: the batches of steps it sends.
pub(super) struct Ahead(Receiver<Vec<Step>>);

/// The inputs' bytes taken at the compaction's start, by file number.
#[derive(Debug)]
pub(super) struct Snapshot {
    files: BTreeMap<u64, Arc<ElidedBytes>>,
}

impl Snapshot {
    /// The plan's input files (`input_bytes` in all) as the device holds them now, or `None`
    /// when the environment cannot compute beside its executor, the inputs are too small to
    /// be worth it or the device cannot peek.
    pub(super) fn take<E: Env, D: ZonedDevice>(
        inner: &Inner<E, D>,
        plan: &CompactionPlan,
        input_bytes: u64,
    ) -> Option<Arc<Self>> {
        if !inner.env.parallel_compute() || input_bytes < MIN_INPUT_BYTES {
            return None;
        }
        let mut files = BTreeMap::new();
        for n in plan.input_files() {
            files.insert(n, Arc::new(inner.fs.peek_file(&sst_name(n))?));
        }
        Some(Arc::new(Self { files }))
    }
}

/// A table's bytes from a snapshot; data block loads are logged.
#[derive(Debug)]
struct SnapSource {
    bytes: Arc<ElidedBytes>,
    name: String,
    number: u64,
    log: Arc<ReadLog>,
    /// Where the search for the next block's holes starts (blocks are read in order).
    hint: AtomicUsize,
}

impl SnapSource {
    fn range(&self, offset: u64, len: u64) -> Result<ElidedBytes, LsmError> {
        if offset
            .checked_add(len)
            .is_none_or(|end| end > self.bytes.len())
        {
            return Err(LsmError::corrupt(
                CorruptionKind::Truncated,
                &self.name,
                offset,
                "read beyond the end",
            ));
        }
        Ok(self.bytes.slice(offset, len))
    }
}

impl BlockSource for SnapSource {
    async fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>, LsmError> {
        self.range(offset, len).map(|b| b.materialize())
    }

    async fn read_elided(
        &self,
        offset: u64,
        len: u64,
        _class: IoClass,
    ) -> Result<ElidedBytes, LsmError> {
        self.log.push(Logged::Block {
            number: self.number,
            offset,
        });
        self.range(offset, len)
    }

    /// The block decoded straight from the snapshot (an elided block's stored tail is not
    /// copied out first).
    async fn read_block(
        &self,
        handle: BlockHandle,
        version: u32,
        _class: IoClass,
    ) -> Result<(Vec<u8>, u64), LsmError> {
        self.log.push(Logged::Block {
            number: self.number,
            offset: handle.offset,
        });
        let len = handle.size.saturating_add(TRAILER_LEN as u64);
        if handle
            .offset
            .checked_add(len)
            .is_none_or(|end| end > self.bytes.len())
        {
            return Err(LsmError::corrupt(
                CorruptionKind::Truncated,
                &self.name,
                handle.offset,
                "read beyond the end",
            ));
        }
        let mut hint = self.hint.load(Ordering::Relaxed);
        let read = verify_elided_range(
            &self.name,
            handle,
            &self.bytes,
            handle.offset,
            version,
            &mut hint,
        );
        self.hint.store(hint, Ordering::Relaxed);
        read
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// Tables over a snapshot; opens are logged.
#[derive(Debug)]
struct SnapTables {
    snapshot: Arc<Snapshot>,
    open: Mutex<BTreeMap<u64, Arc<Table<SnapSource>>>>,
    log: Arc<ReadLog>,
}

impl Tables for SnapTables {
    type Source = SnapSource;

    async fn get(
        &self,
        number: u64,
        size: u64,
        _class: IoClass,
    ) -> Result<Arc<Table<SnapSource>>, LsmError> {
        self.log.push(Logged::Open { number, size });
        if let Some(t) = lock(&self.open).get(&number) {
            return Ok(t.clone());
        }
        let name = sst_name(number);
        let bytes = self.snapshot.files.get(&number).cloned().ok_or_else(|| {
            LsmError::corrupt(
                CorruptionKind::Missing,
                &name,
                0,
                "compaction input not in the snapshot",
            )
        })?;
        let src = SnapSource {
            bytes,
            name,
            number,
            log: self.log.clone(),
            hint: AtomicUsize::new(0),
        };
        let t = Arc::new(Table::open(src, number, size, None).await?);
        lock(&self.open).insert(number, t.clone());
        Ok(t)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The worker's side of the merge loop: records steps and sends them in batches.
struct RecordingSink {
    builders: Builders,
    tables: Arc<SnapTables>,
    /// The last block loaded of each table.
    last_block: BTreeMap<u64, usize>,
    /// The reads drained from the log (kept to reuse its allocation).
    drained: Vec<Logged>,
    tx: SyncSender<Vec<Step>>,
    batch: Vec<Step>,
    entries_since_send: u64,
    /// Entries in the batch being filled before it is sent.
    batch_entries: u64,
}

impl RecordingSink {
    /// Sends the batch; `Err(Closed)` when the task is gone (stops the worker).
    fn send(&mut self) -> Result<(), LsmError> {
        self.entries_since_send = 0;
        self.batch_entries = (self.batch_entries * 2).min(BATCH_ENTRIES);
        let batch = std::mem::take(&mut self.batch);
        self.tx.send(batch).map_err(|_| LsmError::Closed)
    }

    /// The reads logged since the last step, as a step (block offsets turned into indexes).
    fn drain_log(&mut self) {
        self.tables.log.drain_into(&mut self.drained);
        if self.drained.is_empty() {
            return;
        }
        let open = lock(&self.tables.open);
        let ios = self
            .drained
            .drain(..)
            .map(|l| match l {
                Logged::Open { number, size } => Io::Open { number, size },
                Logged::Block { number, offset } => {
                    // Tables are read in order: the block after the last one is the likely one.
                    let hint = self.last_block.get(&number).map_or(0, |b| b + 1);
                    let block = open
                        .get(&number)
                        .and_then(|t| t.block_at_hint(offset, hint))
                        .unwrap_or(usize::MAX);
                    self.last_block.insert(number, block);
                    Io::Block { number, block }
                }
            })
            .collect();
        drop(open);
        self.batch.push(Step::Io(ios));
    }
}

impl MergeSink for RecordingSink {
    fn builder(&mut self, bytes: u64) -> TableBuilder {
        self.builders.builder(bytes)
    }

    fn before_io(&mut self) {}

    fn after_io(&mut self) {
        self.drain_log();
    }

    async fn cut(&mut self, b: TableBuilder) -> Result<(), LsmError> {
        self.batch.push(Step::Cut(b.finish_elided()));
        self.send()
    }

    async fn charge(&mut self, cost_ns: u64, entries: u64) -> Result<(), LsmError> {
        self.batch.push(Step::Charge(cost_ns));
        self.entries_since_send += entries;
        if self.entries_since_send >= self.batch_entries {
            self.send()?;
        }
        Ok(())
    }
}

/// Polls a future that never waits (all its reads are from memory) to its end.
fn run_ready<F: Future>(f: F) -> Option<F::Output> {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// Starts the merge of `plan`'s inputs with user keys in `range` on a worker thread over
/// `snapshot`; `None` when the environment did not start it.
pub(super) fn start<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    version: &Arc<Version>,
    plan: &Arc<CompactionPlan>,
    ctx: &Arc<MergeContext>,
    snapshot: &Arc<Snapshot>,
    range: (Option<Vec<u8>>, Option<Vec<u8>>),
) -> Option<Ahead> {
    let (tx, rx) = sync_channel(BATCHES_AHEAD);
    // The worker holds nothing the simulation watches: its own copies of the inputs' metadata
    // (a version's files, when dropped, may let obsolete files go), no handle on the engine.
    let version = Arc::new(detached_inputs(version, plan));
    let builders = Builders::of(inner);
    let compression = inner.opts.compression;
    let (plan, ctx, snapshot) = (plan.clone(), ctx.clone(), snapshot.clone());
    let work = move || {
        let tables = Arc::new(SnapTables {
            snapshot,
            open: Mutex::new(BTreeMap::new()),
            log: Arc::default(),
        });
        let mut sink = RecordingSink {
            builders,
            tables: tables.clone(),
            last_block: BTreeMap::new(),
            drained: Vec::new(),
            tx,
            batch: Vec::new(),
            entries_since_send: 0,
            batch_entries: FIRST_BATCH_ENTRIES,
        };
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // The worker reads one block at a time: the task's replay applies the readahead.
            let (children, _, _) = children_of(&version, &plan, &tables, 0)?;
            let mut it = MergingIter::new(children);
            let range = (range.0.as_deref(), range.1.as_deref());
            run_ready(merge_loop(
                &mut it,
                &mut sink,
                &plan,
                &ctx,
                range,
                compression,
            ))
            .unwrap_or_else(|| {
                Err(LsmError::corruption(
                    "compaction",
                    0,
                    "a merge computed ahead waited on something",
                ))
            })
        }));
        let last = match run {
            Ok(Ok(())) => Step::Done,
            Ok(Err(LsmError::Closed)) => return,
            Ok(Err(e)) => {
                sink.drain_log();
                Step::Fail(e)
            }
            Err(payload) => Step::Panic(payload),
        };
        sink.batch.push(last);
        let _ = sink.send();
    };
    inner
        .env
        .spawn_compute("merge-ahead", work)
        .then_some(Ahead(rx))
}

/// A version with only `plan`'s input files, as copies that belong to no tree (dropping them
/// tells the graveyard nothing).
fn detached_inputs(version: &Version, plan: &CompactionPlan) -> Version {
    let graveyard: crate::version::Graveyard = Arc::default();
    let mut levels = vec![Vec::new(); version.levels.len()];
    for i in &plan.inputs {
        for &n in &i.files {
            if let Ok(f) = find_input(version, i.level, n) {
                levels[i.level as usize].push(crate::version::LiveFile::new(
                    f.meta.clone(),
                    graveyard.clone(),
                ));
            }
        }
    }
    Version { levels }
}

/// An input table the replay opened, and its iterator's readahead buffer.
type OpenInput<E, D> = (
    Arc<super::super::source::FsTable<E, D>>,
    Option<ReadaheadBuffer>,
);

/// Replays a merge computed ahead: the input reads, CPU charges and outputs, in order.
/// Returns the outputs, their bytes and the time spent waiting for input reads.
pub(super) async fn replay<E: Env, D: ZonedDevice>(
    inner: &Arc<Inner<E, D>>,
    Ahead(rx): Ahead,
    mut sink: ReplaySink<'_, E, D>,
) -> Result<MergeOutcome, LsmError> {
    let ra_bytes = inner.opts.compaction_readahead_size;
    let mut open: BTreeMap<u64, OpenInput<E, D>> = BTreeMap::new();
    loop {
        // Waits in wall time only: the worker's results do not depend on when they come.
        let Ok(batch) = rx.recv() else {
            return Err(LsmError::corruption(
                "compaction",
                0,
                "the merge computed ahead stopped without a result",
            ));
        };
        for step in batch {
            match step {
                Step::Io(ios) => {
                    sink.before_io();
                    for io in ios {
                        match io {
                            Io::Open { number, size } => {
                                let t = inner
                                    .tables
                                    .get(number, size, IoClass::BackgroundRead)
                                    .await?;
                                let ra = (ra_bytes > 0).then(|| ReadaheadBuffer::new(ra_bytes));
                                open.insert(number, (t, ra));
                            }
                            Io::Block { number, block } => {
                                let Some((t, ra)) = open.get_mut(&number) else {
                                    return Err(LsmError::corruption(
                                        &sst_name(number),
                                        0,
                                        "block of a table the merge did not open",
                                    ));
                                };
                                t.touch_block(block, IoClass::BackgroundRead, ra.as_mut())
                                    .await?;
                            }
                        }
                    }
                    sink.after_io();
                }
                Step::Charge(cost) => sink.charge(cost, 0).await?,
                Step::Cut(built) => sink.cut_built(built).await?,
                Step::Fail(e) => return Err(e),
                Step::Panic(payload) => std::panic::resume_unwind(payload),
                Step::Done => return Ok(sink.outcome()),
            }
        }
    }
}
