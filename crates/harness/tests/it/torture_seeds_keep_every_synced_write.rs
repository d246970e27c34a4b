//! A torture campaign in `cargo test`: seeds `0..N` (N = `ZONEDB_TORTURE_SEEDS`, default 300),
//! each with its own configuration and faults (power loss, torn writes, read errors, read-only
//! and offline zones, full devices). Every seed must keep every synced write and hold nothing
//! nobody wrote; a failure prints its seed and configuration (`zonedb torture --seed S`).

use zonedb_harness::torture::{CampaignTotals, TortureConfig, run_reset_race_seed, run_seed};

#[test]
fn torture_seeds_keep_every_synced_write() {
    let n: u64 = std::env::var("ZONEDB_TORTURE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut totals = CampaignTotals::default();
    let mut failures = Vec::new();
    for seed in 0..n {
        let r = run_seed(seed);
        totals.add(&r);
        if let Err(f) = r {
            failures.push(format!(
                "{f}\n  config: {}",
                TortureConfig::for_seed(seed).summary()
            ));
        }
    }
    eprintln!("{totals:?}");
    assert!(
        failures.is_empty(),
        "{} of {n} seeds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The campaign exercised what it claims to.
    if n >= 100 {
        assert!(totals.power_losses > 0 && totals.torn_power_losses > 0);
        assert!(totals.clean_closes > 0 && totals.read_errors > 0);
        assert!(totals.zones_read_only > 0 && totals.zones_offline > 0);
        assert!(totals.full_devices > 0 && totals.synced > 0);
    }
}

/// The reset-race family (issue 46, defect 1): seeds `0..N` (N =
/// `ZONEDB_TORTURE_RESET_SEEDS`, default 60) with small buffers, four background jobs, open
/// and active limits of 6 and resets that take effect 2 ms after they are issued. (Its
/// single writer rarely meets a full budget with two resets in flight: 300 seeds did not hit
/// defect 1 before its fix; `crates/fs/tests/it/a_zone_being_reset_keeps_its_active_token.rs`
/// is the deterministic reproduction.)
#[test]
fn reset_race_seeds_keep_every_synced_write() {
    let n: u64 = std::env::var("ZONEDB_TORTURE_RESET_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut totals = CampaignTotals::default();
    let mut failures = Vec::new();
    for seed in 0..n {
        let r = run_reset_race_seed(seed);
        totals.add(&r);
        if let Err(f) = r {
            failures.push(format!(
                "{f}\n  config: {}",
                TortureConfig::reset_race(seed).summary()
            ));
        }
    }
    eprintln!("reset race: {totals:?}");
    assert!(
        failures.is_empty(),
        "{} of {n} reset-race seeds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A seed is a pure function of its number: run twice, the same report (counts, virtual time,
/// digest of the final contents), so a printed failing seed replays exactly.
#[test]
fn a_torture_seed_replays_identically() {
    for seed in [3, 8, 497, 1234] {
        let a = run_seed(seed);
        let b = run_seed(seed);
        assert_eq!(a, b, "seed {seed}");
    }
}
