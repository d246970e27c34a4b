//! The device models' integration tests, one module per scenario.
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod a_reset_acknowledged_at_once_still_erases;
mod common;
mod elided_writes_cost_what_full_writes_cost;
mod hybrid_device_routes_zones_to_their_device;
mod priority_scheduler_serves_query_reads_first;
mod read_scheduler_only_reorders_within_the_queueing;
mod smr_hdd_matches_the_hhzs_table;
mod split_zone_transitions_follow_the_paper;
mod subzone_reads_are_scheduled_and_prefetched;
mod subzone_ring_serves_buffered_writes;
mod subzone_writes_reach_wide_zone_bandwidth_with_the_ring;
mod wide_reads_wait_behind_subzone_programs;
mod zn540_hhzs_matches_the_hhzs_table;
mod zns_timing_matches_analytical_limits;
mod znsplus_commands_keep_every_block;
mod zone_state_machine_follows_spec;
mod zonefile_concurrent_writers_keep_zone_order;
mod zonefile_crafted_sizes_are_refused_before_allocating;
mod zonefile_damaged_files_are_errors_not_panics;
mod zonefile_kill_keeps_acknowledged_writes;
mod zonefile_refuses_symbolic_links;
mod zonefile_reopen_keeps_acknowledged_writes;
mod zonefile_reset_punches_the_zone_out_of_data;
mod zonefile_second_open_is_locked;
mod zonefile_state_machine_matches_table;
