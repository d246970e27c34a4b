#!/usr/bin/env bash
# Real mode, same machine, same run: ZoneDB's `zonedb bench` next to RocksDB's own db_bench
# (Debian's rocksdb-tools 7.8.3, built with assertions), and fjall 3 and RocksDB (the rocksdb
# crate, on Debian's librocksdb 7.8.3) driven by the same harness (`zonedb bench --engine
# fjall|rocksdb`), with identical db_bench flags and one durability contract: every
# acknowledged write is in the OS (it survives a crash of the process), none is fsynced
# (docs/benchmarks.md lists how each store gets there).
#
#   scripts/peer-bench.sh [NUM [CSV]]
#
#   NUM      operations per thread (default 200000; --reads is NUM/2)
#   CSV      where every raw run goes (default $OUT, else peer-bench-runs.csv): one line per
#            run, store, thread count and benchmark
#   RUNS     repetitions of each store and thread count (default 5), interleaved: run 1 of
#            every store (ZoneDB, db_bench, fjall, rocksdb crate) at 1 then 2 threads, then
#            run 2, ..., so machine noise spreads over all stores
#   THREADS  thread counts (default "1 2")
#   PAUSE    PIDs to SIGSTOP while measuring (e.g. a long simulation on the same cores); they
#            get SIGCONT when the script ends, however it ends
#   ZONEDB   the binary (default target/release/zonedb, built with --features fjall,rocksdb
#            when missing)
#
# Prints a Markdown table: per benchmark and thread count, each store's median ops/sec over
# the runs with its range (min-max), and the ratios of ZoneDB's median to each peer's.
#
# Needs `db_bench` (apt-get install -y rocksdb-tools). The build it makes (when $ZONEDB is
# missing) needs `apt-get install -y librocksdb-dev libclang-dev`; it links that librocksdb
# dynamically instead of compiling RocksDB:
#   ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu ROCKSDB_INCLUDE_DIR=/usr/include \
#       cargo build --release --features fjall,rocksdb
set -euo pipefail
NUM=${1:-200000}
CSV=${2:-${OUT:-peer-bench-runs.csv}}
RUNS=${RUNS:-5}
THREADS=${THREADS:-1 2}
PAUSE=${PAUSE:-}
ZONEDB=${ZONEDB:-target/release/zonedb}
BENCHES=fillrandom,overwrite,readrandom,readwhilewriting
STORES="zonedb db_bench fjall rocksdb"
TMP=$(mktemp -d)
cleanup() {
  for p in $PAUSE; do kill -CONT "$p" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
command -v db_bench >/dev/null || { echo "db_bench not found (apt-get install -y rocksdb-tools)" >&2; exit 1; }
if [ ! -x "$ZONEDB" ]; then
  ROCKSDB_LIB_DIR=${ROCKSDB_LIB_DIR:-/usr/lib/x86_64-linux-gnu} \
    ROCKSDB_INCLUDE_DIR=${ROCKSDB_INCLUDE_DIR:-/usr/include} \
    cargo build --release --features fjall,rocksdb
fi

# One run of store $1 with $2 threads; its output in $3.
run() {
  local s=$1 t=$2 out=$3 db="$TMP/$1-$2"
  local flags=(--benchmarks=$BENCHES --num=$NUM --reads=$((NUM / 2)) --key_size=16
               --value_size=1024 --threads=$t --seed=1)
  rm -rf "$db"
  case $s in
    zonedb) "$ZONEDB" bench --mode real --db "$db" "${flags[@]}" --scale 1/8 ;;
    db_bench) db_bench --db="$db" "${flags[@]}" --compression_type=none ;;
    fjall | rocksdb) "$ZONEDB" bench --engine "$s" --mode real --db "$db" "${flags[@]}" ;;
  esac > "$out" 2>&1 || echo "$s, $t threads: exit $? (see its output below)" >&2
  rm -rf "$db"
}
# ops/sec of benchmark $1 in the output file $2.
ops() { awk -v b="$1" '$1 == b { for (i = 1; i < NF; i++) if ($(i+1) == "ops/sec") print $i }' "$2"; }

for p in $PAUSE; do kill -STOP "$p"; done
echo "store,threads,run,benchmark,ops_per_sec" > "$CSV"
for R in $(seq 1 "$RUNS"); do
  for T in $THREADS; do
    for S in $STORES; do
      run "$S" "$T" "$TMP/out.txt"
      for B in ${BENCHES//,/ }; do
        V=$(ops "$B" "$TMP/out.txt" | head -1)
        [ -n "$V" ] || { echo "$S, $T threads, run $R: no $B result" >&2; cat "$TMP/out.txt" >&2; V=NA; }
        echo "$S,$T,$R,$B,$V" >> "$CSV"
      done
      echo "run $R/$RUNS, $T threads, $S done" >&2
    done
  done
done
for p in $PAUSE; do kill -CONT "$p" 2>/dev/null || true; done

# Median, min and max per store, thread count and benchmark: "store threads bench med min max n".
tail -n +2 "$CSV" | awk -F, '$5 != "NA"' | sort -t, -k1,1 -k2,2n -k4,4 -k5,5g | awk -F, '
  function flush() {
    if (n == 0) return
    m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    printf "%s %s %s %.0f %.0f %.0f %d\n", key[1], key[2], key[3], m, v[1], v[n], n
  }
  { k = $1 " " $2 " " $4
    if (k != prev) { flush(); n = 0; prev = k; split(k, key, " ") }
    v[++n] = $5 }
  END { flush() }' > "$TMP/stats.txt"

cell() { awk -v s="$1" -v t="$2" -v b="$3" '$1 == s && $2 == t && $3 == b {
  printf "%d (%d–%d)", $4, $5, $6; if ($7 != n) printf " n=%d", $7 }' n="$RUNS" "$TMP/stats.txt"; }
med() { awk -v s="$1" -v t="$2" -v b="$3" '$1 == s && $2 == t && $3 == b { print $4 }' "$TMP/stats.txt"; }
ratio() { awk -v z="${1:-0}" -v r="${2:-0}" 'BEGIN { if (r > 0) printf "%.2f", z / r; else print "n/a" }'; }
echo "| benchmark | threads | ZoneDB ops/s | RocksDB 7.8.3 db_bench ops/s (assertions on) | ZoneDB / db_bench | fjall 3 ops/s (same harness) | ZoneDB / fjall | rocksdb crate ops/s (same harness) | ZoneDB / rocksdb crate |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for T in $THREADS; do
  for B in ${BENCHES//,/ }; do
    Z=$(med zonedb "$T" "$B")
    row="| $B | $T | $(cell zonedb "$T" "$B")"
    for S in db_bench fjall rocksdb; do
      row="$row | $(cell "$S" "$T" "$B") | $(ratio "$Z" "$(med "$S" "$T" "$B")")"
    done
    echo "$row |"
  done
done
echo
echo "Medians of $RUNS runs, range (min–max) in parentheses; ratios are of medians. Raw runs: $CSV"
