#!/usr/bin/env bash
# Fingerprints of the measured outputs: a SHA-256 of each JSON with every "host" object (wall-clock
# figures) removed, so a refactoring can show that nothing measured moved.
# Usage: scripts/fingerprint.sh [BIN] [OUTDIR] [quick|all]
#   quick: compare, reproduce oaza, three device benches, and splitzns, hhzs and znsplus at tiny
#          scale (every device family: split zones, tiers, in-device copy; about 2-3 min on 2 cores)
#   all:   also reproduce same-zone (about 3-4 min more)
set -euo pipefail
bin="${1:-target/release/zonedb}"
out="${2:-target/fingerprint}"
what="${3:-all}"
mkdir -p "$out"
strip() { jq -S 'walk(if type == "object" then del(.host) else . end)' "$1"; }
run() { # name, command...
  local name="$1"; shift
  "$@" >"$out/$name.json"
  printf '%s  %s\n' "$(strip "$out/$name.json" | sha256sum | cut -c1-64)" "$name"
}
"$bin" compare --out "$out/compare" >/dev/null
printf '%s  %s\n' "$(strip "$out/compare/compare.json" | sha256sum | cut -c1-64)" compare
run oaza "$bin" reproduce oaza --json --out "$out/oaza"
run device-seq-write "$bin" device bench --profile splitzns-paper --scale 1/8 --workload seq-write --qd 4 --zones 8 --json
run device-rand-read "$bin" device bench --profile splitzns-paper --scale 1/8 --workload rand-read --qd 32 --zones 8 --ops 200000 --json
run device-mixed "$bin" device bench --profile caza-paper --scale 1/64 --workload mixed --qd 8 --zones 8 --ops 100000 --json
for study in splitzns hhzs znsplus; do
  run "$study-tiny" "$bin" reproduce "$study" --scale tiny --claims --json --out "$out/$study-tiny"
done
if [ "$what" = all ]; then
  run same-zone "$bin" reproduce same-zone --json --out "$out/same-zone"
fi
