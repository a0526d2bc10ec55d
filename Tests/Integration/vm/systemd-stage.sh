#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The systemd stage of `make itest` (host side): the installed gateway on a Debian box whose PID 1
# is systemd, next to bluetoothd, with SENSORS (4) virtual sensors and two central adapters.
#
# 1. image.sh builds (or reuses from its cache) a Debian image from Debian's packages; btvirt.sh
#    builds btvirt from Debian's BlueZ source with one fix a central with several links needs.
# 2. `make install DESTDIR=…` (debug binaries, like install-check) stages the gateway; the staged
#    /etc/sportsensord/config.toml is edited as an admin would (adapters, link_budget).
#    The payload for the guest: that tree as install.tar, the Swift runtime libraries the
#    binaries link (they are not Debian packages), sportsensor-dev for the virtual sensors, and
#    the guest scripts.
# 3. qemu boots the image's kernel with root on a copy-on-write overlay of the cached image (every
#    run starts clean), the payload and an output folder over 9p, the serial console here.
#    itest-driver.service runs systemd-driver.sh and powers the VM off.
# 4. systemd-report.sh compares each stored session with its sensor's ground truth and prints
#    the per-sensor table.
#
# Usage: systemd-stage.sh BINDIR   (called by itest.sh; exit status 0 = PASS, 2 = the emulated
# environment failed). env: KEEP=1, USE_KVM=1, SYSTEMD_VM_TIMEOUT=1200, SENSORS=4, VM_MEMORY=2048,
# BTMON=1 (an HCI capture of the whole run in the kept output)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BINDIR=$1
RUN="$ROOT/.build/itest-systemd"
OUT="$RUN/out"
PAYLOAD="$RUN/payload"
STAGE="$RUN/stage"
say() { echo "systemd-stage: $*"; }
t0=$(date +%s)

IMAGE=$("$HERE/image.sh") || { say "FAIL: the emulated environment: the Debian image could not be built"; exit 2; }
BTVIRT=$("$HERE/btvirt.sh") || { say "FAIL: the emulated environment: btvirt could not be built"; exit 2; }
say "image $IMAGE, $BTVIRT ($(($(date +%s) - t0)) s)"

rm -rf "$RUN" && mkdir -p "$OUT" "$PAYLOAD/swift-runtime" "$STAGE"
(cd "$ROOT" && make --no-print-directory install DESTDIR="$STAGE" INSTALL_CONFIG=debug) >"$RUN/install.log" 2>&1 ||
    { tail -20 "$RUN/install.log"; say "FAIL: make install DESTDIR=$STAGE"; exit 1; }
# What an admin edits: the two central adapters and their link budget.
CONFIG="$STAGE/etc/sportsensord/config.toml"
sed -i -e 's/^adapters = .*/adapters = ["hci0", "hci1"]/' -e 's/^link_budget = .*/link_budget = 5/' "$CONFIG"
grep -q '^adapters = \["hci0", "hci1"\]' "$CONFIG" && grep -q '^link_budget = 5' "$CONFIG" ||
    { say "FAIL: config.example.toml no longer has the adapters and link_budget lines this stage sets"; exit 1; }
tar -C "$STAGE" -cf "$PAYLOAD/install.tar" . || exit 1
# The binaries link Swift's runtime from the toolchain; the guest gets those libraries (and only
# those: everything else they link comes from Debian's packages in the image).
ldd "$BINDIR/sportsensord" "$BINDIR/sportsensorctl" "$BINDIR/sportsensor-dev" |
    awk '$2 == "=>" && $3 !~ "^/(usr/)?lib" { print $3 }' | sort -u | xargs -r cp -t "$PAYLOAD/swift-runtime/" ||
    { say "FAIL: collecting the Swift runtime libraries"; exit 1; }
[ -n "$(ls "$PAYLOAD/swift-runtime")" ] || { say "FAIL: ldd named no Swift runtime library"; exit 1; }
cp "$BINDIR/sportsensor-dev" "$BTVIRT" "$HERE/guest-lib.sh" "$PAYLOAD/"
cp "$HERE/systemd-driver.sh" "$PAYLOAD/driver.sh"
printf 'SENSORS=%s\nBTMON=%s\n' "${SENSORS:-4}" "${BTMON:-0}" >"$PAYLOAD/params.sh"
qemu-img create -q -f qcow2 -F qcow2 -b "$IMAGE/base.qcow2" "$RUN/root.qcow2" || { say "FAIL: qemu-img create"; exit 2; }

# TCG (software emulation) as in CI; -svm keeps the guest from probing the kvm module.
ACCEL=(-accel tcg -cpu qemu64,-svm)
[ "${USE_KVM:-0}" = 1 ] && ACCEL=(-accel kvm -cpu host)
say "booting $(basename "$IMAGE") under qemu (${ACCEL[*]}); prepared in $(($(date +%s) - t0)) s"
t_boot=$(date +%s)
# A hang (a wedged emulation, a step without a deadline) must fail, not hold CI.
timeout -k 20 "${SYSTEMD_VM_TIMEOUT:-1200}" qemu-system-x86_64 "${ACCEL[@]}" -smp 2 -m "${VM_MEMORY:-2048}" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 loglevel=4 net.ifnames=0 panic=-1 systemd.show_status=auto" \
    -drive "file=$RUN/root.qcow2,if=virtio,format=qcow2,cache=unsafe" \
    -virtfs "local,path=$PAYLOAD,mount_tag=payload,security_model=none,readonly=on" \
    -virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
    -nic none -display none -monitor none -serial stdio -no-reboot \
    -device virtio-rng-pci </dev/null | tee "$RUN/console.log"
rc=${PIPESTATUS[0]}
result=$(cat "$OUT/result" 2>/dev/null || echo "NO RESULT")
say "VM finished after $(($(date +%s) - t_boot)) s: $result"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    say "FAIL: the VM did not finish within ${SYSTEMD_VM_TIMEOUT:-1200} s (console: $RUN/console.log)"
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
say "$([ "$result" = PASS ] && [ $report = 0 ] && echo PASS || echo FAIL) in $(($(date +%s) - t0)) s"
if [ "${KEEP:-0}" = 1 ]; then say "output kept in $RUN"; else rm -rf "$RUN"; fi
[ "$result" = PASS ] && [ $report = 0 ]
