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

step() { echo "GUEST-STEP: $*"; }
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

stage=$(dd if=$NOTE bs=4096 count=1 2>/dev/null | head -c 6)

if [ "$stage" != "STAGE2" ]; then
    step "stage 1"
    q=/sys/block/nvme0n1/queue
    for a in zoned chunk_sectors nr_zones max_open_zones max_active_zones logical_block_size \
             zone_append_max_bytes scheduler; do
        echo "GUEST-SYSFS: $a = $(cat $q/$a)"
    done
    run $Z fs mkfs --device $DEV
    run $Z fs fsck --device $DEV
    run $Z fs df --device $DEV
    echo "GUEST: stage 1 passed"
    exit 0
fi
