# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Functions both VM stages use in the guest (sourced by itest.sh's guest side and by
# systemd-driver.sh): timestamps, polling with a deadline, and btvirt's bring-up.

up() { cut -d' ' -f1 /proc/uptime; }
step() { echo "T $(up) $*"; }

# wait_until SECONDS COMMAND...: runs COMMAND every WAIT_INTERVAL (0.3) s until it succeeds
# (status 0) or SECONDS have passed (status 1). The synchronisation every stage uses instead of
# fixed sleeps.
wait_until() {
    local deadline=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep "${WAIT_INTERVAL:-0.3}"
    done
}

# btvirt_up COUNT LOG: starts `btvirt -L -lCOUNT` (or $BTVIRT_BIN; LE-only controllers hci0…
# hci<COUNT-1>) and waits until mgmt lists all of them; sets BTVIRT to its pid. Status 1 when they
# never came up.
# Under a CPU-starved TCG guest the kernel's HCI Reset to a new controller sometimes times out
# (hciN: Opcode 0x0c03 failed: -110) and that index never reaches mgmt: btvirt is restarted, up
# to five times. A timed-out reset shows in the kernel log at once, so a failed try is restarted
# without waiting for mgmt. Killing btvirt can make another controller's pending reset fail
# late, so each try waits a moment before taking the count it compares against.
btvirt_resets_failed() { dmesg | grep -c 'Opcode 0x0c03 failed'; }
btvirt_controllers() { timeout 10 btmgmt info 2>/dev/null | grep -c '^hci[0-9]*:'; }
btvirt_up() {
    local count=$1 log=$2 try failed_before
    for try in 1 2 3 4 5; do
        "${BTVIRT_BIN:-btvirt}" -h >/dev/null 2>&1 # page btvirt and its libraries in first
        failed_before=$(btvirt_resets_failed)
        chrt -f 20 "${BTVIRT_BIN:-btvirt}" -L -l"$count" >"$log" 2>&1 &
        BTVIRT=$!
        for _ in $(seq $((40 + 20 * count))); do
            [ "$(btvirt_controllers)" = "$count" ] && return 0
            [ "$(btvirt_resets_failed)" != "$failed_before" ] && break
            sleep 0.3
        done
        echo "controllers not ready (try $try, $(btvirt_controllers) of $count): restarting btvirt"
        kill "$BTVIRT"
        wait "$BTVIRT" 2>/dev/null
        sleep 2
    done
    [ "$(btvirt_controllers)" = "$count" ]
}
