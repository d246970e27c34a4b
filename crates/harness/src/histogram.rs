//! db_bench's latency histogram (RocksDB's `HistogramImpl`): microsecond buckets whose limits
//! are 1, 2 and then ×1.5 kept to two significant digits (1, 2, 3, 4, 6, 10, 15, 22, 34, 51,
//! 76, 110, 170, ...), percentiles interpolated linearly inside a bucket, and the text block
//! db_bench prints with `--histogram`.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// Bucket upper limits (inclusive), as `HistogramBucketMapper` builds them.
pub fn bucket_limits() -> &'static [u64] {
    static LIMITS: OnceLock<Vec<u64>> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let mut v: Vec<u64> = vec![1, 2];
        let mut val = 2.0f64;
        loop {
            val *= 1.5;
            if val > u64::MAX as f64 {
                break;
            }
            #[allow(clippy::cast_sign_loss, reason = "positive")]
            let mut b = val as u64;
            let mut pow = 1u64;
            while b / 10 > 10 {
                b /= 10;
                pow *= 10;
            }
            v.push(b.saturating_mul(pow));
        }
        v
    })
}

/// A latency histogram in microseconds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DbBenchHistogram {
    buckets: Vec<u64>,
    min: u64,
    max: u64,
    num: u64,
    sum: f64,
    sum_squares: f64,
}

impl Default for DbBenchHistogram {
    fn default() -> Self {
        Self {
            buckets: vec![0; bucket_limits().len()],
            min: u64::MAX,
            max: 0,
            num: 0,
            sum: 0.0,
            sum_squares: 0.0,
        }
    }
}

impl DbBenchHistogram {
    /// Records one latency in microseconds.
    pub fn add(&mut self, micros: u64) {
        let limits = bucket_limits();
        let i = limits
            .partition_point(|&l| l < micros)
            .min(limits.len() - 1);
        self.buckets[i] += 1;
        self.min = self.min.min(micros);
        self.max = self.max.max(micros);
        self.num += 1;
        self.sum += micros as f64;
        self.sum_squares += micros as f64 * micros as f64;
    }

    /// Adds another histogram.
    pub fn merge(&mut self, o: &Self) {
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.num += o.num;
        self.sum += o.sum;
        self.sum_squares += o.sum_squares;
    }

    /// Samples.
    pub fn count(&self) -> u64 {
        self.num
    }

    /// The largest sample (0 for none).
    pub fn max(&self) -> u64 {
        if self.num == 0 { 0 } else { self.max }
    }

    /// Mean.
    pub fn average(&self) -> f64 {
        if self.num == 0 {
            0.0
        } else {
            self.sum / self.num as f64
        }
    }

    /// Standard deviation.
    pub fn std_dev(&self) -> f64 {
        if self.num == 0 {
            return 0.0;
        }
        let n = self.num as f64;
        ((self.sum_squares * n - self.sum * self.sum) / (n * n))
            .max(0.0)
            .sqrt()
    }

    /// RocksDB's `Percentile`: linear inside the bucket, clamped to [min, max].
    pub fn percentile(&self, p: f64) -> f64 {
        let limits = bucket_limits();
        let threshold = self.num as f64 * (p / 100.0);
        let mut cum = 0u64;
        for (b, &v) in self.buckets.iter().enumerate() {
            cum += v;
            if cum as f64 >= threshold {
                let left = if b == 0 { 0 } else { limits[b - 1] } as f64;
                let right = limits[b] as f64;
                let left_sum = cum - v;
                let pos = if v == 0 {
                    0.0
                } else {
                    (threshold - left_sum as f64) / v as f64
                };
                let r = left + (right - left) * pos;
                return r.clamp(self.min.min(self.max) as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// The block db_bench prints under `Microseconds per <op>:`.
    pub fn to_text(&self) -> String {
        let limits = bucket_limits();
        let mut r = String::new();
        let min = if self.num == 0 { 0 } else { self.min };
        let _ = writeln!(
            r,
            "Count: {} Average: {:.4}  StdDev: {:.2}",
            self.num,
            self.average(),
            self.std_dev()
        );
        let _ = writeln!(
            r,
            "Min: {}  Median: {:.4}  Max: {}",
            min,
            self.percentile(50.0),
            self.max
        );
        let _ = writeln!(
            r,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            self.percentile(50.0),
            self.percentile(75.0),
            self.percentile(99.0),
            self.percentile(99.9),
            self.percentile(99.99)
        );
        r.push_str("------------------------------------------------------\n");
        if self.num == 0 {
            return r;
        }
        let mult = 100.0 / self.num as f64;
        let mut cum = 0u64;
        for (b, &v) in self.buckets.iter().enumerate() {
            if v == 0 {
                continue;
            }
            cum += v;
            #[allow(clippy::cast_sign_loss, reason = "non-negative")]
            let marks = (mult * v as f64 / 5.0 + 0.5) as usize;
            let _ = writeln!(
                r,
                "{} {:>7}, {:>7} ] {:>8} {:>7.3}% {:>7.3}% {}",
                if b == 0 { '[' } else { '(' },
                if b == 0 { 0 } else { limits[b - 1] },
                limits[b],
                v,
                mult * v as f64,
                mult * cum as f64,
                "#".repeat(marks)
            );
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_rocksdbs() {
        assert_eq!(
            &bucket_limits()[..23],
            &[
                1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580, 870, 1300, 1900,
                2900, 4400, 6600, 9900
            ]
        );
        assert_eq!(bucket_limits().len(), 109);
    }

    #[test]
    fn percentiles_interpolate_and_the_block_has_db_benchs_shape() {
        let mut h = DbBenchHistogram::default();
        for v in [1, 2, 2, 3, 3, 3, 5, 8, 100, 1000] {
            h.add(v);
        }
        assert_eq!(h.count(), 10);
        assert!((h.average() - 112.7).abs() < 1e-9);
        // 50th: threshold 5; buckets (.,1]=1 (.,2]=2 (.,3]=3 → cum 6 ≥ 5 in (2,3]:
        // 2 + (3 − 2) × (5 − 3) / 3.
        assert!((h.percentile(50.0) - (2.0 + 2.0 / 3.0)).abs() < 1e-9);
        let t = h.to_text();
        assert!(t.starts_with("Count: 10 Average: 112.7000  StdDev: "));
        assert!(
            t.contains("\n[       0,       1 ]        1  10.000%  10.000% ##\n"),
            "{t}"
        );
        assert!(
            t.contains("\n(       2,       3 ]        3  30.000%  60.000% ######\n"),
            "{t}"
        );
    }
}
