//! Level arithmetic of RocksDB's leveled compaction (`VersionStorageInfo` in 6.14/7.4):
//! targets, base level, scores, compensated sizes, the pending
//! compaction bytes estimate, and the lifetime hint per level. Key ranges compare on user keys,
//! inclusive at both ends, as `GetOverlappingInputs` does.

use zonedb_fs::placement::Lifetime;

use super::picker::LevelFile;
use crate::key;
use crate::options::DbOptions;
use crate::version::FileMeta;

/// Tombstones count double when compensating file sizes (`kDeletionWeightOnCompaction`).
const DELETION_WEIGHT: u64 = 2;

/// Target bytes per level and the level L0 compacts into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelTargets {
    /// Where L0 compacts to.
    pub base_level: u32,
    /// Target bytes per level (`u64::MAX` for levels that must not be compacted from, as
    /// levels above the base in dynamic mode; index 0 unused).
    pub targets: Vec<u64>,
}

/// Smallest user key of a file.
pub fn smallest_uk(f: &FileMeta) -> &[u8] {
    key::user_key(&f.smallest)
}

/// Largest user key of a file.
pub fn largest_uk(f: &FileMeta) -> &[u8] {
    key::user_key(&f.largest)
}

/// Bytes of a level.
pub fn level_bytes(files: &[LevelFile<'_>]) -> u64 {
    files.iter().map(|f| f.file_size).sum()
}

fn mul(v: u64, m: f64) -> u64 {
    let r = v as f64 * m;
    if r >= u64::MAX as f64 {
        u64::MAX
    } else {
        #[allow(clippy::cast_sign_loss, reason = "sizes and multipliers are positive")]
        let r = r as u64;
        r
    }
}

/// Level targets (`CalculateBaseBytes`): static, or dynamic (`level_compaction_dynamic_level_bytes`)
/// where the last non-empty level's size fixes the others and the base level is the highest
/// level whose derived target still exceeds `max_bytes_for_level_base`.
pub fn level_targets(levels: &[Vec<LevelFile<'_>>], opts: &DbOptions) -> LevelTargets {
    let n = levels.len();
    let mult = opts.max_bytes_for_level_multiplier;
    let mut targets = vec![u64::MAX; n];
    if !opts.level_compaction_dynamic_level_bytes {
        let mut t = opts.max_bytes_for_level_base;
        for (i, x) in targets.iter_mut().enumerate().skip(1) {
            if i > 1 {
                t = mul(t, mult);
            }
            *x = t;
        }
        return LevelTargets {
            base_level: 1,
            targets,
        };
    }
    let mut max_level_size = 0;
    let mut first_non_empty = None;
    for (i, l) in levels.iter().enumerate().skip(1) {
        let b = level_bytes(l);
        if b > 0 && first_non_empty.is_none() {
            first_non_empty = Some(i);
        }
        max_level_size = max_level_size.max(b);
    }
    let Some(first) = first_non_empty else {
        // Nothing below L0: L0 compacts straight into the last level.
        return LevelTargets {
            base_level: (n - 1) as u32,
            targets,
        };
    };
    let base_max = opts.max_bytes_for_level_base;
    let base_min = mul(base_max, 1.0 / mult);
    let mut cur = max_level_size;
    for _ in (first..n - 1).rev() {
        cur = mul(cur, 1.0 / mult);
    }
    let (base_level, base_size) = if cur <= base_min {
        (first, base_min + 1)
    } else {
        let mut b = first;
        while b > 1 && cur > base_max {
            b -= 1;
            cur = mul(cur, 1.0 / mult);
        }
        (b, if cur > base_max { base_max } else { cur.max(1) })
    };
    let mut size = base_size;
    for (i, t) in targets.iter_mut().enumerate().skip(base_level) {
        if i > base_level {
            size = mul(size, mult);
        }
        *t = size.max(base_max);
    }
    LevelTargets {
        base_level: base_level as u32,
        targets,
    }
}

/// Average value size over all files, for tombstone compensation (RocksDB divides raw value
/// bytes by non-deletion entries; the picker's view has file sizes, so this divides those).
pub fn average_value_size(levels: &[Vec<LevelFile<'_>>]) -> u64 {
    let (bytes, entries) = levels.iter().flatten().fold((0u64, 0u64), |(b, e), f| {
        (
            b + f.file_size,
            e + f.num_entries.saturating_sub(f.num_deletions),
        )
    });
    bytes.checked_div(entries).unwrap_or(0)
}

/// RocksDB's compensated file size: the file size plus, when tombstones are at least half of
/// the entries, `(2 × deletions − entries) × average value size × 2`.
pub fn compensated_size(f: &FileMeta, avg_value_size: u64) -> u64 {
    let mut s = f.file_size;
    if f.num_deletions * 2 >= f.num_entries {
        s += (f.num_deletions * 2 - f.num_entries) * avg_value_size * DELETION_WEIGHT;
    }
    s
}

/// Compaction scores for levels `0..num_levels − 1`, highest first (ties keep the lower level
/// first). L0: files not being compacted / `level0_file_num_compaction_trigger`, at least L0's
/// compensated bytes / `max_bytes_for_level_base` (dynamic: / max(that, target\[base\] /
/// multiplier)). Deeper levels: compensated bytes not being compacted / target.
pub fn compaction_scores(
    levels: &[Vec<LevelFile<'_>>],
    t: &LevelTargets,
    opts: &DbOptions,
) -> Vec<(u32, f64)> {
    let avg = average_value_size(levels);
    let mut out = Vec::with_capacity(levels.len());
    for (l, files) in levels
        .iter()
        .enumerate()
        .take(levels.len().saturating_sub(1))
    {
        let live = files.iter().filter(|f| !f.being_compacted);
        let bytes: u64 = live.clone().map(|f| compensated_size(f, avg)).sum();
        let score = if l == 0 {
            let count = live.count() as f64 / f64::from(opts.level0_file_num_compaction_trigger);
            let mut l0_target = opts.max_bytes_for_level_base;
            if opts.level_compaction_dynamic_level_bytes
                && let Some(&tb) = t.targets.get(t.base_level as usize)
                && tb != u64::MAX
            {
                l0_target = l0_target.max(mul(tb, 1.0 / opts.max_bytes_for_level_multiplier));
            }
            count.max(bytes as f64 / l0_target as f64)
        } else {
            bytes as f64 / t.targets[l] as f64
        };
        out.push((l as u32, score));
    }
    // Stable: equal scores keep the lower level first (RocksDB's bubble sort swaps only on <).
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Whether `f` overlaps the user-key range `[lo, hi]`.
pub fn overlaps(f: &FileMeta, lo: &[u8], hi: &[u8]) -> bool {
    largest_uk(f) >= lo && smallest_uk(f) <= hi
}

/// Smallest and largest user key over `files` (`None` if empty).
pub fn range<'a, 'f: 'a>(
    files: impl IntoIterator<Item = &'a LevelFile<'f>>,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut r: Option<(Vec<u8>, Vec<u8>)> = None;
    for f in files {
        r = Some(match r {
            None => (smallest_uk(f).to_vec(), largest_uk(f).to_vec()),
            Some((lo, hi)) => (
                lo.min(smallest_uk(f).to_vec()),
                hi.max(largest_uk(f).to_vec()),
            ),
        });
    }
    r
}

/// Files of `level` overlapping `[lo, hi]` (`GetOverlappingInputs`); for L0 the range grows
/// until it covers every file that overlaps it.
pub fn overlapping_inputs<'a, 'f>(
    levels: &'a [Vec<LevelFile<'f>>],
    level: usize,
    lo: &[u8],
    hi: &[u8],
) -> Vec<&'a LevelFile<'f>> {
    let Some(files) = levels.get(level) else {
        return Vec::new();
    };
    let (mut lo, mut hi) = (lo.to_vec(), hi.to_vec());
    loop {
        let picked: Vec<&LevelFile<'f>> = files.iter().filter(|f| overlaps(f, &lo, &hi)).collect();
        if level != 0 {
            return picked;
        }
        let Some((l2, h2)) = range(picked.iter().copied()) else {
            return picked;
        };
        let (l2, h2) = (l2.min(lo.clone()), h2.max(hi.clone()));
        if l2 == lo && h2 == hi {
            return picked;
        }
        lo = l2;
        hi = h2;
    }
}

/// RocksDB's `EstimateCompactionBytesNeeded`: L0's bytes if L0 is over its trigger (plus the
/// base level's), then for each level from the base down, the excess over its target times the
/// fan-out to the next level plus one.
pub fn estimated_pending_compaction_bytes(
    levels: &[Vec<LevelFile<'_>>],
    t: &LevelTargets,
    opts: &DbOptions,
) -> u64 {
    let n = levels.len();
    let mut l0 = level_bytes(&levels[0]);
    let mut est = 0u64;
    let mut to_next = 0u64;
    let l0_triggered = levels[0].len() as u64 >= u64::from(opts.level0_file_num_compaction_trigger)
        || l0 >= opts.max_bytes_for_level_base;
    if l0_triggered {
        est = l0;
        to_next = l0;
    } else {
        l0 = 0;
    }
    let _ = l0;
    let mut next_bytes = 0u64;
    for level in (t.base_level as usize)..n.saturating_sub(1) {
        let mut size = if next_bytes > 0 {
            std::mem::take(&mut next_bytes)
        } else {
            level_bytes(&levels[level])
        };
        if level == t.base_level as usize && l0_triggered {
            est += size;
        }
        size += to_next;
        to_next = 0;
        let target = t.targets[level];
        if size > target {
            to_next = size - target;
            next_bytes = level_bytes(&levels[level + 1]);
            if next_bytes > 0 {
                est = est.saturating_add(mul(to_next, next_bytes as f64 / size as f64 + 1.0));
            }
        }
    }
    est
}

/// RocksDB's `MaxFileSizeForLevel`: `target_file_size_base` for L0 and the first level, ×
/// `target_file_size_multiplier` per level after that (counted from the base level in
/// dynamic mode).
pub fn max_file_size_for_level(level: u32, base_level: u32, opts: &DbOptions) -> u64 {
    let i = if opts.level_compaction_dynamic_level_bytes && level >= base_level {
        level - base_level
    } else {
        level
    };
    let mut s = opts.target_file_size_base;
    for _ in 1..i {
        s = s.saturating_mul(u64::from(opts.target_file_size_multiplier));
    }
    s
}

/// RocksDB's `ColumnFamilyData::CalculateSSTWriteHint`: L0 and levels above the base are
/// medium, the base level medium, base + 1 long, deeper extreme.
pub fn calculate_sst_write_hint(level: u32, base_level: u32) -> Lifetime {
    if level == 0 || level < base_level {
        return Lifetime::Medium;
    }
    match level - base_level {
        0 => Lifetime::Medium,
        1 => Lifetime::Long,
        _ => Lifetime::Extreme,
    }
}
