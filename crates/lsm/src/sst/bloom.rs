//! A whole-table Bloom filter over user keys (RocksDB's full filter in spirit): `bits_per_key`
//! bits per key, `k = round(bits_per_key × ln 2)` probes (1..=30) by double hashing of the
//! key's 64-bit xxh3 hash. Layout: bit array, then one byte holding `k`.

use xxhash_rust::xxh3::xxh3_64;

/// Collects key hashes and builds the filter.
#[derive(Debug, Default)]
pub struct BloomBuilder {
    hashes: Vec<u64>,
    bits_per_key: u32,
}

fn probes(bits_per_key: u32) -> u32 {
    // bits_per_key × ln 2 is non-negative.
    #[allow(clippy::cast_sign_loss)]
    let k = (f64::from(bits_per_key) * std::f64::consts::LN_2).round() as u32;
    k.clamp(1, 30)
}

impl BloomBuilder {
    /// A builder with `bits_per_key` bits per key.
    pub fn new(bits_per_key: u32) -> Self {
        Self {
            hashes: Vec::new(),
            bits_per_key,
        }
    }

    /// Adds a user key (consecutive duplicates are collapsed).
    pub fn add(&mut self, user_key: &[u8]) {
        let h = xxh3_64(user_key);
        if self.hashes.last() != Some(&h) {
            self.hashes.push(h);
        }
    }

    /// Length of [`BloomBuilder::finish`]'s filter after one more distinct key.
    pub fn finished_len_with_one_more(&self) -> u64 {
        ((self.hashes.len() as u64 + 1) * u64::from(self.bits_per_key))
            .max(64)
            .div_ceil(8)
            + 1
    }

    /// The filter bytes.
    pub fn finish(&self) -> Vec<u8> {
        let k = probes(self.bits_per_key);
        let bits = (self.hashes.len() as u64 * u64::from(self.bits_per_key)).max(64);
        let bytes = bits.div_ceil(8) as usize;
        let bits = bytes as u64 * 8;
        let mut out = vec![0u8; bytes + 1];
        // 2^64 mod bits: what a wrap of the 64-bit probe position takes off its residue.
        let wrap = ((1u128 << 64) % u128::from(bits)) as u64;
        for &h in &self.hashes {
            for bit in probe_bits(h, k, bits, wrap) {
                out[(bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        out[bytes] = k as u8;
        out
    }
}

/// The `k` bits `(h + i·b mod 2^64) mod bits` (`b = h.rotate_left(21) | 1`, `i < k`), as
/// `may_contain` probes them, from two divisions instead of one per probe: the residue moves
/// by `b mod bits` per probe and loses `wrap` (= 2^64 mod bits) when the 64-bit sum wraps.
fn probe_bits(hash: u64, k: u32, bits: u64, wrap: u64) -> impl Iterator<Item = u64> {
    let delta = hash.rotate_left(21) | 1;
    let step = delta % bits;
    let (mut sum, mut residue) = (hash, hash % bits);
    (0..k).map(move |_| {
        let bit = residue;
        let (next, wrapped) = sum.overflowing_add(delta);
        sum = next;
        residue += step;
        if residue >= bits {
            residue -= bits;
        }
        if wrapped {
            residue = if residue >= wrap {
                residue - wrap
            } else {
                residue + bits - wrap
            };
        }
        bit
    })
}

/// Whether `user_key` may be in a table with filter `filter`. A malformed filter answers
/// "maybe" (the data blocks decide).
pub fn may_contain(filter: &[u8], user_key: &[u8]) -> bool {
    let Some((&k, bitmap)) = filter.split_last() else {
        return true;
    };
    if bitmap.is_empty() || k == 0 || k > 30 {
        return true;
    }
    let bits = bitmap.len() as u64 * 8;
    let h = xxh3_64(user_key);
    let (mut a, b) = (h, h.rotate_left(21) | 1);
    for _ in 0..k {
        let bit = a % bits;
        if bitmap[(bit / 8) as usize] & (1 << (bit % 8)) == 0 {
            return false;
        }
        a = a.wrapping_add(b);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_bits_are_the_hash_sums_modulo_the_bit_count() {
        for bits in [64u64, 72, 9_999, 1 << 20, 640_008] {
            let wrap = ((1u128 << 64) % u128::from(bits)) as u64;
            for i in 0..2_000u64 {
                let h = xxh3_64(&i.to_le_bytes()).wrapping_mul(i | 1);
                let b = h.rotate_left(21) | 1;
                let want: Vec<u64> = (0..30u64)
                    .map(|j| h.wrapping_add(b.wrapping_mul(j)) % bits)
                    .collect();
                let got: Vec<u64> = probe_bits(h, 30, bits, wrap).collect();
                assert_eq!(got, want, "h {h} bits {bits}");
            }
        }
    }

    #[test]
    fn no_false_negatives_and_about_one_percent_false_positives_at_ten_bits() {
        let mut b = BloomBuilder::new(10);
        for i in 0..10_000u32 {
            b.add(format!("key{i}").as_bytes());
        }
        let f = b.finish();
        assert!((0..10_000u32).all(|i| may_contain(&f, format!("key{i}").as_bytes())));
        let fp = (0..10_000u32)
            .filter(|i| may_contain(&f, format!("other{i}").as_bytes()))
            .count();
        assert!(fp < 250, "false positives {fp} of 10000");
    }
}
