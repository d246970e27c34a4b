//! The seeded RNG every ZoneDB component draws from.

use std::convert::Infallible;

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng as _, SeedableRng, TryRng};

/// Golden-ratio increment that spreads stream numbers over the seed space.
const STREAM_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// Seed of the `stream`-th RNG stream an environment seeded with `seed` hands out (both
/// environments use it, so the same seed gives the same streams in both).
pub(crate) fn stream_seed(seed: u64, stream: u64) -> u64 {
    seed ^ stream.wrapping_add(1).wrapping_mul(STREAM_MIX)
}

/// A seeded xoshiro256++ stream: portable and stable across versions.
///
/// Besides its own methods it implements `rand_core`'s `TryRng` (and so `Rng`, via the blanket
/// impl for infallible generators), for code that wants the `rand` ecosystem.
#[derive(Debug, Clone)]
pub struct SimRng(Xoshiro256PlusPlus);

impl SimRng {
    /// A stream from a 64-bit seed.
    pub fn seed_from_u64(seed: u64) -> Self {
        Self(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `range` (unbiased; Lemire's method). An empty range returns its start.
    pub fn gen_range(&mut self, range: std::ops::Range<u64>) -> u64 {
        let span = range.end.saturating_sub(range.start);
        if span == 0 {
            return range.start;
        }
        let threshold = span.wrapping_neg() % span;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(span);
            if (m as u64) >= threshold {
                return range.start + (m >> 64) as u64;
            }
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn gen_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.gen_range(0..i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// An independent stream derived from this one.
    #[must_use]
    pub fn fork(&mut self) -> Self {
        Self::seed_from_u64(self.next_u64())
    }
}

impl TryRng for SimRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::SimRng;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (SimRng::seed_from_u64(9), SimRng::seed_from_u64(9));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn gen_range_stays_in_range_and_covers_it() {
        let mut r = SimRng::seed_from_u64(1);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = r.gen_range(3..10);
            assert!((3..10).contains(&v));
            seen[(v - 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.gen_range(5..5), 5);
        let f = r.gen_f64();
        assert!((0.0..1.0).contains(&f));
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let mut v: Vec<u32> = (0..50).collect();
        let mut w = v.clone();
        SimRng::seed_from_u64(4).shuffle(&mut v);
        SimRng::seed_from_u64(4).shuffle(&mut w);
        assert_eq!(v, w);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn forks_are_independent_and_reproducible() {
        let mut a = SimRng::seed_from_u64(1);
        let mut b = SimRng::seed_from_u64(1);
        let (mut fa, mut fb) = (a.fork(), b.fork());
        let x = fa.next_u64();
        assert_eq!(x, fb.next_u64());
        assert_ne!(x, a.next_u64());
    }

    #[test]
    fn gen_range_handles_the_full_width() {
        let mut r = SimRng::seed_from_u64(2);
        let v = r.gen_range(u64::MAX - 3..u64::MAX);
        assert!((u64::MAX - 3..u64::MAX).contains(&v));
        let v = r.gen_range(0..u64::MAX);
        assert!(v < u64::MAX);
    }

    #[test]
    fn works_as_a_rand_core_rng() {
        use rand_xoshiro::rand_core::Rng;
        fn draw<R: Rng>(r: &mut R) -> (u32, [u8; 5]) {
            let mut buf = [0; 5];
            r.fill_bytes(&mut buf);
            (r.next_u32(), buf)
        }
        let (mut a, mut b) = (SimRng::seed_from_u64(3), SimRng::seed_from_u64(3));
        assert_eq!(draw(&mut a), draw(&mut b));
    }
}
