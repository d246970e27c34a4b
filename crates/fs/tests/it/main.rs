//! The zone file layer's integration tests, one module per scenario.
//!
//! One test binary per crate: every scenario file is a module here, so the crate's
//! tests link once. Run one with `cargo test --profile ci -p CRATE --test it MODULE`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod a_cut_file_is_damage_unless_it_was_being_written;
mod a_full_host_file_system_is_a_full_device;
mod a_writer_waits_for_the_zone_an_sst_writer_holds;
mod a_zone_being_reset_keeps_its_active_token;
mod allocation_retry_sleeps_one_second_per_attempt;
mod caza_artifact_sst_spills_into_the_next_zone;
mod cleaning_keeps_extents_inside_zones;
mod common;
mod corrupt_metadata_never_panics;
mod crafted_metadata_lengths_are_read_in_bounded_pieces;
mod elided_appends_match_full_appends;
mod many_writers_stay_within_zone_limits;
mod page_cache_never_returns_stale_data;
mod power_loss_at_random_times;
mod rename_over_a_file_survives_power_loss_at_every_instant;
mod selective_allocation_puts_deep_ssts_in_subzones;
mod the_core_layer_names_no_feature_folder;
mod threaded_logging_waits_for_a_reclaim;
mod znsplus_reclamation_keeps_every_file;
mod zone_cleaning_blocks_jobs_while_it_runs;
