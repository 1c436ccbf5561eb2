#!/usr/bin/env bash
# Best-effort local PostgreSQL for the server tests (tests/test_server_postgres.py).
# Installs Debian's postgresql if missing, starts (or creates) a cluster, makes sure the
# role and database below exist, and prints the URL to export as HZMJ_TEST_POSTGRES_URL
# on stdout (everything else goes to stderr).  Idempotent; exits non-zero if it cannot.
# Runs as root (CI); the role's password is only for this throwaway test database.
set -euo pipefail
PGUSER_NAME=${HZMJ_PG_USER:-hzmj}
PGUSER_PASSWORD=${HZMJ_PG_PASSWORD:-hzmj}
PGDB_NAME=${HZMJ_PG_DB:-hzmj_test}

log() { echo "postgres.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "needs root"; exit 1; }
if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { log "postgresql is not installed, and no apt-get"; exit 1; }
  log "installing postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq postgresql >/dev/null 2>&1 \
    || { apt-get update -qq >&2 && apt-get install -y -qq postgresql >/dev/null; } \
    || { log "apt-get install postgresql failed"; exit 1; }
fi

# the newest installed version; its first cluster, or a new one named main
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
cluster=$(pg_lsclusters -h 2>/dev/null | awk -v v="$version" '$1 == v {print $2; exit}')
if [ -z "$cluster" ]; then
  cluster=main
  log "creating cluster $version/$cluster"
  pg_createcluster "$version" "$cluster" >&2
fi
status=$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c {print $4}')
if [ "$status" != online ]; then
  log "starting cluster $version/$cluster"
  pg_ctlcluster "$version" "$cluster" start >&2
fi
port=$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c {print $3}')

psql_admin() { (cd / && runuser -u postgres -- psql -p "$port" -X -q -v ON_ERROR_STOP=1 "$@"); }
for _ in $(seq 50); do  # "online" can precede accepting connections by a moment
  psql_admin -c 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done
[ "$(psql_admin -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$PGUSER_NAME'")" = 1 ] \
  || psql_admin -c "CREATE ROLE \"$PGUSER_NAME\" LOGIN PASSWORD '$PGUSER_PASSWORD'"
[ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$PGDB_NAME'")" = 1 ] \
  || psql_admin -c "CREATE DATABASE \"$PGDB_NAME\" OWNER \"$PGUSER_NAME\""
log "PostgreSQL $version/$cluster is up on port $port, database $PGDB_NAME"
echo "postgresql+asyncpg://$PGUSER_NAME:$PGUSER_PASSWORD@127.0.0.1:$port/$PGDB_NAME"
