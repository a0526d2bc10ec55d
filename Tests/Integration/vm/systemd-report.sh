#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The systemd stage's verdict on the samples (host side): each sensor's stored session, exported
# by the guest as a btsnoop capture, against the samples the virtual sensor sent (its --truth CSV).
#
# `sportsensorctl decode` turns the export back into samples whose t is the sample index distance
# from the session's first stored sample; the first few readings locate that sample in the truth,
# which gives every stored sample its sensor index. `sportsensor-dev itest-compare` (unit-tested)
# then checks: indices strictly increasing (no sample stored twice), every stored reading equal
# to what the sensor sent at that index, the indices skipped equal to the session's own `lost`
# count (the loss counted), and nothing the sensor sent in the session's span missing outside
# those gaps (the truth, cut to the span, stands in for a capture). Sensors that moved adapter
# must show a reconnection.
#
# Prints per sensor: adapters, expected samples (the span in the sensor's own counter), stored,
# lost, reconnections and how long each took (from the stamped `tail --json` link events).
# Usage: systemd-report.sh OUT BINDIR; exit status 0 when every sensor passes.
set -uo pipefail
OUT=$1
CTL=$2/sportsensorctl
DEV=$2/sportsensor-dev
R=$OUT/report
mkdir -p "$R"
status=0
printf '%-4s %-18s %-10s %9s %9s %7s %6s  %s\n' sensor address adapters expected stored lost reconn "reconnect times (s)"
while read -r name hci address; do
    id=$(awk -v n="$name" '$1 == n { print $2 }' "$OUT/session-ids.txt")
    show="$OUT/show-$name.json"
    if [ ! -s "$OUT/$name.btsnoop" ] || [ ! -s "$show" ]; then
        echo "FAIL: $name ($address): no exported session ${id:-}"
        status=1
        continue
    fi
    "$CTL" decode "$OUT/$name.btsnoop" --stats >"$R/$name.decoded.csv" 2>"$R/$name.decode.log" ||
        { echo "FAIL: $name: decode: $(tail -2 "$R/$name.decode.log")"; status=1; continue; }
    # decode times samples on one period fitted to the stored times, which a starved guest
    # stretches: the index distance of a sample from the first is t * span / t_last, where the
    # span (samples + lost - 1) comes from the counter, which decode reports.
    span=$(awk -F': ' '/^samples:/ { n = $2 } /^lost samples \(counter\):/ { split($2, a, " "); l = a[1] }
        END { print n + l - 1 }' "$R/$name.decode.log")
    # The truth index of the first stored sample: where the first 20 stored readings (at their
    # index distances) all match the truth (written at t = index / 100).
    first=$(awk -F, -v span="$span" '
        BEGIN { m = 0 }
        FNR == 1 || /^#/ { next }
        FILENAME == ARGV[1] { i = int($1 * 100 + 0.5); truth[i] = $2 "," $3 "," $4; if (i > last) last = i; next }
        { t[m] = $1; r[m] = $2 "," $3 "," $4; m++ }
        END {
            scale = (m > 1 && t[m - 1] > 0) ? span / t[m - 1] : 0
            n = m < 20 ? m : 20
            for (k = 0; k < n; k++) d[k] = int(t[k] * scale + 0.5)
            for (i = 0; i <= last; i++) {
                ok = 1
                for (k = 0; k < n && ok; k++) if (truth[i + d[k]] != r[k]) ok = 0
                if (ok && n > 0) { print i; exit }
            }
        }' "$OUT/truth-$name.csv" "$R/$name.decoded.csv")
    if [ -z "$first" ]; then
        echo "FAIL: $name: the stored samples are not what the sensor sent (no match in its truth)"
        status=1
        continue
    fi
    # The stored samples at their sensor index, as sample CSV at 100 Hz (what itest-compare reads).
    awk -F, -v first="$first" -v span="$span" 'BEGIN { m = 0 } FNR == 1 { print; next } { t[m] = $1; l[m] = $2 "," $3 "," $4; m++ }
        END { scale = t[m - 1] > 0 ? span / t[m - 1] : 0
              for (k = 0; k < m; k++) printf "%.2f,%s\n", (first + int(t[k] * scale + 0.5)) / 100, l[k] }' \
        "$R/$name.decoded.csv" >"$R/$name.received.csv"
    awk -F, -v first="$first" 'FNR == 1 || int($1 * 100 + 0.5) >= first' "$OUT/truth-$name.csv" >"$R/$name.truth-span.csv"
    # Link events of this sensor, stamped with the guest's clock: reconnections and their times.
    jq -Rr --arg a "$address" 'capture("^(?<t>[0-9.]+) (?<j>.*)$") | (.j | fromjson) as $e
        | select($e.event == "link" and $e.data.address == $a) | "\(.t) \($e.data.state)"' \
        "$OUT/tail.jsonl" >"$R/$name.links" 2>/dev/null
    # The tail starts once every sensor is connected: each is up at its first line.
    read -r reconnects times < <(awk 'BEGIN { up = 1 }
        $2 == "connected" { if (down) { n++; times = times sprintf(" %.1f", $1 - down) } down = 0; up = 1; next }
        up && !down { down = $1 }
        END { print n + 0, (times == "" ? "-" : times) }' "$R/$name.links")
    lost=$(jq -r '.lost' "$show")
    stored=$(jq -r '.samples' "$show")
    last=$(awk -F, 'FNR > 1 { i = int($1 * 100 + 0.5) } END { print i }' "$R/$name.received.csv")
    expected=$((last - first + 1))
    adapters=$(jq -r --arg a "$address" '.[] | select(.address == $a) | .adapter // "-"' "$OUT/sensors-before.json" 2>/dev/null)
    after=$(jq -r --arg a "$address" '.[] | select(.address == $a) | .adapter // "-"' "$OUT/sensors-after.json" 2>/dev/null)
    [ "$after" != "$adapters" ] && adapters="$adapters>$after"
    printf '%-4s %-18s %-10s %9s %9s %7s %6s  %s\n' "$name" "$address" "$adapters" "$expected" "$stored" "$lost" \
        "$reconnects" "$times"
    moved=0
    [ "${adapters#*>}" != "$adapters" ] && moved=1
    printf 'missing=%s\nreconnects=%s\nduplicates_dropped=0\n' "$lost" "$reconnects" >"$R/$name.stats"
    "$DEV" itest-compare --truth "$OUT/truth-$name.csv" --received "$R/$name.received.csv" --stats "$R/$name.stats" \
        --decoded "$R/$name.truth-span.csv" --min-samples 1000 --min-reconnects $moved >"$R/$name.compare.log" 2>&1 ||
        { sed "s/^/  $name: /" "$R/$name.compare.log"; status=1; }
    [ "$((stored + lost))" = "$expected" ] ||
        { echo "  $name: FAIL: stored $stored + lost $lost != expected $expected"; status=1; }
done <"$OUT/sensors.txt"
exit $status
