#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make itest`: the gateway's transport against the real Linux Bluetooth stack, in a VM.
#
# The machines this runs on have no Bluetooth in their kernel, so this boots Debian's kernel
# under qemu (KVM where /dev/kvm is hardware KVM, else software emulation, TCG: accel.sh;
# virtme-ng shares the host's filesystem read-only with the guest), creates two virtual LE
# controllers with BlueZ's btvirt and runs, as root in the guest:
#   hci1: `sportsensor-dev virtual-sensor` (raw-HCI advertising as BC05…, VirtualSensor over an
#         L2CAP ATT server socket), which drops the first link after DROP_AFTER samples;
#   hci0: `sportsensor-dev stream` (LEScanner, L2CAPConnector, SensorLink) for SAMPLES samples;
# then `sportsensor-dev hci-scan` as an unprivileged user without capabilities (must fail with the
# CAP_NET_RAW/CAP_NET_ADMIN message), then decodes the btmon capture with `sportsensorctl
# decode` and compares ground truth, stream and capture with `sportsensor-dev itest-compare`.
# Stage 2 starts bluetoothd (default configuration) and runs `sportsensord --adapter hci0` beside
# it: scan (mgmt discovery), pair and a session while `bluetoothctl scan on` discovers on hci0.
# Docs/TESTING.md explains it.
#
# Host usage: Tests/Integration/vm/itest.sh   (exit status 0 = PASS)
#             Tests/Integration/vm/itest.sh --prepare: only the packages, virtme-ng, the systemd
#             stage's image and btvirt (`make itest-prepare`)
#   env: KERNEL=/boot/vmlinuz-…  KEEP=1 (keep .build/itest/out)  SAMPLES=2000  DROP_AFTER=1000
#        USE_KVM: unset = KVM where /dev/kvm is hardware KVM, else TCG; 1 = KVM or fail; 0 = TCG
#        SWIFT=swift
#        ENV_RETRIES=1 (fresh VMs after a failure of the emulation itself, never of the project)
#        VM_TIMEOUT=900 (seconds the whole VM may take; a hang fails the test)
#        STAGES="vng systemd": vng = stages 1 and 2 in the virtme-ng VM, systemd = the systemd
#        stage in a Debian image (systemd-stage.sh); e.g. STAGES=systemd runs only that one
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
SAMPLES=${SAMPLES:-2000}
STAGES=${STAGES:-vng systemd}
DROP_AFTER=${DROP_AFTER:-1000}

if [ "${1:-}" != --guest ]; then # ------------------------------------------------ host side
    set -o pipefail
    source "$HERE/accel.sh"
    vm_accel || { echo "itest: FAIL: $VM_ACCEL_WHY"; exit 2; }
    echo "itest: the VMs run under $VM_ACCEL ($VM_ACCEL_WHY)"
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    APT_PACKAGES="qemu-system-x86 qemu-utils linux-image-amd64 bluez bluez-test-tools busybox-static python3-venv util-linux
        mmdebstrap e2fsprogs jq gcc"
    missing=""
    for p in $APT_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    if [ -n "$missing" ]; then
        echo "itest: installing:$missing"
        $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing ||
            { echo "itest: FAIL: could not install$missing"; exit 2; }
    fi
    VENV="$ROOT/.build/itest-venv"
    if [ ! -x "$VENV/bin/vng" ]; then
        python3 -m venv "$VENV" && "$VENV/bin/pip" install -q virtme-ng==1.42 ||
            { echo "itest: FAIL: could not install virtme-ng into $VENV"; exit 2; }
    fi
    KERNEL=${KERNEL:-$(ls -v /boot/vmlinuz-* 2>/dev/null | tail -1)}
    [ -n "$KERNEL" ] && [ -r "$KERNEL" ] || { echo "itest: FAIL: no kernel image under /boot (apt linux-image-amd64)"; exit 2; }
    if [ "${1:-}" = --prepare ]; then
        # What the systemd stage would build first, built now and cached: `.ci/run` does this beside
        # the package's release build, so `make itest` finds it done.
        t=$(date +%s)
        image=$("$HERE/image.sh") || { echo "itest: FAIL: the systemd stage's Debian image could not be built"; exit 2; }
        btvirt=$("$HERE/btvirt.sh") || { echo "itest: FAIL: btvirt could not be built"; exit 2; }
        echo "itest: prepared $image and $btvirt in $(($(date +%s) - t)) s"
        exit 0
    fi
    # One `swift build` of every product, not one per product, and none when `make test` left them
    # current: a build with nothing to do still spends ~25 s planning.
    BINDIR="$ROOT/.build/debug"
    if "$ROOT/scripts/products-current.sh" "$BINDIR" --unstamped sportsensorctl sportsensor-dev sportsensord; then
        echo "itest: sportsensorctl, sportsensor-dev and sportsensord are current"
    else
        echo "itest: building sportsensorctl, sportsensor-dev and sportsensord"
        (cd "$ROOT" && ${SWIFT:-swift} build) >"$ROOT/.build/itest-build.log" 2>&1 ||
            { tail -30 "$ROOT/.build/itest-build.log"; echo "itest: FAIL: build"; exit 2; }
        BINDIR=$(cd "$ROOT" && ${SWIFT:-swift} build --show-bin-path)
    fi
    has_stage() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
    OUT="$ROOT/.build/itest/out"
    rc=0
    t0=$(date +%s)
    if has_stage vng; then
        rm -rf "$OUT" && mkdir -p "$OUT"
        # KVM: vng's own setup (accel=kvm, -cpu host), accel.sh found it works. TCG: -svm keeps the
        # guest from probing the kvm module. QEMU_OPTS adds qemu options (e.g. -icount).
        # no_timer_check: a TCG guest on a loaded host can miss the kernel's IO-APIC timer check
        # (a panic at boot, "IO-APIC + timer doesn't work!") although its timer works.
        ACCEL=(--disable-kvm "--qemu-opts=-cpu qemu64,-svm ${QEMU_OPTS:-}" --append no_timer_check)
        [ "$VM_ACCEL" = kvm ] && ACCEL=(${QEMU_OPTS:+"--qemu-opts=$QEMU_OPTS"})
        # A failure of the emulated environment itself (the VM did not boot, the kernel modules or
        # btvirt's controllers did not come up: nothing of the project ran yet) boots a fresh VM, up
        # to ENV_RETRIES more times. A failure after the project's code started is never retried.
        for attempt in $(seq 0 "${ENV_RETRIES:-1}"); do
            rm -f "$OUT/result"
            echo "itest: booting $KERNEL under qemu ($VM_ACCEL)"
            # vng reopens its stdout/stderr: pipe it through cat, a redirection to a file garbles it.
            # A guest that hangs (a process that ignores SIGTERM, a wedged emulation) must fail, not
            # hold CI: the whole VM gets VM_TIMEOUT seconds.
            PATH="$VENV/bin:$PATH" timeout -k 30 "${VM_TIMEOUT:-900}" vng --run "$KERNEL" "${ACCEL[@]}" --force-9p -m 1G -p 2 --rwdir="$OUT" \
                --exec "SAMPLES=$SAMPLES DROP_AFTER=$DROP_AFTER bash $HERE/itest.sh --guest $OUT $BINDIR" 2>&1 | cat
            rc=${PIPESTATUS[0]}
            result=$(cat "$OUT/result" 2>/dev/null || echo "NO RESULT")
            if [ "$result" = PASS ]; then rc=0; break; fi
            # Timed out: something hung after the project's code started (bring-up has its own limits).
            if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
                echo "itest: FAIL: the VM did not finish within ${VM_TIMEOUT:-900} s"
                break
            fi
            [ "$rc" = 0 ] && rc=1
            case "$result" in
            PASS | FAIL) break ;;
            *) echo "itest: the emulated environment failed ($result), not the project's code" ;;
            esac
        done
        # Stage 2's capture, decoded here (btmon under emulation takes minutes): on hci0 the kernel's
        # discoveries, scans, the gateway's Busy answers and connections, on the capture's clock.
        # Debian's btmon 5.66 sometimes crashes partway through this capture (after the first
        # connection); what it printed until then stands, and the crash is not the test's result.
        if [ -s "$OUT/stage2.btsnoop" ]; then
            echo "itest: stage 2 on hci0 (btmon, seconds of the capture)"
            (btmon -P -r "$OUT/stage2.btsnoop" || true) 2>/dev/null | awk '
                /^[<>@]/ { hci0 = ($0 ~ /\[hci0\]/); t = $(NF); next }
                hci0 && /Discovery: (En|Dis)abled|Scanning: (En|Dis)abled|Status: Busy|LE Create Connection \(|LE Connection Complete|Connection interval:|Start Discovery \(/ {
                    sub(/^ +/, ""); print "  " t, $0 }' | head -60
        fi
        echo "itest: stages 1 and 2 $([ "$rc" = 0 ] && echo PASS || echo "FAIL (rc=$rc)") in $(($(date +%s) - t0)) s under $VM_ACCEL"
        if [ "${KEEP:-0}" = 1 ]; then echo "itest: output kept in $OUT"; else rm -rf "$ROOT/.build/itest"; fi
    fi
    # The systemd stage: the installed gateway under systemd beside bluetoothd, four sensors on
    # two adapters (systemd-stage.sh). It runs after a failure of the stages before, too: its own
    # result is worth having.
    if has_stage systemd; then
        "$HERE/systemd-stage.sh" "$BINDIR"
        rc_systemd=$?
        [ "$rc" = 0 ] && rc=$rc_systemd
    fi
    echo "itest: $([ "$rc" = 0 ] && echo PASS || echo "FAIL (rc=$rc)") in $(($(date +%s) - t0)) s under $VM_ACCEL"
    exit "$rc"
fi
# ------------------------------------------------------------------------------- guest (root)
source "$HERE/guest-lib.sh"
OUT=$2
CTL=$3/sportsensorctl
DEV=$3/sportsensor-dev
W=/tmp/itest
mkdir -p $W
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    cp -f $W/* "$OUT/" 2>/dev/null
}
fail() {
    echo "FAIL: $*"
    echo "--- diagnostics"
    btmgmt info 2>&1 | grep -E '^hci|settings'
    for f in btvirt.log vsensor.log stream.log scan-nobody.log decode.log compare.log bluetoothd.log \
        vsensor2.log daemon.log btctl-scan.log; do
        [ -s $W/$f ] && { echo "--- $f"; tail -25 $W/$f; }
    done
    echo "--- dmesg"
    dmesg | grep -iE 'bluetooth|hci|error|timeout' | tail -15
    cleanup
    echo "${FAIL_KIND:-FAIL}" >"$OUT/result"
    exit 1
}
# The environment, not the project, failed: the host may boot a fresh VM and try again.
fail_env() {
    FAIL_KIND=ENVIRONMENT
    fail "$@"
}

step guest-start
modprobe bluetooth && modprobe hci_vhci || fail_env "modprobe bluetooth hci_vhci"
# btmon must not lose packets: the kernel drops monitor packets when btmon's socket buffer is
# full, which a starved guest makes likely. A large default receive buffer (btmon keeps the
# default) and real-time priority keep the capture complete.
sysctl -qw net.core.rmem_max=16777216 net.core.rmem_default=16777216
chrt -f 30 btmon -w $W/hci.btsnoop >/dev/null 2>&1 &
BTMON=$!
# btvirt emulates the controllers on /dev/vhci (guest-lib.sh: restarted when a reset times out).
btvirt_up 2 $W/btvirt.log
PIDS+=($BTVIRT $BTMON)
[ "$(btvirt_controllers)" = 2 ] || fail_env "the virtual controllers did not come up"
# No bluetoothd: the transport is raw HCI plus kernel L2CAP. The kernel's mgmt interface still
# owns the controllers and leaves them powered off until told otherwise.
for h in hci0 hci1; do btmgmt -i $h power on | grep -q 'settings: powered' || fail_env "power on $h"; done
SENSOR=$(btmgmt -i hci1 info | awk '/addr/ {print $2; exit}')
step "controllers up, sensor adapter $SENSOR"

"$DEV" virtual-sensor --hci hci1 --readvertise-every 1 --disconnect-after "$DROP_AFTER" --truth $W/truth.csv \
    >$W/vsensor.log 2>&1 &
VSENSOR=$!
PIDS+=($VSENSOR)
wait_until 120 grep -q 'virtual-sensor: advertising' $W/vsensor.log || fail "the virtual sensor did not start advertising"
step "virtual sensor advertising"

timeout -k 10 240 "$DEV" stream --hci hci0 --scan-seconds 60 --samples "$SAMPLES" --csv $W/received.csv \
    --stats $W/stream.stats --max-backoff 4 --timeout 200 >$W/stream.log 2>&1
rc=$?
sed 's/^/  /' $W/stream.log
[ $rc = 0 ] || fail "stream exited with $rc"
step "stream done"

# The scanner without privileges: nobody, no capabilities. It must fail and say how to fix it.
install -m 0755 "$DEV" /tmp/sportsensor-dev-nobody
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    /tmp/sportsensor-dev-nobody hci-scan --hci hci0 --seconds 2 >$W/scan-nobody.log 2>&1
rc=$?
sed 's/^/  /' $W/scan-nobody.log
[ $rc = 2 ] || fail "the unprivileged scan exited with $rc, expected 2"
grep -q 'CAP_NET_RAW and CAP_NET_ADMIN' $W/scan-nobody.log || fail "the unprivileged scan's message names no capabilities"
grep -q 'setcap\|run as root' $W/scan-nobody.log || fail "the unprivileged scan's message names no fix"
step "unprivileged scan refused with the fix"

kill -TERM $VSENSOR
wait $VSENSOR
sed 's/^/  /' $W/vsensor.log
grep -q 'virtual-sensor: ATT connection 2' $W/vsensor.log || fail "the virtual sensor never saw the reconnection"
kill -INT $BTMON
wait $BTMON 2>/dev/null
PIDS=($BTVIRT)
"$CTL" decode $W/hci.btsnoop --address "$SENSOR" --stats >$W/decoded.csv 2>$W/decode.log || fail "decode"
sed 's/^/  /' $W/decode.log
"$DEV" itest-compare --truth $W/truth.csv --received $W/received.csv --stats $W/stream.stats \
    --decoded $W/decoded.csv --min-samples "$SAMPLES" --min-reconnects 1 >$W/compare.log 2>&1
rc=$?
sed 's/^/  /' $W/compare.log
[ $rc = 0 ] || fail "the samples do not match"
step "stage 1 done"

# Stage 2: the daemon beside bluetoothd (Tests/Integration/vm/bluetoothd-stage.sh).
source "$HERE/bluetoothd-stage.sh"
step done
cleanup
echo PASS | tee "$OUT/result"
