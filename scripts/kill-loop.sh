#!/usr/bin/env bash
# Real-mode kill loop on a file-backed zoned device: each cycle runs a synced writer
# (`zonedb crashtest write`, its own key prefix and acknowledgement log), SIGKILLs it at a
# random instant, then checks that
#   - the database holds every acknowledged synced write of the cycle (`crashtest verify`:
#     exactly an op prefix at least as long as the log, at most one op longer);
#   - the zone file layer is consistent (`zonedb fs fsck`, read-only);
#   - the device directory's disk usage (`du -B1`) is at most 5 % above what its zones hold
#     (sum of write pointers past zone starts, `fs df --json`'s zone_written_bytes) plus its
#     metadata files: zone resets must give space back.
# Every CHECK_EVERY cycles and at the end, every earlier cycle's prefix is verified again.
# Exits 1 on a lost synced write, an fsck problem or du beyond 5 %; prints a summary.
#
#   scripts/kill-loop.sh [-n CYCLES] [-s SEED] [-d DIR] [--min-ms MS] [--max-ms MS]
#                        [--check-every N] [--keep] [--unsynced]
#
# --unsynced: the writer does not sync (`crashtest write --unsynced`): each acknowledged op
# reached the OS before it was acknowledged (manual_wal_flush = false), so a SIGKILL loses
# none of them either.
#
# Defaults: 100 cycles, seed 1, kills 300-2500 ms after the writer starts, a fresh temporary
# directory (removed at the end unless --keep or -d). ZONEDB names the binary
# (default target/release/zonedb, built when missing); PROFILE and SCALE the device geometry
# (default splitzns-paper at 1/16: 160 zones of 32 MiB, a sparse 5.4 GB DATA file; the
# crash workload runs without a zone cleaner, so garbage stays in zones until they hold no
# live data: 100 cycles fill about 1.3 GB).
set -euo pipefail

CYCLES=100
SEED=1
DIR=
MIN_MS=300
MAX_MS=2500
CHECK_EVERY=25
KEEP=0
UNSYNCED=
while [ $# -gt 0 ]; do
  case "$1" in
    -n) CYCLES=$2; shift 2 ;;
    -s) SEED=$2; shift 2 ;;
    -d) DIR=$2; KEEP=1; shift 2 ;;
    --min-ms) MIN_MS=$2; shift 2 ;;
    --max-ms) MAX_MS=$2; shift 2 ;;
    --check-every) CHECK_EVERY=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --unsynced) UNSYNCED=--unsynced; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "kill-loop: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ "$MAX_MS" -gt "$MIN_MS" ] || { echo "kill-loop: --max-ms must exceed --min-ms" >&2; exit 2; }

ZONEDB=${ZONEDB:-target/release/zonedb}
PROFILE=${PROFILE:-splitzns-paper}
SCALE=${SCALE:-1/16}
[ -x "$ZONEDB" ] || cargo build --release
if [ -z "$DIR" ]; then DIR=$(mktemp -d); fi
mkdir -p "$DIR"
DEV=$DIR/dev
LOGS=$DIR/acks
WRITER_PID=
cleanup() {
  if [ -n "$WRITER_PID" ]; then kill -9 "$WRITER_PID" 2>/dev/null || true; fi
  if [ "$KEEP" = 0 ]; then rm -rf "$DIR"; fi
}
trap cleanup EXIT
rm -rf "$DEV" "$LOGS"
mkdir -p "$LOGS"

RANDOM=$SEED
START=$(date +%s.%N)
FAILURES=0
ACKED_TOTAL=0
FSCK_CLEAN=0
MAX_RATIO=0
LAST_DU=0
LAST_EXPECTED=0
fail() { echo "kill-loop: FAILED: $*"; FAILURES=$((FAILURES + 1)); }

# The device and the file system, before any kill (a writer killed inside mkfs is not the
# subject here).
"$ZONEDB" crashtest write --dir "$DEV" --profile "$PROFILE" --scale "$SCALE" \
  --ack "$LOGS/init" --prefix init --count 1 --fresh > /dev/null

# Checks one cycle's prefix; extra arguments go to crashtest verify.
verify() {
  local c=$1; shift
  local out
  if ! out=$("$ZONEDB" crashtest verify --dir "$DEV" --ack "$LOGS/$c" --prefix "c$c-" "$@" 2>&1); then
    fail "cycle $c: $out"
    return 1
  fi
}

space_check() {
  local c=$1 df written meta du
  df=$("$ZONEDB" fs df --dir "$DEV" --json)
  written=$(printf '%s\n' "$df" | sed -n 's/.*"zone_written_bytes": *\([0-9]*\).*/\1/p')
  # Metadata files, in whole 4 KiB blocks.
  meta=0
  for f in HEADER ZONES LOCK; do
    meta=$((meta + ($(stat -c %s "$DEV/$f") + 4095) / 4096 * 4096))
  done
  du=$(du -B1 -s "$DEV" | cut -f1)
  LAST_DU=$du
  LAST_EXPECTED=$((written + meta))
  local ratio
  ratio=$(awk -v d="$du" -v e="$LAST_EXPECTED" 'BEGIN { printf "%.4f", d / e }')
  MAX_RATIO=$(awk -v a="$MAX_RATIO" -v b="$ratio" 'BEGIN { print (b > a) ? b : a }')
  if awk -v r="$ratio" 'BEGIN { exit !(r > 1.05) }'; then
    fail "cycle $c: du $du bytes is ${ratio}x the $LAST_EXPECTED bytes the zones and metadata hold"
  fi
}

for c in $(seq 1 "$CYCLES"); do
  : > "$LOGS/$c"
  "$ZONEDB" crashtest write --dir "$DEV" --ack "$LOGS/$c" --prefix "c$c-" $UNSYNCED > /dev/null 2>&1 &
  WRITER_PID=$!
  ms=$((MIN_MS + RANDOM % (MAX_MS - MIN_MS)))
  sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
  kill -9 "$WRITER_PID" 2>/dev/null || true
  wait "$WRITER_PID" 2>/dev/null || true
  WRITER_PID=
  acked=$(awk 'NF { last = $1 } END { print last + 0 }' "$LOGS/$c")
  ACKED_TOTAL=$((ACKED_TOTAL + acked))
  verify "$c" || true
  if fsck=$("$ZONEDB" fs fsck --dir "$DEV" 2>&1); then
    FSCK_CLEAN=$((FSCK_CLEAN + 1))
  else
    fail "cycle $c: fsck: $fsck"
  fi
  space_check "$c"
  echo "cycle $c: killed after $ms ms, $acked acked; du $LAST_DU vs $LAST_EXPECTED bytes held"
  if [ $((c % CHECK_EVERY)) = 0 ] || [ "$c" = "$CYCLES" ]; then
    for p in $(seq 1 "$c"); do verify "$p" || true; done
    echo "cycle $c: every prefix so far verified again"
  fi
done

WALL=$(awk -v s="$START" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
KIND=synced; [ -n "$UNSYNCED" ] && KIND=unsynced
echo "kill-loop: $CYCLES cycles (seed $SEED), $ACKED_TOTAL acknowledged $KIND writes," \
  "$FAILURES failures; fsck clean $FSCK_CLEAN/$CYCLES; du $LAST_DU bytes vs $LAST_EXPECTED held" \
  "(largest du/held ${MAX_RATIO}); wall ${WALL} s"
if [ "$FAILURES" -gt 0 ]; then exit 1; fi
