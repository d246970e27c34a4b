"""The store's lifecycle: acknowledged writes survive every way a program ends (normal
exit, an uncaught exception, ``del``, garbage collection; ``os._exit`` relies on each write
reaching the OS), a store is refused in a ``fork()`` child (which may open it anew once the
parent closed it), snapshots and iterators do not keep a closed store's device, and opens
that cannot work say why (empty path, already open here, missing with
``create_if_missing=False``)."""

import gc
import os
import subprocess
import sys
import textwrap

import pytest

import zonedb

OPTS = dict(scale="1/512", write_buffer_size=256 << 10, target_file_size_base=256 << 10)


def key(i):
    return b"key%08d" % i


def run_script(path, body, expect_rc=0):
    """Runs ``body`` in a fresh interpreter with ``path`` and ``OPTS`` defined."""
    script = f"import os, sys, zonedb\npath = {str(path)!r}\nOPTS = {OPTS!r}\n" + textwrap.dedent(body)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == expect_rc, r.stderr
    return r


def count_present(path, n):
    with zonedb.open(path, create_if_missing=False) as db:
        return sum(db.get(key(i)) == b"v%d" % i for i in range(n))


N = 20_000

WRITER = f"""
db = zonedb.open(path, **OPTS)
for i in range({N}):
    db.put(b"key%08d" % i, b"v%d" % i)
"""


def test_a_normal_exit_without_close_keeps_every_write(tmp_path):
    run_script(tmp_path / "db", WRITER)
    assert count_present(tmp_path / "db", N) == N


def test_an_exception_exit_keeps_every_write(tmp_path):
    r = run_script(tmp_path / "db", WRITER + "raise RuntimeError('boom')\n", expect_rc=1)
    assert "boom" in r.stderr
    assert count_present(tmp_path / "db", N) == N


def test_a_store_held_by_a_thread_and_a_global_closes_at_exit(tmp_path):
    body = WRITER + "import threading\nthreading.Thread(target=lambda: db.get(b'x')).start()\n"
    run_script(tmp_path / "db", body)
    assert count_present(tmp_path / "db", N) == N


def test_os_exit_keeps_every_acknowledged_write(tmp_path):
    # os._exit runs no atexit hook and no finalizer: the writes survive because each write
    # group reaches the OS before put returns (manual_wal_flush = false, the default).
    run_script(tmp_path / "db", WRITER + "os._exit(0)\n")
    assert count_present(tmp_path / "db", N) == N


def test_del_closes_the_store(tmp_path):
    db = zonedb.open(tmp_path / "db", **OPTS)
    db.put(b"x", b"y")
    del db
    with zonedb.open(tmp_path / "db") as db:
        assert db.get(b"x") == b"y"


def test_garbage_collection_closes_a_store_in_a_cycle(tmp_path):
    class Holder:
        pass

    h = Holder()
    h.db = zonedb.open(tmp_path / "db", **OPTS)
    h.me = h
    h.db.put(b"x", b"y")
    del h
    gc.collect()
    with zonedb.open(tmp_path / "db") as db:
        assert db.get(b"x") == b"y"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork() of a threaded process
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_a_forked_child_is_refused_and_can_open_anew_after_the_parent_closed(tmp_path):
    path = tmp_path / "db"
    db = zonedb.open(path, **OPTS)
    db.put(b"parent", b"1")
    snap = db.snapshot()
    closed_r, closed_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery, only an exit status
        rc = 0
        try:
            os.close(closed_w)
            for call in (lambda: db.put(b"child", b"1"), lambda: db.get(b"parent"),
                         db.flush, db.snapshot, lambda: snap.get(b"parent")):
                try:
                    call()
                    rc = 10
                except zonedb.ForkedError as e:
                    if not isinstance(e, zonedb.Error) or "fork" not in str(e):
                        rc = 11
            if not db.closed:
                rc = 12
            db.close()  # lets go of the child's copy only
            os.read(closed_r, 1)  # the parent has closed the store
            with zonedb.open(path) as mine:
                if mine.get(b"parent") != b"1":
                    rc = 13
                for i in range(3000):
                    mine.put(key(i), b"child")
        except BaseException as e:  # noqa: BLE001 - reported through the status
            sys.stderr.write(f"child: {e!r}\n")
            rc = rc or 20
        os._exit(rc)
    os.close(closed_r)
    # The parent's store is untouched by the child's attempts.
    assert db.get(b"parent") == b"1"
    del snap
    db.close()
    os.write(closed_w, b"x")
    os.close(closed_w)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    with zonedb.open(path) as db:
        assert sum(db.get(key(i)) == b"child" for i in range(3000)) == 3000


def test_an_empty_path_is_refused_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(zonedb.InvalidArgumentError, match="empty"):
        zonedb.open("")
    assert os.listdir(tmp_path) == []


def test_a_second_open_in_the_same_process_says_so(tmp_path):
    db = zonedb.open(tmp_path / "db", **OPTS)
    with pytest.raises(zonedb.ZoneIOError, match="already open in this process") as e:
        zonedb.open(tmp_path / "db")
    assert "another process" not in str(e.value)
    db.close()
    with zonedb.open(tmp_path / "db") as again:
        again.put(b"k", b"v")


def test_snapshots_and_iterators_do_not_outlive_close(tmp_path):
    db = zonedb.open(tmp_path / "db", **OPTS)
    for i in range(100):
        db.put(key(i), b"v")
    snap = db.snapshot()
    it = db.iter()
    assert next(it) == (key(0), b"v")
    seq = snap.sequence
    db.close()
    # The device is free although the snapshot and the iterator live.
    with zonedb.open(tmp_path / "db") as again:
        assert again.get(key(5)) == b"v"
        with pytest.raises(zonedb.ClosedError):
            again.iter(snapshot=snap)
    with pytest.raises(zonedb.ClosedError):
        snap.get(key(1))
    with pytest.raises(zonedb.ClosedError):
        next(it)
    assert snap.sequence == seq


def test_a_snapshot_keeps_its_store_object_alive(tmp_path):
    snap = zonedb.open(tmp_path / "db", **OPTS).snapshot()
    assert snap.get(b"absent") is None  # the store was not collected under it
    del snap
    gc.collect()
    with zonedb.open(tmp_path / "db") as db:  # and it closes with the snapshot
        assert db.get(b"absent") is None


def test_create_if_missing_false_on_a_missing_directory_is_invalid_argument(tmp_path):
    with pytest.raises(zonedb.InvalidArgumentError, match=r"does not exist \(create_if_missing is false\)"):
        zonedb.open(tmp_path / "missing", create_if_missing=False)
    assert not (tmp_path / "missing").exists()


def test_manual_wal_flush_keeps_groups_until_flush_wal(tmp_path):
    # ZenFS's buffered WAL under RocksDB's name: writes wait in the WAL's buffer until
    # flush_wal(); after it they outlive the process even through os._exit.
    body = (
        "import os, zonedb\n"
        f"db = zonedb.open({str(tmp_path / 'db')!r}, manual_wal_flush=True, **{OPTS!r})\n"
        "for i in range(200):\n"
        "    db.put(b'k%06d' % i, b'v%06d' % i)\n"
        "db.flush_wal()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", body], check=True)
    with zonedb.open(tmp_path / "db", **OPTS) as db:
        assert all(db.get(b"k%06d" % i) == b"v%06d" % i for i in range(200))
