#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The systemd stage of `make itest` (host side): the gateway installed from its Debian package on a
# Debian box with no Swift toolchain whose PID 1 is systemd, next to bluetoothd, with SENSORS (4)
# virtual sensors and two central adapters: an older package first, a session recorded, the
# upgrade to this one with a schema migration; then the package removed and purged.
#
# 1. image.sh builds (or reuses from its cache) a Debian image from Debian's packages; btvirt.sh
#    builds btvirt from Debian's BlueZ source with one fix a central with several links needs.
# 2. The Debian package: the sportsensord_<version>_<arch>.deb `make test` built for this commit
#    (`make deb`), or `make deb` now when there is none, and the same repackaged at <version>~prev
#    for the upgrade (systemd-upgrade.sh). The payload for the guest: both .debs, the
#    sportsensor-dev of the same release build for the virtual sensors (static, under /opt/itest
#    in the guest: no Swift runtime anywhere on the box), and the guest scripts.
# 3. qemu (KVM where it works, else TCG) boots the image's kernel with root on a copy-on-write
#    overlay of the cached image (every run starts clean), the payload and an output folder over
#    9p, the serial console here.
#    itest-driver.service runs systemd-driver.sh and powers the VM off.
# 4. systemd-report.sh compares each stored session with its sensor's ground truth and prints
#    the per-sensor table.
#
# Usage: systemd-stage.sh BINDIR   (called by itest.sh; exit status 0 = PASS, 2 = the emulated
# environment failed). env: KEEP=1, USE_KVM (unset: KVM when /dev/kvm works, else TCG; 1: KVM or
# fail; 0: TCG; accel.sh), SYSTEMD_VM_TIMEOUT=1500, SENSORS=4, VM_MEMORY=2048,
# BTMON=1 (an HCI capture of the whole run in the kept output)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BINDIR=$1
RUN="$ROOT/.build/itest-systemd"
OUT="$RUN/out"
PAYLOAD="$RUN/payload"
say() { echo "systemd-stage: $*"; }
t0=$(date +%s)
source "$HERE/accel.sh"
vm_accel || { say "FAIL: $VM_ACCEL_WHY"; exit 2; }
say "the VM runs under $VM_ACCEL ($VM_ACCEL_WHY)"

IMAGE=$("$HERE/image.sh") || { say "FAIL: the emulated environment: the Debian image could not be built"; exit 2; }
BTVIRT=$("$HERE/btvirt.sh") || { say "FAIL: the emulated environment: btvirt could not be built"; exit 2; }
say "image $IMAGE, $BTVIRT ($(($(date +%s) - t0)) s)"

rm -rf "$RUN" && mkdir -p "$OUT" "$PAYLOAD"
VERSION=$("$ROOT/scripts/build-deb.sh" --print-version) || { say "FAIL: the package version"; exit 1; }
DEB="$ROOT/sportsensord_${VERSION}_$(dpkg --print-architecture).deb"
# The package `make test` built for this commit and, from the same release build, the virtual
# sensors' sportsensor-dev (scripts/build-deb.sh keeps it in its --print-work-dir); `make deb` only
# when they are missing or from another version.
DEB_WORK=$("$ROOT/scripts/build-deb.sh" --print-work-dir)
if [ ! -s "$DEB" ] || [ ! -x "$DEB_WORK/sportsensor-dev" ] ||
    [ "$(sed -n 's/^Version: //p' "$DEB_WORK/root/DEBIAN/control" 2>/dev/null)" != "$VERSION" ]; then
    say "no $(basename "$DEB") and its build's sportsensor-dev yet: make deb"
    (cd "$ROOT" && make --no-print-directory deb) >"$RUN/deb.log" 2>&1 ||
        { tail -30 "$RUN/deb.log"; say "FAIL: make deb"; exit 1; }
fi
say "package $(basename "$DEB"): $(du -k "$DEB" | cut -f1) KiB"
cp "$DEB" "$PAYLOAD/" || exit 1
# The package the box has before the upgrade: this one's contents at a lower version ("~prev"
# sorts before the version itself), so apt treats the new one as an upgrade and runs both sides'
# maintainer scripts. Its binaries are this commit's: the store it leaves is made older by the
# guest (systemd-upgrade.sh). gzip -1: what a local package costs in a TCG guest grows with the
# file's size (the copy out of 9p, and apt reading and hashing the whole file before dpkg
# unpacks it: an uncompressed copy, three times the size, took longer than an xz one), and gzip
# unpacks there in less than half xz's time (Docs/TESTING.md, "CI's time"); on the host it takes
# a few CPU-seconds.
PREV_VERSION="$VERSION~prev"
PREV_DEB="sportsensord_${PREV_VERSION}_$(dpkg --print-architecture).deb"
dpkg-deb -R "$DEB" "$RUN/prev-root" &&
    sed -i "s/^Version: .*/Version: $PREV_VERSION/" "$RUN/prev-root/DEBIAN/control" &&
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$RUN/prev-root" "$PAYLOAD/$PREV_DEB" >/dev/null ||
    { say "FAIL: repackaging $(basename "$DEB") as $PREV_VERSION"; exit 1; }
rm -rf "$RUN/prev-root"
# The virtual sensors' sportsensor-dev: the release build's, linked statically like the package's
# binaries (the guest has no Swift runtime; the debug build would also starve the TCG guest).
cp "$DEB_WORK/sportsensor-dev" "$BTVIRT" "$HERE/guest-lib.sh" "$PAYLOAD/" || exit 1
cp "$HERE/systemd-upgrade.sh" "$PAYLOAD/upgrade.sh"
cp "$HERE/systemd-driver.sh" "$PAYLOAD/driver.sh"
printf 'SENSORS=%s\nBTMON=%s\nVERSION=%s\nDEB=%s\nPREV_VERSION=%s\nPREV_DEB=%s\n' "${SENSORS:-4}" "${BTMON:-0}" \
    "$VERSION" "$(basename "$DEB")" "$PREV_VERSION" "$PREV_DEB" >"$PAYLOAD/params.sh"
qemu-img create -q -f qcow2 -F qcow2 -b "$IMAGE/base.qcow2" "$RUN/root.qcow2" || { say "FAIL: qemu-img create"; exit 2; }

# KVM where /dev/kvm works, else TCG (software emulation; -svm keeps the guest from probing the
# kvm module): accel.sh, USE_KVM.
case $VM_ACCEL in
kvm) ACCEL=(-accel kvm -cpu host) ;;
*) ACCEL=(-accel tcg -cpu qemu64,-svm) ;;
esac
say "booting $(basename "$IMAGE") under qemu with $VM_ACCEL (${ACCEL[*]}); prepared in $(($(date +%s) - t0)) s"
t_boot=$(date +%s)
# A hang (a wedged emulation, a step without a deadline) must fail, not hold CI. no_timer_check:
# a TCG guest on a loaded host can miss the kernel's IO-APIC timer check ("IO-APIC + timer
# doesn't work!", a panic at 0.08 s) although its timer works.
timeout -k 20 "${SYSTEMD_VM_TIMEOUT:-1500}" qemu-system-x86_64 "${ACCEL[@]}" -smp 2 -m "${VM_MEMORY:-2048}" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 loglevel=4 net.ifnames=0 panic=-1 systemd.show_status=auto no_timer_check" \
    -drive "file=$RUN/root.qcow2,if=virtio,format=qcow2,cache=unsafe" \
    -virtfs "local,path=$PAYLOAD,mount_tag=payload,security_model=none,readonly=on" \
    -virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
    -nic none -display none -monitor none -serial stdio -no-reboot \
    -device virtio-rng-pci </dev/null | tee "$RUN/console.log"
rc=${PIPESTATUS[0]}
result=$(cat "$OUT/result" 2>/dev/null || echo "NO RESULT")
say "VM finished after $(($(date +%s) - t_boot)) s: $result"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    say "FAIL: the VM did not finish within ${SYSTEMD_VM_TIMEOUT:-1500} s (console: $RUN/console.log)"
    [ -s "$OUT/journal.txt" ] || tail -40 "$RUN/console.log"
    exit 1
fi
case "$result" in
PASS | FAIL) ;;
ENVIRONMENT) exit 2 ;;
*) say "FAIL: the VM ended without a result (did it boot? console: $RUN/console.log)"; exit 2 ;;
esac
"$HERE/systemd-report.sh" "$OUT" "$BINDIR"
report=$?
say "$([ "$result" = PASS ] && [ $report = 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - t0)) s under $VM_ACCEL"
if [ "${KEEP:-0}" = 1 ]; then say "output kept in $RUN"; else rm -rf "$RUN"; fi
[ "$result" = PASS ] && [ $report = 0 ]
