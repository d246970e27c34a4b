#!/usr/bin/env bash
# The README's test command (what .ci/run runs after fmt and clippy):
#   1. the workspace's tests, built with the tests' profile (`cargo test --workspace --profile
#      ci`: one integration-test binary per crate, tests/it/, and the doctests), then the Rust
#      examples (examples/), while the QEMU test's packages and kernel and the Python
#      virtualenv are fetched in the background;
#   2. then, side by side, the end-to-end test on QEMU's emulated NVMe ZNS namespace
#      (tests/qemu-zns/run.sh) and the Python package's tests (crates/python/test.sh), both on
#      the binary step 1 built; their logs are printed whole when both have finished.
#   Between the two, the HTML report is checked in headless Chromium (tests/browser/run.sh).
# Exits non-zero when any part fails. Extra arguments go to `cargo test` (after `--` they go to
# the test binaries): `bash scripts/test.sh -p zonedb-lsm` is still the whole command;
# for one crate alone use `cargo test --profile ci -p zonedb-lsm` (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
logs=target/test-logs
mkdir -p "$logs"
stamp() { echo "test: $* at $(( $(date +%s) - start )) s" >&2; }

ZONEDB_QEMU_PREPARE_ONLY=1 bash tests/qemu-zns/run.sh >"$logs/qemu-prepare.log" 2>&1 &
qemu_prep=$!
ZONEDB_PYTHON_PREPARE_ONLY=1 bash crates/python/test.sh >"$logs/python-prepare.log" 2>&1 &
py_prep=$!

status=0
cargo test --workspace --profile ci "$@" || status=$?
stamp "cargo test finished (status $status)"

# The Rust examples (examples/; cargo test built them): each runs in well under a second;
# zoned_block_device without a device only prints its usage.
if [ "$status" -eq 0 ]; then
    cargo build --profile ci --examples -q || status=$?
    for ex in quickstart batch_snapshot_range simulated_study zoned_block_device; do
        [ "$status" -eq 0 ] || break
        if ! "target/ci/examples/$ex" >"$logs/example-$ex.log" 2>&1; then
            echo "---- example $ex failed ($logs/example-$ex.log)" >&2
            cat "$logs/example-$ex.log" >&2
            status=1
        fi
    done
    stamp "examples finished (status $status)"
fi

# The HTML report in headless Chromium at 1400 and 390 px, on a report the binary just built
# wrote (tests/browser/run.sh; a few seconds): no sideways page scroll, every image loaded,
# captions; broken copies of the report must fail the check.
if [ "$status" -eq 0 ]; then
    if ZONEDB_BIN="$PWD/target/ci/zonedb" bash tests/browser/run.sh >"$logs/browser.log" 2>&1; then
        cat "$logs/browser.log"
    else
        echo "---- tests/browser/run.sh failed ($logs/browser.log)" >&2
        cat "$logs/browser.log" >&2
        status=1
    fi
    stamp "browser check finished (status $status)"
fi

wait "$qemu_prep" || { cat "$logs/qemu-prepare.log" >&2; status=1; }
wait "$py_prep" || { cat "$logs/python-prepare.log" >&2; status=1; }
if [ "$status" -ne 0 ]; then exit "$status"; fi

ZONEDB_BIN="$PWD/target/ci/zonedb" bash tests/qemu-zns/run.sh >"$logs/qemu.log" 2>&1 &
qemu=$!
bash crates/python/test.sh >"$logs/python.log" 2>&1 &
py=$!
qemu_status=0; py_status=0
wait "$qemu" || qemu_status=$?
stamp "QEMU test finished (status $qemu_status)"
wait "$py" || py_status=$?
stamp "Python tests finished (status $py_status)"
echo "---- tests/qemu-zns/run.sh ($logs/qemu.log)"
cat "$logs/qemu.log"
echo "---- crates/python/test.sh ($logs/python.log)"
cat "$logs/python.log"
stamp "done"
[ "$qemu_status" -eq 0 ] && [ "$py_status" -eq 0 ]
