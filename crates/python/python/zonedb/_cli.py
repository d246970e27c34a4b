"""The ``zonedb`` console command the wheel installs (``[project.scripts]``): the bundled
command line (``zonedb run``, ``compare``, ``reproduce``, ``sweep``, ``bench``, ...), the
same Rust as the ``zonedb`` binary, run in this process through the extension module."""

import signal
import sys
from typing import List, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``zonedb ARGS...`` (``argv`` without the program name; default
    ``sys.argv[1:]``) and returns its exit status (0 ok, 1 a failed check, 2 an error)."""
    args = sys.argv[1:] if argv is None else list(argv)
    # Ctrl-C ends the command at once, as it does the binary (the Rust side holds no GIL).
    if hasattr(signal, "SIGINT"):
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        except ValueError:  # not the main thread: leave Python's handler
            pass
    sys.stdout.flush()
    return _native.cli_main(["zonedb", *args])


if __name__ == "__main__":
    sys.exit(main())
