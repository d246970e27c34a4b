"""Sweeps: a base scenario over a grid of overrides and seeds, run in local processes or as
Ray tasks, into a results directory shared with ``zonedb sweep`` (same files, same JSON: a
sweep started by one resumes in the other).

Each run is one task: the scenario of one configuration and seed, run by the native
library; it comes back as an Arrow table (one row: the run's id and its JSON). Ray retries
a task whose worker died (``max_retries``); a run that fails by itself (a full device) is
recorded as failed, not retried: simulations are deterministic.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _native
from ._lab import pandas, scenario_text
from ._native import Error

# Fault injection for tests: "RUN:DIR" in a worker's environment (set it where the workers
# start, e.g. on `ray start`) makes the worker running RUN exit abruptly the first time
# (leaving DIR/RUN.killed), as a lost worker would.
KILL_ONCE_ENV = "ZONEDB_SWEEP_KILL_ONCE"


def _run_one(run: str, scenario: str, elide_values: bool,
             parallel_compute: bool) -> Tuple[str, str]:
    """Runs one sweep run; returns (run, the run's JSON text)."""
    spec = os.environ.get(KILL_ONCE_ENV)
    if spec:
        target, _, marker_dir = spec.partition(":")
        marker = os.path.join(marker_dir, f"{target}.killed")
        if target == run and not os.path.exists(marker):
            with open(marker, "w", encoding="utf-8") as f:
                f.write(str(os.getpid()))
            os._exit(17)
    j, _, _ = _native.run_scenario(scenario, elide_values, parallel_compute, None)
    return run, j


def _ray_task(run: str, scenario: str, elide_values: bool, parallel_compute: bool) -> Any:
    import pyarrow as pa

    run, j = _run_one(run, scenario, elide_values, parallel_compute)
    return pa.table({"run": [run], "result_json": [j]})


@dataclass
class SweepResult:
    """A finished sweep: ``out`` (its directory), ``summary`` (``summary.json`` as a dict),
    ``markdown``, ``failed`` (run, why) pairs; ``runs`` (``runs.parquet``) and ``table``
    (one row per configuration and metric: mean, stddev, 95% interval) are DataFrames."""

    out: str
    summary: Dict[str, Any]
    markdown: str
    failed: List[Tuple[str, str]]

    @property
    def runs(self) -> Any:
        """``runs.parquet`` as a pandas DataFrame (one row per run)."""
        return pandas().read_parquet(os.path.join(self.out, "runs.parquet"))

    @property
    def table(self) -> Any:
        """One row per configuration and metric (mean, stddev, 95% interval), a DataFrame."""
        pd = pandas()
        rows = []
        for c in self.summary["configurations"]:
            for metric, s in c["metrics"].items():
                rows.append({"config": c["config"], "label": c["label"], "metric": metric, **s})
        return pd.DataFrame(rows)

    def run_json(self, run: str) -> Dict[str, Any]:
        """A run's JSON (what ``zonedb run --json`` printed for it)."""
        with open(os.path.join(self.out, "runs", f"{run}.json"), encoding="utf-8") as f:
            return json.load(f)


def _spec_text(spec: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> Tuple[str, str]:
    """(sweep file text, folder its relative paths are read from)."""
    if isinstance(spec, Mapping):
        return _native.toml_of_json(json.dumps(dict(spec))), os.getcwd()
    if isinstance(spec, (str, os.PathLike)) and os.path.exists(spec):
        path = os.fspath(spec)
        return scenario_text(path), os.path.dirname(os.path.abspath(path))
    raise FileNotFoundError(f"no sweep file {spec!r}")


class WorkerDied(Error):
    """A sweep's worker process died (killed, out of memory, ``os._exit``) before answering:
    the sweep stops and raises this; the runs already recorded stay (run it again to resume)."""


def _worker_env() -> Dict[str, str]:
    """The workers' environment: this one, with the folder ``zonedb`` was imported from
    first on ``PYTHONPATH`` (so a worker imports the same package)."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return env


def _run_in_worker(run: str, scenario: str, elide_values: bool, parallel_compute: bool,
                   env: Dict[str, str]) -> Dict[str, str]:
    """Runs one run in a fresh interpreter (``python -m zonedb._worker``); its answer, or
    ``WorkerDied``."""
    job = json.dumps(dict(run=run, scenario=scenario, elide_values=elide_values,
                          parallel_compute=parallel_compute))
    p = subprocess.run(
        [sys.executable, "-m", "zonedb._worker"], input=job, capture_output=True,
        text=True, env=env, check=False,
    )
    try:
        answer = json.loads(p.stdout) if p.returncode == 0 else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        how = (f"killed by signal {-p.returncode}" if p.returncode < 0
               else f"exit status {p.returncode}")
        tail = p.stderr.strip().splitlines()[-5:]
        raise WorkerDied(
            f"the sweep's worker for run {run} died ({how}) before answering"
            + ("; its last words:\n" + "\n".join(tail) if tail else "")
        )
    return answer


def _local(d: Any, pending: List[Tuple[str, str]], jobs: int, elide_values: bool,
           parallel_compute: bool, progress: bool) -> None:
    # Each run in a fresh interpreter started by subprocess (not multiprocessing: no import
    # of the caller's __main__, so no `if __name__ == "__main__":` guard is needed), `jobs`
    # at a time; a dead worker stops the sweep (WorkerDied) once the runs under way end.
    env = _worker_env()
    died: List[BaseException] = []
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:

        def one(run: str, scenario: str) -> Optional[Dict[str, str]]:
            if died:
                return None
            try:
                return _run_in_worker(run, scenario, elide_values, parallel_compute, env)
            except WorkerDied as e:
                died.append(e)
                return None

        futures = {pool.submit(one, run, scenario): run for run, scenario in pending}
        for f in as_completed(futures):
            run = futures[f]
            answer = f.result()
            if answer is None:
                continue
            if "json" in answer:
                d.record(run, answer["json"])
            else:  # a run that failed by itself is recorded, the sweep goes on
                d.record_failure(run, answer["error"])
            done += 1
            if progress:
                print(f"[{done}/{len(pending)}] runs done", flush=True, file=sys.stderr)
    if died:
        raise died[0]


def _ray(d: Any, pending: List[Tuple[str, str]], address: str, elide_values: bool,
         parallel_compute: bool, max_retries: int, progress: bool) -> None:
    import ray

    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_ray_task)
        refs = {
            task.remote(run, scenario, elide_values, parallel_compute): run
            for run, scenario in pending
        }
        done = 0
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                run = refs.pop(ref)
                try:
                    table = ray.get(ref)
                    d.record(run, table.column("result_json")[0].as_py())
                except Exception as e:  # a failed run is recorded, the sweep goes on
                    d.record_failure(run, f"{type(e).__name__}: {e}")
                done += 1
                if progress:
                    print(f"[{done}/{len(pending)}] runs done (ray)", flush=True, file=sys.stderr)
    finally:
        ray.shutdown()


def sweep(
    spec: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    *,
    out: Union[str, "os.PathLike[str]", None] = None,
    jobs: int = 2,
    ray: Optional[str] = None,
    elide_values: bool = True,
    parallel_compute: bool = True,
    max_retries: int = 3,
    progress: bool = True,
) -> SweepResult:
    """Runs a sweep (a sweep file's path, or a dict in its format) into ``out`` (default
    ``zonedb-report/sweep-<name>``), locally in ``jobs`` worker processes or, with
    ``ray="ADDRESS"``, as Ray tasks on that cluster. Runs already in ``out`` are not run
    again (resume).

    Local workers are fresh interpreters (``python -m zonedb._worker``), so a script needs
    no ``if __name__ == "__main__":`` guard. A run that fails by itself (a full device) is
    recorded in ``failed`` and the sweep goes on; a worker that dies raises ``WorkerDied``
    (a ``zonedb.Error``) after the runs under way end (what was recorded stays: run the
    sweep again to resume)."""
    text, base_dir = _spec_text(spec)
    d = _native.SweepDir(text, base_dir, None if out is None else os.fspath(out))
    pending = d.pending()
    if ray is None:
        _local(d, pending, jobs, elide_values, parallel_compute, progress)
    else:
        _ray(d, pending, ray, elide_values, parallel_compute, max_retries, progress)
    summary, markdown, failed = d.finish()
    return SweepResult(d.root, json.loads(summary), markdown, failed)
