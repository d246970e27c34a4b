//! On-disk pieces shared by the SST builder and reader: varints, block handles, the block
//! trailer (compression byte and masked CRC32C), properties and the fixed-size footer.

use crate::{CorruptionKind, LsmError};

/// Magic number at the very end of every ZoneDB SST.
pub const TABLE_MAGIC: u64 = 0x5a6f_6e65_4442_5354; // "ZoneDBST"
/// Format version written in the footer: 2 numbers block compression as RocksDB does
/// ([`SNAPPY_COMPRESSION`] 1, [`LZ4_COMPRESSION`] 4); version 1 tables, still read, had
/// only LZ4, as 1 ([`LEGACY_LZ4_COMPRESSION`]).
pub const FORMAT_VERSION: u32 = 2;
/// The first format version (LZ4 as compression byte 1), still read.
pub const FORMAT_VERSION_1: u32 = 1;
/// Footer size in bytes.
pub const FOOTER_LEN: usize = 64;
/// Block trailer: compression type (1) + masked CRC32C (4).
pub const TRAILER_LEN: usize = 5;

/// Compression byte of an uncompressed block.
pub const NO_COMPRESSION: u8 = 0;
/// Compression byte of a Snappy block (RocksDB's `kSnappyCompression`): the raw Snappy
/// format, which starts with the uncompressed length as a varint.
pub const SNAPPY_COMPRESSION: u8 = 1;
/// Compression byte of an LZ4 block (RocksDB's `kLZ4Compression`; ours is size-prepended
/// as `lz4_flex` writes it).
pub const LZ4_COMPRESSION: u8 = 4;
/// Compression byte of an elided data block (`docs/architecture.md`, "Elided payloads"):
/// the block's on-disk bytes are `[hole][compact block][meta][trailer]`, exactly as long as
/// the full block (compressed, if it was), where the compact block is the block as built
/// (elided values as stubs, uncompressed), meta is `compact length u32 LE | full uncompressed
/// length u32 LE`, and the trailer's CRC covers the compact block, the meta and this byte
/// (never the hole, which may read back as zeros or as a hole).
pub const ELIDED_BLOCK: u8 = 0x80;
/// Bytes of an elided block's meta.
pub const ELIDED_META_LEN: usize = 8;

/// Compression byte of an LZ4 block in a format version 1 table.
pub const LEGACY_LZ4_COMPRESSION: u8 = 1;

/// Most bytes a Snappy block can expand to per compressed byte (a 3-byte copy element
/// yields at most 64 bytes), so a damaged length header cannot ask for a huge buffer.
const SNAPPY_MAX_EXPANSION: usize = 22;

/// RocksDB's `GoodCompressionRatio` (`table/block_based/block_based_table_builder.cc`):
/// a compressed block is kept only if it is smaller than 7/8 of the raw block (saves at
/// least 12.5 %); otherwise the block is stored raw.
pub fn good_compression_ratio(compressed_bytes: usize, raw_bytes: usize) -> bool {
    compressed_bytes < raw_bytes - raw_bytes / 8
}

const MASK_DELTA: u32 = 0xa282_ead8;

/// LevelDB's CRC mask, so that a CRC stored inside CRC'd data does not look like data.
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Inverse of [`mask_crc`].
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// Appends a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 10];
    let n = encode_varint(&mut buf, v);
    out.extend_from_slice(&buf[..n]);
}

/// Writes `v` as a varint at the front of `buf`; returns its length.
pub fn encode_varint(buf: &mut [u8; 10], mut v: u64) -> usize {
    let mut n = 0;
    while v >= 0x80 {
        buf[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    n + 1
}

/// Appends a length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Decodes a varint at `*pos`, advancing it; `None` if truncated or longer than 10 bytes.
pub fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Decodes a length-prefixed byte string at `*pos`.
pub fn get_bytes<'a>(buf: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let n = usize::try_from(get_varint(buf, pos)?).ok()?;
    let end = pos.checked_add(n)?;
    let s = buf.get(*pos..end)?;
    *pos = end;
    Some(s)
}

/// Reads a little-endian u32 at `pos`.
pub fn get_u32(buf: &[u8], pos: usize) -> Option<u32> {
    let b = buf.get(pos..pos + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads a little-endian u64 at `pos`.
pub fn get_u64(buf: &[u8], pos: usize) -> Option<u64> {
    let b = buf.get(pos..pos + 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

/// Where a block lives in the file (size excludes the trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockHandle {
    /// File offset.
    pub offset: u64,
    /// Block bytes before the trailer.
    pub size: u64,
}

impl BlockHandle {
    /// Varint encoding.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.offset);
        put_varint(out, self.size);
    }

    /// Decodes a handle; `None` if malformed.
    pub fn decode(buf: &[u8]) -> Option<Self> {
        let mut pos = 0;
        let offset = get_varint(buf, &mut pos)?;
        let size = get_varint(buf, &mut pos)?;
        Some(Self { offset, size })
    }
}

/// Builds the trailer of `block` compressed with `ctype`.
pub fn block_trailer(block: &[u8], ctype: u8) -> [u8; TRAILER_LEN] {
    let crc = crc32c::crc32c_append(crc32c::crc32c(block), &[ctype]);
    let m = mask_crc(crc).to_le_bytes();
    [ctype, m[0], m[1], m[2], m[3]]
}

/// Checks a block read with its trailer and returns its uncompressed contents; `version`
/// is the table's format version (it says what the compression byte means).
///
/// # Errors
/// [`LsmError::Corruption`] on a checksum mismatch, an unknown compression type, or a block
/// that does not decompress.
pub fn verify_block(
    file: &str,
    handle: BlockHandle,
    raw: Vec<u8>,
    version: u32,
) -> Result<Vec<u8>, LsmError> {
    verify_block_charged(file, handle, raw, version).map(|(b, _)| b)
}

/// The trailer of an elided block whose stored part is `stored` (compact block and meta).
pub fn elided_trailer(stored: &[u8]) -> [u8; TRAILER_LEN] {
    block_trailer(stored, ELIDED_BLOCK)
}

/// Decodes an elided block from `tail`, the last bytes of the block read with its trailer
/// (at least the compact block, meta and trailer; all of it is fine): the compact block and
/// the full uncompressed length (the block cache's charge).
///
/// # Errors
/// [`LsmError::Corruption`] for a checksum mismatch or lengths that do not fit.
pub fn decode_elided_block(
    file: &str,
    handle: BlockHandle,
    tail: &[u8],
) -> Result<(Vec<u8>, u64), LsmError> {
    let bad =
        |what: &str| LsmError::corruption(file, handle.offset, format!("elided block: {what}"));
    let body_end = tail
        .len()
        .checked_sub(TRAILER_LEN)
        .ok_or_else(|| bad("shorter than its trailer"))?;
    let meta_at = body_end
        .checked_sub(ELIDED_META_LEN)
        .ok_or_else(|| bad("shorter than its meta"))?;
    let compact = get_u32(tail, meta_at).ok_or_else(|| bad("meta"))? as usize;
    let full = get_u32(tail, meta_at + 4).ok_or_else(|| bad("meta"))?;
    let start = meta_at
        .checked_sub(compact)
        .filter(|_| (compact + ELIDED_META_LEN) as u64 <= handle.size)
        .ok_or_else(|| bad("compact block longer than the block"))?;
    let trailer = &tail[body_end..];
    if trailer[0] != ELIDED_BLOCK {
        return Err(bad("not an elided block"));
    }
    let stored = u32::from_le_bytes([trailer[1], trailer[2], trailer[3], trailer[4]]);
    let crc = crc32c::crc32c_append(crc32c::crc32c(&tail[start..body_end]), &[ELIDED_BLOCK]);
    if unmask_crc(stored) != crc {
        return Err(LsmError::corrupt(
            CorruptionKind::Checksum,
            file,
            handle.offset,
            "elided block: checksum mismatch",
        ));
    }
    Ok((tail[start..meta_at].to_vec(), u64::from(full)))
}

/// As [`verify_block`], a block whose stored bytes may have holes (read with
/// `BlockSource::read_elided`), also returning what the block cache charges for it (its full
/// uncompressed length).
///
/// # Errors
/// As [`verify_block`].
pub fn verify_elided_bytes(
    file: &str,
    handle: BlockHandle,
    raw: zonedb_device::ElidedBytes,
    version: u32,
) -> Result<(Vec<u8>, u64), LsmError> {
    let raw = match raw.into_dense() {
        Ok(v) => return verify_block_charged(file, handle, v, version),
        Err(e) => e,
    };
    let n = usize::try_from(handle.size).unwrap_or(usize::MAX);
    if raw.len() != n.saturating_add(TRAILER_LEN) as u64 {
        return Err(LsmError::corrupt(
            CorruptionKind::Truncated,
            file,
            handle.offset,
            "short block read",
        ));
    }
    match raw.pieces().last() {
        Some(Ok(tail))
            if tail.len() >= TRAILER_LEN && tail[tail.len() - TRAILER_LEN] == ELIDED_BLOCK =>
        {
            decode_elided_block(file, handle, tail)
        }
        _ => verify_block_charged(file, handle, raw.materialize(), version),
    }
}

/// [`verify_elided_bytes`] of the block at logical offset `at` of `bytes` (a whole file held
/// in memory, which holds the block whole), without copying an elided block out first.
/// `hint` carries the hole search from one block to the next ([`ElidedBytes::view_in`]).
///
/// # Errors
/// As [`verify_block`].
///
/// [`ElidedBytes::view_in`]: zonedb_device::ElidedBytes::view_in
pub fn verify_elided_range(
    file: &str,
    handle: BlockHandle,
    bytes: &zonedb_device::ElidedBytes,
    at: u64,
    version: u32,
    hint: &mut usize,
) -> Result<(Vec<u8>, u64), LsmError> {
    use zonedb_device::RangeView;
    let len = handle.size.saturating_add(TRAILER_LEN as u64);
    if at.saturating_add(len) > bytes.len() {
        return Err(LsmError::corrupt(
            CorruptionKind::Truncated,
            file,
            handle.offset,
            "short block read",
        ));
    }
    match bytes.view_in(at, len, hint) {
        RangeView::Dense(dense) => verify_block_charged(file, handle, dense.to_vec(), version),
        RangeView::Tail(Ok(tail))
            if tail.len() >= TRAILER_LEN && tail[tail.len() - TRAILER_LEN] == ELIDED_BLOCK =>
        {
            decode_elided_block(file, handle, tail)
        }
        _ => verify_block_charged(file, handle, bytes.slice(at, len).materialize(), version),
    }
}

/// As [`verify_block`], also returning what the block cache charges for the block (its
/// uncompressed length; an elided block's full one).
///
/// # Errors
/// As [`verify_block`].
pub fn verify_block_charged(
    file: &str,
    handle: BlockHandle,
    mut raw: Vec<u8>,
    version: u32,
) -> Result<(Vec<u8>, u64), LsmError> {
    let n = usize::try_from(handle.size).unwrap_or(usize::MAX);
    if raw.len() != n.saturating_add(TRAILER_LEN) {
        return Err(LsmError::corrupt(
            CorruptionKind::Truncated,
            file,
            handle.offset,
            "short block read",
        ));
    }
    let (body, trailer) = raw.split_at(n);
    let ctype = trailer[0];
    if ctype == ELIDED_BLOCK {
        return decode_elided_block(file, handle, &raw);
    }
    let stored = u32::from_le_bytes([trailer[1], trailer[2], trailer[3], trailer[4]]);
    let crc = crc32c::crc32c_append(crc32c::crc32c(body), &[ctype]);
    if unmask_crc(stored) != crc {
        return Err(LsmError::corrupt(
            CorruptionKind::Checksum,
            file,
            handle.offset,
            "block checksum mismatch",
        ));
    }
    let bad = |what: String| LsmError::corruption(file, handle.offset, what);
    let block = match (ctype, version) {
        (NO_COMPRESSION, _) => {
            raw.truncate(n);
            Ok(raw)
        }
        (LEGACY_LZ4_COMPRESSION, FORMAT_VERSION_1) | (LZ4_COMPRESSION, FORMAT_VERSION) => {
            lz4_flex::block::decompress_size_prepended(body)
                .map_err(|e| bad(format!("lz4 block: {e}")))
        }
        (SNAPPY_COMPRESSION, FORMAT_VERSION) => {
            let len =
                snap::raw::decompress_len(body).map_err(|e| bad(format!("snappy block: {e}")))?;
            if len > body.len().saturating_mul(SNAPPY_MAX_EXPANSION) {
                return Err(bad(format!(
                    "snappy block: length {len} impossible for {} bytes",
                    body.len()
                )));
            }
            snap::raw::Decoder::new()
                .decompress_vec(body)
                .map_err(|e| bad(format!("snappy block: {e}")))
        }
        (t, _) => Err(LsmError::corruption(
            file,
            handle.offset,
            format!("unknown compression type {t}"),
        )),
    }?;
    let charge = block.len() as u64;
    Ok((block, charge))
}

/// Table properties (RocksDB's `TableProperties`, the fields the engine and pickers use).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    /// Entries (values and tombstones).
    pub num_entries: u64,
    /// Tombstones.
    pub num_deletions: u64,
    /// Sum of internal key lengths.
    pub raw_key_size: u64,
    /// Sum of value lengths.
    pub raw_value_size: u64,
    /// Bytes of data blocks (with trailers).
    pub data_size: u64,
    /// Bytes of the index block.
    pub index_size: u64,
    /// Bytes of the filter block.
    pub filter_size: u64,
    /// Data blocks.
    pub num_data_blocks: u64,
    /// Smallest sequence number.
    pub smallest_seq: u64,
    /// Largest sequence number.
    pub largest_seq: u64,
    /// Smallest internal key.
    pub smallest_key: Vec<u8>,
    /// Largest internal key.
    pub largest_key: Vec<u8>,
}

impl Properties {
    /// Encodes as varints and length-prefixed keys.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(96 + self.smallest_key.len() + self.largest_key.len());
        for v in [
            self.num_entries,
            self.num_deletions,
            self.raw_key_size,
            self.raw_value_size,
            self.data_size,
            self.index_size,
            self.filter_size,
            self.num_data_blocks,
            self.smallest_seq,
            self.largest_seq,
        ] {
            put_varint(&mut out, v);
        }
        put_bytes(&mut out, &self.smallest_key);
        put_bytes(&mut out, &self.largest_key);
        out
    }

    /// Decodes; `None` if malformed.
    pub fn decode(buf: &[u8]) -> Option<Self> {
        let mut pos = 0;
        let mut v = [0u64; 10];
        for x in &mut v {
            *x = get_varint(buf, &mut pos)?;
        }
        let smallest_key = get_bytes(buf, &mut pos)?.to_vec();
        let largest_key = get_bytes(buf, &mut pos)?.to_vec();
        (pos == buf.len()).then_some(Self {
            num_entries: v[0],
            num_deletions: v[1],
            raw_key_size: v[2],
            raw_value_size: v[3],
            data_size: v[4],
            index_size: v[5],
            filter_size: v[6],
            num_data_blocks: v[7],
            smallest_seq: v[8],
            largest_seq: v[9],
            smallest_key,
            largest_key,
        })
    }
}

/// The fixed-size footer: handles of the index, filter and properties blocks, checksummed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footer {
    /// Format version ([`FORMAT_VERSION`] when written; [`FORMAT_VERSION_1`] is still read).
    pub version: u32,
    /// Index block.
    pub index: BlockHandle,
    /// Filter block (size 0 = none).
    pub filter: BlockHandle,
    /// Properties block.
    pub properties: BlockHandle,
}

impl Footer {
    /// 48 bytes of handles, CRC32C of them, format version, magic.
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut out = [0u8; FOOTER_LEN];
        let fields = [
            self.index.offset,
            self.index.size,
            self.filter.offset,
            self.filter.size,
            self.properties.offset,
            self.properties.size,
        ];
        for (i, f) in fields.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&f.to_le_bytes());
        }
        let crc = mask_crc(crc32c::crc32c(&out[..48]));
        out[48..52].copy_from_slice(&crc.to_le_bytes());
        out[52..56].copy_from_slice(&self.version.to_le_bytes());
        out[56..64].copy_from_slice(&TABLE_MAGIC.to_le_bytes());
        out
    }

    /// Decodes and checks a footer read from a file of `file_size` bytes.
    ///
    /// # Errors
    /// [`LsmError::Corruption`] for a bad magic, version, checksum or out-of-file handles.
    pub fn decode(file: &str, buf: &[u8], file_size: u64) -> Result<Self, LsmError> {
        let at = file_size.saturating_sub(FOOTER_LEN as u64);
        let bad = |what: &str| LsmError::corruption(file, at, what.to_owned());
        if buf.len() != FOOTER_LEN {
            return Err(LsmError::corrupt(
                CorruptionKind::Truncated,
                file,
                at,
                "file too short for a footer",
            ));
        }
        if get_u64(buf, 56) != Some(TABLE_MAGIC) {
            return Err(bad("bad table magic"));
        }
        let version = get_u32(buf, 52).unwrap_or(0);
        if version != FORMAT_VERSION && version != FORMAT_VERSION_1 {
            return Err(bad("unknown table format version"));
        }
        if get_u32(buf, 48).map(unmask_crc) != Some(crc32c::crc32c(&buf[..48])) {
            return Err(LsmError::corrupt(
                CorruptionKind::Checksum,
                file,
                at,
                "footer checksum mismatch",
            ));
        }
        let f = |i: usize| get_u64(buf, i * 8).unwrap_or(u64::MAX);
        let h = |i: usize| BlockHandle {
            offset: f(i),
            size: f(i + 1),
        };
        let footer = Self {
            version,
            index: h(0),
            filter: h(2),
            properties: h(4),
        };
        for hd in [footer.index, footer.filter, footer.properties] {
            let end = hd
                .offset
                .checked_add(hd.size)
                .and_then(|e| e.checked_add(TRAILER_LEN as u64));
            if end.is_none_or(|e| e > at) {
                return Err(bad("block handle beyond the data"));
            }
        }
        Ok(footer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_handles_round_trip() {
        let mut b = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            put_varint(&mut b, v);
        }
        let mut pos = 0;
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(get_varint(&b, &mut pos), Some(v));
        }
        assert_eq!(get_varint(&b, &mut pos), None);
        let h = BlockHandle {
            offset: 12345,
            size: 678,
        };
        let mut e = Vec::new();
        h.encode(&mut e);
        assert_eq!(BlockHandle::decode(&e), Some(h));
        assert_eq!(unmask_crc(mask_crc(0xdead_beef)), 0xdead_beef);
    }

    #[test]
    fn footer_rejects_any_flipped_byte() {
        let f = Footer {
            version: FORMAT_VERSION,
            index: BlockHandle {
                offset: 10,
                size: 5,
            },
            filter: BlockHandle { offset: 0, size: 5 },
            properties: BlockHandle {
                offset: 20,
                size: 7,
            },
        };
        let enc = f.encode();
        assert_eq!(Footer::decode("t", &enc, 1000).unwrap(), f);
        for i in 0..FOOTER_LEN {
            let mut d = enc;
            d[i] ^= 0x10;
            assert!(Footer::decode("t", &d, 1000).is_err(), "byte {i}");
        }
    }

    fn framed(body: &[u8], ctype: u8) -> (BlockHandle, Vec<u8>) {
        let mut raw = body.to_vec();
        raw.extend_from_slice(&block_trailer(body, ctype));
        let h = BlockHandle {
            offset: 0,
            size: body.len() as u64,
        };
        (h, raw)
    }

    #[test]
    fn compression_bytes_are_rocksdbs_and_version_1_lz4_still_reads() {
        assert_eq!((SNAPPY_COMPRESSION, LZ4_COMPRESSION), (1, 4));
        let block: Vec<u8> = b"abcdefgh".repeat(64);
        let snappy = snap::raw::Encoder::new().compress_vec(&block).unwrap();
        let (h, raw) = framed(&snappy, SNAPPY_COMPRESSION);
        assert_eq!(
            verify_block("t", h, raw.clone(), FORMAT_VERSION).unwrap(),
            block
        );
        // In a version 1 table byte 1 was LZ4: Snappy bytes there do not decode as LZ4.
        assert!(verify_block("t", h, raw, FORMAT_VERSION_1).is_err());
        let lz4 = lz4_flex::block::compress_prepend_size(&block);
        let (h, raw) = framed(&lz4, LZ4_COMPRESSION);
        assert_eq!(verify_block("t", h, raw, FORMAT_VERSION).unwrap(), block);
        let (h, raw) = framed(&lz4, LEGACY_LZ4_COMPRESSION);
        assert_eq!(verify_block("t", h, raw, FORMAT_VERSION_1).unwrap(), block);
        // A version 1 table has no byte 4.
        let (h, raw) = framed(&lz4, LZ4_COMPRESSION);
        assert!(verify_block("t", h, raw, FORMAT_VERSION_1).is_err());
    }

    #[test]
    fn snappy_length_header_cannot_ask_for_a_huge_buffer() {
        // Varint 2^32 - 1 then one literal byte: impossible for 6 bytes of input.
        let body = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        let (h, raw) = framed(&body, SNAPPY_COMPRESSION);
        let e = verify_block("t", h, raw, FORMAT_VERSION).unwrap_err();
        assert!(e.to_string().contains("impossible"), "{e}");
    }

    #[test]
    fn good_compression_ratio_is_rocksdbs_seven_eighths() {
        assert!(good_compression_ratio(874, 1000));
        assert!(!good_compression_ratio(875, 1000));
        assert!(!good_compression_ratio(1000, 1000));
    }
}
