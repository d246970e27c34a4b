"""Iterators and snapshots are context managers: leaving ``with`` (or ``close()``) releases
them; using them afterwards raises ``ClosedError``; the store stays open."""

import pytest

import zonedb


def test_an_iterator_in_with_is_released_at_the_end(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        for i in range(10):
            db.put(b"k%d" % i, b"v")
        with db.iter(prefix=b"k", reverse=True) as it:
            assert next(it) == (b"k9", b"v")
            assert [k for k, _ in it][:2] == [b"k8", b"k7"]
        with pytest.raises(zonedb.ClosedError, match="iterator is closed"):
            next(it)
        it.close()  # twice is fine
        with db.keys() as keys:
            assert next(keys) == b"k0"
        keys.close()
        assert db.get(b"k1") == b"v" and not db.closed


def test_a_snapshot_in_with_is_released_at_the_end(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        db.put(b"a", b"1")
        with db.snapshot() as snap:
            db.put(b"a", b"2")
            assert snap.get(b"a") == b"1" and not snap.closed
        assert snap.closed
        with pytest.raises(zonedb.ClosedError, match="snapshot is closed"):
            snap.get(b"a")
        with pytest.raises(zonedb.ClosedError):
            db.iter(snapshot=snap)
        snap.close()
        assert db.get(b"a") == b"2"


def test_an_exception_in_the_block_propagates_and_still_releases(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        db.put(b"a", b"1")
        with pytest.raises(RuntimeError):
            with db.snapshot() as snap, db.iter() as it:
                raise RuntimeError("boom")
        assert snap.closed
        with pytest.raises(zonedb.ClosedError):
            next(it)
