//! The ZNS+ paper's and slides' own values: the one place the claims, the must-show checks and
//! the figures read them from.

/// IZC's copyback share of cleaning copies, at least ("over 80%", under CAB).
pub const COPYBACK_SHARE_AT_LEAST: f64 = 0.8;
