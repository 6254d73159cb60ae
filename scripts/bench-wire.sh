#!/usr/bin/env bash
# Wire cost of one streamed 200-word answer: bytes of pi-lsp's display/state
# notifications vs the answer's length, notifications per second while
# streaming, and the same answer through pi 0.73.1's `--mode rpc` when pi is
# installed. Client: test/node/bench/wire.mjs (vscode-jsonrpc).
#
#   scripts/bench-wire.sh [--runs N] [--json out.json]
#
# Env: PI_LSP_BIN (default bin/pi-lsp, built if missing), PI_BIN (default: the
# first of test/pi/node_modules/.bin/pi, $BENCH_TOOLS/node_modules/.bin/pi
# (BENCH_TOOLS defaults to /tmp/pi-lsp-bench-tools) and
# /tmp/piref/node_modules/.bin/pi).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "bench-wire: node and npm are needed; skipped" >&2
  exit 0
fi
if [ -z "${PI_LSP_BIN:-}" ]; then
  [ -x bin/pi-lsp ] || go build -trimpath -o bin/pi-lsp ./cmd/pi-lsp
  PI_LSP_BIN="$root/bin/pi-lsp"
fi
export PI_LSP_BIN
if [ ! -d test/node/node_modules/vscode-jsonrpc ]; then
  (cd test/node && npm ci --no-audit --no-fund >/dev/null)
fi

if [ -z "${PI_BIN:-}" ]; then
  for p in "$root/test/pi/node_modules/.bin/pi" "${BENCH_TOOLS:-/tmp/pi-lsp-bench-tools}/node_modules/.bin/pi" /tmp/piref/node_modules/.bin/pi; do
    if [ -x "$p" ]; then PI_BIN="$p"; break; fi
  done
fi
if [ -n "${PI_BIN:-}" ]; then
  export PI_BIN
  echo "bench-wire: comparing with pi at $PI_BIN ($("$PI_BIN" --version 2>&1 | tail -1))"
else
  echo "bench-wire: pi not installed (npm ci --prefix test/pi, or BENCH_INSTALL=1 scripts/bench.sh); the pi comparison is skipped"
fi

cd test/node
exec node bench/wire.mjs "$@"
