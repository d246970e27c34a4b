//! Subcompactions: where a compaction is split into key ranges merged in parallel
//! (RocksDB's `max_subcompactions`), as pure functions over the compaction's input files.
//!
//! - [`should_form_subcompactions`] — RocksDB 7.4's `Compaction::ShouldFormSubcompactions`
//!   for leveled compaction: only L0 → base (the output level below L0) and only when the
//!   output level has input files.
//! - [`subcompaction_boundaries`] — after `CompactionJob::GenSubcompactionBoundaries`
//!   (`db/compaction/compaction_job.cc`): candidate boundaries are the smallest and largest
//!   user key of each L0 input, the first smallest and last largest of each deeper input
//!   level, and the smallest key of every output-level input; consecutive candidates make
//!   ranges with an estimated size; the ranges are grouped greedily into at most
//!   `max_subcompactions` subcompactions of about the mean size, and no more than the outputs
//!   the input bytes fill at 4/5 of the output file size. A boundary is a user key, so no
//!   user key is ever split between two subcompactions.
//!
//! Range sizes: RocksDB asks each table for the bytes between two keys (`ApproximateSize`);
//! here a file's bytes are spread evenly over the candidate ranges its key span touches.

use crate::key;
use crate::version::FileMeta;

/// The files of one input level of a compaction (deeper levels in key order).
#[derive(Debug, Clone, Copy)]
pub struct SubcompactionLevel<'a> {
    /// Level.
    pub level: u32,
    /// Files of the level taking part.
    pub files: &'a [&'a FileMeta],
}

/// Whether a compaction from `start_level` into `output_level` is split (RocksDB 7.4:
/// leveled compactions from L0 into a deeper, non-empty output level).
pub fn should_form_subcompactions(
    max_subcompactions: u32,
    start_level: u32,
    output_level: u32,
    output_level_has_inputs: bool,
) -> bool {
    max_subcompactions > 1 && start_level == 0 && output_level > 0 && output_level_has_inputs
}

/// RocksDB's `min_file_fill_percent` (4/5): outputs are assumed at least this full.
const MIN_FILE_FILL_NUM: u64 = 4;
/// Denominator of [`MIN_FILE_FILL_NUM`].
const MIN_FILE_FILL_DEN: u64 = 5;

/// The user keys at which the compaction of `inputs` (start level first) into
/// `output_level` is split: subcompaction `i` takes user keys from boundary `i - 1`
/// (inclusive; the first has no lower bound) to boundary `i` (exclusive; the last has no
/// upper bound). Empty: no split. At most `max_subcompactions - 1` boundaries, strictly
/// increasing.
pub fn subcompaction_boundaries(
    inputs: &[SubcompactionLevel<'_>],
    output_level: u32,
    max_subcompactions: u32,
    max_output_file_size: u64,
) -> Vec<Vec<u8>> {
    let mut bounds: Vec<&[u8]> = Vec::new();
    for l in inputs.iter().filter(|l| !l.files.is_empty()) {
        if l.level == 0 {
            for f in l.files {
                bounds.push(key::user_key(&f.smallest));
                bounds.push(key::user_key(&f.largest));
            }
        } else {
            let (first, last) = (l.files[0], l.files[l.files.len() - 1]);
            bounds.push(key::user_key(&first.smallest));
            bounds.push(key::user_key(&last.largest));
            if l.level == output_level {
                bounds.extend(l.files[1..].iter().map(|f| key::user_key(&f.smallest)));
            }
        }
    }
    bounds.sort_unstable();
    bounds.dedup();
    if bounds.len() < 3 {
        return Vec::new();
    }
    // Range r covers user keys bounds[r]..=bounds[r + 1].
    let mut sizes = vec![0u64; bounds.len() - 1];
    for f in inputs.iter().flat_map(|l| l.files.iter()) {
        let (lo, hi) = (key::user_key(&f.smallest), key::user_key(&f.largest));
        // Ranges whose span meets [lo, hi].
        let first = bounds.partition_point(|b| *b <= lo).saturating_sub(1);
        let end = bounds
            .partition_point(|b| *b < hi)
            .clamp(first + 1, sizes.len());
        let n = (end - first) as u64;
        for s in &mut sizes[first..end] {
            *s += f.file_size / n;
        }
    }
    let sum: u64 = sizes.iter().sum();
    // ceil(sum / (4/5) / max_output_file_size)
    let max_outputs = (u128::from(sum) * u128::from(MIN_FILE_FILL_DEN))
        .div_ceil(u128::from(max_output_file_size.max(1)) * u128::from(MIN_FILE_FILL_NUM));
    let max_outputs = u64::try_from(max_outputs).unwrap_or(u64::MAX);
    let mut subcompactions = (sizes.len() as u64)
        .min(u64::from(max_subcompactions))
        .min(max_outputs);
    if subcompactions <= 1 {
        return Vec::new();
    }
    let mean = sum as f64 / subcompactions as f64;
    let mut out = Vec::new();
    let mut acc = 0u64;
    for (r, size) in sizes.iter().enumerate().take(sizes.len() - 1) {
        acc += size;
        if subcompactions == 1 {
            break;
        }
        if acc as f64 >= mean {
            out.push(bounds[r + 1].to_vec());
            subcompactions -= 1;
            acc = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueType, internal_key};

    fn file(n: u64, lo: &str, hi: &str, size: u64) -> FileMeta {
        FileMeta {
            number: n,
            file_size: size,
            smallest: internal_key(lo.as_bytes(), 1, ValueType::Value),
            largest: internal_key(hi.as_bytes(), 1, ValueType::Value),
            smallest_seq: 1,
            largest_seq: 1,
            num_entries: 1,
            num_deletions: 0,
        }
    }

    #[test]
    fn only_l0_into_a_non_empty_level_is_split() {
        assert!(should_form_subcompactions(4, 0, 1, true));
        assert!(!should_form_subcompactions(1, 0, 1, true));
        assert!(!should_form_subcompactions(4, 0, 1, false));
        assert!(!should_form_subcompactions(4, 0, 0, true));
        assert!(!should_form_subcompactions(4, 1, 2, true));
    }

    #[test]
    fn boundaries_split_equal_bytes_at_output_file_starts() {
        // L0: one file over a..z; L1: four files of 100 bytes each.
        let l0 = [file(1, "a", "z", 400)];
        let l1 = [
            file(2, "a", "f", 100),
            file(3, "g", "m", 100),
            file(4, "n", "s", 100),
            file(5, "t", "z", 100),
        ];
        let (l0r, l1r): (Vec<&FileMeta>, Vec<&FileMeta>) =
            (l0.iter().collect(), l1.iter().collect());
        let inputs = [
            SubcompactionLevel {
                level: 0,
                files: &l0r,
            },
            SubcompactionLevel {
                level: 1,
                files: &l1r,
            },
        ];
        let b = subcompaction_boundaries(&inputs, 1, 4, 100);
        assert_eq!(b, vec![b"g".to_vec(), b"n".to_vec(), b"t".to_vec()]);
        // At most max_subcompactions ranges.
        let b = subcompaction_boundaries(&inputs, 1, 2, 100);
        assert_eq!(b, vec![b"n".to_vec()]);
        // Few output files' worth of bytes: fewer ranges (800 bytes / 0.8 / 500 = 2 outputs).
        let b = subcompaction_boundaries(&inputs, 1, 8, 500);
        assert_eq!(b.len(), 1);
        // Outputs larger than all the input: no split.
        assert!(subcompaction_boundaries(&inputs, 1, 8, 1 << 30).is_empty());
    }

    #[test]
    fn one_user_key_is_never_split() {
        // Every file is the single user key "k": no two distinct candidates, no split.
        let l0 = [file(1, "k", "k", 500), file(2, "k", "k", 500)];
        let l1 = [file(3, "k", "k", 500)];
        let (l0r, l1r): (Vec<&FileMeta>, Vec<&FileMeta>) =
            (l0.iter().collect(), l1.iter().collect());
        let inputs = [
            SubcompactionLevel {
                level: 0,
                files: &l0r,
            },
            SubcompactionLevel {
                level: 1,
                files: &l1r,
            },
        ];
        assert!(subcompaction_boundaries(&inputs, 1, 4, 10).is_empty());
    }

    #[test]
    fn boundaries_increase_and_lie_inside_the_inputs() {
        let l0: Vec<FileMeta> = (0..6u64)
            .map(|i| {
                let lo = format!("k{:03}", i * 7);
                let hi = format!("k{:03}", i * 7 + 30);
                file(i, &lo, &hi, 50 + i * 10)
            })
            .collect();
        let l1: Vec<FileMeta> = (0..10u64)
            .map(|i| {
                file(
                    10 + i,
                    &format!("k{:03}", i * 10),
                    &format!("k{:03}", i * 10 + 9),
                    80,
                )
            })
            .collect();
        let (l0r, l1r): (Vec<&FileMeta>, Vec<&FileMeta>) =
            (l0.iter().collect(), l1.iter().collect());
        let inputs = [
            SubcompactionLevel {
                level: 0,
                files: &l0r,
            },
            SubcompactionLevel {
                level: 1,
                files: &l1r,
            },
        ];
        for n in 2..8 {
            let b = subcompaction_boundaries(&inputs, 1, n, 64);
            assert!(!b.is_empty() && b.len() < n as usize, "{n}: {b:?}");
            assert!(b.windows(2).all(|w| w[0] < w[1]), "{b:?}");
            assert!(
                b.iter().all(
                    |k| k.as_slice() > b"k000".as_slice() && k.as_slice() <= b"k099".as_slice()
                )
            );
        }
    }
}
