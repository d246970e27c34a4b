//! Reverse iteration (`DbIter::seek_to_last`, `seek_for_prev`, `prev`) and changes of
//! direction (`next` after `prev` and back) agree with a `BTreeMap` oracle: keys in the
//! memtable, immutable memtables, L0 and deeper levels, versions hidden by snapshots,
//! deletions, elided values, keys sharing their first eight bytes (one memtable chain) and
//! keys that do not.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use zonedb_device::ZnsSsd;
use zonedb_env::{SimConfig, SimEnv, SimRng};
use zonedb_lsm::batch::WriteBatch;
use zonedb_lsm::{Db, DbConfig, DbIter};

type Oracle = BTreeMap<Vec<u8>, Vec<u8>>;
type TestDb = Db<SimEnv, ZnsSsd<SimEnv>>;
type TestIter = DbIter<SimEnv, ZnsSsd<SimEnv>>;

const KEYS: u64 = 900;

/// Key `i`: db_bench's 16 digits (one shared 8-byte prefix) for two thirds, short keys of
/// their own prefixes for the rest.
fn key(i: u64) -> Vec<u8> {
    if i.is_multiple_of(3) {
        format!("{}", i * 7919 % 100_000).into_bytes()
    } else {
        common::key(i)
    }
}

async fn writes(db: &TestDb, oracle: &mut Oracle, rng: &mut SimRng, ops: u64, base: u64) {
    for op in base..base + ops {
        let k = rng.gen_range(0..KEYS);
        match rng.gen_range(0..10) {
            0..=4 => {
                let v = common::value(k, op);
                db.put(&key(k), &v).await.unwrap();
                oracle.insert(key(k), v);
            }
            5 | 6 => {
                db.delete(&key(k)).await.unwrap();
                oracle.remove(&key(k));
            }
            7 => {
                let (seed, len) = (rng.gen_range(0..u64::MAX), rng.gen_range(0..600) as usize);
                db.put_elided(&key(k), len, &seed.to_le_bytes())
                    .await
                    .unwrap();
                oracle.insert(key(k), common::regen_value(seed, len));
            }
            _ => {
                let mut b = WriteBatch::new();
                let k2 = (k + 1) % KEYS;
                let v = common::value(k, op);
                b.put(&key(k), &v);
                b.delete(&key(k2));
                db.write(b).await.unwrap();
                oracle.insert(key(k), v);
                oracle.remove(&key(k2));
            }
        }
    }
}

/// The oracle's keys with a cursor that moves as `DbIter` does.
struct Cursor<'a> {
    keys: Vec<&'a Vec<u8>>,
    at: Option<usize>,
}

impl Cursor<'_> {
    fn seek(&mut self, t: &[u8]) {
        let i = self.keys.partition_point(|k| k.as_slice() < t);
        self.at = (i < self.keys.len()).then_some(i);
    }
    fn seek_for_prev(&mut self, t: &[u8]) {
        let i = self.keys.partition_point(|k| k.as_slice() <= t);
        self.at = i.checked_sub(1);
    }
    fn next(&mut self) {
        self.at = self
            .at
            .and_then(|i| (i + 1 < self.keys.len()).then_some(i + 1));
    }
    fn prev(&mut self) {
        self.at = self.at.and_then(|i| i.checked_sub(1));
    }
}

fn assert_at(it: &TestIter, oracle: &Oracle, c: &Cursor<'_>, what: &str) {
    match c.at {
        None => assert!(!it.valid(), "{what}: at {:?}", it.key()),
        Some(i) => {
            assert!(it.valid(), "{what}: want {:?}", c.keys[i]);
            assert_eq!(it.key(), c.keys[i].as_slice(), "{what}");
            assert_eq!(it.value(), oracle[c.keys[i]].as_slice(), "{what}");
        }
    }
}

async fn check(mut it: TestIter, oracle: &Oracle, rng: &mut SimRng, what: &str) {
    // The whole store, last key first.
    it.seek_to_last().await.unwrap();
    let mut got = Vec::new();
    while it.valid() {
        got.push((it.key().to_vec(), it.value().to_vec()));
        it.prev().await.unwrap();
    }
    let want: Vec<_> = oracle
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(got.len(), want.len(), "{what}: backward walk length");
    assert!(got == want, "{what}: backward walk");
    let mut c = Cursor {
        keys: oracle.keys().collect(),
        at: None,
    };
    for round in 0..60 {
        // Targets that are keys, and targets between keys (a suffix byte).
        let mut t = key(rng.gen_range(0..KEYS + 20));
        if rng.gen_range(0..2) == 0 {
            t.push(b'5');
        }
        if rng.gen_range(0..2) == 0 {
            it.seek_for_prev(&t).await.unwrap();
            c.seek_for_prev(&t);
        } else {
            it.seek(&t).await.unwrap();
            c.seek(&t);
        }
        assert_at(&it, oracle, &c, &format!("{what}: round {round} seek"));
        for step in 0..25 {
            if rng.gen_range(0..3) == 0 {
                it.next().await.unwrap();
                c.next();
            } else {
                it.prev().await.unwrap();
                c.prev();
            }
            assert_at(
                &it,
                oracle,
                &c,
                &format!("{what}: round {round} step {step}"),
            );
        }
    }
}

fn run(seed: u64) {
    let env = SimEnv::new(SimConfig {
        seed,
        ..SimConfig::default()
    });
    let dev = common::sim_device(&env, 300);
    let e2 = env.clone();
    env.run(async move {
        let fs = common::mount(&e2, &dev, true).await;
        let cfg =
            DbConfig::new(common::small_options()).with_regenerator(Arc::new(common::TestRegen));
        let db = Db::open_with(fs, cfg).await.unwrap();
        let mut rng = SimRng::seed_from_u64(seed);
        let mut oracle = Oracle::new();
        for round in 0..5u64 {
            writes(&db, &mut oracle, &mut rng, 1500, round * 10_000).await;
            if round % 2 == 1 {
                db.flush().await.unwrap();
            }
            let snap = db.snapshot();
            let at_snap = oracle.clone();
            writes(&db, &mut oracle, &mut rng, 400, round * 10_000 + 5000).await;
            check(db.iter(), &oracle, &mut rng, &format!("round {round} now")).await;
            check(
                db.iter_at(&snap),
                &at_snap,
                &mut rng,
                &format!("round {round} snapshot"),
            )
            .await;
        }
        db.wait_for_compactions().await.unwrap();
        let s = db.stats();
        assert!(s.level_files.iter().skip(1).any(|&n| n > 0), "{s:?}");
        check(db.iter(), &oracle, &mut rng, "after compactions").await;
        db.close().await.unwrap();
    })
    .unwrap();
}

#[test]
fn reverse_iteration_matches_the_oracle() {
    run(3);
}

#[test]
fn reverse_iteration_matches_the_oracle_with_another_seed() {
    run(29);
}

/// A table of many small blocks: `seek_for_prev` finds the last entry at or before every
/// target (entries, the gaps between them, before the first, after the last), and `prev`
/// walks back across blocks to the first entry.
#[test]
fn table_iterators_walk_backwards_across_blocks() {
    use zonedb_lsm::key::{self, ValueType};
    use zonedb_lsm::sst::{MemSource, Table, TableBuilder, TableIter, TableOptions};

    let mut b = TableBuilder::new(TableOptions {
        block_size: 200,
        restart_interval: 3,
        bloom_bits_per_key: 10,
        compression: zonedb_lsm::options::Compression::None,
    });
    let mut entries = Vec::new();
    for i in 0..150u64 {
        // Two versions of every other key: internal keys of one user key side by side.
        for seq in (0..1 + i % 2).map(|d| 1000 - 2 * i - d) {
            let k = key::internal_key(&common::key(i * 2), seq, ValueType::Value);
            let v = common::value(i, seq);
            b.add(&k, &v);
            entries.push((k, v));
        }
    }
    let bytes = b.finish().0;
    let env = zonedb_env::RealEnv::new(0);
    env.block_on(async {
        let len = bytes.len() as u64;
        let t = Table::open(MemSource(Arc::new(bytes), "t.sst".into()), 1, len, None)
            .await
            .unwrap();
        assert!(t.num_blocks() > 20, "{} blocks", t.num_blocks());
        let mut it = TableIter::new(Arc::new(t));
        it.seek_for_prev(None).await.unwrap();
        let mut back = Vec::new();
        while let Some((k, v)) = it.current() {
            back.push((k.to_vec(), v.to_vec()));
            it.prev().await.unwrap();
        }
        back.reverse();
        assert!(back == entries, "backward walk");
        for i in 0..=300u64 {
            for seq in [0, 1000 - i, u64::MAX >> 8] {
                let target = key::internal_key(&common::key(i), seq, ValueType::Value);
                it.seek_for_prev(Some(&target)).await.unwrap();
                let want = entries
                    .iter()
                    .rev()
                    .find(|(k, _)| key::compare(k, &target).is_le());
                let got = it.current().map(|(k, v)| (k.to_vec(), v.to_vec()));
                assert_eq!(got.as_ref(), want, "target {i}@{seq}");
            }
        }
    });
}
