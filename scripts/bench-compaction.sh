#!/usr/bin/env bash
# Compaction on a small window, pi-lsp next to pi 0.73.1 (issue 10).
#
# The workload: a 40k-window model; every turn reads one ~12 KB file (about
# 3k tokens of tool output) and answers in one sentence; the scripted fake
# LLM answers both programs the same way (test/integration/
# compaction_window_test.go). Printed:
#   - compactions per turn, summarizer calls and the largest request (body
#     bytes / 4, the fake's usage) for pi-lsp over stdio and for pi in
#     --mode rpc (pi only when installed: npm ci --prefix test/pi);
#   - BenchmarkTurn: harness time per turn at turn 10 and at turn 150
#     ("plan": the harness's own work for the two model calls of a turn,
#     no fake-server time; "full": a whole turn with the in-process fake).
#
# Usage: scripts/bench-compaction.sh      (TURNS=150 by default)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TURNS=${TURNS:-150}
run='^TestWindowWorkload150Turns$'
if [ -x test/pi/node_modules/.bin/pi ] && command -v node >/dev/null; then
  run='^(TestWindowWorkload150Turns|TestWindowWorkloadPi)$'
else
  echo "bench-compaction: pi is not installed (npm ci --prefix test/pi): pi-lsp only" >&2
fi
if [ "$TURNS" != 150 ]; then
  echo "bench-compaction: pi-lsp runs its test's 150 turns; pi runs $TURNS" >&2
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
PI_LSP_BENCH_PI=1 PI_LSP_BENCH_TURNS="$TURNS" \
  go test -count=1 -v -timeout 30m -run "$run" ./test/integration/ >"$out" 2>&1 ||
  { cat "$out" >&2; echo "bench-compaction: the workload failed" >&2; exit 1; }

echo "== 40k window, ~3k tokens of tool output per turn"
printf '%-8s %6s %12s %17s %16s %19s\n' program turns compactions compactions/turn summarizer_calls max_request_tokens
for who in pi-lsp pi; do
  line=$(grep -m1 -o "$who workload: .*" "$out" || true)
  [ -n "$line" ] || continue
  field() { sed -n "s|.* $1=\([^ ]*\).*|\1|p" <<<"$line"; }
  printf '%-8s %6s %12s %17s %16s %19s\n' "$who" "$(field turns)" "$(field compactions)" \
    "$(field compactions/turn)" "$(field summarizer_calls)" "$(field max_request_tokens)"
done
grep -m1 -o 'pi-lsp state at the end: .*' "$out" || true

echo "== harness time per turn (go test -bench BenchmarkTurn ./harness)"
go test -run '^$' -bench '^BenchmarkTurn$' -benchmem -count=1 ./harness/ | grep -E '^Benchmark'
