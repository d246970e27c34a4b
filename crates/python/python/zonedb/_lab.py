"""The lab: ``run`` one scenario, ``reproduce`` a paper's study."""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Union

from . import _native
from ._progress import Progress

#: A scenario: a file's path, TOML text, or a dict in the scenario format.
Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: The columns of ``RunResult.series`` (those of the report's ``series-N.csv``, then
#: ``phase``) and of ``RunResult.latency`` (percentiles in numeric order).
SERIES_COLUMNS, LATENCY_COLUMNS = (list(c) for c in _native.result_columns())

#: What to install for the DataFrame parts of the lab.
LAB_EXTRA = 'pip install "./crates/python[lab]" (or: pip install pandas pyarrow)'


def pandas():
    """The pandas module, or an ImportError that says which extra brings it."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError(
            f"zonedb's DataFrames need pandas, which is not installed: {LAB_EXTRA}"
        ) from e
    return pd


def _frame(rows: List[list], columns: List[str]) -> Any:
    return pandas().DataFrame(rows, columns=columns)


def scenario_text(scenario: Scenario) -> str:
    """A scenario (a path, a TOML string or a dict in the scenario format) as TOML text."""
    if isinstance(scenario, Mapping):
        return _native.toml_of_json(json.dumps(dict(scenario)))
    if isinstance(scenario, (str, os.PathLike)) and os.path.exists(scenario):
        with open(scenario, encoding="utf-8") as f:
            return f.read()
    if isinstance(scenario, str) and "\n" in scenario:
        return scenario
    raise FileNotFoundError(f"no scenario file {scenario!r}")


def scenario_name(scenario: Scenario) -> str:
    """The name a scenario without ``name`` gets: its file's stem, else ``"scenario"``."""
    if isinstance(scenario, (str, os.PathLike)) and os.path.exists(scenario):
        return os.path.splitext(os.path.basename(os.fspath(scenario)))[0] or "scenario"
    return "scenario"


@dataclass
class RunResult:
    """One scenario's run.

    ``json`` is what ``zonedb run --json`` prints for the same scenario and seed (its
    ``"host"`` part is wall time); ``metrics`` is its configuration's object (benchmarks,
    write amplification, cleaning, stalls, ...); ``series`` and ``latency`` are DataFrames
    (they need pandas: the ``lab`` extra).

    ``series`` has the columns and units of the report's ``series-N.csv`` (``t_s`` seconds
    of virtual time, ``ops``, ``ops_per_s``, ``user_bytes``, ``device_bytes``,
    ``gc_copied_bytes``, ``free_bytes``, ``stall_ns``, ``level_bytes`` as ``;``-joined
    bytes per level) and ``phase`` (the benchmark running at the sample). ``latency`` has
    one row per benchmark (its index) and ``count``, ``avg_us``, ``p50_us``, ``p75_us``,
    ``p99_us``, ``p999_us``, ``p9999_us``, ``max_us`` (µs of virtual time).
    """

    json: Dict[str, Any]
    series_rows: List[list] = field(repr=False)
    latency_rows: List[list] = field(repr=False)

    @property
    def metrics(self) -> Dict[str, Any]:
        """The run's configuration object of ``json`` (``json["configurations"][0]``)."""
        return self.json["configurations"][0]

    @property
    def series(self) -> Any:
        """The time series as a pandas DataFrame (``SERIES_COLUMNS``)."""
        return _frame(self.series_rows, SERIES_COLUMNS)

    @property
    def latency(self) -> Any:
        """Each benchmark's latency summary as a pandas DataFrame indexed by benchmark."""
        return _frame(self.latency_rows, LATENCY_COLUMNS).set_index("benchmark")


def run(
    scenario: Scenario,
    *,
    elide_values: bool = True,
    parallel_compute: bool = True,
    progress: bool = True,
) -> RunResult:
    """Runs a scenario (a path, TOML text or a dict in the scenario format) in simulation,
    as ``zonedb run`` does (its ``[[compare]]`` variants are ignored). A scenario without
    ``name`` is named after its file (else ``"scenario"``). ``progress=True`` shows a bar
    (tqdm when installed, else a line on stderr); ``progress=False`` prints nothing."""
    text = scenario_text(scenario)
    bar = Progress("simulated", enabled=progress)
    try:
        j, series, latency = _native.run_scenario(
            text, elide_values, parallel_compute, bar if progress else None,
            scenario_name(scenario),
        )
    finally:
        bar.close()
    return RunResult(json.loads(j), json.loads(series), json.loads(latency))


@dataclass
class StudyResult:
    """A ``reproduce`` study: ``json`` (``reproduce-<study>.json``), ``markdown`` (the
    tables beside the papers'), ``report`` (the Markdown file's path); ``metrics`` is the
    JSON as a dict and ``table`` one row per scheme (its nested figures as dotted columns)."""

    json: Dict[str, Any]
    markdown: str
    report: str
    ok: bool

    @property
    def metrics(self) -> Dict[str, Any]:
        """The study's JSON (``json``)."""
        return self.json

    @property
    def table(self) -> Any:
        """One row per scheme as a pandas DataFrame (nested figures as dotted columns)."""
        pd = pandas()

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


def _flag(name: str, value: Any) -> List[str]:
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


def reproduce(
    name: str,
    scale: str = "small",
    *,
    seeds: int = 1,
    out: Union[str, "os.PathLike[str]"] = "zonedb-report",
    **flags: Any,
) -> StudyResult:
    """Runs ``zonedb reproduce NAME --scale SCALE --seeds N`` (``same-zone``, ``oaza``,
    ``splitzns``, ``hhzs``, ``znsplus``); other keywords are the command's flags
    (``jobs=2``, ``experiments=["fill-delete-70"]``, ``no_ablation=True``, ...)."""
    args = [name, "--scale", str(scale), "--seeds", str(seeds), "--out", os.fspath(out), "--json"]
    for k, v in flags.items():
        args += _flag(k, v)
    j, md, report, ok = _native.reproduce(args)
    return StudyResult(json.loads(j), md, report, ok)
