//! `VersionEdit`, as RocksDB logs it in the MANIFEST: a set of tagged fields. Decoding never
//! panics; unknown tags and malformed fields are corruption.

use super::file_meta::FileMeta;
use crate::LsmError;

/// A change to the LSM tree's shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionEdit {
    /// WAL files below this number are obsolete.
    pub log_number: Option<u64>,
    /// Next file number to hand out.
    pub next_file_number: Option<u64>,
    /// Last sequence number used.
    pub last_sequence: Option<u64>,
    /// Files removed: (level, number).
    pub deleted_files: Vec<(u32, u64)>,
    /// Files added: (level, metadata).
    pub new_files: Vec<(u32, FileMeta)>,
}

const TAG_LOG_NUMBER: u8 = 2;
const TAG_NEXT_FILE_NUMBER: u8 = 3;
const TAG_LAST_SEQUENCE: u8 = 4;
const TAG_DELETED_FILE: u8 = 6;
const TAG_NEW_FILE: u8 = 7;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err(&self, what: &str) -> LsmError {
        LsmError::corruption("MANIFEST", self.pos as u64, format!("version edit: {what}"))
    }

    fn varint(&mut self) -> Result<u64, LsmError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *self
                .buf
                .get(self.pos)
                .ok_or_else(|| self.err("truncated varint"))?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(self.err("varint too long"))
    }

    fn varint32(&mut self) -> Result<u32, LsmError> {
        let v = self.varint()?;
        u32::try_from(v).map_err(|_| self.err("value too large"))
    }

    fn bytes(&mut self) -> Result<&'a [u8], LsmError> {
        let n = usize::try_from(self.varint()?).map_err(|_| self.err("length too large"))?;
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.err("length overflows"))?;
        let b = self
            .buf
            .get(self.pos..end)
            .ok_or_else(|| self.err("truncated bytes"))?;
        self.pos = end;
        Ok(b)
    }
}

impl VersionEdit {
    /// The encoding (a MANIFEST record's payload).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (tag, v) in [
            (TAG_LOG_NUMBER, self.log_number),
            (TAG_NEXT_FILE_NUMBER, self.next_file_number),
            (TAG_LAST_SEQUENCE, self.last_sequence),
        ] {
            if let Some(v) = v {
                out.push(tag);
                put_varint(&mut out, v);
            }
        }
        for &(level, number) in &self.deleted_files {
            out.push(TAG_DELETED_FILE);
            put_varint(&mut out, u64::from(level));
            put_varint(&mut out, number);
        }
        for (level, f) in &self.new_files {
            out.push(TAG_NEW_FILE);
            put_varint(&mut out, u64::from(*level));
            for v in [f.number, f.file_size] {
                put_varint(&mut out, v);
            }
            put_bytes(&mut out, &f.smallest);
            put_bytes(&mut out, &f.largest);
            for v in [
                f.smallest_seq,
                f.largest_seq,
                f.num_entries,
                f.num_deletions,
            ] {
                put_varint(&mut out, v);
            }
        }
        out
    }

    /// Decodes an encoding.
    ///
    /// # Errors
    /// [`LsmError::Corruption`] for unknown tags, truncation or impossible values.
    pub fn decode(buf: &[u8]) -> Result<Self, LsmError> {
        let mut r = Reader { buf, pos: 0 };
        let mut e = Self::default();
        while let Some(&tag) = r.buf.get(r.pos) {
            r.pos += 1;
            match tag {
                TAG_LOG_NUMBER => e.log_number = Some(r.varint()?),
                TAG_NEXT_FILE_NUMBER => e.next_file_number = Some(r.varint()?),
                TAG_LAST_SEQUENCE => e.last_sequence = Some(r.varint()?),
                TAG_DELETED_FILE => {
                    let level = r.varint32()?;
                    e.deleted_files.push((level, r.varint()?));
                }
                TAG_NEW_FILE => {
                    let level = r.varint32()?;
                    let number = r.varint()?;
                    let file_size = r.varint()?;
                    let smallest = r.bytes()?.to_vec();
                    let largest = r.bytes()?.to_vec();
                    let (smallest_seq, largest_seq) = (r.varint()?, r.varint()?);
                    let (num_entries, num_deletions) = (r.varint()?, r.varint()?);
                    if smallest.len() < 8
                        || largest.len() < 8
                        || crate::key::compare(&smallest, &largest).is_gt()
                    {
                        return Err(r.err("new file with an invalid key range"));
                    }
                    e.new_files.push((
                        level,
                        FileMeta {
                            number,
                            file_size,
                            smallest,
                            largest,
                            smallest_seq,
                            largest_seq,
                            num_entries,
                            num_deletions,
                        },
                    ));
                }
                _ => {
                    r.pos -= 1;
                    return Err(r.err("unknown tag"));
                }
            }
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::key::{ValueType, internal_key};

    fn sample() -> VersionEdit {
        VersionEdit {
            log_number: Some(7),
            next_file_number: Some(12),
            last_sequence: Some(1 << 40),
            deleted_files: vec![(0, 3), (1, 9)],
            new_files: vec![(
                1,
                FileMeta {
                    number: 11,
                    file_size: 64 << 20,
                    smallest: internal_key(b"apple", 5, ValueType::Value),
                    largest: internal_key(b"zebra", 9, ValueType::Deletion),
                    smallest_seq: 5,
                    largest_seq: 9,
                    num_entries: 1000,
                    num_deletions: 3,
                },
            )],
        }
    }

    #[test]
    fn edits_round_trip() {
        let e = sample();
        assert_eq!(VersionEdit::decode(&e.encode()).unwrap(), e);
        assert_eq!(VersionEdit::decode(&[]).unwrap(), VersionEdit::default());
    }

    #[test]
    fn truncated_or_unknown_input_is_corruption() {
        let enc = sample().encode();
        for n in 1..enc.len() {
            // Either a clean prefix (ends on a field boundary) or a corruption error.
            let _ = VersionEdit::decode(&enc[..n]);
        }
        assert!(VersionEdit::decode(&[99]).is_err());
        assert!(VersionEdit::decode(&[TAG_LOG_NUMBER, 0x80]).is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = VersionEdit::decode(&bytes);
        }
    }
}
