//! Where the tree's SSTs sit on the zones, and the Same-Zone Compaction paper's two measures of
//! a compaction's inputs over that layout:
//!
//! - **`S_same`** (equation 1): with `S_m` the bytes of the inputs in zone `m`,
//!   `Σ S_m² / (Σ S_m)²`. 1 when every input sits in one zone ("same-zone compaction"),
//!   towards 0 as they spread ("zone-across compaction").
//! - **`S_inval`**: the mean, over the zones holding inputs, of the share of the zone's
//!   written bytes that is invalid once the inputs are deleted. High values mean zones that a
//!   reset reclaims with little or no copying.

use std::collections::BTreeMap;

/// Which zones hold the bytes of each SST: file number → (zone index, bytes).
pub type ZoneMap = BTreeMap<u64, Vec<(u32, u64)>>;

/// One zone's space, as the zone layer accounts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ZoneUsage {
    /// Bytes the zone can hold.
    pub capacity_bytes: u64,
    /// Bytes up to the write pointer (a finished zone counts as written to its capacity).
    pub written_bytes: u64,
    /// Bytes of live file data.
    pub valid_bytes: u64,
}

/// The zone layer as zone-aware pickers and the engine's statistics see it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZoneLayout {
    /// SST → zones.
    pub files: ZoneMap,
    /// Zone index → usage.
    pub zones: BTreeMap<u32, ZoneUsage>,
    /// Free space of the device in percent (writable bytes over capacity, as ZenFS's
    /// `GetFreeSpace` over the total).
    pub free_pct: f64,
    /// Zones before the first IO zone (the file layer's metadata zones), which ZenFS's
    /// `CalculateFreePercent` counts in the device size (see [`Self::artifact_free_pct`]).
    pub meta_zones: u32,
}

impl ZoneLayout {
    /// The free percentage the MSST'24 code's picker compares with `max_compaction_kick`:
    /// ZenFS's `ZonedBlockDevice::CalculateFreePercent` (what `ZenFS::GetFreeSpace` returns
    /// as `free_percent`), see [`calculate_free_percent`]. Free there is *unwritten* space:
    /// space a reset could reclaim is not free until the reset.
    pub fn artifact_free_pct(&self) -> u64 {
        let zone = self
            .zones
            .values()
            .map(|u| u.capacity_bytes)
            .max()
            .unwrap_or(0);
        let nr_zones = u64::from(self.meta_zones) + self.zones.len() as u64;
        let written = self.zones.values().map(|u| u.written_bytes).sum();
        calculate_free_percent(nr_zones, zone, written)
    }

    /// Bytes of `files` per zone, in zone order.
    pub fn bytes_per_zone(&self, files: impl IntoIterator<Item = u64>) -> BTreeMap<u32, u64> {
        let mut per: BTreeMap<u32, u64> = BTreeMap::new();
        for n in files {
            for &(z, b) in self.files.get(&n).map_or(&[][..], Vec::as_slice) {
                *per.entry(z).or_insert(0) += b;
            }
        }
        per
    }

    /// `S_same` of a compaction whose inputs are `files` (equation 1). `None` when none of
    /// them has bytes on the zones.
    pub fn same_zone_score(&self, files: impl IntoIterator<Item = u64>) -> Option<f64> {
        same_zone_score(self.bytes_per_zone(files).values().copied())
    }

    /// `S_inval` of a compaction whose inputs are `files`. `None` when none of them has bytes
    /// on the zones.
    pub fn invalidation_score(&self, files: impl IntoIterator<Item = u64>) -> Option<f64> {
        let per = self.bytes_per_zone(files);
        invalidation_score(per.iter().map(|(z, &b)| {
            let u = self.zones.get(z).copied().unwrap_or_default();
            (u, b)
        }))
    }
}

/// `ZonedBlockDevice::CalculateFreePercent` (`plugin/zenfs/fs/zbd_zenfs.h`): in whole MiB,
/// `device = nr_zones × zone size` (every zone of the device, metadata zones included),
/// `free = device − ⌊Σ written bytes of the IO zones⌋`, percent `⌊free · 100 / device⌋`.
/// Zones under 1 MiB (tiny test devices) are counted in bytes instead. The code refreshes the
/// value once a second from a background thread; ours is exact at each pick.
pub fn calculate_free_percent(nr_zones: u64, zone_bytes: u64, written_bytes: u64) -> u64 {
    let (device, written) = if zone_bytes >> 20 == 0 {
        (nr_zones.saturating_mul(zone_bytes), written_bytes)
    } else {
        (
            nr_zones.saturating_mul(zone_bytes >> 20),
            written_bytes >> 20,
        )
    };
    if device == 0 {
        return 0;
    }
    device.saturating_sub(written).saturating_mul(100) / device
}

/// Equation 1 over the per-zone byte counts `S_m` (zones holding nothing may be left out).
pub fn same_zone_score(per_zone: impl IntoIterator<Item = u64>) -> Option<f64> {
    let (mut sum, mut squares) = (0f64, 0f64);
    for s in per_zone {
        let s = s as f64;
        sum += s;
        squares += s * s;
    }
    (sum > 0.0).then(|| squares / (sum * sum))
}

/// `S_inval` over (zone usage, bytes of the inputs in that zone) pairs: the mean of
/// `(written − (valid − inputs)) / written` over zones with written bytes.
pub fn invalidation_score(zones: impl IntoIterator<Item = (ZoneUsage, u64)>) -> Option<f64> {
    let (mut sum, mut n) = (0f64, 0u32);
    for (u, inputs) in zones {
        if u.written_bytes == 0 {
            continue;
        }
        let valid_after = u.valid_bytes.saturating_sub(inputs);
        let invalid_after = u.written_bytes.saturating_sub(valid_after);
        sum += invalid_after as f64 / u.written_bytes as f64;
        n += 1;
    }
    (n > 0).then(|| sum / f64::from(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's figures 2 and 3: zones of size 4, SSTs of size 1, every zone full of valid
    /// SSTs before the compaction.
    fn layout(zones_of_inputs: &[u32]) -> ZoneLayout {
        let mut l = ZoneLayout::default();
        for z in 0..4 {
            l.zones.insert(
                z,
                ZoneUsage {
                    capacity_bytes: 4,
                    written_bytes: 4,
                    valid_bytes: 4,
                },
            );
        }
        for (i, &z) in zones_of_inputs.iter().enumerate() {
            l.files.insert(i as u64, vec![(z, 1)]);
        }
        l
    }

    #[test]
    fn figure_2_zone_across_compaction_scores() {
        let l = layout(&[0, 1, 2]);
        let s = l.same_zone_score(0..3).unwrap();
        assert!((s - 1.0 / 3.0).abs() < 1e-9, "S_same {s}");
        assert_eq!(format!("{s:.2}"), "0.33");
        let i = l.invalidation_score(0..3).unwrap();
        assert!((i - 0.25).abs() < 1e-9, "S_inval {i}");
    }

    #[test]
    fn figure_3_same_zone_compaction_scores() {
        let l = layout(&[0, 0, 0]);
        let s = l.same_zone_score(0..3).unwrap();
        assert!((s - 1.0).abs() < 1e-9, "S_same {s}");
        let i = l.invalidation_score(0..3).unwrap();
        assert!((i - 0.75).abs() < 1e-9, "S_inval {i}");
    }

    #[test]
    fn scores_follow_the_byte_split() {
        // 3:1 split over two zones: (9 + 1) / 16.
        assert!((same_zone_score([3, 1]).unwrap() - 10.0 / 16.0).abs() < 1e-12);
        assert!(same_zone_score([0, 0]).is_none());
        assert!(same_zone_score([]).is_none());
    }

    #[test]
    fn files_without_zones_are_left_out() {
        let l = layout(&[2]);
        assert_eq!(l.same_zone_score([0, 99]), Some(1.0));
        assert_eq!(l.same_zone_score([99]), None);
        assert_eq!(l.invalidation_score([99]), None);
    }

    #[test]
    fn free_percent_is_unwritten_mib_over_every_zone() {
        // 10 zones of 64 MiB (3 of them metadata): 640 MiB; 7 IO zones with 100.5 MiB written →
        // ⌊(640 − 100) · 100 / 640⌋ = 84.
        assert_eq!(
            calculate_free_percent(10, 64 << 20, (100 << 20) + (1 << 19)),
            84
        );
        assert_eq!(calculate_free_percent(4, 64 << 20, 0), 100);
        assert_eq!(calculate_free_percent(4, 64 << 20, 4 * (64 << 20)), 0);
        assert_eq!(calculate_free_percent(0, 64 << 20, 0), 0);
        // Tiny zones: bytes.
        assert_eq!(calculate_free_percent(4, 1000, 1000), 75);
        let mut l = layout(&[]);
        l.meta_zones = 4;
        // 8 zones of 4 bytes, 16 written → 50 %.
        assert_eq!(l.artifact_free_pct(), 50);
    }

    #[test]
    fn unwritten_zones_do_not_count_for_s_inval() {
        let u = ZoneUsage {
            capacity_bytes: 4,
            written_bytes: 0,
            valid_bytes: 0,
        };
        assert_eq!(invalidation_score([(u, 0)]), None);
        let half = ZoneUsage {
            capacity_bytes: 4,
            written_bytes: 2,
            valid_bytes: 2,
        };
        assert_eq!(invalidation_score([(half, 1), (u, 0)]), Some(0.5));
    }
}
