"""A local sweep's worker: ``python -m zonedb._worker`` reads one run as JSON on stdin
(``run``, ``scenario``, ``elide_values``, ``parallel_compute``), runs it and writes
``{"json": ...}`` (the run's JSON text) or ``{"error": ...}`` (a run that failed by itself,
such as a full device) as JSON on stdout.

Workers are fresh interpreters started with ``subprocess``, not ``multiprocessing``: they
never import the caller's ``__main__``, so a sweep works from a script without an
``if __name__ == "__main__":`` guard. A worker that dies (killed, out of memory, ``os._exit``)
leaves no answer; the sweep then raises.
"""

import json
import sys


def main() -> int:
    """Runs the run read from stdin; the answer goes to stdout. Returns the exit status."""
    from ._sweep import _run_one

    job = json.load(sys.stdin)
    try:
        _, j = _run_one(job["run"], job["scenario"], job["elide_values"], job["parallel_compute"])
        answer = {"json": j}
    except Exception as e:  # noqa: BLE001 - a failed run is an answer, not a dead worker
        answer = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
