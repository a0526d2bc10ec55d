#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Exits 0 when every named product exists in BIN_DIR and is newer than everything a `swift build`
# reads for it: Package.swift, Package.resolved and each file and directory under Sources/ (a
# directory changes when a file is added or removed); else 1. `make deb`, `make itest` and
# `make browser-test` ask it before a `swift build` that would find nothing to do, which on this
# package still spends 13–25 s planning (Docs/TESTING.md, "CI's time"). It errs one way only: an executable SwiftPM did not relink after a change to another
# target counts as stale, and the caller builds as before.
#
# --unstamped: a build that does not read Sources/sportsensord/BuildStamp.swift (every build but
# `make deb`'s, which passes -DSPORTSENSOR_STAMPED), so neither that file nor its directory's
# entry, both written by `make deb` after the debug build, makes its products stale.
#
# Usage: scripts/products-current.sh BIN_DIR [--unstamped] PRODUCT...
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ $# -ge 2 ] || {
    echo "usage: $0 BIN_DIR [--unstamped] PRODUCT..." >&2
    exit 2
}
bin=$1
shift
excludes=()
if [ "${1:-}" = --unstamped ]; then
    excludes=(! -path Sources/sportsensord/BuildStamp.swift ! -path Sources/sportsensord)
    shift
fi
inputs=(Package.swift Sources)
[ -e Package.resolved ] && inputs+=(Package.resolved)
for product in "$@"; do
    [ -f "$bin/$product" ] || exit 1
    newer=$(find "${inputs[@]}" -newer "$bin/$product" "${excludes[@]}" -print -quit)
    [ -z "$newer" ] || exit 1
done
exit 0
