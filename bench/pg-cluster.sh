# Sourced by the Postgres comparisons (pg-vs-pgbench.sh, pg-ab.sh): starts
# a throwaway cluster in a new temp folder $TMP (fsync off, TCP on
# 127.0.0.1:$PORT, run as the postgres user when root), exports PGHOST,
# PGPORT, PGUSER and PGDATABASE for it, sets BIN (the Postgres binaries)
# and DSN, and loads pgbench's tables at scale $SCALE. Its EXIT trap stops
# the cluster and removes $TMP.
bindir() {
	if command -v initdb >/dev/null; then dirname "$(readlink -f "$(command -v initdb)")"; return; fi
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V | tail -1
}
BIN=$(bindir)
[ -x "$BIN/pg_ctl" ] || { echo "no postgres binaries: apt-get install postgresql" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "no pgbench: apt-get install postgresql-contrib" >&2; exit 2; }

TMP=$(mktemp -d /tmp/btpgb.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
	as_pg "$BIN/pg_ctl" stop -s -m immediate -D "$TMP/data" >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] && chown postgres "$TMP"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$BIN/initdb" -D "$TMP/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >/dev/null
cat >>"$TMP/data/postgresql.conf" <<CONF
fsync = off
synchronous_commit = off
full_page_writes = off
listen_addresses = '127.0.0.1'
unix_socket_directories = '$TMP'
max_connections = 200
shared_buffers = '256MB'
CONF
as_pg "$BIN/pg_ctl" start -w -s -D "$TMP/data" -l "$TMP/postgres.log" -o "-p $PORT"
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
DSN="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
pgbench -i -q -s "$SCALE" >/dev/null 2>&1
