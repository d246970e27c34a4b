//! The start-file seam: a rule defined here, outside the crate ("lowest file number first"),
//! is plugged into a `Db` through `RulePicker` and drives its compactions. The engine asks
//! the rule at every pick; with one compaction at a time the scan starts at the rule's first
//! file, so every compaction from L1 or deeper starts with the file the rule put first (in
//! L1+ files never share a boundary user key, so nothing else can be preferred). Every key
//! reads back its last value.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use zonedb_env::{SimConfig, SimEnv};
use zonedb_lsm::compaction::{RulePicker, StartFileRule, StartFiles, StartLevel};
use zonedb_lsm::hints::{Hint, RecordingHints};
use zonedb_lsm::{Db, DbConfig};

/// Tries the start level's files by ascending file number (the oldest file first).
#[derive(Debug, Default)]
struct LowestNumberFirst {
    /// Times the engine asked.
    calls: AtomicU64,
    /// (start level, the file put first) of every answer.
    firsts: Mutex<Vec<(usize, u64)>>,
}

impl StartFileRule for LowestNumberFirst {
    fn name(&self) -> &'static str {
        "lowest-number-first"
    }

    fn choose(&self, s: &StartLevel<'_>) -> StartFiles {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let files = s.files();
        let mut order: Vec<usize> = (0..files.len()).collect();
        order.sort_by_key(|&i| files[i].number);
        if let Some(&first) = order.first() {
            self.firsts
                .lock()
                .unwrap()
                .push((s.start, files[first].number));
        }
        StartFiles::Scan(order)
    }
}

#[test]
fn toy_start_file_rule_runs_through_the_engine() {
    let env = SimEnv::new(SimConfig::default());
    let dev = common::sim_device(&env, 400);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let rule = Arc::new(LowestNumberFirst::default());
        let hints = Arc::new(RecordingHints::default());
        let mut cfg = DbConfig::new(zonedb_lsm::options::DbOptions {
            level_compaction_dynamic_level_bytes: false,
            // One compaction at a time: every pick scans from the rule's first file.
            max_background_jobs: 2,
            ..common::small_options()
        });
        cfg.picker = Arc::new(RulePicker::new(rule.clone()));
        cfg.hints = hints.clone();
        let db = Db::open_with(fs.clone(), cfg).await.unwrap();
        let mut last = BTreeMap::new();
        for i in 0..24_000u64 {
            let k = (i * 7919) % 8000;
            db.put(&common::key(k), &common::value(k, i)).await.unwrap();
            last.insert(k, i);
        }
        db.wait_for_compactions().await.unwrap();

        assert!(rule.calls.load(Ordering::Relaxed) > 0, "the rule was never asked");
        let stats = db.stats();
        assert!(
            stats.compactions_by_level.get(1).copied().unwrap_or(0) > 0,
            "no compaction from L1: {:?}",
            stats.compactions_by_level
        );
        let firsts: BTreeSet<(usize, u64)> = rule.firsts.lock().unwrap().iter().copied().collect();
        let mut checked = 0;
        for h in hints.hints() {
            if let Hint::CompactionStarted {
                start_level,
                inputs,
                ..
            } = &h
                && *start_level >= 1
            {
                let start_files = &inputs.iter().find(|l| l.level == *start_level).unwrap().files;
                assert!(
                    start_files
                        .iter()
                        .any(|n| firsts.contains(&(*start_level as usize, *n))),
                    "compaction from L{start_level} of {start_files:?} did not start with the rule's first file"
                );
                checked += 1;
            }
        }
        assert!(checked > 0);

        for (k, i) in &last {
            assert_eq!(
                db.get(&common::key(*k)).await.unwrap(),
                Some(common::value(*k, *i)),
                "key {k}"
            );
        }
        db.close().await.unwrap();
    })
    .unwrap();
}
