//! Keys and values as db_bench makes them: the key integer as 8 big-endian bytes padded with
//! ASCII `'0'` to `key_size` (so byte order is numeric order); values are consecutive slices
//! of a pool of compressible data built as db_bench's `RandomGenerator` builds it
//! (`tools/db_bench_tool.cc`): 100-byte pieces, each a random printable string of
//! `max(1, trunc(100 × compression_ratio))` bytes repeated to fill 100 bytes
//! (`test::CompressibleString`, `test_util/testutil.cc`).

use std::sync::Arc;

use zonedb_env::SimRng;

use crate::elided::PoolRegenerator;

/// db_bench's `GenerateKeyFromInt` for `key_size >= 8`.
pub fn make_key(v: u64, key_size: usize) -> Vec<u8> {
    let mut k = Vec::with_capacity(key_size.max(8));
    make_key_into(v, key_size, &mut k);
    k
}

/// [`make_key`] into `out` (cleared first: a buffer reused per key).
pub fn make_key_into(v: u64, key_size: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&v.to_be_bytes());
    out.resize(key_size.max(8), b'0');
}

/// The integer of a key made by [`make_key`].
pub fn key_int(key: &[u8]) -> Option<u64> {
    let b: [u8; 8] = key.get(..8)?.try_into().ok()?;
    Some(u64::from_be_bytes(b))
}

/// db_bench's default `--compression_ratio`.
pub const DEFAULT_COMPRESSION_RATIO: f64 = 0.5;

/// Size of db_bench's value pool before `value_size` makes it larger (1 MiB).
const POOL_BYTES: usize = 1 << 20;

/// Length of each compressible piece of the pool (db_bench's 100).
const PIECE_BYTES: usize = 100;

/// Hands out value bytes from a compressible pool (db_bench's `RandomGenerator`).
#[derive(Debug, Clone)]
pub struct ValueGen {
    pool: Arc<[u8]>,
    pos: usize,
}

impl ValueGen {
    /// db_bench's defaults: `--compression_ratio 0.5`, values of at most 1 MiB.
    pub fn new() -> Self {
        Self::with_ratio(DEFAULT_COMPRESSION_RATIO, 0)
    }

    /// A pool for `--compression_ratio ratio` and values of up to `max_value_bytes`, seeded
    /// as db_bench seeds its `RandomGenerator` (seed 301), so every run and every thread
    /// gets the same pool: of each 100-byte piece, `max(1, trunc(100 × ratio))` random
    /// printable bytes (`' ' + uniform(95)`), repeated to fill the piece
    /// (`test::CompressibleString`). A ratio of 1 or more makes every piece random.
    pub fn with_ratio(ratio: f64, max_value_bytes: usize) -> Self {
        let mut rng = SimRng::seed_from_u64(301);
        let want = POOL_BYTES.max(max_value_bytes);
        // `static_cast<int>(len * compressed_fraction)`, at least 1.
        #[allow(
            clippy::cast_sign_loss,
            reason = "a float-to-int cast saturates: a negative or NaN ratio gives 0, then 1"
        )]
        let raw = ((PIECE_BYTES as f64 * ratio) as usize).max(1);
        let mut pool = Vec::with_capacity(want + PIECE_BYTES);
        let mut random = Vec::with_capacity(raw);
        while pool.len() < want {
            random.clear();
            random.extend((0..raw).map(|_| b' ' + rng.gen_range(0..95) as u8));
            let start = pool.len();
            while pool.len() - start < PIECE_BYTES {
                pool.extend_from_slice(&random);
            }
            pool.truncate(start + PIECE_BYTES);
        }
        Self {
            pool: pool.into(),
            pos: 0,
        }
    }

    /// The next `len` bytes (db_bench's `Generate`: back to the start of the pool when the
    /// rest is too short).
    pub fn next(&mut self, len: usize) -> &[u8] {
        let (offset, _) = self.next_elided(len);
        &self.pool[offset..self.pos]
    }

    /// The next value as [`ValueGen::next`] hands it out (same pool, same consumption), as
    /// its offset in the pool and its bytes: the offset is the value's descriptor for
    /// [`PoolRegenerator`] (an elided value).
    pub fn next_elided(&mut self, len: usize) -> (usize, &[u8]) {
        let len = len.min(self.pool.len());
        if self.pos + len > self.pool.len() {
            self.pos = 0;
        }
        self.pos += len;
        let offset = self.pos - len;
        (offset, &self.pool[offset..self.pos])
    }

    /// The regenerator of the values this generator hands out (it shares the pool).
    pub fn regenerator(&self) -> PoolRegenerator {
        PoolRegenerator::new(self.pool.clone())
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

    /// The pool before `--compression_ratio` existed: 50 random bytes, then the same 50.
    fn half_and_half_pool() -> Vec<u8> {
        let mut rng = SimRng::seed_from_u64(301);
        let mut pool = Vec::new();
        while pool.len() < 1 << 20 {
            let piece: Vec<u8> = (0..50).map(|_| b' ' + rng.gen_range(0..95) as u8).collect();
            pool.extend_from_slice(&piece);
            pool.extend_from_slice(&piece);
        }
        pool
    }

    #[test]
    fn default_ratio_is_the_former_half_random_pool() {
        assert_eq!(*ValueGen::new().pool, *half_and_half_pool());
        assert_eq!(*ValueGen::with_ratio(0.5, 100).pool, *half_and_half_pool());
    }

    #[test]
    fn each_piece_repeats_its_random_prefix() {
        for (ratio, period) in [(0.25, 25), (0.3, 30), (0.001, 1), (0.999, 99)] {
            let g = ValueGen::with_ratio(ratio, 0);
            for piece in g.pool.chunks(100).take(50) {
                for i in period..100 {
                    assert_eq!(piece[i], piece[i - period], "ratio {ratio} byte {i}");
                }
                assert!(piece.iter().all(|b| (b' '..=b'~').contains(b)));
            }
        }
        // Ratio 1: nothing repeats inside a piece (pieces of 100 random bytes).
        let g = ValueGen::with_ratio(1.0, 0);
        let distinct: std::collections::BTreeSet<&[u8]> = g.pool[..100].windows(4).collect();
        assert!(distinct.len() > 90);
    }

    #[test]
    fn pool_holds_the_largest_value() {
        let mut g = ValueGen::with_ratio(0.5, 3 << 20);
        assert_eq!(g.next(3 << 20).len(), 3 << 20);
    }
}
