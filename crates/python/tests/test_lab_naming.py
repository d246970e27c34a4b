"""The lab's results: one naming and unit scheme shared by ``RunResult.series`` and the
report's ``series-N.csv`` (the phase column included), latency percentiles in numeric order,
``progress=False`` silent, a scenario without ``name`` named by default."""

import csv
import io
import json
import subprocess

import pytest

import zonedb


def test_series_has_the_csv_columns_units_and_phases(tmp_path, zonedb_bin, tiny_scenario):
    r = zonedb.run(tiny_scenario, progress=False)
    path = tmp_path / "tiny.toml"
    path.write_text(zonedb._native.toml_of_json(json.dumps(tiny_scenario)))
    subprocess.run([zonedb_bin, "run", str(path), "--out", str(tmp_path / "report")],
                   check=True, capture_output=True)
    with open(tmp_path / "report" / "series-0.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    s = r.series
    assert list(s.columns) == header and header[-1] == "phase"
    assert len(s) == len(body)
    for (_, mine), theirs in zip(s.iterrows(), body):
        assert abs(mine["t_s"] - float(theirs[0])) < 1e-3
        assert mine["ops"] == int(theirs[1])
        assert abs(mine["ops_per_s"] - float(theirs[2])) <= 1
        assert mine["device_bytes"] == int(theirs[4])
        assert mine["level_bytes"] == theirs[8]  # `;`-joined bytes per level in both
        assert mine["phase"] == theirs[9]
    assert s["t_s"].is_monotonic_increasing and s["t_s"].dtype.kind == "f"
    assert set(s["phase"]) <= {"", "fillrandom", "readrandom"}
    assert {"fillrandom", "readrandom"} <= set(s["phase"])
    # Phases in benchmark order.
    phases = [p for p in s["phase"] if p]
    assert phases == sorted(phases, key=["fillrandom", "readrandom"].index)


def test_latency_percentiles_are_in_numeric_order(tiny_scenario):
    lat = zonedb.run(tiny_scenario, progress=False).latency
    assert list(lat.columns) == ["count", "avg_us", "p50_us", "p75_us", "p99_us", "p999_us",
                                 "p9999_us", "max_us"]
    assert lat.index.name == "benchmark"
    assert (lat["p9999_us"] >= lat["p999_us"]).all() and (lat["p999_us"] >= lat["p99_us"]).all()


def test_progress_false_prints_nothing(tiny_scenario, capfd):
    zonedb.run(tiny_scenario, progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_a_scenario_without_a_name_gets_one(tmp_path, tiny_scenario):
    del tiny_scenario["name"]
    assert zonedb.run(tiny_scenario, progress=False).metrics["name"] == "scenario"
    path = tmp_path / "nameless.toml"
    path.write_text(zonedb._native.toml_of_json(json.dumps(tiny_scenario)))
    assert zonedb.run(path, progress=False).metrics["name"] == "nameless"
    assert zonedb.run(path.read_text(), progress=False).metrics["name"] == "scenario"
