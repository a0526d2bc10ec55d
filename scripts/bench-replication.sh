#!/bin/sh
# Catch-up throughput of a replication backlog into a throw-away local PostgreSQL (Debian's
# postgresql package): initdb/pg_ctl in a temporary directory on a free loopback port, run as the
# postgres user when started as root (initdb refuses root). Usage: bench-replication.sh DEV-BINARY [ARGS]
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
dev=$1; shift
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/ssd-bench-pg.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
cleanup() { as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
# Durable settings (fsync on, as a real server): the figure is what a club's server would take.
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_wal_size=4GB" start >/dev/null
"$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qc 'CREATE DATABASE club'
"$dev" bench-replication --postgres-url "postgres://postgres@127.0.0.1:$port/club?sslmode=disable" "$@"
