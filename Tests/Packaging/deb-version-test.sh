#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make deb-version-check`: the version scripts/build-deb.sh gives the package, in throw-away
# trees holding only that script and BuildVersion.swift (no build, a second or two):
#   - a git clone: <base>+git<commits>.<12 hex of HEAD>, .dirty once a tracked file changed,
#     not for a changed screenshot under Docs/screenshots;
#   - GIT_COMMIT and GIT_COUNT where git cannot read the tree: the same form, from them;
#   - no git (a source export) and a worktree whose .git points where it cannot be seen (as in a
#     mount namespace that hides the main repository): <base>, and a warning on stderr that says
#     the binaries will say "commit unknown" and how to give the commit;
#   - a GIT_COMMIT that is no commit id, or GIT_COMMIT without GIT_COUNT outside git: refused.
# The binaries' `--version` against that version is checked by build-deb.sh itself and, for the
# installed package, by the systemd stage of `make itest`.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
ok() { echo "ok: $*"; }
bad() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
base=$(sed -n 's/^ *static let base = "\(.*\)"$/\1/p' "$ROOT/Sources/sportsensord/BuildVersion.swift")
tree() { # a minimal tree at $1
    mkdir -p "$1/scripts" "$1/Sources/sportsensord" "$1/Docs/screenshots"
    cp "$ROOT/scripts/build-deb.sh" "$1/scripts/"
    cp "$ROOT/Sources/sportsensord/BuildVersion.swift" "$1/Sources/sportsensord/"
    echo one >"$1/Docs/screenshots/board.png"
}
# version DIR [ENV...]: stdout of --print-version, its stderr in $T/err, its status in $status
version() {
    local dir=$1
    shift
    out=$(env -u GIT_COMMIT -u GIT_COUNT GIT_CONFIG_NOSYSTEM=1 "$@" "$dir/scripts/build-deb.sh" --print-version 2>"$T/err")
    status=$?
}
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid

# A git clone with two commits.
G=$T/clone
tree "$G"
git -C "$G" init -q && git -C "$G" add -A && git -C "$G" commit -qm one && git -C "$G" commit -q --allow-empty -m two ||
    { echo "FAIL: git init/commit in $G"; exit 1; }
head=$(git -C "$G" rev-parse HEAD)
version "$G"
[ $status = 0 ] && [ "$out" = "$base+git2.${head:0:12}" ] && [ ! -s "$T/err" ] &&
    ok "a git clone: $out" || bad "a git clone: '$out' (status $status, stderr: $(cat "$T/err"))"
echo two >"$G/Docs/screenshots/board.png"
version "$G"
[ "$out" = "$base+git2.${head:0:12}" ] && ok "a retaken screenshot is not dirty" || bad "a retaken screenshot made '$out'"
echo "// changed" >>"$G/Sources/sportsensord/BuildVersion.swift"
version "$G"
[ "$out" = "$base+git2.${head:0:12}.dirty" ] && ok "a changed tracked file: $out" || bad "a changed tracked file made '$out'"

# No git at all: a copy without .git.
E=$T/export
tree "$E"
version "$E"
[ $status = 0 ] && [ "$out" = "$base" ] && ok "no git: $out" || bad "no git: '$out' (status $status)"
grep -q 'WARNING: no git commit' "$T/err" && grep -q 'commit unknown' "$T/err" && grep -q 'GIT_COMMIT and GIT_COUNT' "$T/err" &&
    ok "no git: the warning says so and names the fix" || bad "no git: the warning was '$(cat "$T/err")'"

# A worktree whose .git names a directory out of sight.
H=$T/hidden
tree "$H"
echo "gitdir: $T/nowhere/.git/worktrees/hidden" >"$H/.git"
version "$H"
[ $status = 0 ] && [ "$out" = "$base" ] && grep -q 'WARNING: no git commit' "$T/err" &&
    ok "a worktree whose repository is out of sight: $out, with the warning" ||
    bad "a hidden worktree: '$out' (status $status, stderr: $(cat "$T/err"))"

# GIT_COMMIT and GIT_COUNT instead of git.
c=0123456789abcdef0123456789abcdef01234567
version "$H" GIT_COMMIT=$c GIT_COUNT=41
[ $status = 0 ] && [ "$out" = "$base+git41.0123456789ab" ] && [ ! -s "$T/err" ] &&
    ok "GIT_COMMIT and GIT_COUNT: $out" || bad "GIT_COMMIT and GIT_COUNT: '$out' (status $status, stderr: $(cat "$T/err"))"
version "$H" GIT_COMMIT=$c
[ $status != 0 ] && grep -q 'set GIT_COUNT too' "$T/err" && ok "GIT_COMMIT without GIT_COUNT outside git is refused" ||
    bad "GIT_COMMIT without GIT_COUNT: '$out' (status $status, stderr: $(cat "$T/err"))"
version "$H" GIT_COMMIT=HEAD GIT_COUNT=3
[ $status != 0 ] && grep -q 'not a full commit id' "$T/err" && ok "GIT_COMMIT=HEAD is refused" ||
    bad "GIT_COMMIT=HEAD: '$out' (status $status, stderr: $(cat "$T/err"))"
version "$G" GIT_COMMIT="$head"
[ $status = 0 ] && [ "$out" = "$base+git2.${head:0:12}" ] && ok "GIT_COMMIT in a clone: git counts its commits" ||
    bad "GIT_COMMIT in a clone: '$out' (status $status, stderr: $(cat "$T/err"))"

[ $failures = 0 ] && echo "deb-version-check: OK" || { echo "deb-version-check: $failures failure(s)"; exit 1; }
