//! The harness's integration tests, one module per scenario.
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod a_comparison_table_never_divides_by_a_zero_baseline;
mod compaction_reads_go_out_as_background_reads;
mod db_matches_btreemap_oracle;
mod db_matches_oracle_on_the_priority_scheduler;
mod devices_keep_the_zone_rules;
mod files_match_a_model_across_remounts;
mod hhzs_and_same_zone_take_a_scale_between_small_and_paper;
mod hhzs_cache_never_serves_from_an_evicted_zone;
mod hhzs_schemes_keep_every_write_on_a_hybrid_device;
mod hybrid_scenario_runs_fillrandom_and_verifies;
mod paper_scale_presets_run_scaled_down;
mod peers_run_the_benchmarks;
mod phases_reopen_the_database_when_asked;
mod phases_wait_for_compactions_when_asked;
mod scenario_presets_parse;
mod splitzns_schemes_share_one_queueing;
mod splitzns_selective_runs_deep_ssts_in_subzones;
mod splitzns_study_reports_the_measured_phase;
mod study_invariants_catch_lost_writes;
mod torture_regressions;
mod torture_seeds_keep_every_synced_write;
mod toy_constant_latency_media_runs_the_engine;
mod toy_study_runs_through_the_registry;
