# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The systemd stage's upgrade (guest side; sourced by systemd-driver.sh, which defines ctl, check,
# fail, step, sessions_json, STATE, CONFIG, W, NEW_DEB and the params).
#
# The box runs the older package (PREV_DEB at PREV_VERSION: this commit's contents repackaged at a
# lower version by systemd-stage.sh), the admin has edited the conffile, enabled and started the
# service and paired the sensors. upgrade_with_migration records a session, stops the service and
# takes out of the store what schemas v8 and v9 added (sqlite3: their columns, their migrations'
# rows, user_version), so the store is one the v7 release left; then `apt install` of the new package,
# and checks that the upgrade kept the admin's config (without a prompt), the sportsensor user's
# ids, the service enabled and stopped, and the store as it was; that `systemctl start` migrates
# the store to v9; that the session reads back the same (its summary, its export byte for byte)
# and the migrated athlete takes v8's column. reinstall_while_running: the maintainer scripts
# restart a running service.

# sqlite3 as the service's user: a WAL or shared-memory file it creates must stay the daemon's.
store_sql() { runuser -u sportsensor -- sqlite3 -batch "$STATE/sportsensord.sqlite" "$@"; }
UPGRADE_ID=""

upgrade_with_migration() {
    ctl athletes add ada --mass-kg 58.5 >$W/upgrade.log 2>&1 || fail "athletes add ada: $(cat $W/upgrade.log)"
    ctl start --sensor s1 --profile table-tennis --athlete ada >>$W/upgrade.log 2>&1 ||
        fail "start before the upgrade: $(cat $W/upgrade.log)"
    UPGRADE_ID=$(sessions_json | jq -r '[.[] | select(.ended_at == null)][0].id')
    recorded() { [ "$(sessions_json | jq --arg id "$UPGRADE_ID" '.[] | select(.id == $id) | .samples')" -ge 300 ]; }
    WAIT_INTERVAL=3 wait_until 120 recorded || fail "the session before the upgrade did not store 300 samples in 120 s"
    ctl stop --sensor s1 >>$W/upgrade.log 2>&1 || fail "stop before the upgrade: $(tail -1 $W/upgrade.log)"
    systemctl stop sportsensord
    ctl show --state-dir $STATE --json "$UPGRADE_ID" >$W/upgrade-before.json || fail "show before the upgrade"
    ctl export --state-dir $STATE --format btsnoop --output /tmp/upgrade-before.btsnoop "$UPGRADE_ID" ||
        fail "export before the upgrade"
    jq -c '{id, samples, events, end_reason}' $W/upgrade-before.json 2>/dev/null | sed 's/^/  recorded: /'

    # What v8 and v9 added (StoreSchema.swift), taken out: the store as the v7 release left it.
    # A newer schema than v9 needs its own lines here first.
    [ "$(store_sql 'PRAGMA user_version')" = 9 ] ||
        fail "the new store is at schema $(store_sql 'PRAGMA user_version'), not 9: teach upgrade.sh to take it back to v7"
    store_sql "ALTER TABLE sessions DROP COLUMN unsaved_samples; ALTER TABLE athletes DROP COLUMN racket_hand;
        DELETE FROM grdb_migrations WHERE identifier IN ('v8-athlete-racket-hand', 'v9-session-unsaved-samples');
        PRAGMA user_version = 7;" ||
        fail "turning the store into schema v7"
    check "the store is at schema v7 before the upgrade" test "$(store_sql 'PRAGMA user_version')" = 7
    local ids config_sum t_cmd
    ids=$(id sportsensor)
    config_sum=$(md5sum <$CONFIG)
    step "session ${UPGRADE_ID:0:8} recorded under $PREV_VERSION, service stopped, store at schema v7"

    # The upgrade, as an admin runs it. No terminal: a conffile prompt would fail it.
    t_cmd=$EPOCHREALTIME
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$NEW_DEB" </dev/null >$W/apt-upgrade.log 2>&1 ||
        fail "apt install (upgrade from $PREV_VERSION): $(tail -5 $W/apt-upgrade.log)"
    awk -v a="$t_cmd" -v b="$EPOCHREALTIME" 'BEGIN { printf "  apt install (upgrade) took %.1f s\n", b - a }'
    grep -E '^(Preparing|Unpacking|Setting up)' $W/apt-upgrade.log | sed 's/^/  /'
    check "the upgrade installed version $VERSION" test "$(dpkg-query -W -f='${Version}' sportsensord)" = "$VERSION"
    check "the upgrade kept the admin's config.toml" test "$(md5sum <$CONFIG)" = "$config_sum"
    check "the upgrade kept config.toml 0640 root:sportsensor" \
        test "$(stat -c '%a %U:%G' $CONFIG)" = "640 root:sportsensor"
    check "the upgrade kept the sportsensor user and group ids" test "$(id sportsensor)" = "$ids"
    check "the upgrade kept the service enabled" test "$(systemctl is-enabled sportsensord)" = enabled
    check "the upgrade left the stopped service stopped" test "$(systemctl is-active sportsensord)" = inactive
    check "the maintainer scripts left the store at schema v7" test "$(store_sql 'PRAGMA user_version')" = 7

    systemctl start sportsensord || fail "systemctl start sportsensord (after the upgrade)"
    wait_until 120 test -S /run/sportsensord/control.sock || fail "the control socket did not appear after the upgrade"
    check "the upgraded daemon migrated the store to schema v9" test "$(store_sql 'PRAGMA user_version')" = 9
    check "grdb_migrations lists v8-athlete-racket-hand and v9-session-unsaved-samples" \
        test "$(store_sql "SELECT count(*) FROM grdb_migrations
            WHERE identifier IN ('v8-athlete-racket-hand', 'v9-session-unsaved-samples')")" = 2
    ctl show --state-dir $STATE --json "$UPGRADE_ID" >$W/upgrade-after.json
    check "the session recorded before the upgrade shows the same after it" \
        test "$(jq -S . $W/upgrade-before.json)" = "$(jq -S . $W/upgrade-after.json)"
    if ctl export --state-dir $STATE --format btsnoop --output /tmp/upgrade-after.btsnoop "$UPGRADE_ID"; then
        check "its export after the upgrade is byte for byte the one before" \
            cmp /tmp/upgrade-before.btsnoop /tmp/upgrade-after.btsnoop
    else
        check "export after the upgrade" false
    fi
    ctl athletes edit ada --racket-hand left >>$W/upgrade.log 2>&1
    ctl athletes list --json >$W/athletes-upgraded.json
    check "the migrated athlete keeps its session and mass, and takes a racket hand (v8's column)" \
        jq -e '.[] | select(.name == "ada") | .racket_hand == "left" and .mass_kg == 58.5 and .sessions == 1' \
        $W/athletes-upgraded.json
    check "store check after the migration" ctl store check --state-dir $STATE
    step "upgraded to $VERSION; store migrated to v9"
}

# A reinstall while the service runs takes the maintainer scripts' path of an upgrade of a running
# service (prerm upgrade, postinst configure with the old version): it is restarted, not stopped.
reinstall_while_running() {
    local pid_before
    pid_before=$(systemctl show -p MainPID --value sportsensord)
    DEBIAN_FRONTEND=noninteractive apt-get install --reinstall -y "$NEW_DEB" </dev/null >$W/apt-reinstall.log 2>&1 ||
        fail "apt install --reinstall: $(tail -5 $W/apt-reinstall.log)"
    check "a reinstall restarted the running service (pid $pid_before before)" \
        test "$(systemctl is-active sportsensord)" = active -a "$(systemctl show -p MainPID --value sportsensord)" != "$pid_before"
    check "a reinstall kept the service enabled" test "$(systemctl is-enabled sportsensord)" = enabled
}
