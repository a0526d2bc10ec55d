#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make deb`: sportsensord_<version>_<arch>.deb, for a box with no Swift toolchain.
#
# 1. The version: BuildVersion.base (Sources/sportsensord/BuildVersion.swift) plus, with a git
#    commit, +git<commits>.<12 hex of HEAD> (.dirty for changed files), e.g. 0.1.0+git502.a3e3c59c4d1b:
#    later commits sort later, so apt upgrades. The commit comes from git, or from GIT_COMMIT and
#    GIT_COUNT where git cannot read the tree (an export, a worktree whose .git is out of sight);
#    with neither, the package is the base version, its binaries say "commit unknown", and this
#    says so on stderr. Written with the full commit into Sources/sportsensord/BuildStamp.swift
#    (ignored by git) only when it changed.
# 2. One release build of every product (a single `swift build`, so sportsensorctl's own modules
#    compile beside sportsensord's instead of after them) with -DSPORTSENSOR_STAMPED and
#    --static-swift-stdlib (the Swift runtime and Foundation linked in), then stripped; this build's
#    sportsensor-dev (not packaged) is kept as .build-deb/deb-work/sportsensor-dev for `make itest`.
#    Its own scratch path (DEB_SCRATCH, .build-deb): `make release-builds` runs checks that build in
#    .build beside it (SwiftPM locks a scratch path), and `make eval`'s or `make bench`'s dynamic
#    release build in .build/release is never rebuilt as a static one. Not run when its products
#    are current (scripts/products-current.sh, and the flags they were built with are these): the
#    `make deb` after `make release-builds` would only spend SwiftPM's planning.
# 3. The tree: binaries, the unit (paths rewritten for /usr/bin), sysusers.d and tmpfiles.d,
#    the example config as the conffile /etc/sportsensord/config.toml, the LAN drop-in and the
#    docs in /usr/share/doc/sportsensord, bash/zsh/fish completions and man pages made by the
#    binaries' own argument parser (--generate-completion-script, --experimental-dump-help with
#    scripts/manpage.py), a DEP-5 copyright file, the changelog, the maintainer scripts.
# 4. Depends: from dpkg-shlibdeps on the binaries (it fails for a library no Debian package
#    ships, such as a Swift runtime left dynamic), plus systemd; Recommends: bluez.
# 5. dpkg-deb --root-owner-group -Zxz -z1 (xz's fastest level: 15 CPU-s against the default's 110
#    on this tree, a fifth larger; lintian and dpkg know no zstd here); then the checks: no Swift
#    library among the binaries' NEEDED, `--version` names the commit, and lintian with no error.
#    Each phase's seconds are printed (Docs/TESTING.md, "CI's time").
#
# --build-only stops after step 2's swift build: `make release-builds` runs it with the fuzzers'
# build and checks beside it, and the `make deb` that follows finds the build done (Docs/TESTING.md,
# "CI's time").
#
# --print-work-dir prints where the tree and that sportsensor-dev go (`make itest` looks there).
#
# Usage: scripts/build-deb.sh [--print-version | --print-work-dir | --build-only]
#        env: SWIFT, BUILD_FLAGS, DEB_OUT (.),
#        DEB_SCRATCH (.build-deb),
#        GIT_COMMIT (40 hex) and GIT_COUNT (commits up to it) instead of asking git
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SWIFT=${SWIFT:-swift}
DEB_OUT=${DEB_OUT:-.}
DEB_SCRATCH=${DEB_SCRATCH:-.build-deb}
WORK=$DEB_SCRATCH/deb-work
if [ "${1:-}" = --print-work-dir ]; then
    case $WORK in /*) echo "$WORK" ;; *) echo "$ROOT/$WORK" ;; esac
    exit 0
fi
say() { echo "deb: $*"; }
die() {
    echo "deb: FAIL: $*" >&2
    exit 1
}

base=$(sed -n 's/^ *static let base = "\(.*\)"$/\1/p' Sources/sportsensord/BuildVersion.swift)
[ -n "$base" ] || die "no 'static let base' in Sources/sportsensord/BuildVersion.swift"
if [ -n "${GIT_COMMIT:-}" ]; then
    commit=$GIT_COMMIT
    [[ "$commit" =~ ^[0-9a-f]{40}$ ]] || die "GIT_COMMIT='$commit' is not a full commit id (40 lowercase hex digits)"
    count=${GIT_COUNT:-$(git rev-list --count "$commit" 2>/dev/null || true)}
    [[ "$count" =~ ^[0-9]+$ ]] || die "GIT_COMMIT is set and git cannot count its commits here: set GIT_COUNT too"
elif commit=$(git rev-parse --verify -q HEAD 2>/dev/null); then
    count=$(git rev-list --count HEAD)
else
    # Not fatal (a source export builds too) but never silent: the package cannot say what it was built from.
    why=$(git rev-parse HEAD 2>&1 >/dev/null | head -1 || true)
    echo "deb: WARNING: no git commit (${why:-git: no HEAD}): the package is version $base and its" \
        "binaries say \"commit unknown\"; build in a git clone, or set GIT_COMMIT and GIT_COUNT" >&2
    commit=unknown
fi
if [ "$commit" = unknown ]; then
    version=$base
else
    version="$base+git$count.${commit:0:12}"
    # Changed tracked files make it .dirty; the screenshots `make test` rewrites are not built in.
    if [ -z "${GIT_COMMIT:-}" ] && ! git diff --quiet HEAD -- . ':!Docs/screenshots' 2>/dev/null; then
        version="$version.dirty"
        commit="$commit-dirty"
    fi
fi
if [ "${1:-}" = --print-version ]; then
    echo "$version"
    exit 0
fi

stamp=Sources/sportsensord/BuildStamp.swift
new_stamp="// Written by scripts/build-deb.sh for \`make deb\`; not in git.

#if SPORTSENSOR_STAMPED
enum BuildStamp {
    static let version = \"$version\"
    static let commit = \"$commit\"
}
#endif"
[ "$(cat "$stamp" 2>/dev/null)" = "$new_stamp" ] || printf '%s\n' "$new_stamp" >"$stamp"

# shellcheck disable=SC2086
FLAGS=(-c release --static-swift-stdlib -Xswiftc -DSPORTSENSOR_STAMPED --scratch-path "$DEB_SCRATCH" $BUILD_FLAGS)
say "release build of $version (commit $commit)"
t=$SECONDS
# After `make release-builds` (as in `make test`) the build is done: skip SwiftPM's planning when
# the products are newer than every input and were built with these flags.
if [ "$(cat "$DEB_SCRATCH/build-flags" 2>/dev/null)" = "${FLAGS[*]}" ] &&
    scripts/products-current.sh "$DEB_SCRATCH/release" sportsensord sportsensorctl sportsensor-dev; then
    say "the release build is current (built with these flags, no input newer): not run again"
else
    rm -f "$DEB_SCRATCH/build-flags"
    "$SWIFT" build "${FLAGS[@]}" || die "swift build ${FLAGS[*]}"
    printf '%s' "${FLAGS[*]}" >"$DEB_SCRATCH/build-flags"
fi
if [ "${1:-}" = --build-only ]; then
    say "release build took $((SECONDS - t)) s (--build-only: no package)"
    exit 0
fi
BIN=$("$SWIFT" build "${FLAGS[@]}" --show-bin-path)
say "release build took $((SECONDS - t)) s"
t=$SECONDS
ARCH=$(dpkg --print-architecture)
P=$WORK/root
rm -rf "$WORK"
install -d "$P/DEBIAN" "$P/usr/bin" "$P/usr/lib/systemd/system" "$P/usr/lib/sysusers.d" "$P/usr/lib/tmpfiles.d" \
    "$P/etc/sportsensord" "$P/usr/share/doc/sportsensord" "$P/usr/share/man/man1" \
    "$P/usr/share/bash-completion/completions" "$P/usr/share/zsh/vendor-completions" \
    "$P/usr/share/fish/vendor_completions.d" "$P/usr/share/lintian/overrides"

for b in sportsensord sportsensorctl; do
    install -m 0755 "$BIN/$b" "$P/usr/bin/$b"
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$P/usr/bin/$b"
    # Nothing of Swift may stay dynamic: the box has no toolchain.
    swift_libs=$(readelf -d "$P/usr/bin/$b" | grep NEEDED |
        grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libicu' || true)
    [ -z "$swift_libs" ] || die "$b still links Swift libraries dynamically: $swift_libs"
done
# Not packaged: the systemd stage of `make itest` runs its virtual sensors with this build's
# sportsensor-dev (static too, so the guest gets no Swift runtime at all).
install -m 0755 "$BIN/sportsensor-dev" "$WORK/sportsensor-dev"
strip --strip-unneeded "$WORK/sportsensor-dev"
said=$("$P/usr/bin/sportsensord" --version)
[ "$said" = "$version (commit $commit)" ] || die "sportsensord --version says '$said', not '$version (commit $commit)'"

sed -e 's|/usr/local/bin/|/usr/bin/|g' -e 's|/usr/local/share/doc/sportsensord/|/usr/share/doc/sportsensord/|g' \
    systemd/sportsensord.service >"$P/usr/lib/systemd/system/sportsensord.service"
grep -q '^ExecStart=/usr/bin/sportsensord ' "$P/usr/lib/systemd/system/sportsensord.service" ||
    die "the unit's ExecStart= was not rewritten to /usr/bin"
install -m 0644 systemd/sportsensord.sysusers "$P/usr/lib/sysusers.d/sportsensord.conf"
install -m 0644 systemd/sportsensord.tmpfiles "$P/usr/lib/tmpfiles.d/sportsensord.conf"
install -m 0640 systemd/config.example.toml "$P/etc/sportsensord/config.toml"
D=$P/usr/share/doc/sportsensord
install -m 0644 Docs/OPERATIONS.md Docs/TROUBLESHOOTING.md Docs/API.md Docs/DASHBOARD.md \
    systemd/dashboard-lan.conf "$D/"
install -m 0644 systemd/config.example.toml "$D/config.example.toml"

# Completions and man pages, from each command's own parser.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
for b in sportsensord sportsensorctl; do
    # bash-completion sources the file: a #! line is noise there (lintian warns).
    "$P/usr/bin/$b" --generate-completion-script bash | sed '1{/^#!/d}' >"$P/usr/share/bash-completion/completions/$b"
    "$P/usr/bin/$b" --generate-completion-script zsh >"$P/usr/share/zsh/vendor-completions/_$b"
    "$P/usr/bin/$b" --generate-completion-script fish >"$P/usr/share/fish/vendor_completions.d/$b.fish"
    "$P/usr/bin/$b" --experimental-dump-help | python3 scripts/manpage.py --section 1 --date "$date" \
        --source "sportsensord $version" >"$P/usr/share/man/man1/$b.1"
    gzip -9n "$P/usr/share/man/man1/$b.1"
done

# DEP-5 copyright: ours, the toolchain's static parts, then every resolved Swift package.
{
    cat packaging/deb/copyright.head
    for dir in "$DEB_SCRATCH"/checkouts/*; do
        [ -d "$dir" ] || continue
        name=$(basename "$dir")
        case " ${seen:-} " in *" $name "*) continue ;; esac
        seen="${seen:-} $name"
        file=$(ls "$dir" | grep -iE '^(LICEN[CS]E|COPYING)' | head -1 || true)
        [ -n "$file" ] || die "$name has no licence file"
        if grep -q 'Apache License' "$dir/$file"; then license=Apache-2.0; elif grep -q 'Permission is hereby granted' "$dir/$file"; then
            license=MIT
        else die "$name: its licence ($file) is neither Apache-2.0 nor MIT: add it to packaging/deb/copyright.head"; fi
        holder=$(grep -m1 -E '^ *Copyright \(c\)|^ *Copyright [0-9(]' "$dir/$file" | sed -E 's/^ *Copyright (\([cC]\) )?//' || true)
        printf '\nFiles: swift-packages/%s/*\nCopyright: %s\nLicense: %s\n' "$name" "${holder:-the $name authors}" "$license"
    done
    cat packaging/deb/copyright.tail
} >"$D/copyright"
[ -n "${seen:-}" ] || die "no resolved Swift packages found for the copyright file"

maintainer="sportsensord maintainers <maintainers@users.noreply.a-seed-6abfc143.example>"
{
    printf 'sportsensord (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built from git commit %s.\n\n' "$commit"
    printf ' -- %s  %s\n' "$maintainer" "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} | gzip -9n >"$D/changelog.gz"
install -m 0644 packaging/deb/lintian-overrides "$P/usr/share/lintian/overrides/sportsensord"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$P/DEBIAN/"
echo /etc/sportsensord/config.toml >"$P/DEBIAN/conffiles"

# Depends: what dpkg-shlibdeps finds the binaries need (in a minimal debian/ tree of its own).
mkdir -p "$WORK/shlibs/debian"
printf 'Source: sportsensord\n\nPackage: sportsensord\nArchitecture: any\n' >"$WORK/shlibs/debian/control"
shlibs=$(cd "$WORK/shlibs" && dpkg-shlibdeps -O -e"$ROOT/$P/usr/bin/sportsensord" -e"$ROOT/$P/usr/bin/sportsensorctl") ||
    die "dpkg-shlibdeps: a library the binaries need comes from no Debian package"
depends=${shlibs#shlibs:Depends=}
cat >"$P/DEBIAN/control" <<EOF
Package: sportsensord
Version: $version
Architecture: $ARCH
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$P" | cut -f1)
Depends: $depends, systemd
Recommends: bluez
Section: net
Priority: optional
Description: gateway for SDU wrist-worn sport sensors over Bluetooth LE
 sportsensord pairs SDU sport sensors over Bluetooth Low Energy, detects
 training events (table-tennis hits, jumps, throws, steps), stores sessions
 in SQLite and serves a control API, live events and a web dashboard for the
 coach. sportsensorctl drives it and works on the stored sessions.
 .
 The service runs as the sportsensor system user and is not enabled on
 installation: see /usr/share/doc/sportsensord/OPERATIONS.md.
EOF
(cd "$P" && find usr etc -type f -print0 | sort -z | xargs -0 md5sum) >"$P/DEBIAN/md5sums"

deb="$DEB_OUT/sportsensord_${version}_$ARCH.deb"
rm -f "$DEB_OUT"/sportsensord_*_"$ARCH".deb
say "tree, completions, man pages, copyright and Depends took $((SECONDS - t)) s"
t=$SECONDS
dpkg-deb --root-owner-group -Zxz -z1 --build "$P" "$deb" >/dev/null || die "dpkg-deb --build"
say "built $deb ($(du -k "$deb" | cut -f1) KiB, dpkg-deb $((SECONDS - t)) s; Depends: $depends, systemd)"
say "lintian"
t=$SECONDS
lintian --fail-on error,warning --display-info "$deb" || die "lintian found problems in $deb"
say "lintian took $((SECONDS - t)) s"
say "OK: $deb"
