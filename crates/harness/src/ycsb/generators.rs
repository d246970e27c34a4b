//! YCSB's number generators, reproduced as YCSB's Java `CoreWorkload` defines them (quirks
//! included): FNV-1a over the little-endian bytes of a key number, Gray's zipfian with
//! incremental zeta, the scrambled zipfian over 10^10 ranks, the skewed-latest generator over
//! an acknowledged insert counter, hotspot, uniform and the discrete operation chooser. Every
//! generator draws from a seeded [`SimRng`] (YCSB itself is unseeded).

use zonedb_env::SimRng;

/// FNV-64 offset basis.
const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
/// FNV-64 prime.
const FNV_PRIME: u64 = 1_099_511_628_211;

/// YCSB's `Utils.fnvhash64(long)`: FNV-1a over the 8 bytes of `v`, least significant first,
/// returned as `Math.abs` of the signed result.
pub fn fnvhash64(v: i64) -> i64 {
    let mut h = FNV_OFFSET;
    let mut x = v;
    for _ in 0..8 {
        let octet = (x & 0xff).cast_unsigned();
        x >>= 8;
        h ^= octet;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h.cast_signed().wrapping_abs()
}

/// YCSB's `buildKeyName`: `user` + the (hashed, unless `ordered`) key number in decimal,
/// left-padded with `'0'` to `zeropadding` digits.
pub fn key_name(keynum: u64, ordered: bool, zeropadding: usize) -> String {
    let n: i64 = if ordered {
        keynum.cast_signed()
    } else {
        fnvhash64(keynum.cast_signed())
    };
    let digits = n.to_string();
    let pad = zeropadding.saturating_sub(digits.len());
    format!("user{}{digits}", "0".repeat(pad))
}

/// The Riemann-style sum `Σ_{i=1..n} i^-θ`, from `start` onwards added to `initial`.
fn zeta(start: u64, n: u64, theta: f64, initial: f64) -> f64 {
    let mut sum = initial;
    for i in start..n {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// YCSB's `ZipfianGenerator` (Gray et al.), with its incremental zeta and quirks.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    base: u64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    count_for_zeta: u64,
    last: u64,
}

impl Zipfian {
    /// Items `min..=max` with constant `theta`; `zetan` is ζ(max − min + 1, θ) if known.
    pub fn new(min: u64, max: u64, theta: f64, zetan: Option<f64>) -> Self {
        let items = max - min + 1;
        let zetan = zetan.unwrap_or_else(|| zeta(0, items, theta, 0.0));
        let zeta2theta = zeta(0, 2, theta, 0.0);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan);
        Self {
            items,
            base: min,
            theta,
            zeta2theta,
            alpha,
            zetan,
            eta,
            count_for_zeta: items,
            last: min,
        }
    }

    /// A draw for `itemcount` items (zeta grows incrementally when the count grows; YCSB
    /// recomputes eta with the original item count, which is kept here).
    pub fn next_with(&mut self, rng: &mut SimRng, itemcount: u64) -> u64 {
        if itemcount > self.count_for_zeta {
            self.zetan = zeta(self.count_for_zeta, itemcount, self.theta, self.zetan);
            self.count_for_zeta = itemcount;
            self.eta = (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2theta / self.zetan);
        }
        let u = rng.gen_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        #[allow(clippy::cast_sign_loss, reason = "the base of the power is in (0, 1]")]
        let v = self.base
            + (itemcount as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        self.last = v;
        v
    }

    /// A draw over the generator's own item count.
    pub fn next(&mut self, rng: &mut SimRng) -> u64 {
        let n = self.items;
        self.next_with(rng, n)
    }
}

/// YCSB's item count of the scrambled zipfian's inner generator.
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// YCSB's precomputed ζ(10^10, 0.99).
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// ζ(10^10, θ) for the constants this harness supports besides 0.99 (mpmath, 30 digits).
pub fn scrambled_zetan(theta: f64) -> Option<f64> {
    [
        (0.8, 495.562_461_589_104_05),
        (0.9, 90.569_885_981_097_72),
        (0.95, 43.819_116_006_594_928),
        (0.99, SCRAMBLED_ZETAN),
        (1.1, 9.584_448_464_955_804),
        (1.2, 5.541_582_441_178_252),
    ]
    .iter()
    .find(|(t, _)| (t - theta).abs() < 1e-12)
    .map(|&(_, z)| z)
}

/// YCSB's `ScrambledZipfianGenerator`: a zipfian over 10^10 ranks, hashed into `min..=max`.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    min: u64,
    itemcount: u64,
    inner: Zipfian,
}

impl ScrambledZipfian {
    /// Items `min..=max` (inclusive) with constant `theta` (0.99 unless one of
    /// [`scrambled_zetan`]'s); `None` for an unsupported constant.
    pub fn new(min: u64, max: u64, theta: f64) -> Option<Self> {
        let z = scrambled_zetan(theta)?;
        Some(Self {
            min,
            itemcount: max - min + 1,
            inner: Zipfian::new(0, SCRAMBLED_ITEM_COUNT, theta, Some(z)),
        })
    }

    /// The next key number.
    pub fn next(&mut self, rng: &mut SimRng) -> u64 {
        let r = self.inner.next(rng);
        self.min + fnvhash64(r.cast_signed()).cast_unsigned() % self.itemcount
    }
}

/// YCSB's `SkewedLatestGenerator`: the newest acknowledged key is the most popular.
#[derive(Debug, Clone)]
pub struct SkewedLatest {
    inner: Zipfian,
}

impl SkewedLatest {
    /// Over `last + 1` acknowledged keys (YCSB builds its zipfian over `lastValue()` items).
    pub fn new(last: u64) -> Self {
        Self {
            inner: Zipfian::new(0, last.max(1) - 1, 0.99, None),
        }
    }

    /// The next key number given the acknowledged maximum `last`.
    pub fn next(&mut self, rng: &mut SimRng, last: u64) -> u64 {
        last - self.inner.next_with(rng, last.max(1)).min(last)
    }
}

/// YCSB's `HotspotIntegerGenerator`.
#[derive(Debug, Clone, Copy)]
pub struct Hotspot {
    lb: u64,
    hot_interval: u64,
    cold_interval: u64,
    hot_op_fraction: f64,
}

impl Hotspot {
    /// `lb..=ub`, the first `data_fraction` of it hot, chosen with probability `op_fraction`.
    pub fn new(lb: u64, ub: u64, data_fraction: f64, op_fraction: f64) -> Self {
        let interval = ub - lb + 1;
        #[allow(clippy::cast_sign_loss, reason = "fractions are in [0, 1]")]
        let hot = (interval as f64 * data_fraction) as u64;
        Self {
            lb,
            hot_interval: hot,
            cold_interval: interval - hot,
            hot_op_fraction: op_fraction,
        }
    }

    /// The next key number.
    pub fn next(&self, rng: &mut SimRng) -> u64 {
        if rng.gen_f64() < self.hot_op_fraction && self.hot_interval > 0 {
            self.lb + rng.gen_range(0..self.hot_interval)
        } else if self.cold_interval > 0 {
            self.lb + self.hot_interval + rng.gen_range(0..self.cold_interval)
        } else {
            self.lb + rng.gen_range(0..self.hot_interval.max(1))
        }
    }
}

/// YCSB's `DiscreteGenerator`: weighted choice, walking the entries in insertion order.
#[derive(Debug, Clone)]
pub struct Discrete<T: Copy> {
    entries: Vec<(f64, T)>,
}

impl<T: Copy> Default for Discrete<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Discrete<T> {
    /// No choices yet.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// Adds a choice (weights <= 0 are left out, as CoreWorkload does).
    pub fn add(&mut self, weight: f64, value: T) {
        if weight > 0.0 {
            self.entries.push((weight, value));
        }
    }

    /// Whether no choice has weight.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The next choice; `None` when empty.
    pub fn next(&self, rng: &mut SimRng) -> Option<T> {
        let sum: f64 = self.entries.iter().map(|e| e.0).sum();
        let mut u = rng.gen_f64();
        for &(w, v) in &self.entries {
            if u < w / sum {
                return Some(v);
            }
            u -= w / sum;
        }
        self.entries.last().map(|e| e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_match_java_ycsb() {
        assert_eq!(key_name(0, false, 1), "user6284781860667377211");
        assert_eq!(key_name(1, false, 1), "user8517097267634966620");
        assert_eq!(key_name(2, false, 1), "user1820151046732198393");
        assert_eq!(key_name(3, false, 1), "user4052466453699787802");
        assert_eq!(key_name(999, false, 1), "user2071219101098386137");
        assert_eq!(key_name(42, true, 1), "user42");
        assert_eq!(key_name(42, true, 5), "user00042");
    }

    #[test]
    fn zipfian_head_weight_matches_grays_formula() {
        // 10^5 items at θ = 0.99: YCSB's formula puts about 24.35 % of draws on the first 10
        // ranks (the exact Zipf has 23.13 %).
        let mut z = Zipfian::new(0, 99_999, 0.99, None);
        let mut rng = SimRng::seed_from_u64(1);
        let n = 400_000;
        let head = (0..n).filter(|_| z.next(&mut rng) < 10).count();
        let p = head as f64 / f64::from(n);
        assert!((p - 0.2435).abs() < 0.006, "P(rank < 10) = {p}");
    }

    #[test]
    fn scrambled_zipfian_stays_in_range_and_is_skewed() {
        let mut z = ScrambledZipfian::new(0, 999, 0.99).unwrap();
        let mut rng = SimRng::seed_from_u64(2);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            counts[z.next(&mut rng) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top10: u32 = counts[..10].iter().sum();
        // Ranks 1-10 of the 10^10-rank Zipf carry about 11 %: H(10, 0.99) / 26.47.
        assert!(top10 > 10_000, "top 10 keys got {top10} of 100000");
        assert!(counts[999] < 100);
        assert!(ScrambledZipfian::new(0, 9, 0.7).is_none());
    }

    #[test]
    fn latest_prefers_the_newest_keys_and_hotspot_the_hot_set() {
        let mut l = SkewedLatest::new(999);
        let mut rng = SimRng::seed_from_u64(3);
        let newest = (0..10_000).filter(|_| l.next(&mut rng, 999) >= 990).count();
        assert!(newest > 3_000, "{newest}");
        let h = Hotspot::new(0, 999, 0.2, 0.8);
        let hot = (0..10_000).filter(|_| h.next(&mut rng) < 200).count();
        assert!((7_700..8_300).contains(&hot), "{hot}");
        let mut d = Discrete::new();
        d.add(0.5, 'r');
        d.add(0.0, 'x');
        d.add(0.5, 'u');
        let reads = (0..10_000)
            .filter(|_| d.next(&mut rng) == Some('r'))
            .count();
        assert!((4_700..5_300).contains(&reads));
    }
}
