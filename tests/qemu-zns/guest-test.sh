#!/bin/sh
# The test inside the QEMU guest (/test/run). Stage 1 runs on the first boot; it ends by
# rebooting the guest in the middle of a synced write run. Stage 2 runs after that reboot
# (same qemu process, so the zones keep their write pointers) and verifies what survived.
# /dev/nvme0n1: the zoned namespace under test. /dev/nvme0n2: a small regular namespace used
# as a notebook that survives the reboot (stage marker and acknowledgement logs).
set -u
DEV=/dev/nvme0n1
NOTE=/dev/nvme0n2
Z=/bin/zonedb
export RUST_BACKTRACE=1

step() { echo "GUEST-STEP [$(cut -d" " -f1 /proc/uptime)s]: $*"; }
fail() { echo "GUEST-FAIL: $*"; exit 1; }
run() {
    step "$*"
    "$@" || fail "$* (exit $?)"
}

# The kernel may pick 'none' for the namespace; zoned writes need mq-deadline. ZoneDB must
# refuse the device until it is selected, saying how.
sched=/sys/block/nvme0n1/queue/scheduler
if ! grep -q '\[mq-deadline\]' $sched; then
    echo none > $sched
    out=$($Z fs df --device $DEV 2>&1) && fail "zonedb used the device with the 'none' scheduler"
    echo "$out" | grep -q "echo mq-deadline > /sys/block/nvme0n1/queue/scheduler" \
        || fail "refusal without the fix: $out"
    step "refused with the 'none' scheduler, as it must"
    echo mq-deadline > $sched
fi

if tar -tf $NOTE 2>/dev/null | grep -q '^STAGE2$'; then
    step "stage 2: after the guest reboot in the middle of synced writes"
    (cd /tmp && tar -xf $NOTE) || fail "cannot read the notebook"
    echo "GUEST: writer b had $(wc -l < /tmp/ack-b) acknowledged ops logged before the reboot"
    run $Z crashtest verify --device $DEV --ack /tmp/ack-a --prefix a
    run $Z crashtest verify --device $DEV --ack /tmp/ack-b --prefix b --partial_log
    run $Z fs fsck --device $DEV
    run $Z fs df --device $DEV
    echo "GUEST: stage 2 passed"
    exit 0
fi

step "stage 1"
q=/sys/block/nvme0n1/queue
for a in zoned chunk_sectors nr_zones max_open_zones max_active_zones logical_block_size \
         zone_append_max_bytes scheduler; do
    echo "GUEST-SYSFS: $a = $(cat $q/$a)"
done
[ -c /dev/ng0n1 ] && echo "GUEST: /dev/ng0n1 is there (io_uring passthrough)"

# The device, zone-layer and engine suites (the same code cargo test runs on the simulated
# and file-backed devices), with writes, then with zone appends.
run $Z selftest --device $DEV --seed 1
run $Z selftest --device $DEV --seed 2 --zone_append --fs_steps 150 --db_ops 5000

# The Rust front door's example (examples/zoned_block_device.rs) on an empty device: it
# formats it, writes 1000 keys, reads them back by prefix; the layer's fsck must pass after.
run $Z fs mkfs --device $DEV
run /bin/zoned_block_device $DEV
run $Z fs fsck --device $DEV

# db_bench on the device, every value read checked.
run $Z fs mkfs --device $DEV
run $Z bench --mode real --device $DEV --benchmarks fillrandom,readrandom --num 50000 \
    --reads 20000 --value_size 1024 --write_buffer_size 4194304 --target_file_size_base 4194304 \
    --max_bytes_for_level_base 16777216 --verify
run $Z fs fsck --device $DEV
run $Z fs ls --device $DEV
$Z fs dump --device $DEV > /tmp/dump.json || fail "fs dump"
grep -q '"zones"' /tmp/dump.json || fail "fs dump has no zones"
step "fs dump: $(wc -c < /tmp/dump.json) bytes of JSON"
run $Z bench --mode real --device $DEV --zone_append --benchmarks fillrandom,readrandom \
    --num 20000 --reads 10000 --value_size 1024 --write_buffer_size 4194304 --target_file_size_base 4194304 \
    --verify
run $Z fs fsck --device $DEV

# Kill the writer mid-run (SIGKILL), reopen, check every synced write survived.
step "crash test: kill -9 of a synced writer"
$Z crashtest write --device $DEV --fresh --ack /tmp/ack-a --prefix a &
pid=$!
sleep "${KILL_AFTER:-4}"
kill -9 $pid
wait $pid
echo "GUEST: writer a killed after $(wc -l < /tmp/ack-a) acknowledged ops"
run $Z crashtest verify --device $DEV --ack /tmp/ack-a --prefix a
run $Z fs fsck --device $DEV

# Reboot the guest while a synced writer runs: the zones keep their write pointers (same qemu
# process); stage 2 checks what survived. The acknowledgement logs go to the notebook first.
step "crash test: guest reboot during synced writes"
$Z crashtest write --device $DEV --ack /tmp/ack-b --prefix b &
sleep "${KILL_AFTER:-4}"
echo 2 > /tmp/STAGE2
(cd /tmp && tar -cf /tmp/note.tar STAGE2 ack-a ack-b) || fail "cannot pack the notebook"
dd if=/tmp/note.tar of=$NOTE bs=4096 conv=fsync 2>/dev/null || fail "cannot write the notebook"
echo "GUEST: rebooting with $(wc -l < /tmp/ack-b) acknowledged ops of writer b logged"
reboot -f
sleep 30
fail "the reboot did not happen"
