"""The store: ``zonedb.open`` and ``WriteBatch`` around the native ``Store``."""

import os

from . import _native


class WriteBatch:
    """Puts and deletes applied atomically by ``Store.write`` (RocksDB's WriteBatch)."""

    def __init__(self):
        self._ops = []

    def put(self, key: bytes, value: bytes) -> "WriteBatch":
        self._ops.append((_bytes(key, "key"), _bytes(value, "value")))
        return self

    def delete(self, key: bytes) -> "WriteBatch":
        self._ops.append((_bytes(key, "key"), None))
        return self

    def clear(self) -> None:
        self._ops.clear()

    def __len__(self) -> int:
        return len(self._ops)


def _bytes(v, what):
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes, not {type(v).__name__}")
    return bytes(v)


def open(path=None, *, device=None, **options):  # noqa: A001 - the store's verb, as dbm.open
    """Opens (creating when absent) the database in the file-backed zoned device at ``path``,
    or on the Linux zoned block device ``device`` (such as ``/dev/nvme0n1``).

    Options: ``profile`` and ``scale`` (geometry of a new file-backed device; default
    ``splitzns-paper`` at ``1/64``), ``cleaner`` (``zenfs``, ``greedy``, ``none``),
    ``placement`` (``liza``, ``caza``, ...), ``gc_threshold``, and every engine option under
    its RocksDB name (``write_buffer_size``, ``compaction_pri``, ``create_if_missing``, ...).
    Errors are ``zonedb.Error`` subclasses.
    """
    if path is not None:
        path = os.fspath(path)
    if device is not None:
        device = os.fspath(device)
    return _native.open_store(path, device, **options)
