//! The HHZS paper's own values: the one place the claims table, the must-show checks and the
//! figures read them from.

/// Exp#1 (figure 5a): HHZS over B3 on each of YCSB A-F, its smallest margin (+21.0%).
pub const OVER_B3_MARGIN: f64 = 0.210;
/// Exp#1: HHZS over SpanDB's AUTO on each of YCSB A-F, its smallest margin (+28.0%).
pub const OVER_AUTO_MARGIN: f64 = 0.280;
/// Exp#2 (figure 6): P+M+C over P+M on W4 (+173.7%).
pub const CACHING_W4: f64 = 2.737;
/// Exp#3 (figure 7): HHZS over B3 at each skew, at least (+27.3-43.3%).
pub const SKEW_OVER_B3_AT_LEAST: f64 = 1.273;
/// Exp#4 (figure 8): HHZS over B3 by read share, at least: 10% reads +40.4%, 30% +42.4%, the
/// others +42.5-60.0%.
pub const READS_OVER_B3_AT_LEAST: [(&str, f64); 3] =
    [("read=10", 1.404), ("read=30", 1.424), ("", 1.425)];
