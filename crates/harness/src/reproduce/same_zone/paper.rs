//! The same-zone paper's own values (§VII, figure 12), A-CAZA against Baseline: the one place
//! the claims table and the figures read them from.

/// PUT throughput, mean of the four workloads, % (+16%).
pub const PUT_MEAN_PCT: f64 = 16.0;
/// Cleaning copy on fillrandom, % (-80%).
pub const COPY_FILLRANDOM_PCT: f64 = -80.0;
/// Cleaning copy, mean of the four workloads, % (-70%).
pub const COPY_MEAN_PCT: f64 = -70.0;
/// Zone resets by cleaning (figure 12) per workload (fillrandom, zipfian, latest, uniform), %.
pub const ZC_RESETS_PCT: [f64; 4] = [-12.0, -13.0, -5.0, -13.0];
/// Zone resets by cleaning, mean of the four, % (-8.6%).
pub const ZC_RESETS_MEAN_PCT: f64 = -8.6;
/// I/O blocking time, mean of the four, % (-68%).
pub const IO_BLOCKING_MEAN_PCT: f64 = -68.0;
/// S_inval, A-CAZA minus Baseline, mean of the four (+0.10).
pub const S_INVAL_DIFF: f64 = 0.10;

/// A change in percent as a ratio over Baseline (a bar's paper marker).
pub fn ratio(pct: f64) -> f64 {
    1.0 + pct / 100.0
}
