"""A study's cells on Ray: what ``zonedb reproduce NAME --ray ADDRESS`` runs.

The study writes each distinct simulation it still needs as ``cells/pending/<stem>.json``
(its stem, the key it is stored under, its scenario, and whether the study counts the
measured phases alone); each becomes one Ray task, which runs it with the native library
and returns the stored cell's text, written here as ``cells/<stem>.json`` (whole, then
renamed into place) before its pending file is removed. The study then reads the cells as
if it had run them itself (and ``--resume`` picks up after a stop). A run that failed its
invariant checks voids the study: it is never stored, and this exits 1 naming it.
"""

import glob
import json
import os
import sys
from typing import Any, Dict, List, Tuple

from . import _native


def _cell_task(job_text: str) -> str:
    return _native.study_cell(job_text)


def _store(cells_dir: str, stem: str, text: str) -> None:
    tmp = os.path.join(cells_dir, f".{stem}.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(cells_dir, f"{stem}.json"))


def pending(cells_dir: str) -> List[Tuple[str, str, Dict[str, Any]]]:
    """The pending cells under ``cells_dir``: (file, its text, the job), by stem."""
    out = []
    for path in sorted(glob.glob(os.path.join(cells_dir, "pending", "*.json"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        out.append((path, text, json.loads(text)))
    return out


def run_on_ray(cells_dir: str, address: str, max_retries: int = 3,
               progress: bool = True) -> List[Tuple[str, str]]:
    """Runs every pending cell of ``cells_dir`` as a Ray task on ``address``; returns the
    (stem, why) of the cells that did not come back (a failed invariant check, a task Ray
    gave up on). A cell that came back is stored and its pending file removed."""
    import ray

    jobs = pending(cells_dir)
    failed: List[Tuple[str, str]] = []
    if not jobs:
        return failed
    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_cell_task)
        refs = {task.remote(text): (path, job) for path, text, job in jobs}
        done = 0
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                path, job = refs.pop(ref)
                try:
                    _store(cells_dir, job["stem"], ray.get(ref))
                    os.remove(path)
                except Exception as e:  # reported once every task has ended
                    failed.append((job["stem"], f"{type(e).__name__}: {e}"))
                done += 1
                if progress:
                    print(f"[{done}/{len(jobs)}] cells done (ray)", flush=True, file=sys.stderr)
    finally:
        ray.shutdown()
    return failed
