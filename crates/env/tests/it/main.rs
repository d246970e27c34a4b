//! The environments' integration tests, one module per scenario.
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod same_code_runs_in_both_envs;
mod simulator_detects_stuck_runs;
mod simulator_is_deterministic;
