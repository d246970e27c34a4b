//! Data and index blocks: entries with the key prefix shared with the previous entry elided,
//! full keys at every `restart_interval`-th entry, and the restart offsets at the end:
//!
//! `entry* | restart: u32 LE * n | n: u32 LE`, entry = `shared | non_shared | value_len`
//! (varints), key suffix, value.

use std::cmp::Ordering;

use super::format::{get_u32, get_varint, put_varint};

/// A key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Builds one block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    restart_interval: usize,
    counter: usize,
    last_key: Vec<u8>,
    entries: usize,
    /// Bytes the block has more in full than as built: elided values count their full
    /// length, and keys the prefix they would share with type `Value` (see
    /// [`BlockBuilder::add_elided`]).
    logical_delta: i64,
    /// Elided entries in the block.
    elided: usize,
}

/// The common prefix length of two internal keys with an `ElidedValue` type byte read as
/// `Value` (what the keys of the full block share).
fn logical_shared(a: &[u8], b: &[u8], shared: usize) -> usize {
    let at = shared;
    if at + 8 != a.len() || at + 8 != b.len() {
        return shared;
    }
    let t = |x: u8| if x == 2 { 1 } else { x };
    if t(a[at]) != t(b[at]) {
        return shared;
    }
    at + 1
        + a[at + 1..]
            .iter()
            .zip(&b[at + 1..])
            .take_while(|(x, y)| x == y)
            .count()
}

/// Bytes of an entry's header and key suffix: `varint(shared) varint(non_shared)` and the
/// suffix.
fn key_part(shared: usize, klen: usize) -> i64 {
    let v = |n: usize| crate::elided::varint_len(n as u64).cast_signed();
    v(shared) + v(klen - shared) + (klen - shared).cast_signed() as i64
}

impl BlockBuilder {
    /// A builder with full keys every `restart_interval` entries (at least 1).
    pub fn new(restart_interval: usize) -> Self {
        Self {
            buf: Vec::new(),
            restarts: vec![0],
            restart_interval: restart_interval.max(1),
            counter: 0,
            last_key: Vec::new(),
            entries: 0,
            logical_delta: 0,
            elided: 0,
        }
    }

    /// Appends an entry whose value is an elided value's stub (`crate::elided`), keyed by an
    /// internal key of type `ElidedValue`: stored as given, counted in
    /// [`BlockBuilder::estimated_size`] as the full entry (the full value, the key typed
    /// `Value`).
    pub fn add_elided(&mut self, key: &[u8], stub: &[u8]) {
        let full = crate::elided::logical_value_len(crate::key::ValueType::ElidedValue, stub);
        let v = |n: u64| (crate::elided::varint_len(n) + n).cast_signed();
        self.logical_delta += v(full) - v(stub.len() as u64);
        self.elided += 1;
        self.add(key, stub);
    }

    /// Whether the block holds elided entries.
    pub fn has_elided(&self) -> bool {
        self.elided > 0
    }

    /// Bytes the block as built (stubs, not full values) takes.
    pub fn compact_size(&self) -> usize {
        self.buf.len() + self.restarts.len() * 4 + 4
    }

    /// Appends an entry; keys must come in increasing order.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.counter < self.restart_interval {
            let shared = self
                .last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count();
            if self.elided > 0 {
                // Type bytes may differ where the full block's keys agree.
                let full = logical_shared(&self.last_key, key, shared);
                self.logical_delta += key_part(full, key.len()) - key_part(shared, key.len());
            }
            shared
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
            0
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
        self.entries += 1;
    }

    /// Bytes the finished block would take in full (elided values counted at their full
    /// length: blocks are cut exactly where they would be without elision).
    pub fn estimated_size(&self) -> usize {
        (self.compact_size() as u64)
            .checked_add_signed(self.logical_delta)
            .map_or(0, |n| n as usize)
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The last key added.
    pub fn last_key(&self) -> &[u8] {
        &self.last_key
    }

    /// Finishes the block and resets the builder.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.compact_size());
        self.finish_into(&mut out);
        out
    }

    /// Finishes the block onto the end of `out` and resets the builder, which keeps its
    /// buffer for the next block.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.reserve(self.compact_size());
        out.extend_from_slice(&self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.counter = 0;
        self.last_key.clear();
        self.entries = 0;
        self.logical_delta = 0;
        self.elided = 0;
    }
}

/// A decoded view of a block. Construction checks the restart array; entry decoding checks
/// every length, so a damaged block yields `None` (the caller reports corruption), never a
/// panic.
#[derive(Debug, Clone)]
pub struct Block<'a> {
    data: &'a [u8],
    restarts: Vec<usize>,
}

impl<'a> Block<'a> {
    /// Parses the restart array; `None` if it is malformed.
    pub fn new(block: &'a [u8]) -> Option<Self> {
        let n = get_u32(block, block.len().checked_sub(4)?)? as usize;
        let restarts_at = block.len().checked_sub(4)?.checked_sub(n.checked_mul(4)?)?;
        if n == 0 {
            return None;
        }
        let mut restarts = Vec::with_capacity(n);
        let mut prev = 0usize;
        for i in 0..n {
            let r = get_u32(block, restarts_at + i * 4)? as usize;
            if (restarts_at > 0 && r >= restarts_at)
                || (restarts_at == 0 && r != 0)
                || (i > 0 && r <= prev)
            {
                return None;
            }
            prev = r;
            restarts.push(r);
        }
        if restarts[0] != 0 {
            return None;
        }
        Some(Self {
            data: &block[..restarts_at],
            restarts,
        })
    }

    /// Decodes the entry at `pos` given the previous key; returns (key, value, next pos).
    fn entry(&self, pos: usize, prev: &[u8]) -> Option<(Vec<u8>, &'a [u8], usize)> {
        let mut p = pos;
        let shared = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
        let non_shared = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
        let vlen = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
        if shared > prev.len() {
            return None;
        }
        let kend = p.checked_add(non_shared)?;
        let vend = kend.checked_add(vlen)?;
        if vend > self.data.len() {
            return None;
        }
        let mut key = Vec::with_capacity(shared + non_shared);
        key.extend_from_slice(&prev[..shared]);
        key.extend_from_slice(&self.data[p..kend]);
        Some((key, &self.data[kend..vend], vend))
    }

    /// Decodes every entry without an allocation per entry: full keys are appended to `keys`
    /// and `out` gets `[key offset, key length, value offset, value length]` per entry (value
    /// offsets into the block). Both are cleared first. `None` if any entry is malformed.
    pub fn decode_into(&self, keys: &mut Vec<u8>, out: &mut Vec<[u32; 4]>) -> Option<()> {
        keys.clear();
        out.clear();
        let mut pos = 0;
        let mut prev = (0usize, 0usize);
        while pos < self.data.len() {
            let mut p = pos;
            let shared = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
            let non_shared = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
            let vlen = usize::try_from(get_varint(self.data, &mut p)?).ok()?;
            if shared > prev.1 {
                return None;
            }
            let kend = p.checked_add(non_shared)?;
            let vend = kend.checked_add(vlen)?;
            if vend > self.data.len() {
                return None;
            }
            let start = keys.len();
            keys.extend_from_within(prev.0..prev.0 + shared);
            keys.extend_from_slice(&self.data[p..kend]);
            let klen = shared + non_shared;
            out.push([
                u32::try_from(start).ok()?,
                u32::try_from(klen).ok()?,
                u32::try_from(kend).ok()?,
                u32::try_from(vlen).ok()?,
            ]);
            prev = (start, klen);
            pos = vend;
        }
        Some(())
    }

    /// All entries in order; `None` if any is malformed.
    pub fn entries(&self) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut prev: Vec<u8> = Vec::new();
        while pos < self.data.len() {
            let (k, v, next) = self.entry(pos, &prev)?;
            out.push((k.clone(), v.to_vec()));
            prev = k;
            pos = next;
        }
        Some(out)
    }

    /// The first entry whose key is `>= target` under `cmp`; `Ok(None)` if every key is
    /// smaller.
    ///
    /// # Errors
    /// `Err(())` if the block is malformed (the caller names the file).
    #[allow(clippy::result_unit_err)]
    pub fn seek(
        &self,
        target: &[u8],
        cmp: impl Fn(&[u8], &[u8]) -> Ordering,
    ) -> Result<Option<Entry>, ()> {
        // Binary search for the last restart whose key is < target.
        let (mut lo, mut hi) = (0usize, self.restarts.len() - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let (k, _, _) = self.entry(self.restarts[mid], &[]).ok_or(())?;
            if cmp(&k, target) == Ordering::Less {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let mut pos = self.restarts[lo];
        let mut prev: Vec<u8> = Vec::new();
        while pos < self.data.len() {
            let (k, v, next) = self.entry(pos, &prev).ok_or(())?;
            if cmp(&k, target) != Ordering::Less {
                return Ok(Some((k, v.to_vec())));
            }
            prev = k;
            pos = next;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_seek_finds_lower_bound() {
        for interval in [1, 2, 16] {
            let mut b = BlockBuilder::new(interval);
            let keys: Vec<Vec<u8>> = (0..100u32)
                .map(|i| format!("key{:05}", i * 2).into_bytes())
                .collect();
            for k in &keys {
                b.add(k, &k[3..]);
            }
            let raw = b.finish();
            let blk = Block::new(&raw).unwrap();
            let e = blk.entries().unwrap();
            assert_eq!(e.len(), 100);
            assert!(
                e.iter()
                    .zip(&keys)
                    .all(|((k, v), want)| k == want && v[..] == want[3..])
            );
            for i in 0..201u32 {
                let t = format!("key{i:05}").into_bytes();
                let got = blk.seek(&t, Ord::cmp).unwrap();
                let want = keys.iter().find(|k| **k >= t);
                assert_eq!(got.map(|g| g.0).as_ref(), want, "interval {interval} t {i}");
            }
        }
    }

    #[test]
    fn damaged_blocks_never_panic() {
        let mut b = BlockBuilder::new(4);
        for i in 0..20u32 {
            b.add(format!("k{i:03}").as_bytes(), b"value");
        }
        let raw = b.finish();
        for i in 0..raw.len() {
            for bit in [0x01, 0x80] {
                let mut d = raw.clone();
                d[i] ^= bit;
                if let Some(blk) = Block::new(&d) {
                    let _ = blk.entries();
                    let _ = blk.seek(b"k010", Ord::cmp);
                }
            }
        }
        for n in 0..raw.len() {
            if let Some(blk) = Block::new(&raw[..n]) {
                let _ = blk.entries();
            }
        }
    }
}
