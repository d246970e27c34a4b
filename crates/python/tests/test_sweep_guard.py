"""``zonedb.sweep`` from a script without an ``if __name__ == "__main__":`` guard works
(workers never import the caller's ``__main__``), and a worker that dies raises instead of
a sweep that returns normally with nothing in it."""

import json
import os
import subprocess
import sys

import pytest

import zonedb

from conftest import TINY_SCENARIO

SWEEP = {"name": "g", "seeds": 2, "seed": 5, "scenario": TINY_SCENARIO,
         "grid": {"fs.cleaner": ["zenfs"]}}


def test_a_script_without_a_main_guard_sweeps(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import json, zonedb\n"
        f"r = zonedb.sweep(json.loads({json.dumps(json.dumps(SWEEP))}), "
        f"out={str(tmp_path / 'out')!r}, jobs=2, progress=False)\n"
        "assert r.failed == [], r.failed\n"
        "print(len(r.runs))\n"
    )
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "2"


def test_a_dead_worker_raises_and_keeps_what_was_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv(zonedb._sweep.KILL_ONCE_ENV, f"c00-s5:{tmp_path}")
    with pytest.raises(zonedb.WorkerDied, match="c00-s5 died"):
        zonedb.sweep(SWEEP, out=tmp_path / "out", jobs=1, progress=False)
    assert (tmp_path / "c00-s5.killed").exists()
    assert isinstance(zonedb.WorkerDied("x"), zonedb.Error)
    # Run again: the killed run's marker is there, so it runs now; the sweep completes.
    r = zonedb.sweep(SWEEP, out=tmp_path / "out", jobs=1, progress=False)
    assert r.failed == [] and len(r.runs) == 2
