#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer on their default local ports; start them when installed but down.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "Starting PostgreSQL $version ..."
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL is not running on 127.0.0.1:5432 and could not be started." >&2; exit 1; }
fi

if ! redis_up; then
  if command -v redis-server >/dev/null 2>&1; then
    echo "Starting Redis ..."
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
  fi
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "Redis is not running on 127.0.0.1:6379 and could not be started." >&2; exit 1; }
fi
# The database the test and benchmark settings name (tests create their own test_* copies).
if command -v psql >/dev/null 2>&1 && \
   ! psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='webclip'" 2>/dev/null | grep -q 1; then
  createdb -h 127.0.0.1 -U postgres webclip 2>/dev/null || true
fi
echo "PostgreSQL and Redis are up."
