#!/usr/bin/env bash
# Real mode, same machine, same run: ZoneDB's `zonedb bench` next to RocksDB's own db_bench
# (Debian's rocksdb-tools, built with assertions) and fjall driven by the same harness
# (`zonedb bench --engine fjall`), with identical db_bench flags. Prints a Markdown table of
# ops/sec and the ZoneDB / RocksDB and ZoneDB / fjall ratios per benchmark and thread count.
#
#   scripts/peer-bench.sh [NUM]        (default NUM=200000; needs `db_bench` on PATH)
set -euo pipefail
NUM=${1:-200000}
ZONEDB=${ZONEDB:-target/release/zonedb}
BENCHES=fillrandom,overwrite,readrandom,readwhilewriting
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v db_bench >/dev/null || { echo "db_bench not found (apt-get install rocksdb-tools)" >&2; exit 1; }
[ -x "$ZONEDB" ] || cargo build --release --features fjall
ratio() { awk -v z="${1:-0}" -v r="${2:-0}" 'BEGIN { if (r > 0) printf "%.2f", z / r; else print "n/a" }'; }
ops() { awk -v b="$1" '$1 == b { for (i = 1; i <= NF; i++) if ($(i+1) == "ops/sec") print $i }' "$2"; }
echo "| benchmark | threads | ZoneDB ops/s | RocksDB 7.8.3 ops/s (assertions on) | ZoneDB / RocksDB | fjall 3 ops/s (same harness) | ZoneDB / fjall |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for T in 1 2; do
  FLAGS=(--benchmarks=$BENCHES --num=$NUM --reads=$((NUM / 2)) --key_size=16 --value_size=1024
         --threads=$T --seed=1)
  "$ZONEDB" bench --mode real --db "$TMP/zonedb-$T" "${FLAGS[@]}" --scale 1/8 > "$TMP/z.txt"
  db_bench --db="$TMP/rocksdb-$T" "${FLAGS[@]}" --compression_type=none > "$TMP/r.txt" 2>&1
  "$ZONEDB" bench --engine fjall --mode real --db "$TMP/fjall-$T" "${FLAGS[@]}" > "$TMP/f.txt" 2>&1 || true
  for B in ${BENCHES//,/ }; do
    Z=$(ops "$B" "$TMP/z.txt"); R=$(ops "$B" "$TMP/r.txt"); F=$(ops "$B" "$TMP/f.txt")
    echo "| $B | $T | ${Z:-n/a} | ${R:-n/a} | $(ratio "$Z" "$R") | ${F:-n/a} | $(ratio "$Z" "$F") |"
  done
done
