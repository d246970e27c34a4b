//! Builds an SST in memory: data blocks cut at `block_size`, a whole-table Bloom filter, an
//! index block (last key of each data block → handle), properties, footer. Every block gets a
//! trailer with its compression type and a masked CRC32C.

use super::block::BlockBuilder;
use super::bloom::BloomBuilder;
use super::format::{
    BlockHandle, FORMAT_VERSION, Footer, LZ4_COMPRESSION, NO_COMPRESSION, Properties,
    SNAPPY_COMPRESSION, block_trailer, good_compression_ratio,
};
use crate::key;
use crate::options::Compression;

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
        buf.reserve(bytes);
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
        }
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
        self.props.raw_value_size += value.len() as u64;
        if let Some(p) = key::parse(ikey) {
            self.props.smallest_seq = self.props.smallest_seq.min(p.seq);
            self.props.largest_seq = self.props.largest_seq.max(p.seq);
            if p.value_type == key::ValueType::Deletion {
                self.props.num_deletions += 1;
            }
        }
        if let Some(b) = &mut self.bloom {
            b.add(key::user_key(ikey));
        }
        self.data.add(ikey, value);
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
        (self.out.len() + self.data.estimated_size()) as u64
    }

    fn write_block(&mut self, raw: &[u8], compress: bool) -> BlockHandle {
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
        let (body, ctype) = match &compressed {
            Some((c, t)) if good_compression_ratio(c.len(), raw.len()) => (&c[..], *t),
            _ => (raw, NO_COMPRESSION),
        };
        let handle = BlockHandle {
            offset: self.out.len() as u64,
            size: body.len() as u64,
        };
        self.out.extend_from_slice(body);
        self.out.extend_from_slice(&block_trailer(body, ctype));
        handle
    }

    fn flush_data_block(&mut self) {
        if self.data.is_empty() {
            return;
        }
        let last = self.data.last_key().to_vec();
        let h = if self.opts.compression == Compression::None {
            // Straight into the table buffer: no block-sized copy.
            let start = self.out.len();
            self.data.finish_into(&mut self.out);
            let trailer = block_trailer(&self.out[start..], NO_COMPRESSION);
            self.out.extend_from_slice(&trailer);
            BlockHandle {
                offset: start as u64,
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

    /// Finishes the table: its bytes and properties.
    pub fn finish(mut self) -> (Vec<u8>, Properties) {
        self.flush_data_block();
        self.props.data_size = self.out.len() as u64;
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
        (self.out, self.props)
    }
}
