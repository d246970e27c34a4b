#!/usr/bin/env bash
# Fuzzes every on-device decoder with cargo-fuzz (libFuzzer; needs a nightly toolchain and
# `cargo install cargo-fuzz`). Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Each target stops at SECONDS_PER_TARGET or FUZZ_RUNS executions (default 10,000,000),
# whichever comes first. FUZZ_SANITIZER=address runs under ASan (about 8x slower; the
# default, none, suits decoders in crates that forbid unsafe code).
# Seeds come from fuzz/corpus/<target>/ (read only); new inputs go to target/fuzz-corpus/,
# crashes to fuzz/artifacts/<target>/. Prints one line per target: runs, seconds, crashes.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
san="${FUZZ_SANITIZER:-none}"
runs_max="${FUZZ_RUNS:-10000000}"
cargo +nightly fuzz build --release -s "$san" >/dev/null 2>&1
printf '%-16s %14s %8s %8s %8s\n' target runs seconds runs/s crashes
fail=0
for t in "${targets[@]}"; do
  work="../target/fuzz-corpus/$t"
  mkdir -p "$work" "artifacts/$t"
  log="../target/fuzz-corpus/$t.log"
  set +e
  cargo +nightly fuzz run --release -s "$san" "$t" "$work" "corpus/$t" -- \
    -max_total_time="$secs" -runs="$runs_max" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$secs")
  crashes=$(find "artifacts/$t" -type f | wc -l)
  [ "$rc" -ne 0 ] && fail=1
  printf '%-16s %14s %8s %8s %8s\n' "$t" "${runs:-0}" "$took" "$(( ${runs:-0} / (took > 0 ? took : 1) ))" "$crashes"
done
exit "$fail"
