"""Iteration as plyvel and python-rocksdb users expect: ranges, ``prefix=``, ``reverse=True``
(the engine's ``seek_for_prev``/``prev``), keys/values/items, at a snapshot; every walk
against a sorted-dict oracle, with the data in SSTs and in the memtable."""

import random

import pytest

import zonedb


def oracle_walk(d, start=None, end=None, prefix=None, reverse=False):
    keys = sorted(k for k in d
                  if (start is None or k >= start) and (end is None or k < end)
                  and (prefix is None or k.startswith(prefix)))
    if reverse:
        keys.reverse()
    return [(k, d[k]) for k in keys]


@pytest.fixture()
def filled(tmp_path):
    rng = random.Random(7)
    d = {}
    with zonedb.open(tmp_path / "db", write_buffer_size=64 << 10) as db:
        for i in range(3000):
            k = bytes([rng.choice(b"abc\xff")]) + b"%04d" % rng.randrange(600)
            if rng.random() < 0.15 and d:
                victim = rng.choice(sorted(d))
                db.delete(victim)
                d.pop(victim)
            else:
                v = b"v%d" % i
                db.put(k, v)
                d[k] = v
            if i == 1500:
                db.flush()  # half in SSTs, the newer half (overwrites, deletes) in the memtable
        yield db, d


CASES = [
    dict(),
    dict(start=b"b"),
    dict(end=b"b0300"),
    dict(start=b"a0100", end=b"c0200"),
    dict(start=b"a0100", end=b"a0100"),
    dict(prefix=b"b"),
    dict(prefix=b"b03"),
    dict(prefix=b"\xff"),
    dict(prefix=b"c", start=b"c0300"),
    dict(prefix=b"a", end=b"a0050"),
    dict(prefix=b"zz"),
]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[repr(c) for c in CASES])
def test_ranges_prefixes_and_reverse_match_a_sorted_dict(filled, case, reverse):
    db, d = filled
    want = oracle_walk(d, reverse=reverse, **case)
    assert list(db.iter(reverse=reverse, **case)) == want
    assert list(db.keys(reverse=reverse, **case)) == [k for k, _ in want]
    assert list(db.values(reverse=reverse, **case)) == [v for _, v in want]


def test_reverse_iteration_at_a_snapshot_ignores_later_writes(filled):
    db, d = filled
    before = dict(d)
    with db.snapshot() as snap:
        for k in list(d)[:50]:
            db.delete(k)
        db.put(b"b9999", b"new")
        assert list(snap.iter(reverse=True)) == oracle_walk(before, reverse=True)
        assert list(db.iter(snapshot=snap, prefix=b"a", reverse=True)) == oracle_walk(
            before, prefix=b"a", reverse=True)
        assert list(snap) == sorted(before)
    assert db.get(b"b9999") == b"new"


def test_reversed_walk_of_an_empty_store_and_of_one_key(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        assert list(db.iter(reverse=True)) == []
        db[b"k"] = b"v"
        assert list(db.iter(reverse=True)) == [(b"k", b"v")]
        assert list(db.iter(end=b"k", reverse=True)) == []
        assert list(db.iter(start=b"k", reverse=True)) == [(b"k", b"v")]
