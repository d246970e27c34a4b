"""Progress of a long simulation, in terminals and Jupyter: tqdm's bar (``tqdm.auto`` picks
the notebook widget or the terminal line) when tqdm is installed, else a line on stderr
redrawn in place (Jupyter shows stderr under the cell)."""

import sys
import time


class Progress:
    """A callable ``(done, total)`` the native side calls from its progress thread."""

    def __init__(self, label, enabled=True):
        self.label = label
        self.enabled = enabled
        self._bar = None
        self._last = 0.0
        self._start = time.monotonic()
        self._shown = False

    def __call__(self, done, total):
        if not self.enabled or total == 0:
            return
        if self._bar is None:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=self.label, unit="op", unit_scale=True)
            else:
                self._bar = False
        if self._bar:
            self._bar.total = total
            self._bar.n = done
            self._bar.refresh()
            return
        now = time.monotonic()
        if now - self._last < 1.0 and done < total:
            return
        self._last = now
        spent = now - self._start
        rate = done / spent if spent > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("nan")
        sys.stderr.write(
            f"\r{self.label}: {done}/{total} ops ({100.0 * done / total:.1f}%), "
            f"{rate:,.0f} sim ops/wall s, ETA {eta:.0f} s"
        )
        sys.stderr.flush()
        self._shown = True

    def close(self):
        if self._bar:
            self._bar.close()
        elif self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
