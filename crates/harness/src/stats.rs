//! Summary statistics of one figure over repeated runs (seeds): mean, sample standard
//! deviation and the two-sided 95% confidence interval of the mean (Student's t with n - 1
//! degrees of freedom), as the papers' "mean of 3 runs" asks and as sweeps report.

use serde::Serialize;

/// Two-sided 97.5% quantiles of Student's t for 1 to 30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `dof` degrees of freedom (the factor of a 95%
/// two-sided interval); a table to 30, then the Cornish-Fisher expansion around the normal
/// quantile (within 0.001 of the exact value from 31 on). `dof == 0` gives infinity.
pub fn t_975(dof: usize) -> f64 {
    const Z: f64 = 1.959_964;
    match dof {
        0 => f64::INFINITY,
        1..=30 => T_975[dof - 1],
        _ => {
            let n = dof as f64;
            let (z3, z5) = (Z.powi(3), Z.powi(5));
            Z + (z3 + Z) / (4.0 * n) + (5.0 * z5 + 16.0 * z3 + 3.0 * Z) / (96.0 * n * n)
        }
    }
}

/// Mean, spread and 95% interval of one figure over runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Number of runs.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one run).
    pub stddev: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// Half-width of the 95% confidence interval of the mean (`t_975(n - 1) * stddev /
    /// sqrt(n)`; 0 for one run, where no interval can be given: read `n`).
    pub ci95: f64,
    /// `mean - ci95`.
    pub ci95_low: f64,
    /// `mean + ci95`.
    pub ci95_high: f64,
}

impl Summary {
    /// Of `xs` (non-finite values are left out); `None` when nothing is left.
    pub fn of(xs: &[f64]) -> Option<Self> {
        let xs: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
        if xs.is_empty() {
            return None;
        }
        let n = xs.len();
        let nf = n as f64;
        let mean = xs.iter().sum::<f64>() / nf;
        let stddev = if n > 1 {
            (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (nf - 1.0)).sqrt()
        } else {
            0.0
        };
        let ci95 = if n > 1 {
            t_975(n - 1) * stddev / nf.sqrt()
        } else {
            0.0
        };
        Some(Self {
            n,
            mean,
            stddev,
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ci95,
            ci95_low: mean - ci95,
            ci95_high: mean + ci95,
        })
    }

    /// `mean ± ci95` with `digits` decimals (just the mean for one run).
    pub fn text(&self, digits: usize) -> String {
        if self.n > 1 {
            format!("{:.digits$} ± {:.digits$}", self.mean, self.ci95)
        } else {
            format!("{:.digits$}", self.mean)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_runs_give_the_t_interval() {
        let s = Summary::of(&[1.0, 2.0, 3.0]).expect("values");
        assert_eq!(s.n, 3);
        assert!((s.mean - 2.0).abs() < 1e-12);
        assert!((s.stddev - 1.0).abs() < 1e-12);
        // t(0.975, 2) = 4.303; 4.303 / sqrt(3) = 2.4843.
        assert!((s.ci95 - 4.303 / 3f64.sqrt()).abs() < 1e-9);
        assert!((s.ci95_low - (2.0 - s.ci95)).abs() < 1e-12);
        assert_eq!(s.text(2), "2.00 ± 2.48");
    }

    #[test]
    fn one_run_has_no_interval_and_empty_has_no_summary() {
        let s = Summary::of(&[5.0]).expect("value");
        assert_eq!((s.stddev, s.ci95), (0.0, 0.0));
        assert_eq!(s.text(1), "5.0");
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[f64::NAN]).is_none());
    }

    #[test]
    fn t_quantiles_approach_the_normal_one() {
        assert!((t_975(30) - 2.042).abs() < 1e-9);
        // Exact: t(0.975, 40) = 2.0211, t(0.975, 120) = 1.9799.
        assert!((t_975(40) - 2.0211).abs() < 1e-3);
        assert!((t_975(120) - 1.9799).abs() < 1e-3);
        assert!(t_975(0).is_infinite());
        for d in 1..200 {
            assert!(t_975(d + 1) < t_975(d), "decreasing at {d}");
        }
    }
}
