//! Write batches, encoded as RocksDB encodes them: `sequence u64 LE | count u32 LE | record*`,
//! record = `type (1) | key (varint-prefixed) [| value (varint-prefixed)]`. The same bytes
//! are the WAL record of the batch.

use crate::LsmError;
use crate::key::ValueType;
use crate::sst::format::{get_bytes, get_u32, get_u64, put_bytes};

const HEADER: usize = 12;

/// An atomic group of puts and deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteBatch {
    rep: Vec<u8>,
    count: u32,
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
        }
    }

    /// An empty batch with room for about `bytes` of records.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut rep = Vec::with_capacity(HEADER + bytes);
        rep.resize(HEADER, 0);
        Self { rep, count: 0 }
    }

    /// Adds a put.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.rep.push(ValueType::Value as u8);
        put_bytes(&mut self.rep, key);
        put_bytes(&mut self.rep, value);
        self.count += 1;
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
    }

    /// Adds a delete.
    pub fn delete(&mut self, key: &[u8]) {
        self.rep.push(ValueType::Deletion as u8);
        put_bytes(&mut self.rep, key);
        self.count += 1;
        self.rep[8..12].copy_from_slice(&self.count.to_le_bytes());
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
        let b = Self {
            rep: data.to_vec(),
            count,
        };
        let n = b.ops().try_fold(0u32, |n, op| op.map(|_| n + 1))?;
        if n != count {
            return Err(bad("count does not match the records"));
        }
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
                let value = if vt == ValueType::Value {
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
}
