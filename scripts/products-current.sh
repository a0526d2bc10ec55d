#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Exits 0 when every named product exists in BIN_DIR and is newer than everything a `swift build`
# reads for it: Package.swift, Package.resolved and each file and directory under Sources/ (a
# directory changes when a file is added or removed), but the --exclude paths; else 1. `make deb` and `make itest` ask it before a `swift build` that would find
# nothing to do, which on this package still spends about 25 s planning (Docs/TESTING.md, "CI's
# time"). It errs one way only: an executable SwiftPM did not relink after a change to another
# target counts as stale, and the caller builds as before.
#
# Usage: scripts/products-current.sh BIN_DIR [--exclude PATH]... PRODUCT...
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ $# -ge 2 ] || {
    echo "usage: $0 BIN_DIR [--exclude PATH]... PRODUCT..." >&2
    exit 2
}
bin=$1
shift
excludes=()
while [ "${1:-}" = --exclude ]; do
    excludes+=(! -path "$2")
    shift 2
done
inputs=(Package.swift Sources)
[ -e Package.resolved ] && inputs+=(Package.resolved)
for product in "$@"; do
    [ -f "$bin/$product" ] || exit 1
    newer=$(find "${inputs[@]}" -newer "$bin/$product" "${excludes[@]}" -print -quit)
    [ -z "$newer" ] || exit 1
done
exit 0
