#!/usr/bin/env bash
# Best-effort local Redis for the cluster tests (tests/test_cluster.py).
# Installs Debian's redis-server if missing, starts a throwaway instance (no persistence)
# on HZMJ_REDIS_PORT unless one already answers there, and prints the URL to export as
# HZMJ_TEST_REDIS_URL on stdout (everything else goes to stderr).  Idempotent; exits
# non-zero if it cannot.
set -euo pipefail
PORT=${HZMJ_REDIS_PORT:-6390}
DIR=${HZMJ_REDIS_DIR:-/tmp/hzmj-redis-$PORT}

log() { echo "redis.sh: $*" >&2; }

if ! command -v redis-server >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || { log "redis-server is not installed, and no apt-get"; exit 1; }
  [ "$(id -u)" = 0 ] || { log "installing redis-server needs root"; exit 1; }
  log "installing redis-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq redis-server >/dev/null 2>&1 \
    || { apt-get update -qq >&2 && apt-get install -y -qq redis-server >/dev/null; } \
    || { log "apt-get install redis-server failed"; exit 1; }
fi

if ! redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG; then
  mkdir -p "$DIR"
  log "starting redis-server on port $PORT"
  redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$DIR" --logfile "$DIR/redis.log" --pidfile "$DIR/redis.pid" >&2
  for _ in $(seq 50); do
    redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
  done
fi
redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG || { log "Redis does not answer on $PORT"; exit 1; }
log "Redis is up on port $PORT"
echo "redis://127.0.0.1:$PORT/0"
