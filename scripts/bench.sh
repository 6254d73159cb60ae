#!/usr/bin/env bash
# The side-by-side benchmarks, run by `make bench` after the Go benchmarks:
#   scripts/bench-wire.sh     bytes of display/state for one streamed 200-word answer (vs pi)
#   scripts/bench-startup.sh  cold start → first response and peak RSS (vs codex app-server, pi)
#   scripts/bench-session.sh  opening a large session (vs pi), when present
#   scripts/bench-compaction.sh  compactions per turn on a 40k window (vs pi), harness time per turn
#   scripts/bench-memory.sh   observational memory: prompt-cache economy and helper calls (vs compaction, pi)
# Comparisons whose target (pi 0.73.1, codex 0.169.0) is not installed are
# skipped with a message. BENCH_INSTALL=1 installs them first (npm, under
# /tmp/pi-lsp-bench-tools). Results and how to read them: docs/benchmarks.md.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
status=0

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sm), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"

BENCH_TOOLS=${BENCH_TOOLS:-/tmp/pi-lsp-bench-tools}
export BENCH_TOOLS
if [ "${BENCH_INSTALL:-0}" = 1 ]; then
  echo "== installing the comparison targets into $BENCH_TOOLS"
  mkdir -p "$BENCH_TOOLS"
  [ -f "$BENCH_TOOLS/package.json" ] || echo '{"private":true}' > "$BENCH_TOOLS/package.json"
  (cd "$BENCH_TOOLS" && npm i --no-audit --no-fund @openai/codex@0.169.0 @mariozechner/pi-coding-agent@0.73.1 >/dev/null) ||
    echo "bench: npm install of the comparison targets failed; they are skipped" >&2
fi

echo "== wire: display/state bytes for one streamed 200-word answer"
scripts/bench-wire.sh || { echo "bench: bench-wire.sh failed" >&2; status=1; }

echo "== startup: cold start → first response, peak RSS"
scripts/bench-startup.sh || { echo "bench: bench-startup.sh failed" >&2; status=1; }

if [ -x scripts/bench-session.sh ]; then
  echo "== session: open a large session"
  scripts/bench-session.sh || { echo "bench: bench-session.sh failed" >&2; status=1; }
fi
if [ -x scripts/bench-compaction.sh ]; then
  echo "== compaction: 150 tool-heavy turns on a 40k window (vs pi)"
  scripts/bench-compaction.sh || { echo "bench: bench-compaction.sh failed" >&2; status=1; }
fi
if [ -x scripts/bench-memory.sh ]; then
  echo "== memory: observational memory vs compaction vs pi, 150 turns on a 40k window"
  scripts/bench-memory.sh || { echo "bench: bench-memory.sh failed" >&2; status=1; }
fi
exit $status
