"""The store: ``zonedb.open`` and ``WriteBatch`` around the native ``Store``.

Lifecycle: a store closes on ``close()`` (or leaving ``with``), when it is garbage
collected, and at interpreter exit: ``_close_open_stores`` (an atexit hook) closes every
store still open in ``_open_stores`` (a weak set, so it keeps none alive). Closing at exit
gives up after 30 s rather than hang. ``os._exit`` skips both; then what survives is what
each write already handed to the OS. After ``os.fork()`` the child lets go of the stores
it inherited (their calls raise ``ForkedError``) and may open them anew.
"""

import atexit
import os
import sys
import weakref
from typing import List, Optional, Tuple, Union

from . import _native
from ._native import Store

#: A key or value: bytes (or a bytearray or memoryview, copied).
BytesLike = Union[bytes, bytearray, memoryview]
#: A path: a string or an ``os.PathLike``.
PathLike = Union[str, "os.PathLike[str]"]

_open_stores = weakref.WeakSet()


def _close_open_stores() -> None:
    for db in list(_open_stores):
        try:
            db._close_at_exit()
        except Exception as e:  # noqa: BLE001 - reported, the exit goes on
            sys.stderr.write(f"zonedb: closing {db!r} at exit: {e}\n")


atexit.register(_close_open_stores)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_native._after_fork)


class WriteBatch:
    """Puts and deletes applied atomically by ``Store.write`` (RocksDB's WriteBatch); each
    method returns the batch, so calls chain: ``WriteBatch().put(b"a", b"1").delete(b"b")``.
    """

    def __init__(self) -> None:
        """An empty batch."""
        self._ops: List[Tuple[bytes, Optional[bytes]]] = []

    def put(self, key: BytesLike, value: BytesLike) -> "WriteBatch":
        """Adds a put of ``key`` = ``value``."""
        self._ops.append((_bytes(key, "key"), _bytes(value, "value")))
        return self

    def delete(self, key: BytesLike) -> "WriteBatch":
        """Adds a delete of ``key``."""
        self._ops.append((_bytes(key, "key"), None))
        return self

    def clear(self) -> None:
        """Empties the batch."""
        self._ops.clear()

    def __len__(self) -> int:
        """The number of puts and deletes."""
        return len(self._ops)


def _bytes(v: BytesLike, what: str) -> bytes:
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes, not {type(v).__name__}")
    return bytes(v)


def open(  # noqa: A001 - the store's verb, as dbm.open
    path: Optional[PathLike] = None,
    *,
    device: Optional[PathLike] = None,
    **options: Union[int, float, bool, str],
) -> Store:
    """Opens (creating when absent) the database in the file-backed zoned device at ``path``,
    or on the Linux zoned block device ``device`` (such as ``/dev/nvme0n1``).

    Options: ``profile`` and ``scale`` (geometry of a new file-backed device; default
    ``splitzns-paper`` at ``1/64``), ``cleaner`` (``zenfs``, ``greedy``, ``none``),
    ``placement`` (``liza``, ``caza``, ...), ``gc_threshold``, and every engine option under
    its RocksDB name (``write_buffer_size``, ``compaction_pri``, ``create_if_missing``, ...).
    Errors are ``zonedb.Error`` subclasses.

    The store is a mapping of bytes to bytes (``db[k]``, ``db[k] = v``, ``del db[k]``,
    ``k in db``, ``for k in db``) with ``get``/``put``/``delete``/``write``, ``iter`` (ranges,
    ``prefix=``, ``reverse=True``), ``snapshot`` and ``close``; use it in ``with``.
    The store closes itself when garbage collected and at interpreter exit; it belongs to
    this process (in a ``fork()`` child, open it again).
    """
    if path is not None:
        path = os.fspath(path)
    if device is not None:
        device = os.fspath(device)
    db = _native.open_store(path, device, **options)
    _open_stores.add(db)
    return db
