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
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from . import _native
from ._lab import scenario_text

# Fault injection for tests: "RUN:DIR" in a worker's environment (set it where the workers
# start, e.g. on `ray start`) makes the worker running RUN exit abruptly the first time
# (leaving DIR/RUN.killed), as a lost worker would.
KILL_ONCE_ENV = "ZONEDB_SWEEP_KILL_ONCE"


def _run_one(run, scenario, elide_values, parallel_compute):
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


def _ray_task(run, scenario, elide_values, parallel_compute):
    import pyarrow as pa

    run, j = _run_one(run, scenario, elide_values, parallel_compute)
    return pa.table({"run": [run], "result_json": [j]})


@dataclass
class SweepResult:
    """A finished sweep: ``out`` (its directory), ``summary`` (``summary.json`` as a dict),
    ``markdown``, ``failed`` (run, why) pairs; ``runs`` (``runs.parquet``) and ``table``
    (one row per configuration and metric: mean, stddev, 95% interval) are DataFrames."""

    out: str
    summary: dict
    markdown: str
    failed: list

    @property
    def runs(self):
        import pandas as pd

        return pd.read_parquet(os.path.join(self.out, "runs.parquet"))

    @property
    def table(self):
        import pandas as pd

        rows = []
        for c in self.summary["configurations"]:
            for metric, s in c["metrics"].items():
                rows.append({"config": c["config"], "label": c["label"], "metric": metric, **s})
        return pd.DataFrame(rows)

    def run_json(self, run):
        """A run's JSON (what ``zonedb run --json`` printed for it)."""
        with open(os.path.join(self.out, "runs", f"{run}.json"), encoding="utf-8") as f:
            return json.load(f)


def _spec_text(spec):
    """(sweep file text, folder its relative paths are read from)."""
    if isinstance(spec, dict):
        return _native.toml_of_json(json.dumps(spec)), os.getcwd()
    if isinstance(spec, (str, os.PathLike)) and os.path.exists(spec):
        path = os.fspath(spec)
        return scenario_text(path), os.path.dirname(os.path.abspath(path))
    raise FileNotFoundError(f"no sweep file {spec!r}")


def _local(d, pending, jobs, elide_values, parallel_compute, progress):
    import multiprocessing

    # Fresh interpreters, not forks of this (possibly threaded) one.
    ctx = multiprocessing.get_context("spawn")
    done = 0
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=ctx) as pool:
        futures = {
            pool.submit(_run_one, run, scenario, elide_values, parallel_compute): run
            for run, scenario in pending
        }
        for f in as_completed(futures):
            run = futures[f]
            try:
                _, j = f.result()
                d.record(run, j)
            except Exception as e:  # a failed run is recorded, the sweep goes on
                d.record_failure(run, f"{type(e).__name__}: {e}")
            done += 1
            if progress:
                print(f"[{done}/{len(pending)}] runs done", flush=True, file=sys.stderr)


def _ray(d, pending, address, elide_values, parallel_compute, max_retries, progress):
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
    spec,
    *,
    out=None,
    jobs=2,
    ray=None,
    elide_values=True,
    parallel_compute=True,
    max_retries=3,
    progress=True,
) -> SweepResult:
    """Runs a sweep (a sweep file's path, or a dict in its format) into ``out`` (default
    ``zonedb-report/sweep-<name>``), locally in ``jobs`` processes or, with ``ray="ADDRESS"``,
    as Ray tasks on that cluster. Runs already in ``out`` are not run again (resume)."""
    text, base_dir = _spec_text(spec)
    d = _native.SweepDir(text, base_dir, None if out is None else os.fspath(out))
    pending = d.pending()
    if ray is None:
        _local(d, pending, jobs, elide_values, parallel_compute, progress)
    else:
        _ray(d, pending, ray, elide_values, parallel_compute, max_retries, progress)
    summary, markdown, failed = d.finish()
    return SweepResult(d.root, json.loads(summary), markdown, failed)
