#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make test`'s release builds, in the background: the package's (scripts/build-deb.sh --build-only, in
# .build-deb) and the fuzzers' (`make fuzz-build`, in Fuzz/.build), side by side
# (`make -j2`), under SCHED_IDLE (`chrt --idle 0`) and a low I/O priority, while the debug build and
# its tests run in the foreground. A release build is mostly one whole-module compile at a time, and
# the tests leave cores idle: the release builds take those cycles, and the foreground keeps the
# machine whenever it wants it (Docs/TESTING.md, "CI's time"). Not `nice`: swift-build's worker
# threads run at nice 0 (Dispatch sets their priority), so the compilers they start would be back
# at nice 0; the scheduling policy, which they do not set, is inherited by every child. The fuzz smoke
# runs are not here: libFuzzer's per-input timeout is wall-clock time, which a starved SCHED_IDLE
# process could overrun; `make test` runs them in the foreground beside `make deb`'s packaging.
#
# Usage: scripts/background-builds.sh start | wait | stop
#   start  stops any earlier background run, then starts one in a session of its own (so `stop` ends
#          the whole tree: make, swift build, the compilers); returns at once
#   wait   waits for it; prints what it printed; its exit status
#   stop   ends it (the foreground failed: nothing waits for the package any more)
# env: MAKE (make), BACKGROUND_DIR (.build-deb: background.log, background.pid, background.status)
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
DIR=${BACKGROUND_DIR:-.build-deb}
LOG=$DIR/background.log
PID=$DIR/background.pid
STATUS=$DIR/background.status
say() { echo "background-builds: $*"; }

running() { [ -s "$PID" ] && kill -0 "$(cat "$PID")" 2>/dev/null; }

stop() {
    running || return 0
    local pid
    pid=$(cat "$PID")
    # The session's process group: setsid made the background shell its leader.
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
        running || break
        sleep 0.5
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$PID"
    say "stopped"
}

case "${1:-}" in
start)
    stop
    mkdir -p "$DIR"
    rm -f "$STATUS"
    # The status file is written last, so `wait` can tell "done" from "still running".
    setsid bash -c '
        chrt --idle 0 ionice -c 2 -n 7 "$1" --no-print-directory -j2 --output-sync=line deb-build fuzz-build \
            >"$2" 2>&1
        echo $? >"$3.part" && mv "$3.part" "$3"' background-builds "$MAKE" "$LOG" "$STATUS" </dev/null &
    echo $! >"$PID"
    say "the package's and the fuzzers' release builds started (SCHED_IDLE; log: $LOG)"
    ;;
wait)
    [ -s "$PID" ] || [ -s "$STATUS" ] || { say "FAIL: nothing was started (scripts/background-builds.sh start)"; exit 2; }
    t=$SECONDS
    while [ ! -s "$STATUS" ] && running; do sleep 2; done
    rm -f "$PID"
    cat "$LOG"
    [ -s "$STATUS" ] || { say "FAIL: the background run ended without a status (killed?); its log is above"; exit 2; }
    status=$(cat "$STATUS")
    [ "$status" = 0 ] || { say "FAIL: exit status $status (its log is above)"; exit 1; }
    say "done ($((SECONDS - t)) s waited after the foreground)"
    ;;
stop) stop ;;
*)
    echo "usage: scripts/background-builds.sh start | wait | stop" >&2
    exit 2
    ;;
esac
