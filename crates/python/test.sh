#!/usr/bin/env bash
# The Python package's tests (part of the README's test command): a virtualenv in .venv with
# maturin, pytest, pandas, pyarrow and Ray from PyPI (made when missing), the wheel built
# from the repo and installed into it, then pytest. The CLI tests compare against
# target/$ZONEDB_PROFILE/zonedb (default: the tests' profile, ci; built here if `cargo test
# --profile ci` has not). The wheel is built with the same profile, so nothing compiles twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
venv=${ZONEDB_VENV:-$root/.venv}
start=$(date +%s)
profile=${ZONEDB_PROFILE:-ci}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import maturin, pytest, pandas, pyarrow, ray" 2>/dev/null; then
  echo "python-tests: installing maturin pytest pandas pyarrow ray into $venv"
  "$venv/bin/pip" install --progress-bar on maturin pytest pandas pyarrow ray
fi
echo "python-tests: environment ready in $(( $(date +%s) - start )) s"
# ZONEDB_PYTHON_PREPARE_ONLY=1: stop here (scripts/test.sh prepares while cargo compiles).
if [ -n "${ZONEDB_PYTHON_PREPARE_ONLY:-}" ]; then exit 0; fi
# Build progress is shown: cargo's "Compiling ..." lines and its progress bar (on a
# terminal), then maturin's; a cold build takes minutes.
echo "python-tests: building the CLI (cargo build --profile $profile --bin zonedb)"
cargo build --profile "$profile" --bin zonedb
echo "python-tests: building the wheel (maturin build --profile $profile) at $(( $(date +%s) - start )) s"
rm -rf target/wheels
"$venv/bin/maturin" build --profile "$profile" -m crates/python/Cargo.toml -o target/wheels
"$venv/bin/pip" install -q --force-reinstall --no-deps target/wheels/zonedb-*.whl
echo "python-tests: wheel built and installed at $(( $(date +%s) - start )) s"
# Run from the tests' folder so `import zonedb` is the installed wheel, not the source tree.
cd crates/python/tests
ZONEDB_BIN="$root/target/$profile/zonedb" PATH="$venv/bin:$PATH" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
echo "python-tests: done in $(( $(date +%s) - start )) s"
