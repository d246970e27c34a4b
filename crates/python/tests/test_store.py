"""The store against a Python dict oracle: puts, deletes, batches, snapshots, iteration,
reopen; errors mapped to typed exceptions."""

import random

import pytest

import zonedb

# A small device and memtable, so flushes and compactions happen within the test.
OPTS = dict(scale="1/512", write_buffer_size=256 << 10, target_file_size_base=256 << 10)


def key(i):
    return b"key%08d" % i


def check(db, oracle, snap_oracle=None, snap=None):
    for k, v in oracle.items():
        assert db.get(k) == v
    assert list(db.iter()) == sorted(oracle.items())
    if snap is not None:
        for k, v in snap_oracle.items():
            assert snap.get(k) == v
        assert list(db.iter(snapshot=snap)) == sorted(snap_oracle.items())


def test_the_store_matches_a_dict_through_puts_deletes_batches_snapshots_and_reopen(tmp_path):
    rng = random.Random(7)
    oracle = {}
    path = tmp_path / "db"
    with zonedb.open(path, **OPTS) as db:
        for step in range(6000):
            k = key(rng.randrange(1500))
            r = rng.random()
            if r < 0.6:
                v = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
                db.put(k, v)
                oracle[k] = v
            elif r < 0.8:
                db.delete(k)
                oracle.pop(k, None)
            else:
                b = zonedb.WriteBatch()
                for _ in range(rng.randrange(1, 8)):
                    bk = key(rng.randrange(1500))
                    if rng.random() < 0.7:
                        bv = b"batch%d" % step
                        b.put(bk, bv)
                        oracle[bk] = bv
                    else:
                        b.delete(bk)
                        oracle.pop(bk, None)
                db.write(b)
            if step == 3000:
                snap = db.snapshot()
                snap_oracle = dict(oracle)
        check(db, oracle, snap_oracle, snap)
        # Ranges: start inclusive, end exclusive.
        lo, hi = key(100), key(400)
        want = sorted((k, v) for k, v in oracle.items() if lo <= k < hi)
        assert list(db.iter(lo, hi)) == want
        assert list(db.iter(start=hi)) == sorted((k, v) for k, v in oracle.items() if k >= hi)
        assert db.get(b"absent") is None and b"absent" not in db
        db.flush()
        stats = db.stats()
        assert stats["flushes"] >= 1 and stats["user_bytes_written"] > 0
        del snap
    # Reopen: everything acknowledged is there.
    with zonedb.open(path, **OPTS) as db:
        check(db, oracle)
        db.put(b"after", b"reopen")
    with zonedb.open(path, create_if_missing=False) as db:
        assert db.get(b"after") == b"reopen"
        check(db, {**oracle, b"after": b"reopen"})


def test_a_batch_is_all_or_nothing_and_lists_work_too(tmp_path):
    with zonedb.open(tmp_path / "db", **OPTS) as db:
        db.write([(b"a", b"1"), (b"b", b"2"), (b"a", None)])
        assert db.get(b"a") is None and db.get(b"b") == b"2"
        assert len(zonedb.WriteBatch().put(b"x", b"y").delete(b"x")) == 2


def test_errors_are_typed_exceptions(tmp_path):
    # Unknown engine option, bad cleaner, bad types: InvalidArgumentError (a zonedb.Error).
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.open(tmp_path / "a", no_such_option=1)
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.open(tmp_path / "b", cleaner="magic")
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.open(tmp_path / "c", write_buffer_size=[1])
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.open(tmp_path / "d", profile="no-such-profile")
    # A missing database without create_if_missing: InvalidArgumentError naming it (RocksDB's
    # kind and words).
    with pytest.raises(zonedb.InvalidArgumentError, match="create_if_missing is false"):
        zonedb.open(tmp_path / "missing", create_if_missing=False)
    assert issubclass(zonedb.NoSpaceError, zonedb.Error)
    db = zonedb.open(tmp_path / "e", **OPTS)
    with pytest.raises(TypeError):
        db.put("str key", b"v")
    db.close()
    db.close()  # twice is fine
    assert db.closed
    with pytest.raises(zonedb.ClosedError):
        db.get(b"k")
    with pytest.raises(zonedb.ClosedError):
        db.put(b"k", b"v")


def test_a_full_device_raises_no_space_and_stays_readable(tmp_path):
    # 1/512 of the paper's device (160 zones of 1 MiB), no cleaning: write until it refuses.
    db = zonedb.open(tmp_path / "full", scale="1/512", write_buffer_size=1 << 20,
                     target_file_size_base=1 << 20, cleaner="none")
    value = b"x" * 4000
    written = 0
    with pytest.raises(zonedb.NoSpaceError):
        for i in range(1_000_000):
            db.put(key(i), value)
            written = i + 1
    assert written > 10000
    assert db.get(key(0)) == value
    # Closing may report the background error that stopped writes (as RocksDB's Close
    # does, when the memtable could not be flushed), and closes all the same.
    try:
        db.close()
    except zonedb.NoSpaceError:
        pass
    assert db.closed
    with zonedb.open(tmp_path / "full", cleaner="none") as db:
        assert db.get(key(written - 1)) in (value, None)
        assert db.get(key(0)) == value


def test_corrupt_data_is_a_typed_error_never_a_wrong_value(tmp_path):
    path = tmp_path / "db"
    value = b"v" * 100
    with zonedb.open(path, **OPTS) as db:
        for i in range(20000):
            db.put(key(i), value)
        db.flush()
    # One byte flipped in every 4 KiB of the device's data (metadata, WAL and SSTs alike).
    data = path / "DATA"
    size = data.stat().st_size
    with open(data, "r+b") as f:
        for off in range(100, size, 4096):
            f.seek(off)
            b = f.read(1)
            if b:
                f.seek(off)
                f.write(bytes([b[0] ^ 0x5A]))
    with pytest.raises((zonedb.CorruptionError, zonedb.ZoneIOError)):
        with zonedb.open(path, create_if_missing=False) as db:
            for i in range(20000):
                got = db.get(key(i))
                assert got in (value, None), "a corrupt read returned wrong bytes"
