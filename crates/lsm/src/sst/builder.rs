//! Builds an SST in memory: data blocks cut at `block_size`, a whole-table Bloom filter, an
//! index block (last key of each data block → handle), properties, footer. Every block gets a
//! trailer with its compression type and a masked CRC32C.
//!
//! Elided values (`crate::elided`): a data block holding some is stored as
//! `[hole][compact block][meta][trailer]` ([`super::format::ELIDED_BLOCK`]) exactly as long
//! as the full block would be on disk (compressed when compression is on: the values are
//! regenerated and the full block compressed to learn its size), or, when the compact form
//! does not fit, as the full block itself (values regenerated, keys typed `Value`). Every
//! offset, handle, property and size is the full table's: the table is an [`ElidedBytes`]
//! whose logical layout is the full table's.

use super::block::BlockBuilder;
use super::bloom::BloomBuilder;
use super::format::{
    BlockHandle, FORMAT_VERSION, Footer, LZ4_COMPRESSION, NO_COMPRESSION, Properties,
    SNAPPY_COMPRESSION, block_trailer, good_compression_ratio,
};
use super::format::{ELIDED_META_LEN, elided_trailer};
use crate::LsmError;
use crate::elided::ValueRegenerator;
use crate::key;
use crate::options::Compression;
use std::sync::Arc;
use zonedb_device::ElidedBytes;

/// A finished table: its bytes (holes where elided blocks leave them), properties, and the
/// builder's buffer for reuse.
#[derive(Debug)]
pub struct BuiltTable {
    /// The table (logical length = file size).
    pub bytes: ElidedBytes,
    /// Its properties.
    pub props: Properties,
    /// A buffer to reuse (empty when `bytes` took it).
    pub spare: Vec<u8>,
    /// The codec its data blocks were built with.
    pub compression: Compression,
}

/// How tables are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOptions {
    /// Target uncompressed data block size.
    pub block_size: usize,
    /// Full keys every this many entries.
    pub restart_interval: usize,
    /// Bloom bits per key (0 = no filter).
    pub bloom_bits_per_key: u32,
    /// Data block compression.
    pub compression: Compression,
}

impl Default for TableOptions {
    fn default() -> Self {
        Self {
            block_size: 4096,
            restart_interval: 16,
            bloom_bits_per_key: 10,
            compression: Compression::None,
        }
    }
}

/// An SST under construction.
#[derive(Debug)]
pub struct TableBuilder {
    opts: TableOptions,
    out: Vec<u8>,
    data: BlockBuilder,
    index: BlockBuilder,
    bloom: Option<BloomBuilder>,
    props: Properties,
    /// Holes in the table: (stored offset where each starts, length).
    holes: Vec<(usize, u64)>,
    hole_bytes: u64,
    regen: Option<Arc<dyn ValueRegenerator>>,
    /// The first regeneration failure ([`TableBuilder::finish_elided`] returns it).
    error: Option<LsmError>,
}

impl TableBuilder {
    /// An empty table.
    pub fn new(opts: TableOptions) -> Self {
        Self::with_capacity(opts, 0)
    }

    /// An empty table whose buffer is sized for about `bytes` (saves regrowing it).
    pub fn with_capacity(opts: TableOptions, bytes: usize) -> Self {
        Self::with_buffer(opts, Vec::new(), bytes)
    }

    /// An empty table built into `buf` (cleared), reserved for about `bytes`.
    pub fn with_buffer(opts: TableOptions, mut buf: Vec<u8>, bytes: usize) -> Self {
        buf.clear();
        if buf.capacity() < bytes {
            // A fresh allocation, not `reserve`: growing an empty buffer by `realloc` copies
            // (and so faults in) every byte of its old capacity, where a fresh one touches
            // only the pages the table writes.
            buf = Vec::with_capacity(bytes);
        }
        Self {
            opts,
            out: buf,
            data: BlockBuilder::new(opts.restart_interval),
            index: BlockBuilder::new(1),
            bloom: (opts.bloom_bits_per_key > 0)
                .then(|| BloomBuilder::new(opts.bloom_bits_per_key)),
            props: Properties {
                smallest_seq: u64::MAX,
                ..Properties::default()
            },
            holes: Vec::new(),
            hole_bytes: 0,
            regen: None,
            error: None,
        }
    }

    /// Regenerates elided values with `regen` (needed for compressed tables and for blocks
    /// whose compact form does not fit).
    #[must_use]
    pub fn with_regenerator(mut self, regen: Option<Arc<dyn ValueRegenerator>>) -> Self {
        self.regen = regen;
        self
    }

    /// Logical offset of the next byte (stored bytes plus holes).
    fn pos(&self) -> u64 {
        self.out.len() as u64 + self.hole_bytes
    }

    /// Adds an entry; internal keys must come in increasing order.
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) {
        if self.props.num_entries == 0 {
            self.props.smallest_key = ikey.to_vec();
        }
        self.props.largest_key.clear();
        self.props.largest_key.extend_from_slice(ikey);
        self.props.num_entries += 1;
        self.props.raw_key_size += ikey.len() as u64;
        let mut elided = false;
        if let Some(p) = key::parse(ikey) {
            self.props.smallest_seq = self.props.smallest_seq.min(p.seq);
            self.props.largest_seq = self.props.largest_seq.max(p.seq);
            if p.value_type == key::ValueType::Deletion {
                self.props.num_deletions += 1;
            }
            elided = p.value_type == key::ValueType::ElidedValue;
        }
        if let Some(b) = &mut self.bloom {
            b.add(key::user_key(ikey));
        }
        if elided {
            self.props.raw_value_size +=
                crate::elided::logical_value_len(key::ValueType::ElidedValue, value);
            self.data.add_elided(ikey, value);
        } else {
            self.props.raw_value_size += value.len() as u64;
            self.data.add(ikey, value);
        }
        if self.data.estimated_size() >= self.opts.block_size {
            self.flush_data_block();
        }
    }

    /// The codec of the data blocks.
    pub fn compression(&self) -> Compression {
        self.opts.compression
    }

    /// Entries added.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// File size so far (data written plus the open block).
    pub fn estimated_file_size(&self) -> u64 {
        self.pos() + self.data.estimated_size() as u64
    }

    /// An upper bound of the finished table's size if the entry `ikey` with a value of
    /// `value_len` logical bytes were added next: data blocks written, the open block with the
    /// entry and its trailer, the filter with one more key, the index with entries for the
    /// open block and a block the entry may start, properties, footer. Compaction outputs
    /// under `target_file_size_hard_cap` are cut when this passes the cap.
    pub fn final_size_with(&self, ikey: &[u8], value_len: u64) -> u64 {
        use super::format::{FOOTER_LEN, TRAILER_LEN};
        let key = ikey.len() as u64;
        // Three varints of at most 5 bytes (lengths below 2^32) and a restart offset.
        let entry = key + value_len + 15 + 4;
        let data = self.data.estimated_size() as u64 + entry + TRAILER_LEN as u64;
        let index_entry = key + 1 + 10 + 10 + 15 + 4;
        let index = self.index.estimated_size() as u64 + 2 * index_entry + TRAILER_LEN as u64;
        let filter = self
            .bloom
            .as_ref()
            .map_or(0, |b| b.finished_len_with_one_more() + TRAILER_LEN as u64);
        // Ten varints, two length-prefixed keys (the largest becomes `ikey`).
        let props = 10 * 10
            + 2 * 5
            + self.props.smallest_key.len().max(ikey.len()) as u64
            + key
            + TRAILER_LEN as u64;
        self.pos() + data + index + filter + props + FOOTER_LEN as u64
    }

    /// `raw` compressed with the table's codec when that is worth keeping (RocksDB's
    /// `GoodCompressionRatio`): the body to store and its compression byte.
    fn compress(&self, raw: &[u8], compress: bool) -> Option<(Vec<u8>, u8)> {
        let compressed = match self.opts.compression {
            _ if !compress => None,
            Compression::None => None,
            Compression::Lz4 => {
                Some((lz4_flex::block::compress_prepend_size(raw), LZ4_COMPRESSION))
            }
            // A block too large for Snappy (4 GiB) is stored raw.
            Compression::Snappy => snap::raw::Encoder::new()
                .compress_vec(raw)
                .ok()
                .map(|c| (c, SNAPPY_COMPRESSION)),
        };
        compressed.filter(|(c, _)| good_compression_ratio(c.len(), raw.len()))
    }

    fn write_block(&mut self, raw: &[u8], compress: bool) -> BlockHandle {
        let compressed = self.compress(raw, compress);
        let (body, ctype) = match &compressed {
            Some((c, t)) => (&c[..], *t),
            None => (raw, NO_COMPRESSION),
        };
        let handle = BlockHandle {
            offset: self.pos(),
            size: body.len() as u64,
        };
        self.out.extend_from_slice(body);
        self.out.extend_from_slice(&block_trailer(body, ctype));
        handle
    }

    /// The full block of a compact one: elided values regenerated, their keys typed
    /// `Value` (the block a run without elision builds).
    fn full_block(&mut self, compact: &[u8]) -> Vec<u8> {
        let mut b = BlockBuilder::new(self.opts.restart_interval);
        let Some(entries) = super::block::Block::new(compact).and_then(|b| b.entries()) else {
            return compact.to_vec();
        };
        let mut value = Vec::new();
        for (mut k, v) in entries {
            match key::parse(&k).map(|p| p.value_type) {
                Some(key::ValueType::ElidedValue) => {
                    if let Err(e) =
                        crate::elided::regenerate_into(self.regen.as_deref(), &v, &mut value)
                    {
                        self.error.get_or_insert(e);
                    }
                    let n = k.len() - 8;
                    k[n] = key::ValueType::Value as u8;
                    b.add(&k, &value);
                }
                _ => b.add(&k, &v),
            }
        }
        b.finish()
    }

    /// Writes the open data block, which holds elided entries: as an elided block when its
    /// compact form fits in the full block's on-disk length, else in full. Returns its handle
    /// and the index key (its last key).
    fn flush_elided_block(&mut self) -> (BlockHandle, Vec<u8>) {
        let mut last = self.data.last_key().to_vec();
        let full_len = self.data.estimated_size();
        let compact = self.data.finish();
        let mut full = None;
        let (body_len, fits) = if self.opts.compression == Compression::None {
            (full_len, compact.len() + ELIDED_META_LEN <= full_len)
        } else {
            let f = self.full_block(&compact);
            let body_len = self.compress(&f, true).map_or(f.len(), |(c, _)| c.len());
            full = Some(f);
            (body_len, compact.len() + ELIDED_META_LEN <= body_len)
        };
        if !fits || u32::try_from(full_len).is_err() {
            // The full block itself; its keys are typed `Value` again, so is the index's.
            let f = match full {
                Some(f) => f,
                None => self.full_block(&compact),
            };
            // The block's last key is the table's largest so far.
            retype_value(&mut last);
            retype_value(&mut self.props.largest_key);
            if self.props.num_data_blocks == 0 {
                retype_value(&mut self.props.smallest_key);
            }
            return (self.write_block(&f, true), last);
        }
        let offset = self.pos();
        let hole = (body_len - compact.len() - ELIDED_META_LEN) as u64;
        if hole > 0 {
            self.holes.push((self.out.len(), hole));
            self.hole_bytes += hole;
        }
        let start = self.out.len();
        self.out.extend_from_slice(&compact);
        self.out
            .extend_from_slice(&(compact.len() as u32).to_le_bytes());
        self.out.extend_from_slice(&(full_len as u32).to_le_bytes());
        let trailer = elided_trailer(&self.out[start..]);
        self.out.extend_from_slice(&trailer);
        (
            BlockHandle {
                offset,
                size: body_len as u64,
            },
            last,
        )
    }

    fn flush_data_block(&mut self) {
        if self.data.is_empty() {
            return;
        }
        if self.data.has_elided() {
            let (h, last) = self.flush_elided_block();
            self.props.num_data_blocks += 1;
            let mut v = Vec::with_capacity(20);
            h.encode(&mut v);
            self.index.add(&last, &v);
            return;
        }
        let last = self.data.last_key().to_vec();
        let h = if self.opts.compression == Compression::None {
            // Straight into the table buffer: no block-sized copy.
            let offset = self.pos();
            let start = self.out.len();
            self.data.finish_into(&mut self.out);
            let trailer = block_trailer(&self.out[start..], NO_COMPRESSION);
            self.out.extend_from_slice(&trailer);
            BlockHandle {
                offset,
                size: (self.out.len() - start - trailer.len()) as u64,
            }
        } else {
            let raw = self.data.finish();
            self.write_block(&raw, true)
        };
        self.props.num_data_blocks += 1;
        let mut v = Vec::with_capacity(20);
        h.encode(&mut v);
        self.index.add(&last, &v);
    }

    /// Finishes the table: its bytes (holes as zeros) and properties.
    pub fn finish(self) -> (Vec<u8>, Properties) {
        let (t, _) = self.finish_parts();
        let bytes = match t.bytes.into_dense() {
            Ok(v) => v,
            Err(e) => e.materialize(),
        };
        (bytes, t.props)
    }

    /// Finishes the table: its bytes with the holes elided blocks leave, properties, and the
    /// buffer for reuse.
    ///
    /// # Errors
    /// [`LsmError::InvalidArgument`] when an elided value had to be regenerated (compression,
    /// or a compact block that did not fit) and could not be.
    pub fn finish_elided(self) -> Result<BuiltTable, LsmError> {
        match self.finish_parts() {
            (_, Some(e)) => Err(e),
            (t, None) => Ok(t),
        }
    }

    fn finish_parts(mut self) -> (BuiltTable, Option<LsmError>) {
        self.flush_data_block();
        self.props.data_size = self.pos();
        if self.props.num_entries == 0 {
            self.props.smallest_seq = 0;
        }
        let filter = match &self.bloom {
            Some(b) => {
                let f = b.finish();
                let h = self.write_block(&f, false);
                self.props.filter_size = h.size;
                h
            }
            None => BlockHandle::default(),
        };
        let raw_index = self.index.finish();
        let index = self.write_block(&raw_index, false);
        self.props.index_size = index.size;
        let props_raw = self.props.encode();
        let properties = self.write_block(&props_raw, false);
        let footer = Footer {
            version: FORMAT_VERSION,
            index,
            filter,
            properties,
        };
        self.out.extend_from_slice(&footer.encode());
        if self.holes.is_empty() {
            let t = BuiltTable {
                bytes: ElidedBytes::from_vec(self.out),
                props: self.props,
                spare: Vec::new(),
                compression: self.opts.compression,
            };
            return (t, self.error);
        }
        // The stored bytes move into the table as they are (no copy).
        let t = BuiltTable {
            bytes: ElidedBytes::from_stored_holes(self.out, &self.holes),
            props: self.props,
            spare: Vec::new(),
            compression: self.opts.compression,
        };
        (t, self.error)
    }
}

/// Types an `ElidedValue` internal key `Value`.
fn retype_value(ikey: &mut [u8]) {
    if ikey.len() >= 8 {
        let n = ikey.len() - 8;
        if ikey[n] == key::ValueType::ElidedValue as u8 {
            ikey[n] = key::ValueType::Value as u8;
        }
    }
}
