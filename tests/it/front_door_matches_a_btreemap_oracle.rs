//! The synchronous front door (`zonedb::Db`) against a `BTreeMap` oracle: random puts,
//! deletes, batches, flushes, snapshots, closes and drops with reopens; every forward,
//! reverse, ranged, prefixed and two-ended scan agrees. Keys come from a small alphabet
//! (the empty key, `0x00` and `0xff` bytes, shared prefixes) so ranges and prefixes hit
//! edges. Then a store large enough for flushes and compactions, and bad input.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;

use proptest::prelude::*;
use zonedb::{Db, ErrorKind, KeyValue, Options, WriteBatch, WriteOptions};

type Oracle = BTreeMap<Vec<u8>, Vec<u8>>;

/// Small engine options: many memtable flushes and compactions from little data.
fn small() -> Options {
    Options::default()
        .write_buffer_size(64 << 10)
        .target_file_size_base(64 << 10)
        .max_bytes_for_level_base(256 << 10)
}

fn collect(it: impl Iterator<Item = zonedb::Result<KeyValue>>) -> Vec<KeyValue> {
    it.collect::<Result<_, _>>().expect("scan")
}

fn oracle_range(o: &Oracle, lo: Bound<&Vec<u8>>, hi: Bound<&Vec<u8>>) -> Vec<(Vec<u8>, Vec<u8>)> {
    // A BTreeMap panics on a range whose start is after its end; the store yields nothing.
    let empty = match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b)) => a >= b,
        _ => false,
    };
    if empty {
        return Vec::new();
    }
    o.range::<Vec<u8>, _>((lo, hi))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Every way of reading the store agrees with the oracle.
fn check(db: &Db, o: &Oracle, probes: &[(Vec<u8>, Vec<u8>, u8)], steps: &[bool]) {
    let all: Vec<_> = o.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(collect(db.iter()), all);
    let mut rev = all.clone();
    rev.reverse();
    assert_eq!(collect(db.iter().rev()), rev);
    for (k, v) in o {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v));
    }
    for (a, b, kind) in probes {
        assert_eq!(db.get(a).unwrap().as_ref(), o.get(a));
        let (lo, hi) = match kind % 4 {
            0 => (Bound::Included(a), Bound::Excluded(b)),
            1 => (Bound::Excluded(a), Bound::Included(b)),
            2 => (Bound::Unbounded, Bound::Excluded(b)),
            _ => (Bound::Included(a), Bound::Unbounded),
        };
        let want = oracle_range(o, lo, hi);
        let range = (lo.map(Clone::clone), hi.map(Clone::clone));
        assert_eq!(collect(db.range(range.clone())), want, "{lo:?}..{hi:?}");
        let mut want_rev = want.clone();
        want_rev.reverse();
        assert_eq!(
            collect(db.range(range.clone()).rev()),
            want_rev,
            "rev {lo:?}..{hi:?}"
        );
        // Both ends at once: they meet in the middle, each pair yielded once.
        let mut it = db.range(range);
        let mut left: VecDeque<_> = want.into();
        for &front in steps {
            let (got, exp) = if front {
                (it.next(), left.pop_front())
            } else {
                (it.next_back(), left.pop_back())
            };
            assert_eq!(got.map(Result::unwrap), exp);
        }
        let want_prefix: Vec<_> = all
            .iter()
            .filter(|(k, _)| k.starts_with(a))
            .cloned()
            .collect();
        assert_eq!(collect(db.prefix(a)), want_prefix, "prefix {a:?}");
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    Batch(Vec<(Vec<u8>, Option<Vec<u8>>)>, bool),
    Flush,
    Snapshot,
    Close,
    Drop,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop::sample::select(vec![0u8, 1, b'a', b'b', 0xff]), 0..4)
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        9 => proptest::collection::vec(any::<u8>(), 0..40),
        1 => proptest::collection::vec(any::<u8>(), 3000..5000),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (key(), value()).prop_map(|(k, v)| Op::Put(k, v)),
        5 => key().prop_map(Op::Delete),
        3 => (
            proptest::collection::vec((key(), proptest::option::of(value())), 0..6),
            any::<bool>()
        )
            .prop_map(|(b, sync)| Op::Batch(b, sync)),
        1 => Just(Op::Flush),
        2 => Just(Op::Snapshot),
        1 => Just(Op::Close),
        1 => Just(Op::Drop),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_front_door_matches_a_btreemap(
        ops in proptest::collection::vec(op(), 1..120),
        probes in proptest::collection::vec((key(), key(), any::<u8>()), 6),
        steps in proptest::collection::vec(any::<bool>(), 0..12),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Db::open(dir.path(), small()).unwrap();
        let mut o = Oracle::new();
        for op in ops {
            match op {
                Op::Put(k, v) => {
                    db.put(&k, &v).unwrap();
                    o.insert(k, v);
                }
                Op::Delete(k) => {
                    db.delete(&k).unwrap();
                    o.remove(&k);
                }
                Op::Batch(ops, sync) => {
                    let mut b = WriteBatch::new();
                    for (k, v) in &ops {
                        match v {
                            Some(v) => b.put(k, v),
                            None => b.delete(k),
                        }
                    }
                    db.write_opt(b, WriteOptions { sync }).unwrap();
                    for (k, v) in ops {
                        match v {
                            Some(v) => o.insert(k, v),
                            None => o.remove(&k),
                        };
                    }
                }
                Op::Flush => db.flush().unwrap(),
                Op::Snapshot => {
                    // A snapshot sees neither later writes nor later deletes.
                    let snap = db.snapshot();
                    let before = o.clone();
                    db.put(b"a", b"after").unwrap();
                    db.delete(b"b").unwrap();
                    o.insert(b"a".to_vec(), b"after".to_vec());
                    o.remove(b"b".as_slice());
                    let want: Vec<KeyValue> = before.clone().into_iter().collect();
                    prop_assert_eq!(collect(snap.iter()), want.clone());
                    let mut want_rev = want;
                    want_rev.reverse();
                    prop_assert_eq!(collect(snap.iter().rev()), want_rev);
                    prop_assert_eq!(snap.get(b"a").unwrap(), before.get(b"a".as_slice()).cloned());
                    prop_assert_eq!(snap.get(b"b").unwrap(), before.get(b"b".as_slice()).cloned());
                }
                Op::Close => {
                    db.close().unwrap();
                    db = Db::open(dir.path(), small()).unwrap();
                }
                Op::Drop => {
                    drop(db);
                    db = Db::open(dir.path(), small()).unwrap();
                }
            }
        }
        check(&db, &o, &probes, &steps);
        db.close().unwrap();
        let db = Db::open(dir.path(), small()).unwrap();
        check(&db, &o, &probes, &steps);
    }
}

/// Thousands of writes: flushes and compactions put the keys in several levels; scans
/// forward, backward and by range still agree, before and after a reopen.
#[test]
fn a_store_with_levels_scans_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small()).unwrap();
    let mut o = Oracle::new();
    for i in 0..12_000u64 {
        let k = format!("key{:06}", (i * 7919) % 5000).into_bytes();
        if i % 11 == 0 {
            db.delete(&k).unwrap();
            o.remove(&k);
        } else {
            let v = format!("{i}").repeat(1 + (i % 40) as usize).into_bytes();
            db.put(&k, &v).unwrap();
            o.insert(k, v);
        }
    }
    let probes: Vec<_> = (0..20u64)
        .map(|i| {
            let a = format!("key{:06}", i * 250).into_bytes();
            let b = format!("key{:06}", i * 250 + 777).into_bytes();
            (a, b, i as u8)
        })
        .collect();
    let steps = [true, false, false, true, false];
    check(&db, &o, &probes, &steps);
    let s = db.stats();
    assert!(s.flushes > 3 && s.compactions > 0, "{s:?}");
    db.close().unwrap();
    let db = Db::open(dir.path(), small()).unwrap();
    check(&db, &o, &probes, &steps);
}

/// Bad input is an error of the right kind, never a panic; a second open of an open store
/// is refused; a missing store is not created with `create_if_missing = false`.
#[test]
fn bad_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let e = Db::open(&missing, Options::default().create_if_missing(false)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(!missing.exists());
    let e = Db::open("", Options::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let e = Db::open(dir.path(), Options::default().placement("nowhere")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let e = Db::open_device(dir.path().join("no-such-device"), Options::default()).unwrap_err();
    assert_ne!(e.kind(), ErrorKind::Busy, "{e}");
    let db = Db::open(dir.path(), Options::default()).unwrap();
    let e = Db::open(dir.path(), Options::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
    // Inverted ranges are empty, both ways.
    db.put(b"m", b"1").unwrap();
    assert_eq!(db.range(b"z".as_slice()..b"a".as_slice()).count(), 0);
    assert_eq!(db.range(b"z".as_slice()..b"a".as_slice()).rev().count(), 0);
    db.close().unwrap();
    // Reopened at once: the close released the device.
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.get(b"m").unwrap(), Some(b"1".to_vec()));
}
