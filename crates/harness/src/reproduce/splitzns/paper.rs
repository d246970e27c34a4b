//! The SplitZNS paper's own values (§5.2, figures 9 and 13-15): the one place the claims table,
//! the report and the figures read them from.

/// The paper's throughput of SplitZNS over each competitor (figure 9), where §5.2 gives it.
pub fn gain(competitor: &str, w: &str) -> Option<f64> {
    Some(match (competitor, w) {
        ("LDP", "overwrite") => 2.77,
        ("LDP", "ycsb-a") => 1.79,
        ("Gear", "overwrite") => 3.55,
        ("LLC", "overwrite") => 2.68,
        ("Gear", "ycsb-a") => 1.63,
        ("LLC", "ycsb-a") => 1.23,
        ("LDP", "readrandom") => 1.16,
        ("Gear", "readrandom") => 2.05,
        ("LLC", "readrandom") => 1.11,
        ("LDP", "ycsb-c") => 1.29,
        ("Gear", "ycsb-c") => 1.21,
        ("LLC", "ycsb-c") => 1.07,
        _ => return None,
    })
}

/// Breakdown on overwrite (figures 13-14): +diff and +SZR over native.
pub const BREAKDOWN: [(&str, f64); 2] = [("+diff", 1.43), ("+SZR", 1.88)];
/// +SZR over +diff on overwrite (the paper's figure, as its claims table reads it).
pub const SZR_OVER_DIFF: f64 = 1.88;
/// SplitZNS's overwrite P99 against LDP's: -57.2%.
pub const OVERWRITE_P99_CHANGE: f64 = -0.572;

/// The breakdown's gain of `scheme` over native, where the paper gives it.
pub fn breakdown(scheme: &str) -> Option<f64> {
    BREAKDOWN
        .iter()
        .find(|(s, _)| *s == scheme)
        .map(|(_, v)| *v)
}
