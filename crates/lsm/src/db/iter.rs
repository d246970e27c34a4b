//! Iterators: a cursor per source (memtable, L0 table, level of tables), a merging iterator
//! that yields every internal entry in order, and [`DbIter`], which shows the newest version
//! of each user key visible at its snapshot and hides deleted keys.
//!
//! Every layer also walks backwards: `seek_for_prev` positions at the last entry at or
//! before a target and `prev` steps back (LevelDB's design: a cursor's direction is set by
//! its last seek; [`DbIter`] re-seeks its children when it changes direction).

use std::cmp::Ordering;
use std::future::Future;
use std::sync::Arc;

use zonedb_device::{IoClass, ZonedDevice};
use zonedb_env::Env;

use super::source::TableCache;
use crate::LsmError;
use crate::cost;
use crate::key::{self, ValueType};
use crate::memtable::MemTable;
use crate::sst::{BlockSource, Table, TableIter};
use crate::version::{LiveFile, Version};

/// Where level cursors get open tables: the table cache, or (for a merge computed ahead on
/// another thread) tables over bytes taken at the compaction's start.
pub(crate) trait Tables: Send + Sync + 'static {
    /// Where the tables' blocks come from.
    type Source: BlockSource;
    /// Table `number` of `size` bytes, opened if needed with reads on behalf of `class`.
    fn get(
        &self,
        number: u64,
        size: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Arc<Table<Self::Source>>, LsmError>> + Send;
}

impl<E: Env, D: ZonedDevice> Tables for TableCache<E, D> {
    type Source = super::source::FsSource<E, D>;

    fn get(
        &self,
        number: u64,
        size: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Arc<Table<Self::Source>>, LsmError>> + Send {
        TableCache::get(self, number, size, class)
    }
}

impl<T: Tables> std::fmt::Debug for LevelCursor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LevelCursor")
            .field("files", &self.files.len())
            .field("idx", &self.idx)
            .finish_non_exhaustive()
    }
}

impl<T: Tables> std::fmt::Debug for Child<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Mem(m) => m.fmt(f),
            Self::Level(l) => l.fmt(f),
        }
    }
}

impl<T: Tables> std::fmt::Debug for MergingIter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergingIter")
            .field("children", &self.children)
            .field("top", &self.heap.first())
            .field("reverse", &self.reverse)
            .finish()
    }
}

/// The engine's merging iterator (over the table cache).
pub(crate) type DbMerge<E, D> = MergingIter<TableCache<E, D>>;

const MEM_BATCH: usize = 64;

/// A memtable cursor that copies entries out in small batches.
#[derive(Debug)]
pub(crate) struct MemCursor {
    mem: Arc<MemTable>,
    buf: Vec<(Vec<u8>, Vec<u8>)>,
    pos: usize,
}

impl MemCursor {
    fn seek(&mut self, target: &[u8]) {
        self.buf = self.mem.range_from(target, false, MEM_BATCH);
        self.pos = 0;
    }

    fn next(&mut self) {
        self.pos += 1;
        if self.pos >= self.buf.len() && self.buf.len() == MEM_BATCH {
            let last = self.buf[MEM_BATCH - 1].0.clone();
            self.buf = self.mem.range_from(&last, true, MEM_BATCH);
            self.pos = 0;
        }
    }

    /// Positions at the last entry `<= target` (the last entry for `None`), walking down.
    fn seek_for_prev(&mut self, target: Option<&[u8]>) {
        self.buf = self.mem.range_down_from(target, false, MEM_BATCH);
        self.pos = 0;
    }

    /// Moves to the entry before (after [`MemCursor::seek_for_prev`]).
    fn prev(&mut self) {
        self.pos += 1;
        if self.pos >= self.buf.len() && self.buf.len() == MEM_BATCH {
            let last = self.buf[MEM_BATCH - 1].0.clone();
            self.buf = self.mem.range_down_from(Some(&last), true, MEM_BATCH);
            self.pos = 0;
        }
    }

    fn current(&self) -> Option<(&[u8], &[u8])> {
        self.buf
            .get(self.pos)
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
    }
}

/// A cursor over the files of one sorted level.
pub(crate) struct LevelCursor<T: Tables> {
    files: Vec<Arc<LiveFile>>,
    tables: Arc<T>,
    idx: usize,
    cur: Option<TableIter<T::Source>>,
    /// Whether blocks read go into the block cache (RocksDB's `fill_cache`; compactions
    /// read with it off, as RocksDB's do).
    fill_cache: bool,
    /// On whose behalf blocks are read (compaction inputs: background reads).
    class: IoClass,
    /// Readahead of each table's iterator, bytes (compaction inputs:
    /// `compaction_readahead_size`; 0 = one read per block).
    readahead_bytes: u64,
}

impl<T: Tables> LevelCursor<T> {
    async fn open(&mut self, idx: usize) -> Result<(), LsmError> {
        self.idx = idx;
        self.cur = None;
        if let Some(f) = self.files.get(idx) {
            let t = self
                .tables
                .get(f.meta.number, f.meta.file_size, self.class)
                .await?;
            self.cur = Some(
                TableIter::new(t)
                    .fill_cache(self.fill_cache)
                    .io_class(self.class)
                    .readahead(self.readahead_bytes),
            );
        }
        Ok(())
    }

    async fn skip_empty(&mut self) -> Result<(), LsmError> {
        while self.cur.as_ref().is_some_and(|c| c.current().is_none()) {
            self.open(self.idx + 1).await?;
            if let Some(c) = &mut self.cur {
                c.seek_to_first().await?;
            }
        }
        Ok(())
    }

    async fn seek(&mut self, target: &[u8]) -> Result<(), LsmError> {
        let i = self
            .files
            .partition_point(|f| key::compare(&f.meta.largest, target) == Ordering::Less);
        self.open(i).await?;
        if let Some(c) = &mut self.cur {
            c.seek(target).await?;
        }
        self.skip_empty().await
    }

    async fn next(&mut self) -> Result<(), LsmError> {
        if let Some(c) = &mut self.cur {
            c.next().await?;
        }
        self.skip_empty().await
    }

    /// Positions at the last entry `<= target` (the level's last entry for `None`).
    async fn seek_for_prev(&mut self, target: Option<&[u8]>) -> Result<(), LsmError> {
        // The last file starting at or before the target.
        let i = match target {
            None => self.files.len(),
            Some(t) => self
                .files
                .partition_point(|f| key::compare(&f.meta.smallest, t) != Ordering::Greater),
        };
        if i == 0 {
            self.idx = 0;
            self.cur = None;
            return Ok(());
        }
        self.open(i - 1).await?;
        if let Some(c) = &mut self.cur {
            c.seek_for_prev(target).await?;
        }
        self.skip_empty_back().await
    }

    /// While the current table has no entry, moves to the last entry of the one before.
    async fn skip_empty_back(&mut self) -> Result<(), LsmError> {
        while self.cur.as_ref().is_some_and(|c| c.current().is_none()) {
            if self.idx == 0 {
                self.cur = None;
                return Ok(());
            }
            self.open(self.idx - 1).await?;
            if let Some(c) = &mut self.cur {
                c.seek_for_prev(None).await?;
            }
        }
        Ok(())
    }

    async fn prev(&mut self) -> Result<(), LsmError> {
        if let Some(c) = &mut self.cur {
            c.prev().await?;
        }
        self.skip_empty_back().await
    }

    fn current(&self) -> Option<(&[u8], &[u8])> {
        self.cur.as_ref().and_then(TableIter::current)
    }
}

/// One source of entries.
// A merge has a handful of children: boxing the level cursor would cost an indirection per
// entry to save a few hundred bytes.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Child<T: Tables> {
    Mem(MemCursor),
    Level(LevelCursor<T>),
}

impl<T: Tables> Child<T> {
    /// A memtable source.
    pub(crate) fn mem(mem: Arc<MemTable>) -> Self {
        Self::Mem(MemCursor {
            mem,
            buf: Vec::new(),
            pos: 0,
        })
    }

    /// A source over sorted, non-overlapping files (one L0 file, or a whole level).
    pub(crate) fn files(files: Vec<Arc<LiveFile>>, tables: Arc<T>) -> Self {
        Self::Level(LevelCursor {
            files,
            tables,
            idx: 0,
            cur: None,
            fill_cache: true,
            class: IoClass::QueryRead,
            readahead_bytes: 0,
        })
    }

    /// A compaction's source over files: blocks found in the cache are used, blocks read are
    /// not added to it (a compaction's inputs are about to become obsolete) and go out as
    /// background reads, through a readahead buffer of `readahead_bytes` per table (0 = one
    /// read per block).
    pub(crate) fn compaction_input(
        files: Vec<Arc<LiveFile>>,
        tables: Arc<T>,
        readahead_bytes: u64,
    ) -> Self {
        let mut c = Self::files(files, tables);
        if let Self::Level(l) = &mut c {
            l.fill_cache = false;
            l.class = IoClass::BackgroundRead;
            l.readahead_bytes = readahead_bytes;
        }
        c
    }

    async fn seek(&mut self, target: &[u8]) -> Result<(), LsmError> {
        match self {
            Self::Mem(m) => {
                m.seek(target);
                Ok(())
            }
            Self::Level(l) => l.seek(target).await,
        }
    }

    async fn next(&mut self) -> Result<(), LsmError> {
        match self {
            Self::Mem(m) => {
                m.next();
                Ok(())
            }
            Self::Level(l) => l.next().await,
        }
    }

    async fn seek_for_prev(&mut self, target: Option<&[u8]>) -> Result<(), LsmError> {
        match self {
            Self::Mem(m) => {
                m.seek_for_prev(target);
                Ok(())
            }
            Self::Level(l) => l.seek_for_prev(target).await,
        }
    }

    async fn prev(&mut self) -> Result<(), LsmError> {
        match self {
            Self::Mem(m) => {
                m.prev();
                Ok(())
            }
            Self::Level(l) => l.prev().await,
        }
    }

    fn current(&self) -> Option<(&[u8], &[u8])> {
        match self {
            Self::Mem(m) => m.current(),
            Self::Level(l) => l.current(),
        }
    }
}

/// Every internal entry of its children, in internal-key order (or, after
/// [`MergingIter::seek_for_prev`], in reverse order).
///
/// The children with an entry form a binary min-heap ordered by (current key, child index):
/// a step costs about log2(children) comparisons instead of one per child (an L0 compaction
/// merges a dozen files or more), and among equal keys the first child wins, as a linear
/// scan would pick it. Walking backwards, the heap is a max-heap on the key.
pub(crate) struct MergingIter<T: Tables> {
    children: Vec<Child<T>>,
    heap: Vec<usize>,
    /// Walking backwards (set by the last seek).
    reverse: bool,
}

impl<T: Tables> MergingIter<T> {
    pub(crate) fn new(children: Vec<Child<T>>) -> Self {
        Self {
            children,
            heap: Vec::new(),
            reverse: false,
        }
    }

    /// Whether child `a` comes before child `b` (both have an entry) in the walk's order.
    fn before(&self, a: usize, b: usize) -> bool {
        match (self.children[a].current(), self.children[b].current()) {
            (Some((ka, _)), Some((kb, _))) => match if self.reverse {
                key::compare(kb, ka)
            } else {
                key::compare(ka, kb)
            } {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => a < b,
            },
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// Restores the heap below position `at`.
    fn sift_down(&mut self, mut at: usize) {
        let len = self.heap.len();
        loop {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            if left < len && self.before(self.heap[left], self.heap[least]) {
                least = left;
            }
            if right < len && self.before(self.heap[right], self.heap[least]) {
                least = right;
            }
            if least == at {
                return;
            }
            self.heap.swap(at, least);
            at = least;
        }
    }

    /// Builds the heap from every child with an entry (after all of them moved).
    fn pick(&mut self) {
        self.heap.clear();
        self.heap
            .extend((0..self.children.len()).filter(|&i| self.children[i].current().is_some()));
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    pub(crate) async fn seek(&mut self, target: &[u8]) -> Result<(), LsmError> {
        self.reverse = false;
        for c in &mut self.children {
            c.seek(target).await?;
        }
        self.pick();
        Ok(())
    }

    /// Moves forward (after [`MergingIter::seek`]).
    pub(crate) async fn next(&mut self) -> Result<(), LsmError> {
        debug_assert!(!self.reverse, "next after seek_for_prev");
        if let Some(&i) = self.heap.first() {
            self.children[i].next().await?;
            if self.children[i].current().is_none() {
                // Exhausted: the last leaf takes its place.
                self.heap.swap_remove(0);
            }
            self.sift_down(0);
        }
        Ok(())
    }

    /// Positions at the last entry `<= target` (the last entry for `None`), to walk
    /// backwards with [`MergingIter::prev`].
    pub(crate) async fn seek_for_prev(&mut self, target: Option<&[u8]>) -> Result<(), LsmError> {
        self.reverse = true;
        for c in &mut self.children {
            c.seek_for_prev(target).await?;
        }
        self.pick();
        Ok(())
    }

    /// Moves backward (after [`MergingIter::seek_for_prev`]).
    pub(crate) async fn prev(&mut self) -> Result<(), LsmError> {
        debug_assert!(self.reverse, "prev after seek");
        if let Some(&i) = self.heap.first() {
            self.children[i].prev().await?;
            if self.children[i].current().is_none() {
                self.heap.swap_remove(0);
            }
            self.sift_down(0);
        }
        Ok(())
    }

    pub(crate) fn current(&self) -> Option<(&[u8], &[u8])> {
        self.heap.first().and_then(|&i| self.children[i].current())
    }

    /// The index (into the children it was built with) of the child the current entry is
    /// from.
    pub(crate) fn current_child(&self) -> Option<usize> {
        self.heap.first().copied()
    }
}

/// A user-facing iterator at a snapshot. Holds the memtables and version it started with, so
/// what it sees does not change while it lives.
///
/// It walks both ways: [`DbIter::seek`] / [`DbIter::next`] forward, [`DbIter::seek_for_prev`]
/// / [`DbIter::seek_to_last`] / [`DbIter::prev`] backward (RocksDB's names). A step backward
/// costs what a step forward does (each source steps back within its decoded block or
/// memtable batch); a change of direction re-seeks every source once.
#[derive(Debug)]
pub struct DbIter<E: Env, D: ZonedDevice> {
    env: E,
    merge: DbMerge<E, D>,
    seq: u64,
    key: Vec<u8>,
    value: Vec<u8>,
    valid: bool,
    /// Walking backwards: the sources sit before the current key's entries.
    reverse: bool,
    _version: Arc<Version>,
    /// Regenerates elided values.
    regen: Option<Arc<dyn crate::elided::ValueRegenerator>>,
}

impl<E: Env, D: ZonedDevice> DbIter<E, D> {
    pub(crate) fn new(env: E, merge: DbMerge<E, D>, seq: u64, version: Arc<Version>) -> Self {
        Self {
            env,
            merge,
            seq,
            key: Vec::new(),
            value: Vec::new(),
            valid: false,
            reverse: false,
            _version: version,
            regen: None,
        }
    }

    /// Regenerates elided values with `regen` (without one, an elided value is an error).
    #[must_use]
    pub(crate) fn with_regenerator(
        mut self,
        regen: Option<Arc<dyn crate::elided::ValueRegenerator>>,
    ) -> Self {
        self.regen = regen;
        self
    }

    async fn settle(&mut self, mut skip: Option<Vec<u8>>) -> Result<(), LsmError> {
        self.valid = false;
        while let Some((k, v)) = self.merge.current() {
            let p = key::parse(k)
                .ok_or_else(|| LsmError::corruption("iterator", 0, "malformed internal key"))?;
            let hidden = p.seq > self.seq || skip.as_deref() == Some(p.user_key);
            if !hidden {
                match p.value_type {
                    ValueType::Deletion => skip = Some(p.user_key.to_vec()),
                    t @ (ValueType::Value | ValueType::ElidedValue) => {
                        if t == ValueType::ElidedValue {
                            crate::elided::regenerate_into(
                                self.regen.as_deref(),
                                v,
                                &mut self.value,
                            )?;
                        } else {
                            self.value.clear();
                            self.value.extend_from_slice(v);
                        }
                        self.key = p.user_key.to_vec();
                        self.valid = true;
                        self.env.cpu(cost::ITER_ENTRY_NS).await;
                        return Ok(());
                    }
                }
            }
            self.merge.next().await?;
        }
        Ok(())
    }

    /// Walking backwards from the merge's position: the newest version visible at the
    /// snapshot of the largest user key that has one and is not deleted (LevelDB's
    /// `FindPrevUserEntry`). Versions of a key come oldest first this way, so the last visible
    /// one seen wins; the merge ends at the last entry of the next smaller key.
    async fn settle_back(&mut self) -> Result<(), LsmError> {
        self.valid = false;
        // The type of the newest visible version of `self.key` seen so far (`Deletion`: none).
        let mut found = ValueType::Deletion;
        self.key.clear();
        self.value.clear();
        while let Some((k, v)) = self.merge.current() {
            let p = key::parse(k)
                .ok_or_else(|| LsmError::corruption("iterator", 0, "malformed internal key"))?;
            if p.seq <= self.seq {
                if found != ValueType::Deletion && p.user_key < self.key.as_slice() {
                    break;
                }
                found = p.value_type;
                if found == ValueType::Deletion {
                    self.key.clear();
                    self.value.clear();
                } else {
                    self.key.clear();
                    self.key.extend_from_slice(p.user_key);
                    self.value.clear();
                    self.value.extend_from_slice(v);
                }
            }
            self.merge.prev().await?;
        }
        if found == ValueType::Deletion {
            return Ok(());
        }
        if found == ValueType::ElidedValue {
            let stub = std::mem::take(&mut self.value);
            crate::elided::regenerate_into(self.regen.as_deref(), &stub, &mut self.value)?;
        }
        self.valid = true;
        self.env.cpu(cost::ITER_ENTRY_NS).await;
        Ok(())
    }

    /// Positions at the first key `>= user_key`.
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn seek(&mut self, user_key: &[u8]) -> Result<(), LsmError> {
        self.reverse = false;
        self.merge
            .seek(&key::lookup_key(user_key, self.seq))
            .await?;
        self.settle(None).await
    }

    /// Positions at the last key `<= user_key`, to walk backwards with [`DbIter::prev`].
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn seek_for_prev(&mut self, user_key: &[u8]) -> Result<(), LsmError> {
        self.reverse = true;
        // The largest internal key of `user_key` (sequence 0, lowest type): every version
        // of it and of smaller keys is at or before it.
        let target = key::internal_key(user_key, 0, ValueType::Deletion);
        self.merge.seek_for_prev(Some(&target)).await?;
        self.settle_back().await
    }

    /// Positions at the last key, to walk backwards with [`DbIter::prev`].
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn seek_to_last(&mut self) -> Result<(), LsmError> {
        self.reverse = true;
        self.merge.seek_for_prev(None).await?;
        self.settle_back().await
    }

    /// Moves to the previous key (after any seek: from a forward walk it re-seeks the
    /// sources below the current key first).
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn prev(&mut self) -> Result<(), LsmError> {
        if !self.valid {
            return Ok(());
        }
        if !self.reverse {
            self.reverse = true;
            let current = std::mem::take(&mut self.key);
            let target = key::internal_key(&current, 0, ValueType::Deletion);
            self.merge.seek_for_prev(Some(&target)).await?;
            // Past the current key's own versions.
            while let Some((k, _)) = self.merge.current() {
                if key::user_key(k) < current.as_slice() {
                    break;
                }
                self.merge.prev().await?;
            }
        }
        self.settle_back().await
    }

    /// Positions at the first key.
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn seek_to_first(&mut self) -> Result<(), LsmError> {
        self.seek(&[]).await
    }

    /// Moves to the next key (after any seek: from a backward walk it re-seeks the sources
    /// after the current key first).
    ///
    /// # Errors
    /// Corruption or file layer errors.
    pub async fn next(&mut self) -> Result<(), LsmError> {
        if !self.valid {
            return Ok(());
        }
        if self.reverse {
            // Turning around: the next key is the first at or after the current one's
            // immediate successor (the key with a zero byte appended).
            let mut successor = std::mem::take(&mut self.key);
            successor.push(0);
            return self.seek(&successor).await;
        }
        let skip = std::mem::take(&mut self.key);
        self.merge.next().await?;
        self.settle(Some(skip)).await
    }

    /// Whether positioned at a key.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// The current key (empty if not valid).
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The current value (empty if not valid).
    pub fn value(&self) -> &[u8] {
        &self.value
    }
}
