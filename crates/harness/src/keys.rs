//! Keys and values as db_bench makes them: the key integer as 8 big-endian bytes padded with
//! ASCII `'0'` to `key_size` (so byte order is numeric order); values are consecutive slices
//! of a pool of compressible data (half of each 100-byte piece random, half a repeat, like
//! `CompressibleString` with ratio 0.5).

use zonedb_env::SimRng;

/// db_bench's `GenerateKeyFromInt` for `key_size >= 8`.
pub fn make_key(v: u64, key_size: usize) -> Vec<u8> {
    let mut k = v.to_be_bytes().to_vec();
    k.resize(key_size.max(8), b'0');
    k
}

/// The integer of a key made by [`make_key`].
pub fn key_int(key: &[u8]) -> Option<u64> {
    let b: [u8; 8] = key.get(..8)?.try_into().ok()?;
    Some(u64::from_be_bytes(b))
}

/// Hands out value bytes from a 1 MiB compressible pool.
#[derive(Debug, Clone)]
pub struct ValueGen {
    pool: Vec<u8>,
    pos: usize,
}

impl ValueGen {
    /// A pool seeded like db_bench's `RandomGenerator` (seed 301).
    pub fn new() -> Self {
        let mut rng = SimRng::seed_from_u64(301);
        let mut pool = Vec::with_capacity(1 << 20);
        while pool.len() < 1 << 20 {
            let piece: Vec<u8> = (0..50).map(|_| b' ' + rng.gen_range(0..95) as u8).collect();
            pool.extend_from_slice(&piece);
            pool.extend_from_slice(&piece);
        }
        Self { pool, pos: 0 }
    }

    /// The next `len` bytes.
    pub fn next(&mut self, len: usize) -> &[u8] {
        let len = len.min(self.pool.len());
        if self.pos + len > self.pool.len() {
            self.pos = 0;
        }
        self.pos += len;
        &self.pool[self.pos - len..self.pos]
    }
}

impl Default for ValueGen {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_numerically_and_round_trip() {
        let a = make_key(255, 16);
        let b = make_key(256, 16);
        assert!(a < b);
        assert_eq!(a.len(), 16);
        assert_eq!(&a[8..], b"00000000");
        assert_eq!(key_int(&b), Some(256));
        let mut g = ValueGen::new();
        assert_eq!(g.next(100).len(), 100);
        let a = g.next(100).to_vec();
        assert_ne!(a, g.next(100));
    }
}
