#!/usr/bin/env bash
# What the test suite needs from the machine besides Node and pnpm, brought as .ci/run used to:
#
# - Debian's chromium at /usr/bin/chromium (the browser tests of the web chat, the demo and the
#   console drive it with playwright-core): installed with apt-get when missing (as root, or with
#   sudo when it needs no password).
# - PostgreSQL on 127.0.0.1:5432 with a trusted `postgres` user and a `test` database (the
#   @herald/store-postgres tests; another server with HERALD_TEST_POSTGRES_URL): Debian's
#   postgresql installed with apt-get when missing (that new server then trusts local
#   connections, as CI's service containers do; a server that was there before keeps its
#   authentication), started with pg_ctlcluster when down, and the `test` database created
#   when missing.
#
# Never fails: what it cannot bring it names, with the command that would. Without chromium or
# PostgreSQL their tests are skipped, unless CI=1, where they fail (nothing skipped silently).
# `./scripts/bootstrap.sh pnpm check` (and `check:full`) run it first; HERALD_TEST_DEPS=skip
# turns it off.
#
#   ./scripts/test-deps.sh
set -uo pipefail

log() { printf '[test-deps] %s\n' "$*" >&2; }

# Runs "$@" as root: directly, or through sudo when that needs no password. Status 127 otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo "$@"
  else
    return 127
  fi
}

can_be_root() { [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }

# --- chromium -------------------------------------------------------------------------------
chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
  if command -v apt-get >/dev/null 2>&1 && can_be_root; then
    log "chromium is missing; installing Debian's chromium (apt-get install -y chromium)"
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
      log "chromium installed: $("$chromium" --version 2>/dev/null || echo "$chromium")"
    else
      log "could not install chromium; the browser tests will be skipped (they fail under CI=1)"
    fi
  else
    log "chromium is missing at $chromium and cannot be installed here (needs apt-get and root or"
    log "passwordless sudo): the browser tests will be skipped (they fail under CI=1)."
    log "Install it with: sudo apt-get install -y chromium"
  fi
fi

# --- PostgreSQL -----------------------------------------------------------------------------
pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q; }
# The newest cluster version under /etc/postgresql (Debian's layout), if any.
pg_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1; }
installed_here=""

if [ -n "${HERALD_TEST_POSTGRES_URL:-}" ]; then
  : # another server was named: nothing to start here
else
  if ! command -v pg_isready >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && can_be_root; then
    log "PostgreSQL is missing; installing Debian's postgresql (apt-get install -y postgresql)"
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; then
      installed_here=1
    else
      log "could not install PostgreSQL"
    fi
  fi
  version="$(pg_version)"
  if [ -n "$installed_here" ] && [ -n "$version" ]; then
    # A server installed just now, for the tests: its own users connect without a password
    # (the tests' `postgres` user on 127.0.0.1, like CI's service containers). Debian's
    # default (peer / scram-sha-256) is kept for any server that was there before.
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    log "PostgreSQL $version installed for the tests: trusting local connections ($hba)"
    as_root sh -c "printf '%s\\n' 'local all all trust' 'host all all 127.0.0.1/32 trust' \
      'host all all ::1/128 trust' > '$hba'"
  fi
  if command -v pg_isready >/dev/null 2>&1 && ! pg_up; then
    if [ -n "$version" ] && command -v pg_ctlcluster >/dev/null 2>&1 && can_be_root; then
      log "PostgreSQL $version is down; starting it (pg_ctlcluster $version main start)"
      if as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start; then
        for _ in $(seq 1 30); do
          pg_up && break
          sleep 1
        done
      else
        log "pg_ctlcluster could not start PostgreSQL $version"
      fi
    fi
  elif [ -n "$installed_here" ] && [ -n "$version" ]; then
    # Started by the package before its pg_hba.conf was replaced: read it again.
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload || true
  fi
  if ! command -v pg_isready >/dev/null 2>&1; then
    log "PostgreSQL is not installed and cannot be installed here (needs apt-get and root or"
    log "passwordless sudo): the @herald/store-postgres tests will be skipped (they fail under"
    log "CI=1). They need a PostgreSQL on 127.0.0.1:5432 whose 'postgres' user is trusted and a"
    log "'test' database, or HERALD_TEST_POSTGRES_URL=postgres://user@host:port/db."
    log "Install it with: sudo apt-get install -y postgresql"
  elif ! pg_up; then
    log "PostgreSQL is down at 127.0.0.1:5432 and could not be started (needs pg_ctlcluster and"
    log "root or passwordless sudo): the @herald/store-postgres tests will be skipped (they fail"
    log "under CI=1). Start it with: sudo pg_ctlcluster <version> main start"
  elif command -v psql >/dev/null 2>&1; then
    # The tests' database: created when the trusted `postgres` user can and it is missing.
    has_test="$(psql -h 127.0.0.1 -U postgres -d postgres -w -tAc \
      "SELECT 1 FROM pg_database WHERE datname = 'test'" 2>/dev/null)"
    if [ "$has_test" != "1" ]; then
      if psql -h 127.0.0.1 -U postgres -d postgres -w -qc "CREATE DATABASE test" 2>/dev/null; then
        log "created the tests' database 'test' on 127.0.0.1:5432"
      else
        log "PostgreSQL is up, but its 'postgres' user is not trusted on 127.0.0.1 or has no"
        log "'test' database: the @herald/store-postgres tests may fail. They need"
        log "'host all all 127.0.0.1/32 trust' in pg_hba.conf and CREATE DATABASE test."
      fi
    fi
  fi
fi
exit 0
