//! `zonedb torture`: a VOPR-style campaign. Each seed derives a whole configuration (device
//! geometry, cleaner, placement, compaction scheme and priority, engine options) and a
//! workload of puts, deletes, batches, synced writes, gets, iterators, snapshots, flushes and
//! reopens, with faults injected by the simulated device: power loss at random instants, torn
//! writes, read errors, read-only and offline zones, and a full device. After every reopen the
//! zone layer must fsck clean and the store must hold a prefix of the writes that contains every
//! synced one (every acknowledged one after a clean close), and nothing nobody wrote; every read
//! in between must return the acknowledged state or, while faults are on, an error.
//!
//! - [`config`] — what a seed runs.
//! - [`history`] — the writes of a round and the prefix check.
//! - [`run`] — one seed.

pub mod config;
pub mod history;
pub mod run;

pub use config::TortureConfig;
pub use run::{SeedReport, TortureFailure};

/// Runs seed `seed` with its own configuration.
///
/// # Errors
/// The first broken invariant.
pub fn run_seed(seed: u64) -> Result<SeedReport, TortureFailure> {
    run::run(&TortureConfig::for_seed(seed))
}

/// Runs seed `seed` of the reset-race family ([`TortureConfig::reset_race`]).
///
/// # Errors
/// The first broken invariant.
pub fn run_reset_race_seed(seed: u64) -> Result<SeedReport, TortureFailure> {
    run::run(&TortureConfig::reset_race(seed))
}

/// Shrinks a failing configuration: fewer rounds (up to the failing one), then fewer operations
/// per round, while it still fails. Returns the smallest failing configuration found and its
/// failure.
pub fn minimize(cfg: &TortureConfig, failure: &TortureFailure) -> (TortureConfig, TortureFailure) {
    let mut best = (cfg.clone(), failure.clone());
    let mut c = cfg.clone();
    c.rounds = failure.round.min(cfg.rounds).max(1);
    if c.rounds < cfg.rounds {
        if let Err(f) = run::run(&c) {
            best = (c.clone(), f);
        } else {
            c.rounds = cfg.rounds;
        }
    }
    let mut c = best.0.clone();
    while c.ops_per_round > 8 {
        let mut smaller = c.clone();
        smaller.ops_per_round = c.ops_per_round / 2;
        match run::run(&smaller) {
            Err(f) => {
                best = (smaller.clone(), f);
                c = smaller;
            }
            Ok(_) => break,
        }
    }
    best
}

/// Totals of a campaign.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CampaignTotals {
    /// Seeds run.
    pub seeds: u64,
    /// Seeds that failed.
    pub failures: u64,
    /// Sum of the seeds' counts.
    pub writes: u64,
    /// Acknowledged writes.
    pub acked: u64,
    /// Synced writes.
    pub synced: u64,
    /// Checked reads.
    pub reads_checked: u64,
    /// Reads that failed under faults.
    pub read_errors: u64,
    /// Power losses.
    pub power_losses: u64,
    /// Power losses with torn writes.
    pub torn_power_losses: u64,
    /// Clean closes.
    pub clean_closes: u64,
    /// Opens that failed under read errors and were retried.
    pub failed_opens: u64,
    /// Zones turned read-only.
    pub zones_read_only: u64,
    /// Zones taken offline.
    pub zones_offline: u64,
    /// Seeds that filled their device (a write refused for lack of space).
    pub full_devices: u64,
    /// Opens that came up read-only.
    pub read_only_opens: u64,
}

impl CampaignTotals {
    /// Adds one seed's outcome.
    pub fn add(&mut self, r: &Result<SeedReport, TortureFailure>) {
        self.seeds += 1;
        match r {
            Err(_) => self.failures += 1,
            Ok(r) => {
                self.writes += r.writes;
                self.acked += r.acked;
                self.synced += r.synced;
                self.reads_checked += r.reads_checked;
                self.read_errors += r.read_errors;
                self.power_losses += u64::from(r.power_losses);
                self.torn_power_losses += u64::from(r.torn_power_losses);
                self.clean_closes += u64::from(r.clean_closes);
                self.failed_opens += u64::from(r.failed_opens);
                self.zones_read_only += u64::from(r.zones_read_only);
                self.zones_offline += u64::from(r.zones_offline);
                self.full_devices += u64::from(r.no_space_writes > 0);
                self.read_only_opens += u64::from(r.read_only_opens);
            }
        }
    }
}
