"""The store and its snapshots as mappings of bytes: ``db[k]``, ``db[k] = v``, ``del db[k]``,
``k in db``, ``for k in db`` (as a dict, plyvel's and python-rocksdb's habits)."""

import pytest

import zonedb


def test_the_store_is_subscriptable_like_a_dict(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        db[b"a"] = b"1"
        db[b"b"] = b"2"
        assert db[b"a"] == b"1" and db.get(b"b") == b"2"
        assert b"a" in db and b"zz" not in db
        with pytest.raises(KeyError) as e:
            db[b"zz"]
        assert e.value.args == (b"zz",)
        del db[b"a"]
        assert b"a" not in db and db.get(b"a") is None
        with pytest.raises(KeyError):
            del db[b"a"]
        db.delete(b"a")  # the blind delete never raises
        db[b"c"] = b"3"
        assert list(db) == [b"b", b"c"]
        assert list(db.keys()) == [b"b", b"c"] and list(db.values()) == [b"2", b"3"]
        assert list(db.items()) == [(b"b", b"2"), (b"c", b"3")]
        assert dict(db.items()) == {b"b": b"2", b"c": b"3"}
        with pytest.raises(TypeError):
            db["text"] = b"x"


def test_a_snapshot_is_a_read_only_mapping(tmp_path):
    with zonedb.open(tmp_path / "db") as db:
        db[b"a"] = b"1"
        with db.snapshot() as snap:
            db[b"a"] = b"2"
            db[b"b"] = b"3"
            assert snap[b"a"] == b"1" and b"b" not in snap and b"a" in snap
            with pytest.raises(KeyError):
                snap[b"b"]
            assert list(snap) == [b"a"]
        assert db[b"a"] == b"2"
