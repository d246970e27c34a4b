//! The root crate's integration tests: the CLI's (each module runs the `zonedb` binary on one
//! scenario) and the Rust front door's (`zonedb::Db` against an oracle).
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod a_full_host_file_system_opens_the_store_read_only;
mod bad_inputs_cli;
mod bench_cli;
mod bench_full_device_cli;
mod bench_paper_setup_flags_cli;
mod common;
mod compare_cli;
mod computing_ahead_changes_no_result;
mod crafted_device_dirs_fail_fsck_within_memory;
mod damaged_wal_is_reported_by_open_and_fsck;
mod device_bench_cli;
mod elided_values_change_no_result;
mod every_accepted_value_appears_in_help;
mod front_door_matches_a_btreemap_oracle;
mod fs_cli;
mod fsck_finds_damaged_ssts_manifest_and_current;
mod fuzz_corpus_replays;
mod kill_loop_keeps_synced_writes_and_space;
mod links_are_never_written_through_cli;
mod read_only_commands_leave_the_device_directory_alone;
mod report_figures_read_like_a_papers;
mod reproduce_cli;
mod results_pages_show_the_claims_their_json_holds;
mod selftest_and_crashtest_cli;
mod sweep_cli;
mod the_default_comparison_differs_only_in_what_each_row_claims;
mod ycsb_cli;
