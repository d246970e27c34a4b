//! The log format of the WAL and the MANIFEST (LevelDB's): the stream is cut into 32 KiB
//! blocks; a record is stored as one or more fragments, each with a 7-byte header
//! `masked crc32c (4) | length u16 (2) | type (1)`, type FULL, FIRST, MIDDLE or LAST. A block
//! tail shorter than a header is zero-filled. The CRC covers the type byte and the payload.
//!
//! Elided records (`docs/architecture.md`, "Elided payloads"): a record whose full form the
//! writer does not hold (a write batch with elided values) is stored where its full form
//! would start as one fragment of type ELIDED, payload `varint(span) | compact record`,
//! followed by a hole: `span` is the number of bytes the full record's fragments (and any
//! block padding between them) take from this fragment's start, so the log is exactly as long
//! as with the full record and the reader resumes where the full record would end. The hole
//! may read back as zeros or as a hole; it is never read.

use crate::sst::format::{mask_crc, unmask_crc};
use crate::{CorruptionKind, LsmError};

/// Block size of the log format.
pub const LOG_BLOCK: usize = 32 << 10;
/// Fragment header size.
pub const HEADER: usize = 7;

const FULL: u8 = 1;
const FIRST: u8 = 2;
const MIDDLE: u8 = 3;
const LAST: u8 = 4;
/// A compact record standing for a full record of `span` bytes (see the module docs).
const ELIDED: u8 = 5;

/// What a reader does with damage (RocksDB's `WALRecoveryMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
pub enum RecoveryMode {
    /// Only a torn last record (cut short: it runs past the end of the log) is dropped; any
    /// other damage, a complete record with a bad checksum at the tail included, is an error.
    /// The MANIFEST is always read this way.
    #[serde(rename = "kTolerateCorruptedTailRecords")]
    TolerateCorruptedTailRecords,
    /// Any damage is an error.
    #[serde(rename = "kAbsoluteConsistency")]
    AbsoluteConsistency,
    /// Stop at the first damage and keep what came before (RocksDB's default).
    #[default]
    #[serde(rename = "kPointInTimeRecovery")]
    PointInTimeRecovery,
    /// Skip damaged records and go on.
    #[serde(rename = "kSkipAnyCorruptedRecords")]
    SkipAnyCorruptedRecords,
}

impl RecoveryMode {
    /// RocksDB's name of the mode (`kPointInTimeRecovery`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::TolerateCorruptedTailRecords => "kTolerateCorruptedTailRecords",
            Self::AbsoluteConsistency => "kAbsoluteConsistency",
            Self::PointInTimeRecovery => "kPointInTimeRecovery",
            Self::SkipAnyCorruptedRecords => "kSkipAnyCorruptedRecords",
        }
    }
}

/// Appends records in the log format to an in-memory buffer that the caller writes out.
#[derive(Debug, Default)]
pub struct LogWriter {
    block_offset: usize,
}

impl LogWriter {
    /// A writer at the start of a log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Encodes `record` at the current position into `out`.
    pub fn add_record(&mut self, record: &[u8], out: &mut Vec<u8>) {
        let mut left = record;
        let mut begin = true;
        loop {
            let room = LOG_BLOCK - self.block_offset;
            if room < HEADER {
                out.extend(std::iter::repeat_n(0u8, room));
                self.block_offset = 0;
            }
            let avail = LOG_BLOCK - self.block_offset - HEADER;
            let n = left.len().min(avail);
            let end = n == left.len();
            let t = match (begin, end) {
                (true, true) => FULL,
                (true, false) => FIRST,
                (false, true) => LAST,
                (false, false) => MIDDLE,
            };
            let crc = mask_crc(crc32c::crc32c_append(crc32c::crc32c(&[t]), &left[..n]));
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(n as u16).to_le_bytes());
            out.push(t);
            out.extend_from_slice(&left[..n]);
            self.block_offset += HEADER + n;
            left = &left[n..];
            begin = false;
            if end {
                return;
            }
        }
    }
}

impl LogWriter {
    /// Bytes [`LogWriter::add_record`] of a `len`-byte record appends from block offset
    /// `at` (any padding at a block's end included), and the block offset after it.
    fn span(mut at: usize, len: usize) -> (usize, usize) {
        let mut total = 0;
        let mut left = len;
        loop {
            let room = LOG_BLOCK - at;
            if room < HEADER {
                total += room;
                at = 0;
            }
            let n = left.min(LOG_BLOCK - at - HEADER);
            total += HEADER + n;
            at += HEADER + n;
            left -= n;
            if left == 0 {
                return (total, at);
            }
        }
    }

    /// Appends, in place of a record of `full_len` bytes, the elided record of `compact`
    /// (same logical length as [`LogWriter::add_record`] of the full record; see the module
    /// docs) to `out`. `false`, with nothing appended, when the compact record does not fit
    /// in the full record's first block or span: write the full record instead.
    pub fn add_elided_record(
        &mut self,
        compact: &[u8],
        full_len: usize,
        out: &mut zonedb_device::ElidedBytes,
    ) -> bool {
        let pad = if LOG_BLOCK - self.block_offset < HEADER {
            LOG_BLOCK - self.block_offset
        } else {
            0
        };
        let (total, end_offset) = Self::span(self.block_offset, full_len);
        let span = total - pad;
        let start = (self.block_offset + pad) % LOG_BLOCK;
        // The payload is `varint(span) | compact`, written straight into `out` (no copy of
        // the batch on the way).
        let mut varint = [0u8; 10];
        let vlen = crate::sst::format::encode_varint(&mut varint, span as u64);
        let payload_len = vlen + compact.len();
        let frag = HEADER + payload_len;
        if frag > span || start + frag > LOG_BLOCK || payload_len > usize::from(u16::MAX) {
            return false;
        }
        let crc = mask_crc(crc32c::crc32c_append(
            crc32c::crc32c_append(crc32c::crc32c(&[ELIDED]), &varint[..vlen]),
            compact,
        ));
        let mut head = [0u8; HEADER + 10];
        head[..4].copy_from_slice(&crc.to_le_bytes());
        head[4..6].copy_from_slice(&(payload_len as u16).to_le_bytes());
        head[6] = ELIDED;
        head[HEADER..HEADER + vlen].copy_from_slice(&varint[..vlen]);
        if pad > 0 {
            out.push_zeros(pad);
        }
        out.push_bytes(&head[..HEADER + vlen]);
        out.push_bytes(compact);
        out.push_hole((span - frag) as u64);
        self.block_offset = end_offset;
        true
    }
}

/// Result of reading a whole log.
#[derive(Debug, Default)]
pub struct LogContents {
    /// Records, in order, with the byte offset of their first fragment.
    pub records: Vec<(u64, Vec<u8>)>,
    /// Damage found and tolerated: (offset, what).
    pub skipped: Vec<(u64, String)>,
    /// Whether reading stopped at damage before the end.
    pub stopped_early: bool,
    /// Whether the last damage is a record cut short at the end of the log (a crash during
    /// an unsynced append), not corruption.
    pub torn_tail: bool,
}

/// Reads every record of a log held in `data`.
#[allow(clippy::too_many_lines, reason = "one state machine over fragments")]
///
/// # Errors
/// [`LsmError::Corruption`] when `mode` does not tolerate the damage found.
pub fn read_log(file: &str, data: &[u8], mode: RecoveryMode) -> Result<LogContents, LsmError> {
    let mut out = LogContents::default();
    let mut pos = 0usize;
    let mut partial: Option<(u64, Vec<u8>)> = None;
    while pos < data.len() {
        let mut elided_tail = false;
        let in_block = pos % LOG_BLOCK;
        if LOG_BLOCK - in_block < HEADER {
            pos += LOG_BLOCK - in_block;
            continue;
        }
        let damage = |what: &str, at: usize| (at as u64, what.to_owned());
        let frag = if pos + HEADER > data.len() {
            Err(damage("truncated fragment header", pos))
        } else {
            let crc = u32::from_le_bytes([data[pos], data[pos + 1], data[pos + 2], data[pos + 3]]);
            let len = usize::from(u16::from_le_bytes([data[pos + 4], data[pos + 5]]));
            let t = data[pos + 6];
            if t == 0 && crc == 0 && len == 0 {
                // Zero fill (a preallocated or padded tail): skip to the next block.
                pos += LOG_BLOCK - in_block;
                continue;
            }
            let end = pos + HEADER + len;
            if in_block + HEADER + len > LOG_BLOCK {
                Err(damage("fragment crosses a block boundary", pos))
            } else if end > data.len() {
                Err(damage("truncated fragment", pos))
            } else {
                let payload = &data[pos + HEADER..end];
                if unmask_crc(crc) != crc32c::crc32c_append(crc32c::crc32c(&[t]), payload) {
                    Err(damage("fragment checksum mismatch", pos))
                } else if t == ELIDED {
                    // The compact record, then the rest of the full record's span.
                    let mut p = 0;
                    match crate::sst::format::get_varint(payload, &mut p)
                        .and_then(|s| usize::try_from(s).ok())
                    {
                        Some(span) if span >= HEADER + len => {
                            if pos + span > data.len() {
                                // Cut short by a crash: what follows the fragment is the
                                // record's own (unwritten) hole.
                                elided_tail = data[end..].iter().all(|&b| b == 0);
                                Err(damage("truncated elided record", pos))
                            } else {
                                Ok((t, &payload[p..], pos + span))
                            }
                        }
                        _ => Err(damage("elided record with a bad span", pos)),
                    }
                } else {
                    Ok((t, payload, end))
                }
            }
        };
        match frag {
            Ok((t, payload, end)) => {
                let at = pos as u64;
                pos = end;
                match t {
                    FULL | ELIDED => {
                        if let Some((p, _)) = partial.take() {
                            out.skipped
                                .push((p, "record missing its last fragment".into()));
                        }
                        out.records.push((at, payload.to_vec()));
                    }
                    FIRST => {
                        if let Some((p, _)) = partial.take() {
                            out.skipped
                                .push((p, "record missing its last fragment".into()));
                        }
                        partial = Some((at, payload.to_vec()));
                    }
                    MIDDLE | LAST => match &mut partial {
                        Some((_, buf)) => {
                            buf.extend_from_slice(payload);
                            if t == LAST
                                && let Some(r) = partial.take()
                            {
                                out.records.push(r);
                            }
                        }
                        None => out.skipped.push((at, "fragment without a first".into())),
                    },
                    other => out
                        .skipped
                        .push((at, format!("unknown fragment type {other}"))),
                }
            }
            Err((at, what)) => {
                // A record cut short by a crash (its fragment runs past the end of the data)
                // may be dropped; a complete fragment whose checksum fails is corruption,
                // wherever it lies (RocksDB's kTolerateCorruptedTailRecords).
                let torn = what.starts_with("truncated");
                let is_tail = elided_tail
                    || (torn
                        && !data[pos..]
                            .chunks(LOG_BLOCK)
                            .skip(1)
                            .any(|c| c.iter().any(|&b| b != 0))
                        && data.len() - pos <= LOG_BLOCK);
                match mode {
                    RecoveryMode::AbsoluteConsistency => {
                        return Err(LsmError::corrupt(
                            CorruptionKind::of_message(&what),
                            file,
                            at,
                            what,
                        ));
                    }
                    RecoveryMode::TolerateCorruptedTailRecords if !is_tail => {
                        return Err(LsmError::corrupt(
                            CorruptionKind::of_message(&what),
                            file,
                            at,
                            what,
                        ));
                    }
                    RecoveryMode::SkipAnyCorruptedRecords => {
                        out.skipped.push((at, what));
                        out.torn_tail = is_tail;
                        partial = None;
                        pos += LOG_BLOCK - in_block;
                    }
                    _ => {
                        out.skipped.push((at, what));
                        out.stopped_early = true;
                        out.torn_tail = is_tail;
                        partial = None;
                        break;
                    }
                }
            }
        }
    }
    if let Some((p, _)) = partial {
        out.skipped.push((p, "torn record at the end".into()));
        out.torn_tail = true;
    }
    if mode == RecoveryMode::AbsoluteConsistency && !out.skipped.is_empty() {
        let (at, what) = out.skipped[0].clone();
        return Err(LsmError::corrupt(
            CorruptionKind::of_message(&what),
            file,
            at,
            what,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<Vec<u8>> {
        (0..60usize)
            .map(|i| vec![i as u8; (i * 1777) % 70_000 + 1])
            .collect()
    }

    #[test]
    fn records_of_any_size_round_trip() {
        let mut w = LogWriter::new();
        let mut buf = Vec::new();
        for r in records() {
            w.add_record(&r, &mut buf);
        }
        let got = read_log("l", &buf, RecoveryMode::AbsoluteConsistency).unwrap();
        let got: Vec<Vec<u8>> = got.records.into_iter().map(|r| r.1).collect();
        assert_eq!(got, records());
    }

    #[test]
    fn point_in_time_keeps_a_prefix_and_never_returns_damaged_records() {
        let mut w = LogWriter::new();
        let mut buf = Vec::new();
        let recs = records();
        for r in &recs {
            w.add_record(r, &mut buf);
        }
        for at in (0..buf.len()).step_by(7919) {
            let mut d = buf.clone();
            d[at] ^= 0x40;
            let got = read_log("l", &d, RecoveryMode::PointInTimeRecovery).unwrap();
            for (i, (_, r)) in got.records.iter().enumerate() {
                assert_eq!(r, &recs[i], "flip at {at}");
            }
            assert!(
                read_log("l", &d, RecoveryMode::AbsoluteConsistency).is_err()
                    || got.records.len() == recs.len()
            );
            let skip = read_log("l", &d, RecoveryMode::SkipAnyCorruptedRecords).unwrap();
            assert!(skip.records.iter().all(|(_, r)| recs.contains(r)));
        }
        // A torn tail is tolerated by the tail mode.
        let cut = &buf[..buf.len() - 10];
        let got = read_log("l", cut, RecoveryMode::TolerateCorruptedTailRecords).unwrap();
        assert_eq!(got.records.len(), recs.len() - 1);
    }

    #[test]
    fn elided_records_take_the_full_records_bytes_and_read_back_compact() {
        // Full records of many sizes at many offsets; every third one elided.
        let mut full_w = LogWriter::new();
        let mut full = Vec::new();
        let mut el_w = LogWriter::new();
        let mut el = zonedb_device::ElidedBytes::new();
        let mut want = Vec::new();
        let mut elided = 0;
        for (i, r) in records().into_iter().enumerate() {
            full_w.add_record(&r, &mut full);
            let compact = vec![i as u8 ^ 0x5a; 1 + i % 40];
            if i % 3 == 0 && el_w.add_elided_record(&compact, r.len(), &mut el) {
                want.push(compact);
                elided += 1;
            } else {
                let mut b = Vec::new();
                el_w.add_record(&r, &mut b);
                el.push_bytes(&b);
                want.push(r);
            }
            assert_eq!(el.len(), full.len() as u64, "record {i}");
        }
        assert!(elided > 10);
        assert!(
            el.hole_bytes() > full.len() as u64 / 5,
            "{} of {}",
            el.hole_bytes(),
            full.len()
        );
        let got = read_log("l", &el.materialize(), RecoveryMode::AbsoluteConsistency).unwrap();
        let got: Vec<Vec<u8>> = got.records.into_iter().map(|r| r.1).collect();
        assert_eq!(got, want);
        // Cut short inside an elided record's hole: a torn tail, dropped by the tail mode.
        let last = el.holes().last().unwrap();
        let cut = el.materialize()[..(last.at + last.len / 2) as usize].to_vec();
        let got = read_log("l", &cut, RecoveryMode::TolerateCorruptedTailRecords).unwrap();
        assert!(got.torn_tail);
        // A damaged elided fragment is corruption.
        let at = el.holes()[0].at as usize - 3;
        let mut d = el.materialize();
        d[at] ^= 1;
        assert!(read_log("l", &d, RecoveryMode::AbsoluteConsistency).is_err());
    }

    #[test]
    fn the_tail_mode_drops_a_torn_last_record_but_not_a_damaged_complete_one() {
        let mut w = LogWriter::new();
        let mut buf = Vec::new();
        for r in [b"first".to_vec(), b"second".to_vec(), vec![7u8; 300]] {
            w.add_record(&r, &mut buf);
        }
        let last_at = read_log("l", &buf, RecoveryMode::AbsoluteConsistency)
            .unwrap()
            .records[2]
            .0;
        let mode = RecoveryMode::TolerateCorruptedTailRecords;
        for cut in [1, 100, 300] {
            let got = read_log("l", &buf[..buf.len() - cut], mode).unwrap();
            assert_eq!(got.records.len(), 2, "cut {cut}");
        }
        for flip in [last_at as usize + 3, last_at as usize + 10, buf.len() - 1] {
            let mut d = buf.clone();
            d[flip] ^= 1;
            let err = read_log("l", &d, mode).unwrap_err();
            assert!(
                matches!(&err, LsmError::Corruption { offset, .. } if *offset == last_at),
                "flip at {flip}: {err}"
            );
        }
    }
}
