//! The OAZA slides' own values (`003_042bc2c48867ff0e.txt`): the one place the claims table and
//! the figures read them from.

/// Cleaning copy of LIZA and CAZA over OAZA's (2.7x, 1.7x).
pub const COPY_OVER_OAZA: [(&str, f64); 2] = [("LIZA", 2.7), ("CAZA", 1.7)];
/// Zone-layer write amplification of LIZA, CAZA, OAZA.
pub const WA: [(&str, f64); 3] = [("LIZA", 1.3), ("CAZA", 1.2), ("OAZA", 1.1)];
/// Write throughput, MB/s, of LIZA, CAZA, OAZA.
pub const MB_S: [(&str, f64); 3] = [("LIZA", 67.0), ("CAZA", 68.0), ("OAZA", 69.0)];
/// Zone resets, OAZA against LIZA, % (-10%).
pub const RESETS_VS_LIZA_PCT: f64 = -10.0;
