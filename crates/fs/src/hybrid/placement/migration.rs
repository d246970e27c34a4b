//! HHZS's workload-aware migration decisions (§3.4), as a pure function over a snapshot.
//!
//! SST priority: a lower level first, then a higher read rate (reads / age). SSTs selected by a
//! running compaction are never chosen.
//! - *Capacity migration*: when the tiering level has more SSD SSTs than its reservation, or
//!   an SSD SST sits above it, the lowest-priority SSD SST moves to the HDD.
//! - *Popularity migration*: when the HDD's read rate exceeds half its random-read IOPS, the
//!   highest-priority HDD SST moves to the SSD if the empty SSD zones exceed the demand of
//!   the levels below the tiering level, else it swaps with the lowest-priority SSD SST (when
//!   that one has a lower priority).
//!
//! The file layer carries a decision out at the configured rate
//! ([`crate::ZoneFs`]'s migrator).

use zonedb_device::Tier;

/// The tiering level and its SSD reservation (§3.3 steps 2 and 3), as
/// [`super::hhzs::tiering`] computes it and the migration decisions take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiering {
    /// `t` (`LEVELS` when every level fits on the SSD).
    pub level: u32,
    /// SSD zones `L_t` may hold.
    pub reserved: u64,
}

/// How a policy's migration runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigrationSettings {
    /// Copy rate limit, bytes per second (HHZS: 4 MiB/s).
    pub rate_bytes_per_s: u64,
    /// How often a decision is taken, ns.
    pub period_ns: u64,
    /// The HDD's random 4 KiB read IOPS at queue depth 1 (Table 1: 115).
    pub hdd_random_read_iops: f64,
    /// SSD zones the policy keeps for the WAL (never a migration target).
    pub log_zones: u32,
    /// Bytes copied per read and write (the paper does not say; 128 KiB, the cleaner's).
    pub chunk_bytes: u64,
}

impl Default for MigrationSettings {
    fn default() -> Self {
        Self {
            rate_bytes_per_s: 4 << 20,
            period_ns: 1_000_000_000,
            hdd_random_read_iops: 115.0,
            log_zones: 0,
            chunk_bytes: 128 << 10,
        }
    }
}

/// One SST as migration sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// SST number.
    pub number: u64,
    /// Level.
    pub level: u32,
    /// Device.
    pub tier: Tier,
    /// Query reads per second since it was created.
    pub read_rate: f64,
    /// Selected by a running compaction.
    pub compacting: bool,
}

/// What migration decides from.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Live SSTs.
    pub ssts: Vec<Candidate>,
    /// The tiering level and its reservation.
    pub tiering: Tiering,
    /// Empty SSD zones for SSTs.
    pub empty_ssd_zones: u64,
    /// Storage demand of the levels below the tiering level, zones.
    pub demand_below_tiering: u64,
    /// Query reads per second the HDD served over the last period.
    pub hdd_read_rate: f64,
    /// The first level never moved to the SSD (`Bh + M`: `h`; HHZS: none).
    pub ssd_level_limit: Option<u32>,
}

/// A migration to carry out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Migration {
    /// Move one SST to a device.
    Move {
        /// SST number.
        sst: u64,
        /// Where to.
        to: Tier,
    },
    /// Move `down` to the HDD, then `up` to the SSD.
    Swap {
        /// The HDD SST going up.
        up: u64,
        /// The SSD SST going down.
        down: u64,
    },
}

/// Whether `a` has a higher priority than `b`.
fn higher(a: &Candidate, b: &Candidate) -> bool {
    a.level < b.level || (a.level == b.level && a.read_rate > b.read_rate)
}

/// The next migration, if any.
pub fn plan(s: &Snapshot, settings: &MigrationSettings) -> Option<Migration> {
    let movable = |c: &&Candidate| !c.compacting;
    let lowest_on_ssd = s
        .ssts
        .iter()
        .filter(movable)
        .filter(|c| c.tier == Tier::Ssd)
        .reduce(|lo, c| if higher(lo, c) { c } else { lo });
    // Capacity migration.
    let t = s.tiering.level;
    let at_t = s
        .ssts
        .iter()
        .filter(|c| c.tier == Tier::Ssd && c.level == t)
        .count() as u64;
    let above = s.ssts.iter().any(|c| c.tier == Tier::Ssd && c.level > t);
    if (at_t > s.tiering.reserved || above)
        && let Some(lo) = lowest_on_ssd
    {
        return Some(Migration::Move {
            sst: lo.number,
            to: Tier::Hdd,
        });
    }
    // Popularity migration.
    if s.hdd_read_rate <= settings.hdd_random_read_iops / 2.0 {
        return None;
    }
    let up = s
        .ssts
        .iter()
        .filter(movable)
        .filter(|c| c.tier == Tier::Hdd && s.ssd_level_limit.is_none_or(|h| c.level < h))
        .reduce(|hi, c| if higher(c, hi) { c } else { hi })?;
    if s.empty_ssd_zones > s.demand_below_tiering {
        return Some(Migration::Move {
            sst: up.number,
            to: Tier::Ssd,
        });
    }
    let down = lowest_on_ssd?;
    higher(up, down).then_some(Migration::Swap {
        up: up.number,
        down: down.number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(number: u64, level: u32, tier: Tier, read_rate: f64) -> Candidate {
        Candidate {
            number,
            level,
            tier,
            read_rate,
            compacting: false,
        }
    }

    fn snap(ssts: Vec<Candidate>, level: u32, reserved: u64) -> Snapshot {
        Snapshot {
            ssts,
            tiering: Tiering { level, reserved },
            empty_ssd_zones: 0,
            demand_below_tiering: 0,
            hdd_read_rate: 0.0,
            ssd_level_limit: None,
        }
    }

    #[test]
    fn capacity_migration_moves_the_lowest_priority_ssd_sst_down() {
        let set = MigrationSettings::default();
        // t = 2 with one zone reserved but two L2 SSTs on the SSD: the colder goes down.
        let s = snap(
            vec![
                c(1, 1, Tier::Ssd, 0.0),
                c(2, 2, Tier::Ssd, 5.0),
                c(3, 2, Tier::Ssd, 1.0),
            ],
            2,
            1,
        );
        assert_eq!(
            plan(&s, &set),
            Some(Migration::Move {
                sst: 3,
                to: Tier::Hdd
            })
        );
        // An SSD SST above the tiering level goes first (the lowest priority is the deepest).
        let s = snap(vec![c(1, 1, Tier::Ssd, 0.0), c(4, 3, Tier::Ssd, 9.0)], 2, 5);
        assert_eq!(
            plan(&s, &set),
            Some(Migration::Move {
                sst: 4,
                to: Tier::Hdd
            })
        );
        // Within the reservation: nothing.
        let s = snap(vec![c(2, 2, Tier::Ssd, 5.0)], 2, 1);
        assert_eq!(plan(&s, &set), None);
    }

    #[test]
    fn popularity_migration_moves_or_swaps_hot_hdd_ssts() {
        let set = MigrationSettings::default();
        let mut s = snap(
            vec![
                c(1, 2, Tier::Ssd, 0.5),
                c(2, 3, Tier::Hdd, 3.0),
                c(3, 3, Tier::Hdd, 8.0),
            ],
            3,
            0,
        );
        s.hdd_read_rate = 50.0;
        assert_eq!(plan(&s, &set), None, "HDD below half its IOPS");
        s.hdd_read_rate = 60.0;
        // No empty SSD zone beyond the demand: swap (an L2 SST has a higher priority than any
        // L3 one, so no swap).
        assert_eq!(plan(&s, &set), None);
        s.ssts[0].level = 4;
        s.tiering.level = 5;
        s.tiering.reserved = 3;
        assert_eq!(plan(&s, &set), Some(Migration::Swap { up: 3, down: 1 }));
        s.empty_ssd_zones = 2;
        s.demand_below_tiering = 1;
        assert_eq!(
            plan(&s, &set),
            Some(Migration::Move {
                sst: 3,
                to: Tier::Ssd
            })
        );
        // A compacting SST is never chosen; Bh + M never lifts levels >= h.
        s.ssts[2].compacting = true;
        assert_eq!(
            plan(&s, &set),
            Some(Migration::Move {
                sst: 2,
                to: Tier::Ssd
            })
        );
        s.ssd_level_limit = Some(3);
        assert_eq!(plan(&s, &set), None);
    }
}
