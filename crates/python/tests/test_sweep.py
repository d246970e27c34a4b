"""Sweeps: a 2 x 2 grid x 3 seeds run by the CLI, by Python in local processes and by Python
on a Ray head started here on loopback: identical results outside ``"host"``; resume; a
lost worker's task retried."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

import zonedb

from conftest import TINY_SCENARIO

SWEEP = {
    "name": "t",
    "seeds": 3,
    "seed": 11,
    "scenario": TINY_SCENARIO,
    "grid": {
        "fs.cleaner": ["zenfs", "greedy"],
        "engine.compaction_pri": ["kMinOverlappingRatio", "kByCompensatedSize"],
    },
}


def write_sweep(tmp_path):
    import zonedb._native as native

    path = tmp_path / "sweep.toml"
    path.write_text(native.toml_of_json(json.dumps(SWEEP)))
    return path


def results(out):
    """Every run's JSON without host, by run id."""
    runs = {}
    for f in sorted(os.listdir(os.path.join(out, "runs"))):
        if f.endswith(".json"):
            with open(os.path.join(out, "runs", f), encoding="utf-8") as fh:
                j = json.load(fh)
            j.pop("host", None)
            runs[f[:-5]] = j
    return runs


def parquet_without_host(out):
    df = pd.read_parquet(os.path.join(out, "runs.parquet"))
    return df[[c for c in df.columns if not c.startswith("host.")]]


@pytest.fixture(scope="module")
def cli_sweep(tmp_path_factory, zonedb_bin):
    tmp = tmp_path_factory.mktemp("cli")
    path = write_sweep(tmp)
    out = tmp / "out"
    p = subprocess.run(
        [zonedb_bin, "sweep", str(path), "--out", str(out), "--jobs", "2", "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stderr
    return out, json.loads(p.stdout)


def test_the_cli_sweep_writes_parquet_summary_and_plots(cli_sweep):
    out, summary = cli_sweep
    runs = results(out)
    assert len(runs) == 12
    df = pd.read_parquet(out / "runs.parquet")
    assert len(df) == 12
    assert {"run", "config", "label", "seed", "fs.cleaner", "engine.compaction_pri",
            "fillrandom.ops_per_s", "write_amplification", "host.wall_ns"} <= set(df.columns)
    assert sorted(df["seed"].unique()) == [11, 12, 13]
    assert len(summary["configurations"]) == 4
    for c in summary["configurations"]:
        s = c["metrics"]["fillrandom.ops_per_s"]
        assert s["n"] == 3 and s["ci95_low"] <= s["mean"] <= s["ci95_high"]
        # The summary is the runs' own: mean over the three seeds.
        mine = df[df["config"] == c["config"]]["fillrandom.ops_per_s"]
        assert abs(mine.mean() - s["mean"]) < 1e-6 * s["mean"]
    for f in ["summary.md", "summary.csv", "summary.json", "sweep-fillrandom-ops_per_s.svg",
              "sweep-fillrandom-ops_per_s.png"]:
        assert (out / f).exists(), f
    assert "±" in (out / "summary.md").read_text()


def test_python_local_sweep_equals_the_cli_and_resumes(cli_sweep, tmp_path):
    cli_out, cli_summary = cli_sweep
    out = tmp_path / "py"
    r = zonedb.sweep(SWEEP, out=out, jobs=2, progress=False)
    assert r.failed == []
    assert results(out) == results(cli_out)
    assert r.summary == cli_summary
    pd.testing.assert_frame_equal(parquet_without_host(out), parquet_without_host(cli_out))
    assert len(r.runs) == 12 and set(r.table["config"]) == {"c00", "c01", "c02", "c03"}
    # Resume: remove two results; only those run again, and the results are the same.
    for run in ("c01-s12", "c03-s13"):
        os.remove(out / "runs" / f"{run}.json")
    before = {f: os.path.getmtime(out / "runs" / f) for f in os.listdir(out / "runs")}
    r2 = zonedb.sweep(SWEEP, out=out, jobs=2, progress=False)
    rerun = [f for f in os.listdir(out / "runs")
             if f not in before or os.path.getmtime(out / "runs" / f) != before[f]]
    assert sorted(rerun) == ["c01-s12.json", "c03-s13.json"]
    assert results(out) == results(cli_out) and r2.summary == cli_summary
    # Another sweep in the same directory is refused.
    other = dict(SWEEP, seeds=2)
    with pytest.raises(zonedb.InvalidArgumentError, match="different sweep"):
        zonedb.sweep(other, out=out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    """A Ray head on 127.0.0.1 for this module's tests (stopped at the end); its workers kill
    themselves the first time they run c02-s11 (a lost worker whose task Ray must retry)."""
    ray_bin = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")
    if ray_bin is None:
        pytest.fail("ray is not installed (pip install ray): .ci/run installs it")
    port = free_port()
    tmp = tmp_path_factory.mktemp("ray")
    markers = tmp / "markers"
    markers.mkdir()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env[zonedb._sweep.KILL_ONCE_ENV] = f"c02-s11:{markers}"
    start = [
        ray_bin, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
        "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
        f"--temp-dir={tmp / 't'}", "--object-store-memory=200000000",
    ]
    p = subprocess.run(start, capture_output=True, text=True, timeout=240, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    try:
        yield f"127.0.0.1:{port}", markers
    finally:
        subprocess.run([ray_bin, "stop", "--force"], capture_output=True, timeout=120, env=env)


def test_a_ray_sweep_on_loopback_equals_the_local_one_and_retries_a_lost_worker(
    cli_sweep, ray_head, tmp_path
):
    cli_out, cli_summary = cli_sweep
    address, markers = ray_head
    out = tmp_path / "ray"
    t0 = time.monotonic()
    r = zonedb.sweep(SWEEP, out=out, ray=address, progress=False)
    assert time.monotonic() - t0 < 600
    assert (markers / "c02-s11.killed").exists(), "the worker running c02-s11 died once"
    assert r.failed == []
    assert results(out) == results(cli_out)
    assert r.summary == cli_summary
    pd.testing.assert_frame_equal(parquet_without_host(out), parquet_without_host(cli_out))


def test_the_cli_sweep_with_ray_runs_through_the_python_package(cli_sweep, ray_head, tmp_path,
                                                                 zonedb_bin):
    cli_out, _ = cli_sweep
    address, _ = ray_head
    path = write_sweep(tmp_path)
    out = tmp_path / "cli-ray"
    env = dict(os.environ, ZONEDB_PYTHON=sys.executable)
    p = subprocess.run(
        [zonedb_bin, "sweep", str(path), "--out", str(out), "--ray", address],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert p.returncode == 0, p.stderr
    assert results(out) == results(cli_out)


def test_a_study_on_ray_equals_the_local_run_and_resumes(ray_head, zonedb_bin, tmp_path):
    """``zonedb reproduce NAME --ray ADDRESS``: each cell a Ray task through this package,
    stored in ``cells/``; the JSON is the local run's outside ``"host"``, and a cell taken
    away runs again on ``--resume``."""
    address, _ = ray_head
    study = ["reproduce", "same-zone", "--scale", "tiny", "--claims", "--workloads",
             "fillrandom", "--json"]
    env = dict(os.environ, ZONEDB_PYTHON=sys.executable)

    def run(out, *extra):
        p = subprocess.run([zonedb_bin, *study, "--out", str(out), *extra],
                           capture_output=True, text=True, timeout=600, env=env)
        assert p.returncode == 0, p.stderr

        def strip(v):
            if isinstance(v, dict):
                return {k: strip(x) for k, x in v.items() if k != "host"}
            if isinstance(v, list):
                return [strip(x) for x in v]
            return v

        return strip(json.loads(p.stdout))

    local = run(tmp_path / "local")
    on_ray = run(tmp_path / "ray", "--ray", address)
    assert on_ray == local
    cells = tmp_path / "ray" / "cells"
    stored = sorted(p.name for p in cells.glob("*.json"))
    assert stored == ["same-zone-scheme-A-CAZA-fillrandom-seed1.json",
                      "same-zone-scheme-Baseline-fillrandom-seed1.json"]
    assert not list((cells / "pending").glob("*.json"))
    (cells / stored[0]).unlink()
    assert run(tmp_path / "ray", "--ray", address, "--resume") == local
    assert (cells / stored[0]).exists()
