"""The lab: ``run`` equals ``zonedb run --json`` for the same scenario and seed (all but
``"host"``), results as dicts and DataFrames; ``reproduce`` returns the study's JSON."""

import json
import subprocess

import pandas as pd
import pytest

import zonedb


def without_host(j):
    j = dict(j)
    j.pop("host", None)
    return j


def test_run_equals_the_cli_json_for_the_same_seed(tmp_path, zonedb_bin, tiny_scenario):
    r = zonedb.run(tiny_scenario, progress=False)
    path = tmp_path / "tiny.toml"
    # The same scenario through a file (a TOML string works too).
    import zonedb._native as native

    path.write_text(native.toml_of_json(json.dumps(tiny_scenario)))
    cli = subprocess.run(
        [zonedb_bin, "run", str(path), "--json", "--no-report"],
        check=True, capture_output=True, text=True,
    )
    assert without_host(json.loads(cli.stdout)) == without_host(r.json)
    # Twice in-process: byte-identical outside host (a pure function of seed and scenario).
    again = zonedb.run(str(path), progress=False)
    assert without_host(again.json) == without_host(r.json)
    # Another seed, another run.
    tiny_scenario["seed"] = 4
    other = zonedb.run(tiny_scenario, progress=False)
    assert without_host(other.json) != without_host(r.json)


def test_run_results_are_a_dict_and_dataframes(tiny_scenario):
    r = zonedb.run(tiny_scenario, progress=True)
    m = r.metrics
    assert m["name"] == "tiny"
    assert [b["name"] for b in m["benchmarks"]] == ["fillrandom", "readrandom"]
    assert m["benchmarks"][0]["ops"] == 20000
    assert m["write_amplification"] > 1.0
    assert isinstance(r.series, pd.DataFrame) and len(r.series) > 3
    assert {"t_s", "ops", "device_bytes", "free_bytes", "stall_ns", "phase"} <= set(r.series.columns)
    assert r.series["t_s"].is_monotonic_increasing
    assert isinstance(r.latency, pd.DataFrame)
    assert list(r.latency.index) == ["fillrandom", "readrandom"]
    assert (r.latency["p99_us"] >= r.latency["p50_us"]).all()


def test_progress_reaches_the_total(tiny_scenario):
    import zonedb._native as native

    calls = []
    native.run_scenario(
        zonedb._lab.scenario_text(tiny_scenario), True, True, lambda d, t: calls.append((d, t))
    )
    assert calls, "the callback was called"
    done, total = calls[-1]
    assert total == 22000 and done == total


def test_bad_scenarios_raise_invalid_argument(tiny_scenario):
    tiny_scenario["fs"]["cleaner"] = "magic"
    with pytest.raises(zonedb.InvalidArgumentError, match="cleaner"):
        zonedb.run(tiny_scenario, progress=False)
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.run({"name": "x", "no_such_section": {}}, progress=False)
    with pytest.raises(FileNotFoundError):
        zonedb.run("/no/such/scenario.toml")


def test_a_full_device_in_a_run_is_a_no_space_error_not_a_crash(tiny_scenario):
    # 300 MB of values into the 1/512 device's 160 MiB, no cleaning.
    tiny_scenario["workload"].update(benchmarks="fillrandom", num=300000, value_size=1024)
    tiny_scenario["fs"]["cleaner"] = "none"
    with pytest.raises(zonedb.NoSpaceError):
        zonedb.run(tiny_scenario, progress=False)
    # A device the file layer cannot use is a bad configuration.
    tiny_scenario["device"] = {"profile": "tiny", "scale": "1/1"}
    with pytest.raises(zonedb.InvalidArgumentError, match="max open zones"):
        zonedb.run(tiny_scenario, progress=False)


def test_reproduce_returns_the_study_json_and_tables(tmp_path, zonedb_bin):
    args = dict(jobs=1, experiments=["fill-delete-70"])
    r = zonedb.reproduce("znsplus", scale="tiny", out=tmp_path / "py", **args)
    assert r.ok and r.report.endswith("reproduce-znsplus.md")
    assert "ZNS+" in r.markdown
    cli = subprocess.run(
        [zonedb_bin, "reproduce", "znsplus", "--scale", "tiny", "--jobs", "1",
         "--experiments", "fill-delete-70", "--out", str(tmp_path / "cli"), "--json"],
        check=True, capture_output=True, text=True,
    )
    assert without_host(json.loads(cli.stdout)) == without_host(r.json)
    assert isinstance(r.table, pd.DataFrame)
    assert set(r.table["scheme"]) == set(r.json["schemes"])
    with pytest.raises(zonedb.InvalidArgumentError):
        zonedb.reproduce("no-such-study")
