//! The objective the MSST'24 code's ZACA actually maximises (its artifact form), beside the
//! paper's equation 1 (`S_same`, in [`super::zone_layout`]).
//!
//! Ported from `ZonedBlockDevice::GetMaxInvalidateCompactionScore(files, size, stats = false)`
//! (`plugin/zenfs/fs/zbd_zenfs.cc`, the paper's run commit e4b644d). For every zone holding
//! an extent of a candidate file (all integers, unsigned 64-bit as in the code):
//!
//! ```text
//! rel_wp        = wp − start                    (written bytes; that fork's Finish leaves wp)
//! after_valid   = used_capacity − candidate bytes in the zone          (wrapping)
//! after_invalid = rel_wp − after_valid                                 (wrapping)
//! zone_pct      = 100                          if after_invalid > zone size
//!               = ⌊after_invalid · 100 / rel_wp⌋ otherwise
//! score         = (Σ zone_pct²) / (number of such zones)   — a double division in the code
//! ```
//!
//! So 10000 is a compaction after which every zone it touches holds nothing valid (a reset
//! reclaims them without copying). Differences from the code, all unreachable or cosmetic:
//! `rel_wp == 0` (a zone holding an extent was written; the code would divide by zero) scores
//! 0; the zone size is each zone's own capacity (the code takes zone 0's, all equal); the mean
//! is kept as an exact fraction, whose order is the order of the code's doubles for any zone
//! count below 10^5. Our file layer counts a finished zone as written to its capacity, where
//! that fork's `Zone::Finish` leaves `wp` (and so `rel_wp`) at the last write: for a finished
//! zone our `rel_wp` is the capacity, which raises `after_invalid` by the unwritten tail.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::zone_layout::{ZoneLayout, ZoneUsage};

/// `GetMaxInvalidateCompactionScore` as an exact fraction: the sum of the squared zone
/// percentages over the number of zones.
#[derive(Debug, Clone, Copy, Default)]
pub struct InvalidationScore {
    /// Σ zone_pct² over the zones holding candidate bytes.
    pub sum_sq_pct: u64,
    /// Zones holding candidate bytes (0: the score is 0).
    pub zones: u64,
}

impl InvalidationScore {
    /// The code's double.
    pub fn value(&self) -> f64 {
        if self.zones == 0 {
            0.0
        } else {
            self.sum_sq_pct as f64 / self.zones as f64
        }
    }

    fn fraction(&self) -> (u128, u128) {
        if self.zones == 0 {
            (0, 1)
        } else {
            (u128::from(self.sum_sq_pct), u128::from(self.zones))
        }
    }
}

impl PartialEq for InvalidationScore {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for InvalidationScore {}

impl PartialOrd for InvalidationScore {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InvalidationScore {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = self.fraction();
        let (c, d) = other.fraction();
        (a * d).cmp(&(c * b))
    }
}

/// One zone's percentage (`zone_score[i]` in the code) with `candidate_bytes` of the
/// candidates in it.
pub fn zone_pct(u: ZoneUsage, candidate_bytes: u64) -> u64 {
    let rel_wp = u.written_bytes;
    let after_valid = u.valid_bytes.wrapping_sub(candidate_bytes);
    let after_invalid = rel_wp.wrapping_sub(after_valid);
    if after_invalid > u.capacity_bytes {
        100
    } else {
        (after_invalid * 100).checked_div(rel_wp).unwrap_or(0)
    }
}

/// The score of per-zone candidate bytes (zone → bytes; zones absent from `zones` count as
/// unwritten).
pub fn invalidation_score_of(
    zones: &BTreeMap<u32, ZoneUsage>,
    per_zone: &BTreeMap<u32, u64>,
) -> InvalidationScore {
    let mut s = InvalidationScore::default();
    for (z, &bytes) in per_zone {
        let pct = zone_pct(zones.get(z).copied().unwrap_or_default(), bytes);
        s.sum_sq_pct = s.sum_sq_pct.saturating_add(pct.saturating_mul(pct));
        s.zones += 1;
    }
    s
}

impl ZoneLayout {
    /// `GetMaxInvalidateCompactionScore` of a compaction whose inputs are `files` (files
    /// without zones are left out, as the code skips files it cannot find).
    pub fn max_invalidation_score(
        &self,
        files: impl IntoIterator<Item = u64>,
    ) -> InvalidationScore {
        let mut per: BTreeMap<u32, u64> = BTreeMap::new();
        for n in files {
            for &(z, b) in self.files.get(&n).map_or(&[][..], Vec::as_slice) {
                *per.entry(z).or_insert(0) += b;
            }
        }
        invalidation_score_of(&self.zones, &per)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(capacity: u64, written: u64, valid: u64) -> ZoneUsage {
        ZoneUsage {
            capacity_bytes: capacity,
            written_bytes: written,
            valid_bytes: valid,
        }
    }

    /// Zones of 100 bytes; `spec` = (zone, written, valid); `files` = (file, [(zone, bytes)]).
    fn layout(spec: &[(u32, u64, u64)], files: &[(u64, &[(u32, u64)])]) -> ZoneLayout {
        let mut l = ZoneLayout::default();
        for &(z, w, v) in spec {
            l.zones.insert(z, usage(100, w, v));
        }
        for &(n, zs) in files {
            l.files.insert(n, zs.to_vec());
        }
        l
    }

    #[test]
    fn a_zone_left_without_valid_data_scores_10000() {
        // Zone 3: 100 written, 60 valid, all 60 are the candidates' → 100 % → 100² / 1.
        let l = layout(&[(3, 100, 60)], &[(1, &[(3, 40)]), (2, &[(3, 20)])]);
        let s = l.max_invalidation_score([1, 2]);
        assert_eq!((s.sum_sq_pct, s.zones), (10_000, 1));
        assert!((s.value() - 10_000.0).abs() < 1e-9);
    }

    #[test]
    fn two_half_invalid_zones() {
        // Zone 0: 100 written, 70 valid, candidates 20 → after valid 50, invalid 50 → 50 %.
        // Zone 1: 80 written, 60 valid, candidates 20 → after valid 40, invalid 40 → 50 %.
        let l = layout(
            &[(0, 100, 70), (1, 80, 60)],
            &[(1, &[(0, 20)]), (2, &[(1, 20)])],
        );
        let s = l.max_invalidation_score([1, 2]);
        assert_eq!((s.sum_sq_pct, s.zones), (2 * 2500, 2));
        assert!((s.value() - 2500.0).abs() < 1e-9);
    }

    #[test]
    fn percentages_are_floored_before_squaring() {
        // 100 written, 100 valid, candidates 33 → 33 invalid → 33 % → 1089.
        assert_eq!(zone_pct(usage(100, 100, 100), 33), 33);
        // 3 written, 3 valid, candidates 1 → ⌊100/3⌋ = 33.
        assert_eq!(zone_pct(usage(100, 3, 3), 1), 33);
        let l = layout(&[(0, 3, 3)], &[(1, &[(0, 1)])]);
        assert_eq!(l.max_invalidation_score([1]).sum_sq_pct, 1089);
    }

    #[test]
    fn an_unwritten_zone_scores_0() {
        assert_eq!(zone_pct(usage(100, 0, 0), 0), 0);
        let l = layout(&[(0, 0, 0)], &[(1, &[(0, 0)])]);
        let s = l.max_invalidation_score([1]);
        assert_eq!((s.sum_sq_pct, s.zones), (0, 1));
    }

    #[test]
    fn invalid_bytes_beyond_the_zone_size_clamp_to_100() {
        // Valid bytes below the candidates' (accounting lag): after_valid wraps, after_invalid
        // = written + 10 = 110 > 100 → 100 (the code's "error point").
        assert_eq!(zone_pct(usage(100, 100, 10), 20), 100);
        // Without the clamp the same wrap inside the zone size exceeds 100 %, as in the code.
        assert_eq!(zone_pct(usage(100, 50, 10), 20), 120);
    }

    #[test]
    fn a_candidate_spanning_zones_counts_every_zone() {
        // File 1: 30 in zone 0 (100 written, 30 valid → 100 %), 10 in zone 1 (100 written, 90
        // valid → after valid 80 → 20 %). Mean of squares: (10000 + 400) / 2 = 5200.
        let l = layout(&[(0, 100, 30), (1, 100, 90)], &[(1, &[(0, 30), (1, 10)])]);
        let s = l.max_invalidation_score([1, 99]);
        assert_eq!((s.sum_sq_pct, s.zones), (10_400, 2));
        assert!((s.value() - 5200.0).abs() < 1e-9);
    }

    #[test]
    fn scores_compare_as_exact_fractions() {
        let a = InvalidationScore {
            sum_sq_pct: 10_000,
            zones: 3,
        };
        let b = InvalidationScore {
            sum_sq_pct: 20_000,
            zones: 6,
        };
        assert_eq!(a, b);
        assert!(
            InvalidationScore {
                sum_sq_pct: 10_001,
                zones: 3
            } > a
        );
        assert_eq!(InvalidationScore::default(), InvalidationScore::default());
        assert!(InvalidationScore::default() < a);
    }
}
