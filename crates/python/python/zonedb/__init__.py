"""ZoneDB: a zone-native LSM-tree key-value store and the lab around it.

The store::

    import zonedb
    with zonedb.open("/tmp/db", write_buffer_size=4 << 20) as db:
        db.put(b"k", b"v")
        assert db.get(b"k") == b"v" and db[b"k"] == b"v" and b"k" in db
        for key, value in db.iter(prefix=b"k", reverse=True): ...

The lab::

    r = zonedb.run("scenarios/default.toml")     # or a dict in the scenario format
    r.metrics["write_amplification"], r.series, r.latency   # dict, DataFrames
    s = zonedb.sweep("sweeps/example.toml")       # local processes, or ray="127.0.0.1:6379"
    s.runs, s.summary                              # DataFrames (runs.parquet, summary.json)
"""

from ._native import (  # noqa: F401
    ClosedError,
    CorruptionError,
    Error,
    ForkedError,
    InvalidArgumentError,
    Iter,
    NoSpaceError,
    Snapshot,
    Store,
    ZoneIOError,
    __version__,
)
from ._store import WriteBatch, open  # noqa: F401,A004
from ._lab import RunResult, StudyResult, run, reproduce  # noqa: F401
from ._sweep import SweepResult, WorkerDied, sweep  # noqa: F401

__all__ = [
    "open",
    "Store",
    "Snapshot",
    "Iter",
    "WriteBatch",
    "run",
    "reproduce",
    "sweep",
    "RunResult",
    "StudyResult",
    "SweepResult",
    "Error",
    "CorruptionError",
    "NoSpaceError",
    "ZoneIOError",
    "InvalidArgumentError",
    "ClosedError",
    "ForkedError",
    "WorkerDied",
]
