//! Seeds the torture campaign failed on, each named after the bug it found and pinned to the
//! configuration it found it with (the summary must still say so, or the seed no longer tests
//! what its name says). `zonedb torture --seed S` replays one with its events.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_harness::torture::{TortureConfig, run};

fn replay(seed: u64, must_have: &[&str]) {
    replay_with_ops(seed, None, must_have);
}

/// `ops`: the operations per round the seed failed with (fill-the-device seeds now run more).
fn replay_with_ops(seed: u64, ops: Option<u32>, must_have: &[&str]) {
    let mut cfg = TortureConfig::for_seed(seed);
    if let Some(o) = ops {
        cfg.ops_per_round = o;
    }
    let summary = cfg.summary();
    for m in must_have {
        assert!(
            summary.contains(m),
            "seed {seed} no longer derives '{m}': {summary}"
        );
    }
    if let Err(f) = run::run(&cfg) {
        panic!("{f}\n  config: {summary}");
    }
}

/// Rolling the MANIFEST held the old MANIFEST's zone, the new one's and CURRENT's temporary
/// file's at once: with four open zones for data, the roll waited forever for a token it held.
#[test]
fn manifest_roll_on_a_device_with_few_open_zones_does_not_hang() {
    replay(5, &["open/active 6/8", "manifest 4 KiB"]);
}

/// A WAL switch whose old WAL failed to close left the engine acknowledging writes with no WAL;
/// the clean close after it lost them.
#[test]
fn a_failed_wal_switch_never_acknowledges_writes_without_a_wal() {
    replay(8, &["read-only zones true"]);
}

/// A zone turned read-only was counted full at mount, so extents recorded past its write
/// pointer (never written) were kept, and the tail recovery read past the pointer.
#[test]
fn extents_past_a_read_only_zones_write_pointer_are_clipped_at_mount() {
    replay(36, &["read-only zones true"]);
    replay(39, &["read-only zones true", "torn false"]);
}

/// Mount reset a read-only metadata zone after a roll (an invalid transition), and unused
/// read-only or offline data zones (the same).
#[test]
fn mount_never_resets_a_failed_zone() {
    replay(38, &["read-only zones true"]);
}

/// A writer's zone went offline while still empty: mount read its "tail" from an offline zone,
/// then kept extents recorded there that were never written.
#[test]
fn an_offline_zone_is_neither_read_nor_trusted_past_its_write_pointer() {
    replay_with_ops(
        239,
        Some(786),
        &["offline zones true", "zone append", "3 rounds x 786 ops"],
    );
    replay(303, &["offline zones true"]);
}

/// A piece that filled its zone left the file's tail pointer at the next zone's start; after a
/// power loss mount took the next writer's data in that zone as the file's tail (overlapping
/// extents of two SSTs).
#[test]
fn a_piece_that_fills_a_zone_leaves_no_tail_in_the_next_zone() {
    replay_with_ops(
        334,
        Some(792),
        &["zone append", "torn true", "6 rounds x 792 ops"],
    );
    replay(497, &["zone append", "torn true", "4 rounds x 709 ops"]);
    replay_with_ops(876, Some(850), &["torn true", "5 rounds x 850 ops"]);
}

/// A background job that hit an injected read error stops writes until the next open; the
/// harness took the refusal for a failure once read errors were switched off again.
#[test]
fn a_read_error_in_a_background_job_stops_writes_until_reopen() {
    replay(687, &["read errors 1/100"]);
}

/// A seed that made every metadata zone read-only: mount had no zone to roll to. Metadata
/// zones are not failed any more (nothing could mount that device for writing); the seed stays
/// as a check that the data-zone faults it now injects are survived.
#[test]
fn data_zone_faults_without_metadata_zone_faults() {
    replay(141, &["read-only zones true"]);
}

/// Renaming the new `CURRENT` over the old one was a delete record, a zone reset, then the
/// rename record: a power loss in between left no `CURRENT`, the store reopened empty and the
/// stale-file sweep deleted every SST (found by `zonedb torture --seeds 10000`).
#[test]
fn replacing_current_is_one_record_so_a_power_loss_never_loses_the_database() {
    replay(3163, &["cleaner greedy", "torn true"]);
    replay(4676, &["placement caza", "fills the device"]);
    replay(6394, &["torn false", "read errors 1/100"]);
    replay(8277, &["static levels", "fills the device"]);
    replay(8972, &["offline zones true"]);
    replay(9242, &["block 1024 B"]);
}
