#!/usr/bin/env bash
# Real mode, same machine, same run: ZoneDB's `zonedb bench` next to RocksDB's own db_bench
# (Debian's rocksdb-tools, built with assertions), and fjall and RocksDB (the rocksdb crate, on
# Debian's librocksdb 7.8.3) driven by the same harness (`zonedb bench --engine fjall|rocksdb`),
# with identical db_bench flags. Prints a Markdown table of ops/sec and the ZoneDB / RocksDB,
# ZoneDB / fjall and ZoneDB / rocksdb-crate ratios per benchmark and thread count.
#
#   scripts/peer-bench.sh [NUM]        (default NUM=200000; needs `db_bench` on PATH)
#
# The build it makes (when $ZONEDB is missing) needs `apt-get install -y librocksdb-dev
# libclang-dev`; it links that librocksdb dynamically instead of compiling RocksDB:
#   ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu ROCKSDB_INCLUDE_DIR=/usr/include \
#       cargo build --release --features fjall,rocksdb
set -euo pipefail
NUM=${1:-200000}
ZONEDB=${ZONEDB:-target/release/zonedb}
BENCHES=fillrandom,overwrite,readrandom,readwhilewriting
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v db_bench >/dev/null || { echo "db_bench not found (apt-get install rocksdb-tools)" >&2; exit 1; }
[ -x "$ZONEDB" ] || ROCKSDB_LIB_DIR=${ROCKSDB_LIB_DIR:-/usr/lib/x86_64-linux-gnu} \
  ROCKSDB_INCLUDE_DIR=${ROCKSDB_INCLUDE_DIR:-/usr/include} cargo build --release --features fjall,rocksdb
ratio() { awk -v z="${1:-0}" -v r="${2:-0}" 'BEGIN { if (r > 0) printf "%.2f", z / r; else print "n/a" }'; }
ops() { awk -v b="$1" '$1 == b { for (i = 1; i <= NF; i++) if ($(i+1) == "ops/sec") print $i }' "$2"; }
echo "| benchmark | threads | ZoneDB ops/s | RocksDB 7.8.3 ops/s (assertions on) | ZoneDB / RocksDB | fjall 3 ops/s (same harness) | ZoneDB / fjall | rocksdb crate ops/s (same harness) | ZoneDB / rocksdb crate |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for T in 1 2; do
  FLAGS=(--benchmarks=$BENCHES --num=$NUM --reads=$((NUM / 2)) --key_size=16 --value_size=1024
         --threads=$T --seed=1)
  "$ZONEDB" bench --mode real --db "$TMP/zonedb-$T" "${FLAGS[@]}" --scale 1/8 > "$TMP/z.txt"
  db_bench --db="$TMP/rocksdb-$T" "${FLAGS[@]}" --compression_type=none > "$TMP/r.txt" 2>&1
  "$ZONEDB" bench --engine fjall --mode real --db "$TMP/fjall-$T" "${FLAGS[@]}" > "$TMP/f.txt" 2>&1 || true
  "$ZONEDB" bench --engine rocksdb --mode real --db "$TMP/rocks-$T" "${FLAGS[@]}" > "$TMP/k.txt" 2>&1 || true
  for B in ${BENCHES//,/ }; do
    Z=$(ops "$B" "$TMP/z.txt"); R=$(ops "$B" "$TMP/r.txt"); F=$(ops "$B" "$TMP/f.txt")
    K=$(ops "$B" "$TMP/k.txt")
    echo "| $B | $T | ${Z:-n/a} | ${R:-n/a} | $(ratio "$Z" "$R") | ${F:-n/a} | $(ratio "$Z" "$F") | ${K:-n/a} | $(ratio "$Z" "$K") |"
  done
done
