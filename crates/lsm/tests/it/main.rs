//! The engine's integration tests, one module per scenario.
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod a_read_only_file_layer_opens_the_database_for_reading;
mod background_purge_deletes_what_jobs_made_obsolete;
mod close_stops_a_running_compaction;
mod common;
mod compaction_out_of_space_is_a_soft_error;
mod compaction_readahead_reads_inputs_in_large_reads;
mod corrupt_sst_and_wal_never_return_wrong_data;
mod dropping_the_store_closes_it;
mod elided_sst_blocks_round_trip_and_damage_is_corruption;
mod elided_values_cost_what_full_values_cost;
mod elided_values_match_a_btreemap_oracle;
mod failed_wal_zone_stops_writes_and_fails_close;
mod full_device_gives_a_clear_error;
mod full_device_reopens_for_reading;
mod gear_compaction_cascades_and_keeps_every_write;
mod hard_file_size_cap_keeps_compaction_outputs_under_the_target;
mod hints_describe_flushes_and_compactions;
mod kill_during_writes_keeps_synced_data;
mod manifest_damage_is_corruption_not_rollback;
mod memtables_merge_and_wal_size_forces_flushes;
mod obsolete_files_stay_while_an_iterator_holds_their_version;
mod obsolete_ssts_are_deleted_once_no_version_holds_them;
mod picker_matches_rocksdb_rules;
mod power_loss_keeps_synced_elided_writes;
mod power_loss_keeps_synced_writes;
mod power_loss_on_a_hybrid_device_keeps_synced_writes;
mod power_loss_on_a_znsplus_device_keeps_synced_writes;
mod reverse_iteration_matches_a_btreemap_oracle;
mod simulation_is_deterministic;
mod subcompactions_match_a_btreemap_oracle;
mod synced_write_groups_flush_the_device_once;
mod toy_placement_policy_runs_through_the_engine;
mod toy_start_file_rule_runs_through_the_engine;
mod write_stalls_wait_in_virtual_time;
mod zone_aware_policies_keep_every_write;
mod zone_resets_never_take_a_live_writers_zone;
