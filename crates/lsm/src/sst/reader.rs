//! Reading an SST through a [`BlockSource`]: open checks the footer and reads the index,
//! filter and properties; `get` consults the Bloom filter, then one data block (through the
//! block cache); [`TableIter`] walks the table in key order. Every block is verified; damage is
//! [`LsmError::Corruption`], never a panic and never wrong data.

use std::cmp::Ordering;
use std::future::Future;
use std::sync::Arc;

use zonedb_device::IoClass;

use super::block::Block;
use super::bloom;
use super::format::{
    BlockHandle, FOOTER_LEN, Footer, Properties, TRAILER_LEN, verify_block, verify_elided_bytes,
};
use super::readahead::ReadaheadBuffer;
use crate::block_cache::BlockCache;
use crate::key;
use crate::{CorruptionKind, LsmError};

/// Where a table's bytes come from.
pub trait BlockSource: Send + Sync + 'static {
    /// Reads `len` bytes at `offset`.
    fn read(&self, offset: u64, len: u64)
    -> impl Future<Output = Result<Vec<u8>, LsmError>> + Send;
    /// Reads `len` bytes at `offset` on behalf of `class` (a device scheduler may order
    /// queued reads by it); by default a plain [`BlockSource::read`].
    fn read_class(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<Vec<u8>, LsmError>> + Send {
        let _ = class;
        self.read(offset, len)
    }
    /// Reads `len` bytes at `offset` on behalf of `class`, returning ranges written as holes
    /// as holes where the source kept them so (by default: [`BlockSource::read_class`], no
    /// holes).
    fn read_elided(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<zonedb_device::ElidedBytes, LsmError>> + Send {
        let read = self.read_class(offset, len, class);
        async move { read.await.map(zonedb_device::ElidedBytes::from_vec) }
    }
    /// Reads `len` bytes at `offset` on behalf of `class` as [`BlockSource::read_elided`]
    /// does, for a caller that does not want the bytes (by default: that read, dropped).
    fn read_discard(
        &self,
        offset: u64,
        len: u64,
        class: IoClass,
    ) -> impl Future<Output = Result<(), LsmError>> + Send {
        let read = self.read_elided(offset, len, class);
        async move { read.await.map(drop) }
    }
    /// Data block `handle` read on behalf of `class` and verified: what
    /// [`verify_elided_bytes`] makes of [`BlockSource::read_elided`] (the block's bytes and
    /// what the block cache charges for it). A source holding its bytes in memory may decode
    /// it without copying the read out first.
    fn read_block(
        &self,
        handle: BlockHandle,
        version: u32,
        class: IoClass,
    ) -> impl Future<Output = Result<(Vec<u8>, u64), LsmError>> + Send {
        let read = self.read_elided(handle.offset, handle.size + TRAILER_LEN as u64, class);
        async move { verify_elided_bytes(self.name(), handle, read.await?, version) }
    }
    /// Name for error messages.
    fn name(&self) -> &str;
}

/// In-memory bytes as a block source (tests, tools).
#[derive(Debug, Clone)]
pub struct MemSource(pub Arc<Vec<u8>>, pub String);

impl BlockSource for MemSource {
    async fn read(&self, offset: u64, len: u64) -> Result<Vec<u8>, LsmError> {
        let s = usize::try_from(offset).unwrap_or(usize::MAX);
        let e = s.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
        self.0.get(s..e).map(<[u8]>::to_vec).ok_or_else(|| {
            LsmError::corrupt(
                CorruptionKind::Truncated,
                &self.1,
                offset,
                "read beyond the end",
            )
        })
    }

    fn name(&self) -> &str {
        &self.1
    }
}

/// An open SST.
#[derive(Debug)]
pub struct Table<S: BlockSource> {
    source: S,
    number: u64,
    index: Vec<(Vec<u8>, BlockHandle)>,
    filter: Vec<u8>,
    props: Properties,
    cache: Option<Arc<BlockCache>>,
    /// Format version of the footer (what the blocks' compression bytes mean).
    version: u32,
}

impl<S: BlockSource> Table<S> {
    /// Opens table `number` of `file_size` bytes.
    ///
    /// # Errors
    /// [`LsmError::Corruption`] for a damaged footer, index, filter or properties block; read
    /// errors of the source.
    pub async fn open(
        source: S,
        number: u64,
        file_size: u64,
        cache: Option<Arc<BlockCache>>,
    ) -> Result<Self, LsmError> {
        Self::open_for(source, number, file_size, cache, IoClass::QueryRead).await
    }

    /// As [`Table::open`], reading the footer, properties, filter and index on behalf of
    /// `class`: a table a compaction or flush opens is a background read, one a `get` opens a
    /// query read, so a device scheduler that serves queries first orders the opening's reads
    /// as it does the blocks read after it.
    ///
    /// # Errors
    /// As [`Table::open`].
    pub async fn open_for(
        source: S,
        number: u64,
        file_size: u64,
        cache: Option<Arc<BlockCache>>,
        class: IoClass,
    ) -> Result<Self, LsmError> {
        let name = source.name().to_owned();
        if file_size < FOOTER_LEN as u64 {
            return Err(LsmError::corrupt(
                CorruptionKind::Truncated,
                &name,
                0,
                "file too short for a table",
            ));
        }
        let fbuf = source
            .read_class(file_size - FOOTER_LEN as u64, FOOTER_LEN as u64, class)
            .await?;
        let footer = Footer::decode(&name, &fbuf, file_size)?;
        let read = |h: BlockHandle| {
            let source = &source;
            let name = &name;
            async move {
                let raw = source
                    .read_class(h.offset, h.size + TRAILER_LEN as u64, class)
                    .await?;
                verify_block(name, h, raw, footer.version)
            }
        };
        let props_raw = read(footer.properties).await?;
        let props = Properties::decode(&props_raw).ok_or_else(|| {
            LsmError::corruption(&name, footer.properties.offset, "bad properties block")
        })?;
        let filter = if footer.filter.size > 0 {
            read(footer.filter).await?
        } else {
            Vec::new()
        };
        let index_raw = read(footer.index).await?;
        let bad_index = || LsmError::corruption(&name, footer.index.offset, "bad index block");
        // Decoded in one pass into one key buffer (an index has an entry per data block:
        // thousands in a large table), then one allocation per key.
        let (mut keys, mut spans) = (Vec::new(), Vec::new());
        Block::new(&index_raw)
            .and_then(|b| b.decode_into(&mut keys, &mut spans))
            .ok_or_else(bad_index)?;
        let body = &index_raw[..];
        let mut index: Vec<(Vec<u8>, BlockHandle)> = Vec::with_capacity(spans.len());
        let mut end = 0u64;
        for &[ko, kl, vo, vl] in &spans {
            let (ko, kl, vo, vl) = (ko as usize, kl as usize, vo as usize, vl as usize);
            let k = keys[ko..ko + kl].to_vec();
            let v = body.get(vo..vo + vl).ok_or_else(bad_index)?;
            let h = BlockHandle::decode(v).ok_or_else(bad_index)?;
            if h.offset != end
                || index
                    .last()
                    .is_some_and(|(p, _): &(Vec<u8>, _)| key::compare(p, &k) != Ordering::Less)
            {
                return Err(bad_index());
            }
            end = h.offset + h.size + TRAILER_LEN as u64;
            index.push((k, h));
        }
        if end != props.data_size || index.len() as u64 != props.num_data_blocks {
            return Err(bad_index());
        }
        Ok(Self {
            source,
            number,
            index,
            filter,
            props,
            cache,
            version: footer.version,
        })
    }

    /// Properties.
    pub fn properties(&self) -> &Properties {
        &self.props
    }

    /// File number.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Data blocks.
    pub fn num_blocks(&self) -> usize {
        self.index.len()
    }

    /// Reads and verifies data block `i` (through the cache).
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn block(&self, i: usize) -> Result<Arc<Vec<u8>>, LsmError> {
        self.block_with(i, true).await
    }

    /// Reads and verifies data block `i`: from the cache if there, and into it after a read
    /// if `fill_cache`.
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn block_with(&self, i: usize, fill_cache: bool) -> Result<Arc<Vec<u8>>, LsmError> {
        self.block_for(i, fill_cache, IoClass::QueryRead).await
    }

    /// As [`Table::block_with`], reading on behalf of `class`.
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn block_for(
        &self,
        i: usize,
        fill_cache: bool,
        class: IoClass,
    ) -> Result<Arc<Vec<u8>>, LsmError> {
        self.block_through(i, fill_cache, class, None).await
    }

    /// As [`Table::block_for`], a block not in the cache read through `readahead` when given
    /// (windows clipped to the end of the table's data blocks).
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn block_through(
        &self,
        i: usize,
        fill_cache: bool,
        class: IoClass,
        readahead: Option<&mut ReadaheadBuffer>,
    ) -> Result<Arc<Vec<u8>>, LsmError> {
        let h = self.index[i].1;
        if let Some(c) = &self.cache
            && let Some(b) = c.get((self.number, h.offset))
        {
            return Ok(b);
        }
        let keep_raw = fill_cache && self.cache.as_ref().is_some_and(|c| c.keeps_raw());
        if readahead.is_none() && !keep_raw {
            let (block, charge) = self.source.read_block(h, self.version, class).await?;
            let b = Arc::new(block);
            if fill_cache && let Some(c) = &self.cache {
                c.insert_raw((self.number, h.offset), b.clone(), charge, None);
            }
            return Ok(b);
        }
        let len = h.size + TRAILER_LEN as u64;
        // Holes stay holes (an elided block is decoded from its stored tail; zero-filled
        // reads decode alike).
        let raw = match readahead {
            Some(ra) => {
                ra.read(&self.source, h.offset, len, self.props.data_size, class)
                    .await?
            }
            None => self.source.read_elided(h.offset, len, class).await?,
        };
        let stored = self
            .cache
            .as_ref()
            .filter(|c| fill_cache && c.keeps_raw())
            .map(|_| raw.clone());
        let (block, charge) = verify_elided_bytes(self.source.name(), h, raw, self.version)?;
        let b = Arc::new(block);
        if fill_cache && let Some(c) = &self.cache {
            // Charged as the full uncompressed block: hit rates are as without elision.
            c.insert_raw((self.number, h.offset), b.clone(), charge, stored);
        }
        Ok(b)
    }

    /// The data block that starts at byte `offset`, if one does, looked for first at `hint`
    /// (a reader that walks the table in order passes the block after the last).
    pub fn block_at_hint(&self, offset: u64, hint: usize) -> Option<usize> {
        if self
            .index
            .get(hint)
            .is_some_and(|(_, h)| h.offset == offset)
        {
            return Some(hint);
        }
        self.block_at(offset)
    }

    /// The data block that starts at byte `offset`, if one does.
    pub fn block_at(&self, offset: u64) -> Option<usize> {
        let i = self.index.partition_point(|(_, h)| h.offset < offset);
        self.index
            .get(i)
            .is_some_and(|(_, h)| h.offset == offset)
            .then_some(i)
    }

    /// The I/O of reading data block `i` as [`Table::block_through`] does with `fill_cache`
    /// off (the cache consulted, a miss read through `readahead` when given), without
    /// verifying or decoding it: a merge computed ahead on another thread did that over the
    /// same bytes. A block past the last reads nothing.
    ///
    /// # Errors
    /// Read errors.
    pub async fn touch_block(
        &self,
        i: usize,
        class: IoClass,
        readahead: Option<&mut ReadaheadBuffer>,
    ) -> Result<(), LsmError> {
        let Some(&(_, h)) = self.index.get(i) else {
            return Ok(());
        };
        if let Some(c) = &self.cache
            && c.get((self.number, h.offset)).is_some()
        {
            return Ok(());
        }
        let len = h.size + TRAILER_LEN as u64;
        match readahead {
            Some(ra) => {
                ra.touch(&self.source, h.offset, len, self.props.data_size, class)
                    .await
            }
            None => self.source.read_discard(h.offset, len, class).await,
        }
    }

    fn corrupt_block(&self, i: usize) -> LsmError {
        LsmError::corruption(self.source.name(), self.index[i].1.offset, "bad data block")
    }

    /// The first block whose last key is `>= target`.
    fn find_block(&self, target: &[u8]) -> usize {
        self.index
            .partition_point(|(k, _)| key::compare(k, target) == Ordering::Less)
    }

    /// The newest entry of `lookup`'s user key with sequence <= the lookup's (the first entry
    /// `>= lookup` if its user key matches).
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn get(&self, lookup: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>, LsmError> {
        let ukey = key::user_key(lookup);
        if !self.filter.is_empty() && !bloom::may_contain(&self.filter, ukey) {
            return Ok(None);
        }
        let i = self.find_block(lookup);
        if i >= self.index.len() {
            return Ok(None);
        }
        let data = self.block(i).await?;
        let blk = Block::new(&data).ok_or_else(|| self.corrupt_block(i))?;
        match blk.seek(lookup, key::compare) {
            Ok(Some((k, v))) if key::user_key(&k) == ukey => Ok(Some((k, v))),
            Ok(_) => Ok(None),
            Err(()) => Err(self.corrupt_block(i)),
        }
    }

    /// Whether the filter rules out `user_key`.
    pub fn filter_excludes(&self, user_key: &[u8]) -> bool {
        !self.filter.is_empty() && !bloom::may_contain(&self.filter, user_key)
    }
}

/// Walks a table in key order, one decoded block at a time (keys decoded into one buffer,
/// values read in place from the cached block: no allocation per entry); backwards too
/// ([`TableIter::seek_for_prev`], [`TableIter::prev`]).
#[derive(Debug)]
pub struct TableIter<S: BlockSource> {
    table: Arc<Table<S>>,
    block: usize,
    data: Arc<Vec<u8>>,
    keys: Vec<u8>,
    entries: Vec<[u32; 4]>,
    pos: usize,
    fill_cache: bool,
    class: IoClass,
    /// Compaction readahead (`None`: one read per block).
    readahead: Option<ReadaheadBuffer>,
}

impl<S: BlockSource> TableIter<S> {
    /// An iterator positioned nowhere (call a seek).
    pub fn new(table: Arc<Table<S>>) -> Self {
        Self {
            table,
            block: usize::MAX,
            data: Arc::new(Vec::new()),
            keys: Vec::new(),
            entries: Vec::new(),
            pos: 0,
            fill_cache: true,
            class: IoClass::QueryRead,
            readahead: None,
        }
    }

    /// Reads blocks missing from the cache through a readahead buffer of `size_bytes`
    /// (RocksDB's `compaction_readahead_size`; 0 = one read per block, the default).
    #[must_use]
    pub fn readahead(mut self, size_bytes: u64) -> Self {
        self.readahead = (size_bytes > 0).then(|| ReadaheadBuffer::new(size_bytes));
        self
    }

    /// Reads the iterator has issued through its readahead buffer (0 without one).
    pub fn readahead_reads(&self) -> u64 {
        self.readahead.as_ref().map_or(0, ReadaheadBuffer::reads)
    }

    /// Whether blocks this iterator reads go into the block cache (default: yes).
    #[must_use]
    pub fn fill_cache(mut self, fill: bool) -> Self {
        self.fill_cache = fill;
        self
    }

    /// On whose behalf the blocks this iterator reads are read (default: a query).
    #[must_use]
    pub fn io_class(mut self, class: IoClass) -> Self {
        self.class = class;
        self
    }

    async fn load(&mut self, i: usize) -> Result<(), LsmError> {
        self.block = i;
        self.pos = 0;
        self.entries.clear();
        if i < self.table.index.len() {
            self.data = self
                .table
                .block_through(i, self.fill_cache, self.class, self.readahead.as_mut())
                .await?;
            let ok = Block::new(&self.data)
                .and_then(|b| b.decode_into(&mut self.keys, &mut self.entries))
                .is_some();
            if !ok || self.entries.is_empty() {
                self.entries.clear();
                return Err(self.table.corrupt_block(i));
            }
        }
        Ok(())
    }

    fn key_at(&self, i: usize) -> &[u8] {
        let [ko, kl, _, _] = self.entries[i];
        &self.keys[ko as usize..(ko + kl) as usize]
    }

    /// Positions at the first entry.
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn seek_to_first(&mut self) -> Result<(), LsmError> {
        self.load(0).await
    }

    /// Positions at the first entry `>= target` (internal key order).
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn seek(&mut self, target: &[u8]) -> Result<(), LsmError> {
        let i = self.table.find_block(target);
        self.load(i).await?;
        let n = self.entries.len();
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = usize::midpoint(lo, hi);
            if key::compare(self.key_at(mid), target) == Ordering::Less {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.pos = lo;
        if self.pos >= self.entries.len() && i < self.table.index.len() {
            self.load(i + 1).await?;
        }
        Ok(())
    }

    /// Positions at the last entry `<= target` (internal key order), or at the table's last
    /// entry when `target` is `None`; nowhere when every entry is after `target`.
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn seek_for_prev(&mut self, target: Option<&[u8]>) -> Result<(), LsmError> {
        let n = self.table.index.len();
        if n == 0 {
            self.invalidate();
            return Ok(());
        }
        // Index keys are at or above their block's last key and below the next block's
        // first: entries `<= target` are in this block or before it.
        let i = target.map_or(n - 1, |t| self.table.find_block(t).min(n - 1));
        self.load(i).await?;
        let after = match target {
            None => self.entries.len(),
            Some(t) => {
                let (mut lo, mut hi) = (0, self.entries.len());
                while lo < hi {
                    let mid = usize::midpoint(lo, hi);
                    if key::compare(self.key_at(mid), t) == Ordering::Greater {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                lo
            }
        };
        if after > 0 {
            self.pos = after - 1;
            Ok(())
        } else {
            self.last_of_block_before(i).await
        }
    }

    /// Moves to the previous entry (nowhere before the first).
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn prev(&mut self) -> Result<(), LsmError> {
        if self.pos >= self.entries.len() {
            return Ok(());
        }
        if self.pos > 0 {
            self.pos -= 1;
            return Ok(());
        }
        self.last_of_block_before(self.block).await
    }

    /// Positions at the last entry of the block before block `i` (nowhere if `i` is the
    /// first).
    async fn last_of_block_before(&mut self, i: usize) -> Result<(), LsmError> {
        if i == 0 {
            self.invalidate();
            return Ok(());
        }
        self.load(i - 1).await?;
        self.pos = self.entries.len() - 1;
        Ok(())
    }

    /// Positions nowhere.
    fn invalidate(&mut self) {
        self.block = self.table.index.len();
        self.entries.clear();
        self.pos = 0;
    }

    /// The current entry, if valid.
    pub fn current(&self) -> Option<(&[u8], &[u8])> {
        let [ko, kl, vo, vl] = *self.entries.get(self.pos)?;
        Some((
            &self.keys[ko as usize..(ko + kl) as usize],
            &self.data[vo as usize..(vo + vl) as usize],
        ))
    }

    /// Moves to the next entry.
    ///
    /// # Errors
    /// Corruption or read errors.
    pub async fn next(&mut self) -> Result<(), LsmError> {
        self.pos += 1;
        if self.pos >= self.entries.len() && self.block < self.table.index.len() {
            self.load(self.block + 1).await?;
        }
        Ok(())
    }
}
