"""Shared fixtures: the CLI binary (``ZONEDB_BIN``, else ``target/ci/zonedb`` or
``target/release/zonedb``) and a tiny scenario that runs in about a second."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

TINY_SCENARIO = {
    "name": "tiny",
    "seed": 3,
    "sample_interval_ms": 10,
    "device": {"profile": "splitzns-paper", "scale": "1/512"},
    "fs": {"placement": "liza", "cleaner": "zenfs"},
    "engine": {
        "write_buffer_size": 1 << 20,
        "target_file_size_base": 1 << 20,
        "max_bytes_for_level_base": 4 << 20,
    },
    "workload": {
        "benchmarks": "fillrandom,readrandom",
        "num": 20000,
        "reads": 2000,
        "value_size": 256,
    },
}


@pytest.fixture(scope="session")
def zonedb_bin():
    path = os.environ.get("ZONEDB_BIN")
    if not path:
        built = [ROOT / "target" / p / "zonedb" for p in ("ci", "release")]
        path = str(next((b for b in built if b.exists()), built[0]))
    if not os.path.exists(path):
        pytest.fail(f"the zonedb binary is not built at {path}: cargo build --profile ci")
    return path


@pytest.fixture()
def tiny_scenario():
    import copy

    return copy.deepcopy(TINY_SCENARIO)
