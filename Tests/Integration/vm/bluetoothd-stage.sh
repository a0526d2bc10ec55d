# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Stage 2 of `make itest`, sourced by itest.sh in the guest (it uses W, CTL, DEV, SENSOR, PIDS,
# fail, fail_env and step from there): the daemon beside bluetoothd in its default configuration.
#
# - D-Bus and bluetoothd start (Debian's bluetoothd with the host's /etc/bluetooth, debug log on);
#   they take over hci0 and hci1 as they would on any Debian box.
# - The virtual sensor starts on hci1 after bluetoothd registered the adapter: the kernel gives an
#   incoming LE link's ATT channel to the newest listening ATT socket of the adapter, so the
#   sensor's listener, not bluetoothd's GATT server, answers the gateway.
# - `sportsensord --adapter hci0` runs with its own state directory and socket.
# - `bluetoothctl scan on` makes bluetoothd discover on hci0 (its default controller) for the
#   whole stage. Meanwhile the gateway must: scan through the daemon and see the sensor (the
#   kernel answers the gateway's Start Discovery with Busy and shares bluetoothd's results), pair
#   it, start a session that receives samples, and stop it. The log must show the Busy report.
# - What bluetoothd made of the gateway's link is printed for Docs/BLUETOOTH.md: its device
#   list, the sensor's info, and its log lines about the sensor; the host prints the kernel's
#   side on hci0 from the capture (stage2.btsnoop) after the VM ends.
DAEMON=$(dirname "$CTL")/sportsensord
# The daemon's commands, on this stage's control socket.
ctl() {
    local command=$1
    shift
    "$CTL" "$command" --socket $W/control.sock "$@"
}
STAGE2_SECONDS=${STAGE2_SECONDS:-30}

step "stage 2: bluetoothd"
T0=$(date +%s.%N)
chrt -f 30 btmon -w $W/stage2.btsnoop >/dev/null 2>&1 &
BTMON2=$!
PIDS+=($BTMON2)
# A second btmon prints the kernel's Discovering events as they happen (line-buffered), so the
# pair below can be timed inside one of bluetoothd's discovery rounds.
stdbuf -oL btmon -T >$W/btmon2.txt 2>/dev/null &
PIDS+=($!)
rounds() { grep -c 'Discovery: Enabled' $W/btmon2.txt; }
mkdir -p /run/dbus
dbus-daemon --system --fork --nopidfile || fail_env "dbus-daemon"
/usr/libexec/bluetooth/bluetoothd -n -d >$W/bluetoothd.log 2>&1 &
PIDS+=($!)
bt_controllers() { [ "$(bluetoothctl list 2>/dev/null | grep -c '^Controller')" = 2 ]; }
wait_until 120 bt_controllers || fail "bluetoothd did not take over both controllers"
bluetoothctl list | sed 's/^/  /'

# It drops the link after 1500 samples, so the gateway reconnects while bluetoothd discovers.
"$DEV" virtual-sensor --hci hci1 --readvertise-every 1 --disconnect-after 1500 --truth $W/truth2.csv \
    >$W/vsensor2.log 2>&1 &
PIDS+=($!)
wait_until 120 grep -q 'virtual-sensor: advertising' $W/vsensor2.log || fail "the virtual sensor did not start advertising beside bluetoothd"

: >$W/config.toml
"$DAEMON" --config $W/config.toml --state-dir $W/state --socket $W/control.sock --adapter hci0 \
    --log-level debug >$W/daemon.log 2>&1 &
DAEMON_PID=$!
PIDS+=($DAEMON_PID)
wait_until 120 test -S $W/control.sock || fail "sportsensord did not open its control socket"
step "sportsensord up beside bluetoothd"

# bluetoothd discovers on hci0 for the rest of the stage, in rounds of about 10 s. The scan below
# starts right after a round began, so the kernel answers the gateway's Start Discovery with Busy.
before=$(rounds)
bluetoothctl --timeout $((STAGE2_SECONDS + 90)) scan on >$W/btctl-scan.log 2>&1 &
BTCTL=$!
PIDS+=($BTCTL)
new_round() { [ "$(rounds)" -gt "$before" ]; }
WAIT_INTERVAL=0.1 wait_until 60 new_round || fail "bluetoothd did not start discovering on hci0 within 60 s"
bluetoothctl show | grep -q 'Discovering: yes' || fail "bluetoothd does not say it is discovering on hci0"
step "bluetoothd discovering on hci0"

ctl scan --seconds 6 >$W/scan2.log 2>&1 || fail "scan through the daemon failed: $(cat $W/scan2.log)"
sed 's/^/  /' $W/scan2.log
grep -qi "$SENSOR" $W/scan2.log || fail "the daemon's scan did not see the sensor while bluetoothd discovered"
grep -q 'another program is discovering on hci0' $W/daemon.log ||
    fail "the daemon did not report bluetoothd's discovery"
step "scan through mgmt saw the sensor during bluetoothd's discovery"

# Connect in the middle of a discovery round: wait for the next round to start, then 3 s.
# A round lasts about 10 s and bluetoothd starts the next one up to a few seconds later.
before=$(rounds)
WAIT_INTERVAL=0.1 wait_until 60 new_round || fail "no new discovery round of bluetoothd within 60 s"
sleep 3
awk -v now="$(date +%s.%N)" -v t0="$T0" \
    'BEGIN { printf "  pair requested at %.3f s of the capture, inside a discovery round\n", now - t0 }'
ctl pair "$SENSOR" --alias vs2 --address-type public || fail "pair"
ctl start --sensor vs2 --profile table-tennis || fail "start"
sleep "$STAGE2_SECONDS"
ctl status >$W/status2.log 2>&1
sed 's/^/  /' $W/status2.log
ctl stop --sensor vs2 >$W/stop2.log 2>&1 || fail "stop: $(cat $W/stop2.log)"
step "session beside bluetoothd's discovery done"

echo "--- what bluetoothd made of the gateway's link"
bluetoothctl devices | sed 's/^/  /'
bluetoothctl info "$SENSOR" | sed 's/^/  /'
grep -iE "$SENSOR|gatt|att" $W/bluetoothd.log | grep -viE 'plugin|register' | tail -25 | sed 's/^/  /'
grep -E 'ATT connection|request' $W/vsensor2.log | head -10 | sed 's/^/  /'
grep -q 'virtual-sensor: ATT connection 2' $W/vsensor2.log || fail "the gateway did not reconnect beside bluetoothd"

kill -TERM $DAEMON_PID
wait $DAEMON_PID
rc=$?
[ $rc = 0 ] || fail "sportsensord exited with $rc"
grep -E 'discover|connect|queue|error|LE link' $W/daemon.log | grep -v ServiceLifecycle | tail -20 | sed 's/^/  /'
grep -q "LE link to $SENSOR on hci0: interval" $W/daemon.log || fail "the daemon did not report the link's parameters"
"$CTL" sessions --state-dir $W/state --json >$W/sessions2.json 2>&1 || fail "sessions: $(cat $W/sessions2.json)"
sed 's/^/  /' $W/sessions2.json | head -20
python3 - "$W/sessions2.json" <<'PY' || fail "the session beside bluetoothd's discovery received too few samples"
import json, sys
data = json.load(open(sys.argv[1]))
sessions = data if isinstance(data, list) else data.get("sessions", [])
counts = [s.get("samples", 0) or 0 for s in sessions]
print("  samples per session:", counts)
sys.exit(0 if counts and max(counts) >= 1500 else 1)
PY
kill -INT $BTMON2
wait $BTMON2 2>/dev/null
step "stage 2 done"
