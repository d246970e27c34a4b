"""The lab: ``run`` one scenario, ``reproduce`` a paper's study."""

import json
import os
from dataclasses import dataclass, field

from . import _native
from ._progress import Progress


def _frame(rows):
    import pandas as pd

    return pd.DataFrame(rows)


def scenario_text(scenario):
    """A scenario (a path, a TOML string or a dict in the scenario format) as TOML text."""
    if isinstance(scenario, dict):
        return _native.toml_of_json(json.dumps(scenario))
    if isinstance(scenario, (str, os.PathLike)) and os.path.exists(scenario):
        with open(scenario, encoding="utf-8") as f:
            return f.read()
    if isinstance(scenario, str) and "\n" in scenario:
        return scenario
    raise FileNotFoundError(f"no scenario file {scenario!r}")


@dataclass
class RunResult:
    """One scenario's run.

    ``json`` is what ``zonedb run --json`` prints for the same scenario and seed (its
    ``"host"`` part is wall time); ``metrics`` is its configuration's object (benchmarks,
    write amplification, cleaning, stalls, ...); ``series`` and ``latency`` are DataFrames:
    the time series sampled in virtual time, and each benchmark's latency percentiles (µs).
    """

    json: dict
    series_rows: list = field(repr=False)
    latency_rows: list = field(repr=False)

    @property
    def metrics(self) -> dict:
        return self.json["configurations"][0]

    @property
    def series(self):
        return _frame(self.series_rows)

    @property
    def latency(self):
        df = _frame(self.latency_rows)
        if "benchmark" in df.columns:
            df = df.set_index("benchmark")
        return df


def run(scenario, *, elide_values=True, parallel_compute=True, progress=True) -> RunResult:
    """Runs a scenario (a path, TOML text or a dict in the scenario format) in simulation,
    as ``zonedb run`` does (its ``[[compare]]`` variants are ignored)."""
    text = scenario_text(scenario)
    bar = Progress("simulated", enabled=progress)
    try:
        j, series, latency = _native.run_scenario(
            text, elide_values, parallel_compute, bar if progress else None
        )
    finally:
        bar.close()
    return RunResult(json.loads(j), json.loads(series), json.loads(latency))


@dataclass
class StudyResult:
    """A ``reproduce`` study: ``json`` (``reproduce-<study>.json``), ``markdown`` (the
    tables beside the papers'), ``report`` (the Markdown file's path); ``metrics`` is the
    JSON as a dict and ``table`` one row per scheme (its nested figures as dotted columns)."""

    json: dict
    markdown: str
    report: str
    ok: bool

    @property
    def metrics(self) -> dict:
        return self.json

    @property
    def table(self):
        import pandas as pd

        schemes = self.json.get("schemes")
        if isinstance(schemes, dict):
            rows = [
                {"scheme": name, **v} if isinstance(v, dict) else {"scheme": name, "value": v}
                for name, v in schemes.items()
            ]
            return pd.json_normalize(rows)
        if isinstance(schemes, list):
            return pd.json_normalize(schemes)
        return pd.json_normalize(self.json)


# Flags the CLI spells in snake_case (RocksDB's and db_bench's style).
_SNAKE = ("elide_values", "parallel_compute")


def _flag(name, value):
    if name in _SNAKE:
        return [f"--{name}={'true' if value else 'false'}"]
    flag = "--" + name.replace("_", "-")
    if value is True:
        return [flag]
    if value is False or value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [flag, ",".join(str(v) for v in value)]
    return [flag, str(value)]


def reproduce(name, scale="small", *, seeds=1, out="zonedb-report", **flags) -> StudyResult:
    """Runs ``zonedb reproduce NAME --scale SCALE --seeds N`` (``same-zone``, ``oaza``,
    ``splitzns``, ``hhzs``, ``znsplus``); other keywords are the command's flags
    (``jobs=2``, ``experiments=["fill-delete-70"]``, ``no_ablation=True``, ...)."""
    args = [name, "--scale", str(scale), "--seeds", str(seeds), "--out", os.fspath(out), "--json"]
    for k, v in flags.items():
        args += _flag(k, v)
    j, md, report, ok = _native.reproduce(args)
    return StudyResult(json.loads(j), md, report, ok)
