#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# btvirt for the systemd stage: Debian's own BlueZ source with one fix (btvirt-handles.patch),
# built here and cached. Prints the path of the binary.
#
# Why: BlueZ's emulator (5.66, and upstream's conn_link is unchanged) gives a new link the lowest
# handle free on each side separately, but tells the peripheral the central's handle and
# forwards ACL data without translating it. Once a central holds one link, its next link gets
# handle 43 while the peripheral's side is 42: the peripheral's kernel then asks about handle 43
# (LE Read Remote Used Features → Unknown Connection Identifier), disconnects, never gets a
# Disconnection Complete for it, and the link is dead in both directions. One central carrying
# several sensors, the point of this stage, needs the fix: one handle free on both devices.
#
# The source comes from Debian's archive (apt-get source, through a private sources list so the
# host's apt configuration is untouched), in the version the host's bluez package has, which is
# the one the image installs (both from the same suite). Compiled with gcc from the few files
# btvirt needs; it links only libc.
#
# Usage: btvirt.sh   (env: ITEST_CACHE, DEBIAN_SUITE=bookworm, DEBIAN_MIRROR)
# Exit status: 0 with the binary's path on stdout; 2 when it could not be built.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SUITE=${DEBIAN_SUITE:-bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${ITEST_CACHE:-$HOME/.cache/sportsensord-itest}
VERSION=$(dpkg-query -W -f='${Version}' bluez 2>/dev/null) || { echo "btvirt: FAIL: bluez is not installed" >&2; exit 2; }
KEY=$( (cat "$HERE/btvirt.sh" "$HERE/btvirt-handles.patch"; echo "$VERSION $SUITE $MIRROR") | sha256sum | cut -c1-16)
OUT="$CACHE/btvirt-$KEY"
[ -x "$OUT/btvirt" ] && { echo "$OUT/btvirt"; exit 0; }
log() { echo "btvirt: $*" >&2; }
command -v gcc >/dev/null || { log "FAIL: gcc is missing (apt: gcc)"; exit 2; }
mkdir -p "$CACHE"
WORK=$(mktemp -d "$CACHE/btvirt-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/archives/partial"
echo "deb-src $MIRROR $SUITE main" >"$WORK/apt/sources.list"
APT=(-o "Dir::Etc::SourceList=$WORK/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache=$WORK/apt" -o APT::Sandbox::User=root)
(cd "$WORK" && apt-get "${APT[@]}" -qq update && apt-get "${APT[@]}" -qq source --download-only "bluez=$VERSION") \
    >"$WORK/apt.log" 2>&1 || { tail -5 "$WORK/apt.log" >&2; log "FAIL: apt-get source bluez=$VERSION"; exit 2; }
tar -C "$WORK" -xf "$WORK"/bluez_*.orig.tar.xz
SRC=$(echo "$WORK"/bluez-*/)
(cd "$SRC" && patch -s -p1 <"$HERE/btvirt-handles.patch") || { log "FAIL: btvirt-handles.patch does not apply to bluez $VERSION"; exit 2; }
printf '#define VERSION "%s"\n' "$VERSION" >"$SRC/config.h"
(cd "$SRC" && gcc -O2 -DHAVE_CONFIG_H -I. -Ilib -o "$WORK/btvirt" \
    emulator/main.c emulator/serial.c emulator/server.c emulator/vhci.c emulator/btdev.c emulator/bthost.c \
    emulator/smp.c emulator/phy.c emulator/amp.c emulator/le.c src/shared/queue.c src/shared/util.c \
    src/shared/crypto.c src/shared/ecc.c src/shared/mainloop.c src/shared/io-mainloop.c \
    src/shared/timeout-mainloop.c src/shared/mainloop-notify.c lib/bluetooth.c lib/hci.c) >"$WORK/gcc.log" 2>&1 ||
    { tail -10 "$WORK/gcc.log" >&2; log "FAIL: compiling btvirt"; exit 2; }
mkdir -p "$OUT"
mv "$WORK/btvirt" "$OUT/btvirt"
log "built from bluez $VERSION with btvirt-handles.patch"
echo "$OUT/btvirt"
