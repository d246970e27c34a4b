//! What one torture seed runs: the whole configuration (device, zone layer, engine) and the
//! fault mix, derived from the seed alone, so a seed printed by a failing campaign reproduces
//! the run exactly.

use zonedb_device::Profile;
use zonedb_env::SimRng;
use zonedb_lsm::options::{CompactionPri, CompactionScheme, DbOptions};

/// Cleaners a seed may pick.
pub const CLEANERS: [&str; 3] = ["none", "greedy", "zenfs"];
/// Placement policies a seed may pick.
pub const PLACEMENTS: [&str; 3] = ["liza", "caza", "oaza"];

/// Which faults a seed injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[allow(clippy::struct_excessive_bools, reason = "independent fault switches")]
pub struct FaultMix {
    /// Rounds may end in a power loss at a random instant (otherwise: clean close).
    pub power_loss: bool,
    /// A power loss keeps a block-aligned prefix of each zone's first lost write.
    pub torn_writes: bool,
    /// While read errors are on, one device read in this many fails (0: never on).
    pub read_error_one_in: u64,
    /// Zones with data may turn read-only.
    pub read_only_zones: bool,
    /// Empty zones may go offline.
    pub offline_zones: bool,
    /// Zone resets take effect this long after they are issued (0: at once; the device's
    /// `Faults::reset_delay_ns`). Only the reset-race family sets it.
    pub reset_delay_ns: u64,
}

/// The whole configuration of one seed.
#[derive(Debug, Clone)]
pub struct TortureConfig {
    /// The seed everything below came from.
    pub seed: u64,
    /// Device (the `tiny` profile with a seed-chosen zone count, capacity and limits).
    pub profile: Profile,
    /// Zone cleaner (`none`, `greedy`, `zenfs`).
    pub cleaner: &'static str,
    /// Greedy cleaner's free-space trigger (percent).
    pub gc_threshold: u32,
    /// Placement (`liza`, `caza`, `oaza`).
    pub placement: &'static str,
    /// Zone layer write buffer per file.
    pub fs_write_buffer: u64,
    /// File data written with zone append.
    pub zone_append: bool,
    /// Background cleaning period (virtual ns).
    pub cleaning_interval_ns: u64,
    /// Engine options (small, so a few thousand writes build a tree).
    pub options: DbOptions,
    /// Keys are `0..keys`.
    pub keys: u64,
    /// Largest value (bytes).
    pub max_value: u64,
    /// Rounds: each opens the store, checks it, runs a workload and ends in a clean close or a
    /// power loss.
    pub rounds: u32,
    /// Operations per round.
    pub ops_per_round: u32,
    /// Faults.
    pub faults: FaultMix,
    /// The device is small and nothing cleans it: it fills up.
    pub fills_device: bool,
}

fn pick<T: Copy>(rng: &mut SimRng, xs: &[T]) -> T {
    xs[rng.gen_range(0..xs.len() as u64) as usize]
}

fn chance(rng: &mut SimRng, pct: u64) -> bool {
    rng.gen_range(0..100) < pct
}

impl TortureConfig {
    /// The configuration of `seed`.
    ///
    /// # Panics
    /// Never for any seed: every derived profile is valid (tested over many seeds).
    #[allow(
        clippy::too_many_lines,
        reason = "one draw after another, in the order that keeps each seed's configuration"
    )]
    pub fn for_seed(seed: u64) -> Self {
        let mut rng = SimRng::seed_from_u64(seed ^ 0x7072_7475_7265_0001);
        let fills_device = chance(&mut rng, 12);
        let mut profile = Profile::by_name("tiny").unwrap_or_else(|e| unreachable!("{e}"));
        let z = &mut profile.zones;
        z.zone_count = if fills_device {
            rng.gen_range(14..24) as u32
        } else {
            rng.gen_range(48..160) as u32
        };
        // Capacity below the zone size (ZN540-like) or equal to it (FEMU-like).
        if chance(&mut rng, 40) {
            z.zone_capacity_bytes = z.zone_size_bytes;
        }
        let (open, active) = pick(&mut rng, &[(6, 6), (6, 8), (12, 14)]);
        z.max_open_zones = open;
        z.max_active_zones = active;
        let cleaner = if fills_device {
            "none"
        } else {
            pick(&mut rng, &CLEANERS)
        };
        let placement = pick(&mut rng, &PLACEMENTS);
        let compaction_scheme = pick(
            &mut rng,
            &[
                CompactionScheme::Rocksdb,
                CompactionScheme::Sica,
                CompactionScheme::Zaca,
                CompactionScheme::Acc,
            ],
        );
        let compaction_pri = pick(
            &mut rng,
            &[
                CompactionPri::MinOverlappingRatio,
                CompactionPri::ByCompensatedSize,
                CompactionPri::OldestLargestSeqFirst,
                CompactionPri::OldestSmallestSeqFirst,
                CompactionPri::RoundRobin,
            ],
        );
        let write_buffer_size = pick(&mut rng, &[64u64 << 10, 128 << 10]);
        let target_file_size_base = pick(&mut rng, &[16u64 << 10, 32 << 10, 64 << 10]);
        let options = DbOptions {
            write_buffer_size,
            max_write_buffer_number: pick(&mut rng, &[2, 3]),
            target_file_size_base,
            max_bytes_for_level_base: target_file_size_base * pick(&mut rng, &[2, 4]),
            block_size: pick(&mut rng, &[512, 1024, 4096]),
            block_restart_interval: pick(&mut rng, &[1, 4, 16]),
            bloom_bits_per_key: pick(&mut rng, &[0, 10]),
            block_cache_size: pick(&mut rng, &[0, 64 << 10, 1 << 20]),
            level0_file_num_compaction_trigger: pick(&mut rng, &[2, 4]),
            level0_slowdown_writes_trigger: 8,
            level0_stop_writes_trigger: 12,
            max_background_jobs: pick(&mut rng, &[1, 2, 4]),
            level_compaction_dynamic_level_bytes: chance(&mut rng, 50),
            compaction_pri,
            compaction_scheme,
            max_manifest_file_size: pick(&mut rng, &[4u64 << 10, 16 << 10, 1 << 20]),
            ..DbOptions::default()
        };
        let faults = FaultMix {
            power_loss: chance(&mut rng, 80),
            torn_writes: chance(&mut rng, 50),
            read_error_one_in: if chance(&mut rng, 35) {
                pick(&mut rng, &[20, 100, 1000])
            } else {
                0
            },
            read_only_zones: chance(&mut rng, 20),
            offline_zones: chance(&mut rng, 20),
            reset_delay_ns: 0,
        };
        // Drawn in this order (a seed's configuration must not change when fields are added).
        let gc_threshold = pick(&mut rng, &[10, 25, 50]);
        let fs_write_buffer = pick(&mut rng, &[4u64 << 10, 16 << 10, 64 << 10]);
        let zone_append = chance(&mut rng, 30);
        let cleaning_interval_ns = pick(&mut rng, &[1_000_000, 20_000_000, 10_000_000_000]);
        let keys = pick(&mut rng, &[50, 400, 3000]);
        let max_value = pick(&mut rng, &[64, 300, 2000]);
        let rounds = rng.gen_range(3..7) as u32;
        let mut ops_per_round = rng.gen_range(200..900) as u32;
        if fills_device {
            // Enough writes that the small device fills up within the rounds.
            ops_per_round *= 4;
        }
        Self {
            seed,
            profile,
            cleaner,
            gc_threshold,
            placement,
            fs_write_buffer,
            zone_append,
            cleaning_interval_ns,
            options,
            keys,
            max_value,
            rounds,
            ops_per_round,
            faults,
            fills_device,
        }
    }

    /// The reset-race family's configuration of `seed` (issue 46, defect 1): the seed's own,
    /// with db_bench-like small buffers (64 KiB memtables and SSTs, 256 KiB L1), four
    /// background jobs, open and active limits of 6 (one zone spare beyond the layer's
    /// budget) and resets that take effect 2 ms after they are issued, so deletes, flushes
    /// and compactions meet zones whose resets are in flight.
    pub fn reset_race(seed: u64) -> Self {
        let mut c = Self::for_seed(seed);
        c.options.write_buffer_size = 64 << 10;
        c.options.target_file_size_base = 64 << 10;
        c.options.max_bytes_for_level_base = 256 << 10;
        c.options.max_background_jobs = 4;
        c.profile.zones.max_open_zones = 6;
        c.profile.zones.max_active_zones = 6;
        c.faults.reset_delay_ns = 2_000_000;
        c
    }

    /// One line naming everything a seed chose (printed with a failure).
    pub fn summary(&self) -> String {
        let z = &self.profile.zones;
        format!(
            "seed {} | tiny: {} zones of {} KiB (capacity {} KiB), open/active {}/{} | cleaner {} (gc {}%, every {} ms) | placement {} | {} | {:?} {:?} | memtable {} KiB x{}, sst {} KiB, L1 {} KiB, block {} B, bloom {}, cache {} KiB, jobs {}, manifest {} KiB | fs buffer {} KiB{} | keys {}, values <= {} B | {} rounds x {} ops | faults: power loss {}, torn {}, read errors 1/{}, read-only zones {}, offline zones {}, reset delay {} us{}",
            self.seed,
            z.zone_count,
            z.zone_size_bytes >> 10,
            z.zone_capacity_bytes >> 10,
            z.max_open_zones,
            z.max_active_zones,
            self.cleaner,
            self.gc_threshold,
            self.cleaning_interval_ns / 1_000_000,
            self.placement,
            if self.options.level_compaction_dynamic_level_bytes {
                "dynamic levels"
            } else {
                "static levels"
            },
            self.options.compaction_scheme,
            self.options.compaction_pri,
            self.options.write_buffer_size >> 10,
            self.options.max_write_buffer_number,
            self.options.target_file_size_base >> 10,
            self.options.max_bytes_for_level_base >> 10,
            self.options.block_size,
            self.options.bloom_bits_per_key,
            self.options.block_cache_size >> 10,
            self.options.max_background_jobs,
            self.options.max_manifest_file_size >> 10,
            self.fs_write_buffer >> 10,
            if self.zone_append {
                ", zone append"
            } else {
                ""
            },
            self.keys,
            self.max_value,
            self.rounds,
            self.ops_per_round,
            self.faults.power_loss,
            self.faults.torn_writes,
            self.faults.read_error_one_in,
            self.faults.read_only_zones,
            self.faults.offline_zones,
            self.faults.reset_delay_ns / 1_000,
            if self.fills_device {
                " | fills the device"
            } else {
                ""
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_derives_a_valid_configuration() {
        for seed in 0..2000 {
            let c = TortureConfig::for_seed(seed);
            c.profile.validate().unwrap();
            c.options.validate().unwrap();
        }
    }

    #[test]
    fn a_seed_derives_the_same_configuration_twice() {
        for seed in [0, 1, 77, u64::MAX] {
            assert_eq!(
                TortureConfig::for_seed(seed).summary(),
                TortureConfig::for_seed(seed).summary()
            );
        }
    }
}
