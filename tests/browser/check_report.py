#!/usr/bin/env python3
"""Checks an HTML report of `zonedb compare` in a real headless browser.

    python3 tests/browser/check_report.py REPORT_DIR               # check, screenshot
    python3 tests/browser/check_report.py REPORT_DIR --self-test   # and prove it can fail

Opens REPORT_DIR/compare.html in Debian's Chromium (headless, driven over the DevTools
protocol on a pipe: Python's standard library only) at 1400 px and at a phone's 390 px and
checks at each width that
  - the page never scrolls sideways (document.scrollingElement.scrollWidth <= innerWidth and
    <= the page's client width), and the layout viewport is the width asked for (the viewport
    meta tag is honoured);
  - every <img> loaded (complete and naturalWidth > 0) and fits inside the window;
  - every <table> has a caption (<caption>, or a <figcaption> of its <figure>) and every <img>
    sits in a <figure> with a <figcaption>; no caption reaches past the window's right edge.
A full-page screenshot at each width is saved as REPORT_DIR/screenshot-1400.png and
screenshot-390.png (--shots DIR elsewhere; --shot-height N crops to the top N px).

--self-test then makes broken copies of the report in a temporary directory (an image file
deleted, an image's src changed, the table taken out of its scrolling box, the viewport meta
tag removed) and fails unless the checker reports each one, naming its problem.

The browser is $CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH.
Exit status: 0 when every check passed, 1 when one failed, 2 on a usage or browser error.
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTHS = (1400, 390)
HEIGHTS = {1400: 900, 390: 844}
TIMEOUT_S = 30.0

# Run in the page once it has loaded: waits for every image, then measures.
PROBE = r"""
(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.complete ? null :
    new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })));
  const se = document.scrollingElement || document.documentElement;
  return {
    innerWidth: window.innerWidth,
    clientWidth: se.clientWidth,
    scrollWidth: se.scrollWidth,
    scrollHeight: se.scrollHeight,
    images: imgs.map(i => ({
      src: i.getAttribute('src'),
      complete: i.complete,
      naturalWidth: i.naturalWidth,
      right: i.getBoundingClientRect().right,
      captioned: !!(i.closest('figure') && i.closest('figure').querySelector('figcaption')
                    && i.closest('figure').querySelector('figcaption').textContent.trim()),
    })),
    tables: Array.from(document.querySelectorAll('table')).map(t => {
      const fig = t.closest('figure');
      const cap = t.caption || (fig && fig.querySelector('figcaption'));
      return !!(cap && cap.textContent.trim());
    }),
    // Captions that reach past the window (cut off, or only seen by scrolling sideways).
    cutCaptions: Array.from(document.querySelectorAll('caption, figcaption'))
      .filter(c => c.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map(c => c.textContent.trim().slice(0, 40)),
    // What sticks out of the page: elements past the window's right edge, or whose content
    // overflows them, outside any box that scrolls or clips sideways.
    wide: Array.from(document.body.querySelectorAll('*')).filter(e => {
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') return false;
      return e.getBoundingClientRect().right > window.innerWidth + 0.5
        || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible');
    }).slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')),
  };
})()
"""


class BrowserError(Exception):
    pass


class Browser:
    """Headless Chromium spoken to over --remote-debugging-pipe (fd 3 in, fd 4 out; each
    message one JSON text ended by a NUL byte)."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="zonedb-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Out of the way of fds 3 and 4, which the child gets by dup2 below.
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [
            exe, "--headless", "--remote-debugging-pipe", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--user-data-dir=" + self.profile, "about:blank",
        ]
        self.log = open(os.path.join(self.profile, "chromium.log"), "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, close_fds=False,
                                     preexec_fn=child_fds)
        os.close(hi_r)
        os.close(hi_w)
        self.buf = b""
        self.events = []
        self.next_id = 0

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for the browser")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe (exited %s); its log:\n%s"
                                       % (self.proc.poll(), self.log_text()))
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=TIMEOUT_S):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session, timeout=TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    return self.events.pop(i)
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)

    def log_text(self):
        self.log.flush()
        try:
            return Path(self.log.name).read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def measure(self, html, width, shot=None, shot_height=None):
        """Opens `html` in a new tab `width` CSS px wide (a phone's, touch and the viewport
        meta tag honoured, under 800 px); returns PROBE's result. Saves a full-page PNG (or
        the top `shot_height` px) to `shot`."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        try:
            self.call("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": HEIGHTS.get(width, 900),
                "deviceScaleFactor": 1, "mobile": width < 800,
            }, session)
            self.call("Page.enable", {}, session)
            nav = self.call("Page.navigate", {"url": Path(html).resolve().as_uri()}, session)
            if nav.get("errorText"):
                raise BrowserError("navigate to %s: %s" % (html, nav["errorText"]))
            self.wait_event("Page.loadEventFired", session)
            r = self.call("Runtime.evaluate", {"expression": PROBE, "awaitPromise": True,
                                                "returnByValue": True}, session)
            if "exceptionDetails" in r:
                raise BrowserError("probe: %s" % r["exceptionDetails"])
            probe = r["result"]["value"]
            if shot:
                height = probe["scrollHeight"]
                if shot_height:
                    height = min(height, shot_height)
                png = self.call("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
                }, session)["data"]
                Path(shot).parent.mkdir(parents=True, exist_ok=True)
                Path(shot).write_bytes(base64.b64decode(png))
            return probe
        finally:
            self.call("Target.closeTarget", {"targetId": target})


def problems(probe, width):
    """What is wrong with the page at `width`, one line each (empty: nothing)."""
    out = []
    iw, cw, sw = probe["innerWidth"], probe["clientWidth"], probe["scrollWidth"]
    if iw != width:
        out.append("layout viewport is %d px, not %d (viewport meta tag missing, or the page "
                   "is wider than the screen)" % (iw, width))
    if sw > iw or sw > cw:
        out.append("page scrolls sideways: scrollWidth %d > innerWidth %d / clientWidth %d "
                   "(too wide: %s)" % (sw, iw, cw, ", ".join(probe["wide"]) or "?"))
    if not probe["images"]:
        out.append("no <img> in the page")
    for img in probe["images"]:
        if not img["complete"] or img["naturalWidth"] <= 0:
            out.append("image did not load: %s (complete %s, naturalWidth %d)"
                       % (img["src"], img["complete"], img["naturalWidth"]))
        elif img["right"] > iw + 0.5:
            out.append("image wider than the window: %s (right edge %.0f px)"
                       % (img["src"], img["right"]))
        if not img["captioned"]:
            out.append("image without a <figure> and <figcaption>: %s" % img["src"])
    for k, ok in enumerate(probe["tables"]):
        if not ok:
            out.append("table %d has no <caption> (nor a <figcaption> in its <figure>)" % (k + 1))
    for c in probe["cutCaptions"]:
        out.append("caption reaches past the window: %r..." % c)
    return out


def check(browser, report_dir, shots=None, shot_height=None):
    """Every problem of REPORT_DIR/compare.html at each width, prefixed by the width."""
    html = Path(report_dir) / "compare.html"
    if not html.is_file():
        return ["%s: no such file" % html]
    out = []
    for w in WIDTHS:
        shot = Path(shots) / ("screenshot-%d.png" % w) if shots else None
        probe = browser.measure(html, w, shot, shot_height)
        out += ["%d px: %s" % (w, p) for p in problems(probe, w)]
    return out


def broken_copies(report_dir, tmp):
    """(name, directory, text the checker's report must contain) of each broken copy."""
    src = Path(report_dir)
    html = (src / "compare.html").read_text()
    imgs = [s.split('"', 1)[0] for s in html.split('<img src="')[1:]]
    if len(imgs) < 2:
        raise SystemExit("check_report: %s has fewer than two <img>" % src)
    cases = []

    def copy(name):
        d = Path(tmp) / name
        shutil.copytree(src, d, ignore=shutil.ignore_patterns("screenshot-*.png"))
        return d

    d = copy("image-deleted")
    (d / imgs[0]).unlink()
    cases.append(("an image file deleted", d, "image did not load: " + imgs[0]))

    d = copy("image-src-changed")
    (d / "compare.html").write_text(html.replace('src="%s"' % imgs[1],
                                                 'src="missing-%s"' % imgs[1], 1))
    cases.append(("an image's src changed", d, "image did not load: missing-" + imgs[1]))

    d = copy("table-unboxed")
    if '<div class="scroll">' not in html:
        raise SystemExit("check_report: %s has no <div class=\"scroll\">" % src)
    (d / "compare.html").write_text(html.replace('<div class="scroll">', "<div>", 1))
    cases.append(("its table out of its scrolling box", d, "390 px: page scrolls sideways"))

    d = copy("no-viewport-meta")
    start = html.index('<meta name="viewport"')
    end = html.index(">", start) + 1
    (d / "compare.html").write_text(html[:start] + html[end:])
    cases.append(("the viewport meta tag removed", d, "390 px: layout viewport is"))
    return cases


def find_browser():
    for name in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report_dir")
    ap.add_argument("--self-test", action="store_true",
                    help="also check broken copies of the report and fail unless each fails")
    ap.add_argument("--shots", help="where the screenshots go (default: REPORT_DIR)")
    ap.add_argument("--shot-height", type=int, help="crop the screenshots to the top N px")
    a = ap.parse_args()
    exe = find_browser()
    if not exe:
        print("check_report: no Chromium found (apt-get install chromium, or set CHROMIUM)",
              file=sys.stderr)
        return 2
    start = time.monotonic()
    browser = Browser(exe)
    failed = False
    try:
        found = check(browser, a.report_dir, a.shots or a.report_dir, a.shot_height)
        for p in found:
            print("check_report: FAIL %s: %s" % (a.report_dir, p))
        if found:
            failed = True
        else:
            print("check_report: ok %s at %s px (screenshots in %s)"
                  % (a.report_dir, " and ".join(map(str, WIDTHS)), a.shots or a.report_dir))
        if a.self_test:
            with tempfile.TemporaryDirectory(prefix="zonedb-broken-report-") as tmp:
                for name, d, expect in broken_copies(a.report_dir, tmp):
                    got = check(browser, d)
                    if any(expect in p for p in got):
                        print("check_report: ok, the checker fails a report with %s (%s)"
                              % (name, "; ".join(got)))
                    else:
                        failed = True
                        print("check_report: FAIL the checker missed %s: expected a problem "
                              "containing %r, got %s" % (name, expect, got or "none"))
    except BrowserError as e:
        print("check_report: browser error: %s" % e, file=sys.stderr)
        return 2
    finally:
        browser.close()
    print("check_report: %s in %.1f s" % ("FAILED" if failed else "passed",
                                          time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
