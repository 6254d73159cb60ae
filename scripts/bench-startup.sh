#!/usr/bin/env bash
# Cold start → first response and peak RSS: pi-lsp (initialize) vs Codex
# app-server 0.169.0 (initialize) vs pi 0.73.1 --mode rpc (get_state).
# Driver: test/node/bench/startup.mjs (median of RUNS starts, VmHWM at the
# answer). pi-lsp is cross-checked with hyperfine (whole life: initialize,
# shutdown, exit) and /usr/bin/time -v (peak RSS over the whole life).
#
#   scripts/bench-startup.sh [--json out.json]
#
# The comparison targets are looked for in $BENCH_TOOLS (default
# /tmp/pi-lsp-bench-tools; BENCH_INSTALL=1 scripts/bench.sh puts
# @openai/codex@0.169.0 and @mariozechner/pi-coding-agent@0.73.1 there) and
# test/pi; a missing one is skipped with a message.
# Env: RUNS (7), PI_LSP_BIN (default bin/pi-lsp, built by `make build` if
# missing: the static binary users install),
# CODEX_BIN (the native codex binary), PI_BIN.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
RUNS=${RUNS:-7}
BENCH_TOOLS=${BENCH_TOOLS:-/tmp/pi-lsp-bench-tools}
json=""
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="$2"; shift ;;
    *) echo "bench-startup: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v node >/dev/null; then
  echo "bench-startup: node is needed; skipped" >&2
  exit 0
fi
if [ -z "${PI_LSP_BIN:-}" ]; then
  [ -x bin/pi-lsp ] || make build >/dev/null
  PI_LSP_BIN="$root/bin/pi-lsp"
fi
export PI_LSP_BIN

if [ -z "${CODEX_BIN:-}" ]; then
  for d in "$BENCH_TOOLS" "$root/test/codex"; do
    c=$(ls "$d"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -1 || true)
    if [ -n "$c" ] && [ -x "$c" ]; then CODEX_BIN="$c"; break; fi
  done
fi
if [ -n "${CODEX_BIN:-}" ]; then
  export CODEX_BIN
  echo "bench-startup: codex at $CODEX_BIN ($("$CODEX_BIN" --version 2>/dev/null || echo '?'))"
else
  echo "bench-startup: codex 0.169.0 not installed (BENCH_INSTALL=1 scripts/bench.sh); skipped"
fi
if [ -z "${PI_BIN:-}" ]; then
  for p in "$root/test/pi/node_modules/.bin/pi" "$BENCH_TOOLS/node_modules/.bin/pi" /tmp/piref/node_modules/.bin/pi; do
    if [ -x "$p" ]; then PI_BIN="$p"; break; fi
  done
fi
if [ -n "${PI_BIN:-}" ]; then
  export PI_BIN
  echo "bench-startup: pi at $PI_BIN ($("$PI_BIN" --version 2>&1 | tail -1))"
else
  echo "bench-startup: pi 0.73.1 not installed (npm ci --prefix test/pi); skipped"
fi
echo "bench-startup: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

(cd test/node && node bench/startup.mjs --runs "$RUNS" ${json:+--json "$json"})

# Cross-check pi-lsp over its whole life (start, initialize, shutdown, exit).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/work"
cat > "$tmp/models.json" <<JSON
{"providers":{"fake":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"fake-key","models":[{"id":"fake-model","contextWindow":128000,"maxTokens":16384}]}}}
JSON
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
{
  frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://'"$tmp"'/work","capabilities":{}}}'
  frame '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
  frame '{"jsonrpc":"2.0","method":"exit"}'
} > "$tmp/frames"
export HOME="$tmp/home" PI_LSP_MODELS="$tmp/models.json" PI_LSP_SESSIONS="$tmp/sessions"
cd "$tmp/work"
if ! "$PI_LSP_BIN" serve --model fake/fake-model < "$tmp/frames" > "$tmp/out"; then
  echo "bench-startup: pi-lsp did not exit 0 after shutdown/exit" >&2
  exit 1
fi
if command -v hyperfine >/dev/null; then
  hyperfine --style basic --warmup 3 --runs "$((RUNS * 2))" -n 'pi-lsp initialize+shutdown+exit' \
    "'$PI_LSP_BIN' serve --model fake/fake-model < '$tmp/frames' > /dev/null"
else
  echo "bench-startup: hyperfine not installed (apt-get install hyperfine); the lifetime cross-check is skipped"
fi
if [ -x /usr/bin/time ]; then
  rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%M' -o "$tmp/time" "$PI_LSP_BIN" serve --model fake/fake-model < "$tmp/frames" > /dev/null
    rss+=("$(tail -1 "$tmp/time")")
  done
  med=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  echo "pi-lsp peak RSS over the whole life (/usr/bin/time, $RUNS runs): median $((med / 1024)).$(( (med % 1024) * 10 / 1024 )) MB (${med} KiB)"
else
  echo "bench-startup: /usr/bin/time not installed (apt-get install time); the RSS cross-check is skipped"
fi
