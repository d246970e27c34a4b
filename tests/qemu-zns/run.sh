#!/usr/bin/env bash
# End-to-end test of ZoneDB on a real Linux zoned block device: QEMU's emulated NVMe Zoned
# Namespace (64 MiB zones, 62 MiB capacity, 14 open / 14 active, 4 KiB blocks) seen by
# Debian's cloud kernel. Installs what it needs from Debian packages when missing, builds a
# minimal initramfs holding the zonedb binary and guest-test.sh, boots it, and exits with the
# guest's verdict (0 = pass).
#
#   bash tests/qemu-zns/run.sh            # build zonedb (the tests' profile, ci) and run
#   ZONEDB_PROFILE=release bash tests/qemu-zns/run.sh   # build with another cargo profile
#   ZONEDB_BIN=path bash tests/qemu-zns/run.sh   # use a built binary
#
# Work files go to target/qemu-zns/ (kernel, initramfs, images, serial log: guest.log).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${ZONEDB_QEMU_WORK:-$ROOT/target/qemu-zns}"
mkdir -p "$WORK"
say() { echo "qemu-zns: $*" >&2; }

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
BUSYBOX=$(command -v busybox || true)
{ [ -n "$BUSYBOX" ] && { ldd "$BUSYBOX" 2>&1 || true; } | grep -q "not a dynamic"; } || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v gcc >/dev/null || need+=(gcc)
[ -e /usr/include/x86_64-linux-gnu/sys/io.h ] || [ -e /usr/include/sys/io.h ] || need+=(libc6-dev)
if [ "${#need[@]}" -gt 0 ]; then
    say "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The kernel the linux-image-cloud-amd64 metapackage points to (NVMe and zoned support built in).
if ! ls "$WORK"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
    kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    if [ -z "$kpkg" ]; then
        apt-get update -qq
        kpkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    fi
    say "downloading $kpkg"
    (cd "$WORK" && rm -f ./*.deb && apt-get download "$kpkg" >/dev/null)
    rm -rf "$WORK/kernel" && mkdir -p "$WORK/kernel"
    dpkg-deb --fsys-tarfile "$WORK"/"$kpkg"_*.deb | tar -x -C "$WORK/kernel" ./boot
fi
KERNEL=$(ls "$WORK"/kernel/boot/vmlinuz-* | head -n1)
# ZONEDB_QEMU_PREPARE_ONLY=1: stop once the packages and kernel are here (scripts/test.sh
# fetches them while cargo compiles).
if [ -n "${ZONEDB_QEMU_PREPARE_ONLY:-}" ]; then say "prepared $(basename "$KERNEL")"; exit 0; fi

BIN="${ZONEDB_BIN:-}"
if [ -z "$BIN" ]; then
    PROFILE="${ZONEDB_PROFILE:-ci}"
    (cd "$ROOT" && cargo build --profile "$PROFILE" --bin zonedb -q)
    BIN="$ROOT/target/$PROFILE/zonedb"
fi
# The Rust front door's example on the same device (examples/zoned_block_device.rs), from the
# same build as the binary; built here when missing.
EXAMPLE="${ZONEDB_EXAMPLE:-$(dirname "$BIN")/examples/zoned_block_device}"
if [ ! -x "$EXAMPLE" ]; then
    PROFILE="${ZONEDB_PROFILE:-ci}"
    (cd "$ROOT" && cargo build --profile "$PROFILE" --example zoned_block_device -q)
    EXAMPLE="$ROOT/target/$PROFILE/examples/zoned_block_device"
fi

# The initramfs: busybox, qexit, zonedb with its shared libraries, /init, /test/run.
R="$WORK/rootfs"
rm -rf "$R" && mkdir -p "$R"/{bin,proc,sys,dev,tmp,test}
cp "$(command -v busybox)" "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
gcc -O2 -static -o "$R/bin/qexit" "$HERE/qexit.c"
cp "$BIN" "$R/bin/zonedb"
cp "$EXAMPLE" "$R/bin/zoned_block_device"
strip "$R/bin/zonedb" "$R/bin/zoned_block_device" 2>/dev/null || true
for lib in $( { ldd "$BIN"; ldd "$EXAMPLE"; } | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
done
cp "$HERE/init" "$R/init" && chmod +x "$R/init"
cp "$HERE/guest-test.sh" "$R/test/run" && chmod +x "$R/test/run"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/initramfs.cpio.gz"

# Fresh images every run: 2 GiB zoned namespace (32 zones), 16 MiB notebook namespace.
rm -f "$WORK/zns.img" "$WORK/note.img"
truncate -s 2G "$WORK/zns.img"
truncate -s 16M "$WORK/note.img"

# Software emulation by default (KVM is often missing or nested-broken on CI machines);
# ZONEDB_QEMU_ACCEL=kvm opts in.
accel=tcg; cpu=max
if [ "${ZONEDB_QEMU_ACCEL:-tcg}" = kvm ]; then accel=kvm; cpu=host; fi
say "booting $(basename "$KERNEL") ($accel)"
set +e
timeout "${ZONEDB_QEMU_TIMEOUT:-300}" qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu" -smp 2 -m 2G \
    -nographic -nic none \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
    -kernel "$KERNEL" -initrd "$WORK/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4" \
    -drive file="$WORK/zns.img",id=nvmezns0,format=raw,if=none \
    -drive file="$WORK/note.img",id=nvmenote,format=raw,if=none \
    -device nvme,serial=zns0,id=nvme0 \
    -device nvme-ns,drive=nvmezns0,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=64M,zoned.zone_capacity=62M,zoned.max_open=14,zoned.max_active=14 \
    -device nvme-ns,drive=nvmenote,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096 \
    </dev/null >"$WORK/guest.log" 2>&1
status=$?
set -e
# The guest's own lines (progress bars stripped to their last state).
tr -d '\r' <"$WORK/guest.log" | sed 's/.*\x1b\[2K//' \
    | grep -a -E '^(GUEST|zonedb|selftest|crashtest|fillrandom|readrandom|thread|panicked)|I/O Error|nvme' \
    | tail -n 200 >&2 || true
# The layer keeps within the device's limits and rules: no request may fail on the device
# (EOVERFLOW = NVMe 0x1bd too many active, ETOOMANYREFS = 0x1be too many open, EIO = others).
if grep -a -q -E 'I/O Error|too many (active|open) zones' "$WORK/guest.log"; then
    say "FAIL: the device refused requests (see the I/O Error lines in $WORK/guest.log)"
    exit 1
fi
case "$status" in
    1) say "PASS"; exit 0 ;;
    3) say "FAIL: the guest reported a failure (log: $WORK/guest.log)"; exit 1 ;;
    124) say "FAIL: timed out (log: $WORK/guest.log)"; exit 1 ;;
    *) say "FAIL: qemu exited with $status without a verdict (log: $WORK/guest.log)"; exit 1 ;;
esac
