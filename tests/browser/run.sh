#!/usr/bin/env bash
# The HTML report in a real browser (part of scripts/test.sh): `zonedb compare` on a tiny
# scenario (tiny.toml), then check_report.py opens its compare.html in headless Chromium at
# 1400 px and 390 px: no sideways scrolling of the page, every <img> loaded, every table and
# figure captioned; saves a screenshot at each width into the report directory; then checks
# broken copies of the report (an image deleted, an image's src changed, the table out of its
# scrolling box, no viewport tag) and fails unless the checker fails each. Needs python3 and
# Debian's chromium (.ci/run installs it). A few seconds.
#
#   bash tests/browser/run.sh                 # with target/ci/zonedb (built when missing)
#   ZONEDB_BIN=path bash tests/browser/run.sh # with a built binary
#
# The report and screenshots: target/browser-report/report/ (screenshot-1400.png, -390.png).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${ZONEDB_BROWSER_WORK:-$ROOT/target/browser-report}"
BIN="${ZONEDB_BIN:-}"
if [ -z "$BIN" ]; then
    PROFILE="${ZONEDB_PROFILE:-ci}"
    (cd "$ROOT" && cargo build --profile "$PROFILE" --bin zonedb -q)
    BIN="$ROOT/target/$PROFILE/zonedb"
fi
rm -rf "$WORK"
mkdir -p "$WORK"
if ! "$BIN" compare "$HERE/tiny.toml" --out "$WORK/report" >"$WORK/compare.log" 2>&1; then
    echo "browser: zonedb compare failed:" >&2
    cat "$WORK/compare.log" >&2
    exit 1
fi
python3 "$HERE/check_report.py" "$WORK/report" --self-test
