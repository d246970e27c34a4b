//! The leveled picker against RocksDB's rules (6.14/7.4), one hand-built version per rule:
//! level targets (static and dynamic), scores, the `compaction_pri` orders, clean cuts, L0
//! widening and serialisation, intra-L0, start-level expansion, trivial moves, grandparents,
//! `NextCompactionIndex`, running-compaction conflicts, output file sizes, write hints and the
//! pending-compaction estimate. Expected values are worked out by hand in the comments.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use zonedb_fs::placement::Lifetime;
use zonedb_lsm::compaction::levels::max_file_size_for_level;
use zonedb_lsm::compaction::start_file::files_by_compaction_pri;
use zonedb_lsm::compaction::{
    CompactionPicker, CompactionPlan, CompactionReason, LevelFile, LeveledPicker, PickerInput,
    RunningCompaction, calculate_sst_write_hint, compaction_scores,
    estimated_pending_compaction_bytes, level_targets,
};
use zonedb_lsm::key::{ValueType, internal_key};
use zonedb_lsm::options::{CompactionPri, DbOptions};
use zonedb_lsm::version::FileMeta;

/// A file of a hand-built version: its metadata and whether a compaction is using it.
#[derive(Debug, Clone)]
struct File {
    meta: FileMeta,
    being_compacted: bool,
}

impl std::ops::Deref for File {
    type Target = FileMeta;

    fn deref(&self) -> &FileMeta {
        &self.meta
    }
}

impl std::ops::DerefMut for File {
    fn deref_mut(&mut self) -> &mut FileMeta {
        &mut self.meta
    }
}

/// The picker's view of a hand-built version (borrowing it).
fn view(levels: &[Vec<File>]) -> Vec<Vec<LevelFile<'_>>> {
    levels
        .iter()
        .map(|l| {
            l.iter()
                .map(|f| LevelFile {
                    meta: &f.meta,
                    being_compacted: f.being_compacted,
                })
                .collect()
        })
        .collect()
}

/// File `n` over user keys `lo..=hi`, `size` bytes, all entries at sequence `seq`.
fn file(n: u64, lo: &str, hi: &str, size: u64, seq: u64) -> File {
    File {
        meta: FileMeta {
            number: n,
            file_size: size,
            smallest: internal_key(lo.as_bytes(), seq, ValueType::Value),
            largest: internal_key(hi.as_bytes(), seq, ValueType::Value),
            smallest_seq: seq,
            largest_seq: seq,
            num_entries: 10,
            num_deletions: 0,
        },
        being_compacted: false,
    }
}

fn busy(mut f: File) -> File {
    f.being_compacted = true;
    f
}

/// Static levels: L1 target 1000, ×10; files of 100 B; trigger 4; 4 levels.
fn opts() -> DbOptions {
    DbOptions {
        level_compaction_dynamic_level_bytes: false,
        max_bytes_for_level_base: 1000,
        max_bytes_for_level_multiplier: 10.0,
        target_file_size_base: 100,
        level0_file_num_compaction_trigger: 4,
        num_levels: 4,
        compaction_pri: CompactionPri::ByCompensatedSize,
        ..DbOptions::default()
    }
}

fn pick_with(
    levels: &[Vec<File>],
    o: &DbOptions,
    running: &[RunningCompaction],
    next: &[usize],
    cursor: &[Vec<u8>],
) -> Option<CompactionPlan> {
    LeveledPicker.pick(&PickerInput {
        levels: &view(levels),
        running,
        next_compaction_index: next,
        compact_cursor: cursor,
        options: o,
        zones: None,
    })
}

fn pick(levels: &[Vec<File>], o: &DbOptions) -> Option<CompactionPlan> {
    let n = levels.len();
    pick_with(levels, o, &[], &vec![0; n], &vec![Vec::new(); n])
}

fn inputs(p: &CompactionPlan, level: u32) -> Vec<u64> {
    p.inputs
        .iter()
        .find(|i| i.level == level)
        .map(|i| i.files.clone())
        .unwrap_or_default()
}

#[test]
fn static_targets_grow_by_the_multiplier_from_level_one() {
    let t = level_targets(&vec![Vec::new(); 4], &opts());
    assert_eq!(t.base_level, 1);
    assert_eq!(&t.targets[1..], &[1000, 10_000, 100_000]);
}

#[test]
fn dynamic_targets_derive_the_base_level_from_the_last_level() {
    let o = DbOptions {
        level_compaction_dynamic_level_bytes: true,
        max_bytes_for_level_base: 256,
        num_levels: 7,
        ..opts()
    };
    // Only L6 holds data, 30000 B: 30000 → L5 3000 → L4 300 → L3 30 (<= 256): base L3.
    // Targets are floored at max_bytes_for_level_base: L3 max(30, 256), L4 300, L5 3000.
    let mut levels = vec![Vec::new(); 7];
    levels[6] = vec![file(1, "a", "z", 30_000, 1)];
    let t = level_targets(&view(&levels), &o);
    assert_eq!(t.base_level, 3);
    assert_eq!(&t.targets[3..], &[256, 300, 3000, 30_000]);
    assert_eq!(
        t.targets[1],
        u64::MAX,
        "levels above the base are never compacted from"
    );
    // Nothing below L0: L0 compacts straight into the last level.
    assert_eq!(level_targets(&vec![Vec::new(); 7], &o).base_level, 6);
    // More levels than needed: L1 non-empty and L6 small keep the base at L1 with target
    // max(base_min + 1, base) = 256.
    levels[1] = vec![file(2, "a", "b", 10, 2)];
    let t = level_targets(&view(&levels), &o);
    assert_eq!((t.base_level, t.targets[1]), (1, 256));
}

#[test]
fn l0_scores_by_file_count_and_by_bytes_and_levels_sort_by_score() {
    let o = opts();
    let mut levels = vec![Vec::new(); 4];
    levels[0] = (0..6)
        .rev()
        .map(|i| file(i + 1, "a", "b", 10, i + 1))
        .collect();
    levels[1] = vec![file(10, "a", "z", 2000, 0)];
    let t = level_targets(&view(&levels), &o);
    let s = compaction_scores(&view(&levels), &t, &o);
    // L1 2000/1000 = 2.0 first, then L0 6/4 = 1.5, then L2 0.
    assert_eq!(s, vec![(1, 2.0), (0, 1.5), (2, 0.0)]);
    // Two L0 files of 1500 B: count 0.5, bytes 3000/1000 = 3.
    levels[0] = vec![file(2, "a", "b", 1500, 2), file(1, "a", "b", 1500, 1)];
    levels[1].clear();
    let s = compaction_scores(&view(&levels), &level_targets(&view(&levels), &o), &o);
    assert_eq!(s[0], (0, 3.0));
    // Files being compacted do not count.
    levels[0] = vec![
        busy(file(2, "a", "b", 1500, 2)),
        busy(file(1, "a", "b", 1500, 1)),
    ];
    assert!(pick(&levels, &o).is_none());
}

#[test]
fn nothing_is_picked_below_score_one() {
    let mut levels = vec![Vec::new(); 4];
    levels[0] = (0..3).map(|i| file(3 - i, "a", "b", 10, 3 - i)).collect();
    levels[1] = vec![file(10, "a", "z", 999, 0)];
    assert!(pick(&levels, &opts()).is_none());
}

#[test]
fn compaction_pri_orders_files_as_rocksdb_does() {
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![
        file(20, "a", "c", 100, 50),
        file(21, "d", "f", 100, 30),
        file(22, "g", "i", 50, 40),
    ];
    levels[1][2].smallest_seq = 10;
    levels[2] = vec![
        file(30, "a", "b", 300, 1),
        file(31, "e", "e", 100, 1),
        file(32, "h", "z", 400, 1),
    ];
    // kMinOverlappingRatio: overlap × 1024 / size = 300×1024/100 = 3072, 100×1024/100 = 1024,
    // 400×1024/50 = 8192.
    let order_of = |levels: &[Vec<File>], pri, cursor: &[u8]| -> Vec<u64> {
        files_by_compaction_pri(&view(levels), 1, pri, cursor)
            .into_iter()
            .map(|i| levels[1][i].number)
            .collect()
    };
    let order = |pri, cursor: &[u8]| order_of(&levels, pri, cursor);
    assert_eq!(
        order(CompactionPri::MinOverlappingRatio, &[]),
        vec![21, 20, 22]
    );
    // kByCompensatedSize: 100, 100 (tie → smaller key first), 50.
    assert_eq!(
        order(CompactionPri::ByCompensatedSize, &[]),
        vec![20, 21, 22]
    );
    // kOldestLargestSeqFirst: largest seqs 50, 30, 40.
    assert_eq!(
        order(CompactionPri::OldestLargestSeqFirst, &[]),
        vec![21, 22, 20]
    );
    // kOldestSmallestSeqFirst: smallest seqs 50, 30, 10.
    assert_eq!(
        order(CompactionPri::OldestSmallestSeqFirst, &[]),
        vec![22, 21, 20]
    );
    // kRoundRobin: key order from the first file after the cursor (file 20's largest key).
    let cursor = levels[1][0].largest.clone();
    assert_eq!(order(CompactionPri::RoundRobin, &cursor), vec![21, 22, 20]);
    assert_eq!(order(CompactionPri::RoundRobin, &[]), vec![20, 21, 22]);
    // Tombstones inflate the compensated size: 10 entries, 8 deletes → + (16 − 10) × avg × 2.
    levels[1][2].num_deletions = 8;
    assert_eq!(
        order_of(&levels, CompactionPri::ByCompensatedSize, &[])[0],
        22
    );
}

#[test]
fn clean_cut_pulls_in_a_neighbour_sharing_a_boundary_user_key() {
    let mut levels = vec![Vec::new(); 4];
    // Files 10 and 11 share user key "c" (11 holds an older version of it).
    levels[1] = vec![
        file(10, "a", "c", 600, 100),
        file(11, "c", "e", 600, 90),
        file(12, "g", "h", 600, 80),
    ];
    let p = pick(&levels, &opts()).unwrap();
    assert_eq!((p.start_level, p.output_level), (1, 2));
    assert_eq!(inputs(&p, 1), vec![10, 11]);
    assert!(p.trivial_move, "nothing in L2 to merge with");
    // With file 10 being compacted, 11 cannot be cut cleanly; 12 is taken instead.
    levels[1][0].being_compacted = true;
    let p = pick(&levels, &opts()).unwrap();
    assert_eq!(inputs(&p, 1), vec![12]);
}

#[test]
fn a_candidate_overlapping_a_running_compaction_into_the_same_level_is_skipped() {
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![
        busy(file(9, "a", "b", 600, 1)),
        file(10, "c", "d", 600, 2),
        file(12, "g", "h", 600, 3),
    ];
    let running = [RunningCompaction {
        start_level: 1,
        output_level: 2,
        smallest_user_key: b"a".to_vec(),
        largest_user_key: b"d".to_vec(),
    }];
    let p = pick_with(&levels, &opts(), &running, &[0; 4], &vec![Vec::new(); 4]).unwrap();
    assert_eq!(inputs(&p, 1), vec![12]);
}

#[test]
fn l0_inputs_widen_to_every_transitively_overlapping_l0_file() {
    let o = DbOptions {
        compaction_pri: CompactionPri::OldestSmallestSeqFirst,
        ..opts()
    };
    let mut levels = vec![Vec::new(); 4];
    // Newest first. The oldest (1: c..d) is picked; c..d reaches 2 (b..c), which reaches 4
    // (a..b); 3 (x..y) stays out.
    levels[0] = vec![
        file(4, "a", "b", 10, 40),
        file(3, "x", "y", 10, 30),
        file(2, "b", "c", 10, 20),
        file(1, "c", "d", 10, 10),
    ];
    let p = pick(&levels, &o).unwrap();
    assert_eq!(
        (p.start_level, p.output_level, p.reason),
        (0, 1, CompactionReason::LevelL0FilesNum)
    );
    assert_eq!(inputs(&p, 0), vec![4, 2, 1]);
    assert!(!p.trivial_move, "overlapping L0 files are never moved");
}

#[test]
fn one_l0_compaction_at_a_time_then_intra_l0() {
    let o = opts();
    let mut levels = vec![Vec::new(); 4];
    levels[0] = (0..8u64)
        .map(|i| {
            let f = file(8 - i, "a", "b", 10, 8 - i);
            if i >= 6 { busy(f) } else { f }
        })
        .collect();
    let running = [RunningCompaction {
        start_level: 0,
        output_level: 1,
        smallest_user_key: b"a".to_vec(),
        largest_user_key: b"b".to_vec(),
    }];
    // L0 → L1 is blocked by the running L0 compaction; with 8 ≥ 4 + 2 files, the newest-first
    // run of free files (bytes per file 20, 15, 13, 12, 12 never rising) becomes L0 → L0.
    let p = pick_with(&levels, &o, &running, &[0; 4], &vec![Vec::new(); 4]).unwrap();
    assert_eq!(
        (p.start_level, p.output_level, p.reason),
        (0, 0, CompactionReason::IntraL0)
    );
    assert_eq!(inputs(&p, 0), vec![8, 7, 6, 5, 4, 3]);
    // With intra-L0 compaction switched off (the paper's setup) nothing is picked.
    let off = DbOptions {
        enable_intra_l0_compaction: false,
        ..o.clone()
    };
    assert!(pick_with(&levels, &off, &running, &[0; 4], &vec![Vec::new(); 4]).is_none());
    // Below trigger + 2 files there is no intra-L0.
    levels[0].truncate(5);
    assert!(pick_with(&levels, &o, &running, &[0; 4], &vec![Vec::new(); 4]).is_none());
}

#[test]
fn start_level_grows_only_without_changing_the_output_set_and_within_the_limit() {
    let mut o = DbOptions {
        max_bytes_for_level_base: 250,
        ..opts()
    };
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![
        file(20, "a", "b", 100, 1),
        file(21, "c", "d", 100, 2),
        file(22, "e", "f", 100, 3),
    ];
    levels[2] = vec![file(30, "a", "f", 100, 0)];
    // 20 picked; L2 overlap {30} spans a..f, which covers 21 and 22 too, and a..f still
    // overlaps only {30}: grow to {20, 21, 22} (100 + 300 < 2500).
    let p = pick(&levels, &o).unwrap();
    assert_eq!(inputs(&p, 1), vec![20, 21, 22]);
    assert_eq!(inputs(&p, 2), vec![30]);
    assert!(!p.trivial_move);
    // With max_compaction_bytes 350 the grown set (100 + 300) is too big.
    o.max_compaction_bytes = 350;
    let p = pick(&levels, &o).unwrap();
    assert_eq!(inputs(&p, 1), vec![20]);
}

#[test]
fn trivial_moves_need_an_empty_output_range_and_little_grandparent_overlap() {
    let o = DbOptions {
        max_bytes_for_level_base: 250,
        ..opts()
    };
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![file(20, "a", "b", 300, 1)];
    levels[3] = vec![file(40, "a", "c", 100, 0)];
    let p = pick(&levels, &o).unwrap();
    assert!(p.trivial_move);
    assert_eq!(p.grandparents, vec![40]);
    // 300 + 2400 of grandparent overlap > 2500 = max_compaction_bytes: a real compaction.
    levels[3][0].file_size = 2400;
    let p = pick(&levels, &o).unwrap();
    assert!(!p.trivial_move);
    // Non-overlapping L0 files move too.
    let mut levels = vec![Vec::new(); 4];
    levels[0] = (0..4u64)
        .map(|i| {
            let k = format!("{}", (b'a' + (3 - i) as u8) as char);
            file(4 - i, &k, &k, 10, 4 - i)
        })
        .collect();
    let p = pick(&levels, &opts()).unwrap();
    assert_eq!((p.start_level, p.trivial_move), (0, true));
}

#[test]
fn grandparents_and_bottommost_come_from_the_levels_below() {
    let o = DbOptions {
        max_bytes_for_level_base: 250,
        ..opts()
    };
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![file(20, "a", "b", 300, 1)];
    levels[2] = vec![file(30, "a", "a", 100, 0)];
    levels[3] = vec![file(40, "a", "c", 100, 0), file(41, "x", "y", 100, 0)];
    let p = pick(&levels, &o).unwrap();
    assert_eq!(inputs(&p, 2), vec![30]);
    assert_eq!(p.grandparents, vec![40]);
    assert!(!p.bottommost);
    levels[3].remove(0);
    assert!(pick(&levels, &o).unwrap().bottommost);
}

#[test]
fn next_compaction_index_resumes_the_scan_within_a_version() {
    let o = DbOptions {
        max_bytes_for_level_base: 250,
        ..opts()
    };
    // 450 B over a 250 B target; with one file busy still 300 / 250 = 1.2.
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![
        file(20, "a", "b", 150, 1),
        file(21, "c", "d", 150, 2),
        file(22, "e", "f", 150, 3),
    ];
    let p = pick(&levels, &o).unwrap();
    assert_eq!(
        (inputs(&p, 1), p.next_compaction_index),
        (vec![20], Some((1, 0)))
    );
    levels[1][0].being_compacted = true;
    let p = pick(&levels, &o).unwrap();
    assert_eq!(
        (inputs(&p, 1), p.next_compaction_index),
        (vec![21], Some((1, 1)))
    );
    levels[1][0].being_compacted = false;
    let p = pick_with(&levels, &o, &[], &[0, 2, 0, 0], &vec![Vec::new(); 4]).unwrap();
    assert_eq!(
        inputs(&p, 1),
        vec![22],
        "resumes at index 2 even though 20 is free"
    );
}

#[test]
fn round_robin_picks_after_the_cursor_and_advances_it() {
    let o = DbOptions {
        max_bytes_for_level_base: 250,
        compaction_pri: CompactionPri::RoundRobin,
        ..opts()
    };
    let mut levels = vec![Vec::new(); 4];
    levels[1] = vec![
        file(20, "a", "b", 100, 1),
        file(21, "c", "d", 100, 2),
        file(22, "e", "f", 100, 3),
    ];
    let p = pick(&levels, &o).unwrap();
    assert_eq!(inputs(&p, 1), vec![20]);
    let (l, cursor) = p.compact_cursor.clone().unwrap();
    assert_eq!(l, 1);
    let mut cursors = vec![Vec::new(); 4];
    cursors[1] = cursor;
    let p = pick_with(&levels, &o, &[], &[0; 4], &cursors).unwrap();
    assert_eq!(inputs(&p, 1), vec![21]);
    // The file after the cursor being compacted stops round robin for this level.
    levels[1][1].being_compacted = true;
    assert!(pick_with(&levels, &o, &[], &[0; 4], &cursors).is_none());
}

#[test]
fn output_files_are_cut_at_max_file_size_for_level() {
    let mut o = opts();
    o.target_file_size_multiplier = 2;
    assert_eq!(
        [0, 1, 2, 3].map(|l| max_file_size_for_level(l, 1, &o)),
        [100, 100, 200, 400]
    );
    o.level_compaction_dynamic_level_bytes = true;
    // Counted from base level 3: L3 100, L4 100, L5 200; levels above the base use their own.
    assert_eq!(
        [3, 4, 5].map(|l| max_file_size_for_level(l, 3, &o)),
        [100, 100, 200]
    );
}

#[test]
fn write_hints_follow_calculate_sst_write_hint() {
    assert_eq!(calculate_sst_write_hint(0, 1), Lifetime::Medium);
    assert_eq!(calculate_sst_write_hint(1, 1), Lifetime::Medium);
    assert_eq!(calculate_sst_write_hint(2, 1), Lifetime::Long);
    assert_eq!(calculate_sst_write_hint(3, 1), Lifetime::Extreme);
    assert_eq!(calculate_sst_write_hint(6, 1), Lifetime::Extreme);
    assert_eq!(calculate_sst_write_hint(2, 4), Lifetime::Medium);
    assert_eq!(calculate_sst_write_hint(5, 4), Lifetime::Long);
}

#[test]
fn pending_compaction_bytes_follow_estimate_compaction_bytes_needed() {
    let o = opts();
    let mut levels = vec![Vec::new(); 4];
    levels[0] = (0..4).map(|i| file(4 - i, "a", "b", 100, 4 - i)).collect();
    levels[1] = vec![file(10, "a", "z", 900, 0)];
    levels[2] = vec![file(20, "a", "z", 5000, 0)];
    // L0 triggered: 400 + base 900; L1 becomes 1300 > 1000: excess 300 × (5000/1300 + 1)
    // = 1453; L2 5300 <= 10000.
    let t = level_targets(&view(&levels), &o);
    assert_eq!(
        estimated_pending_compaction_bytes(&view(&levels), &t, &o),
        400 + 900 + 1453
    );
}
