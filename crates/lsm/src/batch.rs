//! Write batches, encoded as RocksDB encodes them: `sequence u64 LE | count u32 LE | record*`,
//! record = `type (1) | key (varint-prefixed) [| value (varint-prefixed)]`. The same bytes
//! are the WAL record of the batch.
//!
//! An elided value ([`WriteBatch::put_elided`]) is a record of type `ElidedValue` (2) whose
//! value is the stub (`crate::elided::encode_stub`); the batch also knows its logical size,
//! the size it would have with the full values, which every byte count of the write path
//! uses.

use crate::LsmError;
use crate::key::ValueType;
use crate::sst::format::{get_bytes, get_u32, get_u64, put_bytes, put_varint};

const HEADER: usize = 12;

/// An atomic group of puts and deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteBatch {
    rep: Vec<u8>,
    count: u32,
    /// Encoded size with every elided value in full.
    logical: usize,
    /// Elided values in the batch.
    elided: u32,
}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

/// One operation of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOp<'a> {
    /// Put or delete.
    pub value_type: ValueType,
    /// User key.
    pub key: &'a [u8],
    /// Value (empty for deletes).
    pub value: &'a [u8],
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self {
            rep: vec![0; HEADER],
            count: 0,
            logical: HEADER,
            elided: 0,
        }
    }

    /// An empty batch with room for about `bytes` of records.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut rep = Vec::with_capacity(HEADER + bytes);
        rep.resize(HEADER, 0);
        Self {
            rep,
            count: 0,
            logical: HEADER,
            elided: 0,
        }
    }

    /// Adds a put.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        let before = self.rep.len();
        self.rep.push(ValueType::Value as u8);
        put_bytes(&mut self.rep, key);
        put_bytes(&mut self.rep, value);
        self.logical += self.rep.len() - before;
        self.count += 1;
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
    }

    /// Adds a put of an elided value: `len` bytes the registered regenerator makes from
    /// `desc` (recorded as type `ElidedValue` with the stub as its value).
    pub fn put_elided(&mut self, key: &[u8], len: usize, desc: &[u8]) {
        let before = self.rep.len();
        self.rep.push(ValueType::ElidedValue as u8);
        put_bytes(&mut self.rep, key);
        let key_part = self.rep.len() - before;
        // The stub length-prefixed, encoded in place (no stub buffer).
        let stub_len = crate::elided::varint_len(len as u64) + desc.len() as u64;
        put_varint(&mut self.rep, stub_len);
        crate::elided::encode_stub(len as u64, desc, &mut self.rep);
        self.logical += key_part + full_value_part(len as u64) as usize;
        self.count += 1;
        self.elided += 1;
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
    }

    /// Adds a delete.
    pub fn delete(&mut self, key: &[u8]) {
        let before = self.rep.len();
        self.rep.push(ValueType::Deletion as u8);
        put_bytes(&mut self.rep, key);
        self.logical += self.rep.len() - before;
        self.count += 1;
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
    }

    /// The size the encoding would have with every elided value in full (what the WAL,
    /// the write stats, group commit and write stalls count).
    pub fn logical_size_bytes(&self) -> usize {
        self.logical
    }

    /// Whether the batch holds elided values.
    pub fn has_elided(&self) -> bool {
        self.elided > 0
    }

    /// The batch with every elided value regenerated in full (type `Value`), same sequence:
    /// the batch whose encoding [`WriteBatch::logical_size_bytes`] measures.
    ///
    /// # Errors
    /// As [`crate::elided::regenerate_into`]; corruption for a malformed batch.
    pub fn materialize(
        &self,
        regen: Option<&dyn crate::elided::ValueRegenerator>,
    ) -> Result<Self, LsmError> {
        let mut out = Self::with_capacity(self.logical);
        let mut value = Vec::new();
        for op in self.ops() {
            let op = op?;
            match op.value_type {
                ValueType::Deletion => out.delete(op.key),
                ValueType::Value => out.put(op.key, op.value),
                ValueType::ElidedValue => {
                    crate::elided::regenerate_into(regen, op.value, &mut value)?;
                    out.put(op.key, &value);
                }
            }
        }
        out.set_sequence(self.sequence());
        Ok(out)
    }

    /// Operations in the batch.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether the batch holds nothing.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Encoded size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.rep.len()
    }

    /// Sequence number of the first operation (set when written).
    pub fn sequence(&self) -> u64 {
        get_u64(&self.rep, 0).unwrap_or(0)
    }

    /// Sets the sequence number of the first operation.
    pub fn set_sequence(&mut self, seq: u64) {
        self.rep[..8].copy_from_slice(&seq.to_le_bytes());
    }

    /// The encoding.
    pub fn data(&self) -> &[u8] {
        &self.rep
    }

    /// Decodes and checks an encoding (the count must match the records).
    ///
    /// # Errors
    /// [`LsmError::Corruption`] if malformed.
    pub fn from_data(file: &str, data: &[u8]) -> Result<Self, LsmError> {
        let bad = |w: &str| LsmError::corruption(file, 0, format!("write batch: {w}"));
        if data.len() < HEADER {
            return Err(bad("shorter than its header"));
        }
        let count = get_u32(data, 8).ok_or_else(|| bad("header"))?;
        let mut b = Self {
            rep: data.to_vec(),
            count,
            logical: data.len(),
            elided: 0,
        };
        let (mut n, mut elided, mut logical) = (0u32, 0u32, data.len() as u64);
        for op in b.ops() {
            let op = op?;
            n += 1;
            if op.value_type == ValueType::ElidedValue {
                let (len, _) = crate::elided::decode_stub(op.value)
                    .ok_or_else(|| bad("elided value stub does not decode"))?;
                elided += 1;
                logical = (logical + full_value_part(len))
                    .checked_sub(full_value_part(op.value.len() as u64))
                    .ok_or_else(|| bad("elided value stub"))?;
            }
        }
        if n != count {
            return Err(bad("count does not match the records"));
        }
        b.elided = elided;
        b.logical = usize::try_from(logical).map_err(|_| bad("elided value too long"))?;
        Ok(b)
    }

    /// The operations, in order.
    pub fn ops(&self) -> impl Iterator<Item = Result<BatchOp<'_>, LsmError>> + '_ {
        let mut pos = HEADER;
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed || pos >= self.rep.len() {
                return None;
            }
            let at = pos as u64;
            let bad = || LsmError::corruption("write batch", at, "malformed record");
            let t = self.rep[pos];
            pos += 1;
            let r = (|| {
                let vt = ValueType::from_u8(t)?;
                let key = get_bytes(&self.rep, &mut pos)?;
                let value = if vt.is_value() {
                    get_bytes(&self.rep, &mut pos)?
                } else {
                    &[][..]
                };
                Some(BatchOp {
                    value_type: vt,
                    key,
                    value,
                })
            })();
            if r.is_none() {
                failed = true;
            }
            Some(r.ok_or_else(bad))
        })
    }
}

/// Bytes of a length-prefixed value of `len` bytes.
fn full_value_part(len: u64) -> u64 {
    crate::elided::varint_len(len) + len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_round_trip_and_damage_is_detected() {
        let mut b = WriteBatch::new();
        b.put(b"a", b"1");
        b.delete(b"b");
        b.put(b"c", &[7; 300]);
        b.set_sequence(42);
        let d = WriteBatch::from_data("w", b.data()).unwrap();
        assert_eq!(d.sequence(), 42);
        let ops: Vec<_> = d.ops().map(Result::unwrap).collect();
        assert_eq!(ops.len(), 3);
        assert_eq!(ops[1].value_type, ValueType::Deletion);
        assert_eq!(ops[2].value.len(), 300);
        for cut in 0..b.data().len() {
            let _ = WriteBatch::from_data("w", &b.data()[..cut]);
        }
        assert!(WriteBatch::from_data("w", &b.data()[..b.data().len() - 1]).is_err());
    }

    #[derive(Debug)]
    struct Fill;
    impl crate::elided::ValueRegenerator for Fill {
        fn regenerate(&self, desc: &[u8], len: usize, out: &mut Vec<u8>) -> bool {
            out.resize(len, desc[0]);
            true
        }
    }

    #[test]
    fn elided_batches_know_their_full_size_and_materialize_to_it() {
        for len in [0usize, 1, 100, 127, 128, 1024, 20_000] {
            let mut b = WriteBatch::new();
            b.put(b"a", b"1");
            b.put_elided(b"key", len, &[7, 7]);
            b.delete(b"b");
            b.set_sequence(9);
            assert!(b.has_elided());
            let full = b.materialize(Some(&Fill)).unwrap();
            assert!(!full.has_elided());
            assert_eq!(b.logical_size_bytes(), full.size_bytes(), "len {len}");
            assert_eq!(full.logical_size_bytes(), full.size_bytes());
            assert_eq!(full.sequence(), 9);
            let ops: Vec<_> = full.ops().map(Result::unwrap).collect();
            assert_eq!(ops[1].value, &vec![7u8; len][..]);
            let d = WriteBatch::from_data("w", b.data()).unwrap();
            assert_eq!(d, b);
            assert!(b.materialize(None).is_err());
        }
    }
}
