#!/usr/bin/env bash
# Observational memory on the 40k-window workload (issue 20), side by side
# with compaction mode and pi 0.73.1, all three against the same scripted
# fake model counting tokens as a provider does (cl100k, llmtest.RealisticTokens).
#
# The workload is test/integration/compaction_window_test.go's: every turn
# reads one ~12 KB file and answers in one sentence. Printed per program:
#   - cache economy: the share of input tokens that repeat the prefix of one
#     of the 8 requests before them (a provider's prompt cache bills these at
#     a discount) and the uncached tokens that remain;
#   - helper calls (observer + reflector, or summarizer) per turn;
#   - wall time of the whole workload over stdio (fake model included);
#   - BenchmarkMemoryTurn / BenchmarkTurn: the harness's own time per turn.
#
# Usage: scripts/bench-memory.sh    (TURNS=150; OBSERVE=N sets observeTokens;
#                                   SHARE=0 turns shareTokenBudget off)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TURNS=${TURNS:-150}
run='^TestMemoryWorkload150Turns$'
if [ -x test/pi/node_modules/.bin/pi ] && command -v node >/dev/null; then
  run='^(TestMemoryWorkload150Turns|TestMemoryWorkloadPi)$'
else
  echo "bench-memory: pi is not installed (npm ci --prefix test/pi): pi-lsp only" >&2
fi
make -s build
out=$(mktemp)
trap 'rm -f "$out"' EXIT
PI_LSP_BENCH_MEMORY=1 PI_LSP_BENCH_PI=1 PI_LSP_BENCH_TURNS="$TURNS" PI_LSP_BENCH_OBSERVE="${OBSERVE:-}" \
  PI_LSP_BENCH_SHARE="${SHARE:-}" \
  go test -count=1 -v -timeout 40m -run "$run" ./test/integration/ >"$out" 2>&1 ||
  { cat "$out" >&2; echo "bench-memory: the workload failed" >&2; exit 1; }

echo "== 40k window, ${TURNS} turns, ~3.5k real tokens of tool output per turn"
printf '%-14s %9s %10s %14s %15s %16s %12s\n' mode requests cacheable uncached_tokens helper_calls helper_calls/turn wall
for who in observational compaction pi; do
  line=$(grep -m1 -o "$who workload: .*" "$out" || true)
  [ -n "$line" ] || continue
  field() { sed -n "s|.* $1=\([^ ]*\).*|\1|p" <<<"$line"; }
  printf '%-14s %9s %10s %14s %15s %16s %12s\n' "$who" "$(field requests)" "$(field cacheable_share)" \
    "$(field uncached_tokens)" "$(field helper_calls)" "$(field helper_calls/turn)" "$(field wall)"
done
echo "== harness time per turn (plan: the harness's own work for the turn's two model calls)"
go test -run '^$' -bench '^(BenchmarkMemoryTurn|BenchmarkTurn)$/turn=150/plan' -benchmem -count=1 ./harness/ | grep -E '^Benchmark'
