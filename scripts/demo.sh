#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make demo`: the whole gateway, no hardware needed. Starts sportsensord on a temporary state
# directory with three virtual sensors (table tennis, jumps, steps), starts a session on each,
# follows them with `sportsensorctl tail` for DEMO_SECONDS (30), stops them, and shows what was
# stored. Every step prints the command it runs, so it doubles as a walk-through of the CLI.
#
# It also serves the coach's web dashboard on http://127.0.0.1:DEMO_WEB_PORT/ (8080) with a demo
# login (coach / demo-coach): open it while the demo runs to watch the live board of the three
# athletes (DEMO_SECONDS=600 gives you ten minutes).
#
# Environment: SWIFT (swift), CONFIG (debug), DEMO_SECONDS (30), DEMO_WEB_PORT (8080; 0 picks a
# free one), KEEP=1 keeps the temporary directory (database, config, daemon log) for a closer look.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
CONFIG=${CONFIG:-debug}
DEMO_SECONDS=${DEMO_SECONDS:-30}
DEMO_WEB_PORT=${DEMO_WEB_PORT:-8080}
DEMO_USER=coach
DEMO_PASSWORD=demo-coach

bin=$("$SWIFT" build -c "$CONFIG" --show-bin-path)
for product in sportsensord sportsensorctl; do
    [ -x "$bin/$product" ] || { echo "demo: $bin/$product is missing: run \`make build\` first" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/sportsensord-demo.XXXXXX")
export SPORTSENSOR_STATE_DIR="$work/state" SPORTSENSOR_SOCKET="$work/control.sock"
daemon_pid=""
cleanup() {
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid" 2>/dev/null || true
        wait "$daemon_pid" 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "demo: kept $work (state/, config.toml, sportsensord.log)"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
ctl() { run sportsensorctl "$@"; }
sportsensorctl() { "$bin/sportsensorctl" "$@"; }

cat > "$work/config.toml" <<TOML
# The demo's configuration: three emulated sensors instead of Bluetooth hardware.
[virtual]
sensors = 3
scripts = ["table-tennis", "jump", "steps"]
rate = 100

# The coach's dashboard, on this machine only (Docs/DASHBOARD.md serves the hall's LAN).
[web]
listen = "127.0.0.1:${DEMO_WEB_PORT}"
TOML

say "a dashboard login for the demo"
printf '$ echo %s | sportsensorctl users add %s --role coach --password-stdin\n' "$DEMO_PASSWORD" "$DEMO_USER"
echo "$DEMO_PASSWORD" | sportsensorctl users add "$DEMO_USER" --role coach --password-stdin

say "starting sportsensord (state in $work/state, log in $work/sportsensord.log)"
printf '$ sportsensord --config %s\n' "$work/config.toml"
"$bin/sportsensord" --config "$work/config.toml" > "$work/sportsensord.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 1 300); do
    if sportsensorctl status > /dev/null 2>&1; then break; fi
    if ! kill -0 "$daemon_pid" 2>/dev/null; then
        echo "demo: sportsensord stopped while starting; its log:" >&2
        cat "$work/sportsensord.log" >&2
        exit 1
    fi
    sleep 0.1
done
ctl status
for _ in $(seq 1 100); do
    [ "$(sportsensorctl sensors --json | grep -c '"link_state" : "connected"')" = 3 ] && break
    sleep 0.1
done
ctl sensors
web_url=$(grep -o 'web.url=http://[0-9.:]*/' "$work/sportsensord.log" | head -n 1 | cut -d= -f2)

say "one session per athlete"
ctl start --sensor virtual-1 --profile table-tennis --athlete Ana
ctl start --sensor virtual-2 --profile jump --athlete Ben
ctl start --sensor virtual-3 --profile steps --athlete Cleo

say "the coach's dashboard: open ${web_url:-http://127.0.0.1:$DEMO_WEB_PORT/} and log in as $DEMO_USER / $DEMO_PASSWORD"
echo "dashboard: ${web_url:-http://127.0.0.1:$DEMO_WEB_PORT/}  login: $DEMO_USER  password: $DEMO_PASSWORD"

say "live counts for ${DEMO_SECONDS} s (what a coach watches; Ctrl-C ends tail early)"
printf '$ sportsensorctl tail\n'
status=0
timeout --foreground -s INT "$DEMO_SECONDS" "$bin/sportsensorctl" tail || status=$?
# timeout's 124 is the expected end; tail's own Ctrl-C exit is 0.
if [ "$status" != 0 ] && [ "$status" != 124 ]; then
    echo "demo: tail failed with status $status" >&2
    exit "$status"
fi

say "stopping the sessions"
for sensor in virtual-1 virtual-2 virtual-3; do
    ctl stop --sensor "$sensor"
done

say "what the store kept"
ctl sessions
for id in $(sportsensorctl sessions --json | grep -o '"id":"[0-9a-f-]*"' | cut -d'"' -f4); do
    ctl show "${id:0:8}"
done

say "stopping sportsensord (SIGTERM, as systemd does)"
kill -TERM "$daemon_pid"
wait "$daemon_pid" && echo "sportsensord exited cleanly" || { echo "demo: sportsensord exited with $?" >&2; exit 1; }
daemon_pid=""
echo
echo "Next: README.md (commands), Docs/OPERATIONS.md (install on a Linux box with a Bluetooth adapter)."
