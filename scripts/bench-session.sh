#!/usr/bin/env bash
# Side-by-side cost of opening a large session, measured with /usr/bin/time:
#   pi-lsp:  pi-lsp sessions show FILE
#   pi:      pi --mode rpc --session FILE, one get_state on stdin (if pi is
#            installed: npm ci --prefix test/pi, or set PI=/path/to/pi)
# the editor's path over the real wire on a 133 MB / ~140k-entry chain of short turns
# (scripts/benchopen: session/open answered and the first display/state frame, the server's
# peak RSS, display/snapshot and the first session/tree page; first without the index sidecar,
# then with it), side by side with pi's open of the same file, and the time to list 100
# sessions of 10 MB each.
#
# Usage: scripts/bench-session.sh        (MB=133 RUNS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${MB:-133}
RUNS=${RUNS:-3}
PI=${PI:-test/pi/node_modules/.bin/pi}
[ -x /usr/bin/time ] || { echo "bench-session: /usr/bin/time is required (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cwd"

go build -o "$work/pi-lsp" ./cmd/pi-lsp
go run ./internal/sessiongen/gensession -o "$work/big.jsonl" -mb "$MB" -cwd "$work/cwd"
cat "$work/big.jsonl" >/dev/null # warm the page cache for both

# best RUNS: runs a command RUNS times and prints the best "wall user sys maxrss_kb".
best() {
  local out="$1"; shift
  local bestline="" w
  for _ in $(seq "$RUNS"); do
    "$@" 2>/dev/null
    w=$(cut -d' ' -f1 "$work/t")
    if [ -z "$bestline" ] || awk -v a="$w" -v b="${bestline%% *}" 'BEGIN{exit !(a<b)}'; then
      bestline=$(cat "$work/t")
    fi
  done
  echo "$bestline" >"$out"
}

run_ours() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$work/pi-lsp" sessions show "$work/big.jsonl" >"$work/ours.out"
}
best "$work/ours" run_ours
grep -q '^contextMessages:' "$work/ours.out" || { echo "pi-lsp sessions show failed" >&2; cat "$work/ours.out" >&2; exit 1; }

have_pi=0
if [ -x "$PI" ] && command -v node >/dev/null; then
  have_pi=1
  mkdir -p "$work/home/.pi/agent"
  cat >"$work/home/.pi/agent/models.json" <<'EOF'
{"providers":{"fake":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"fake-key","models":[{"id":"fake-model","contextWindow":128000,"maxTokens":16384}]}}}
EOF
  pi_abs="$(cd "$(dirname "$PI")" && pwd)/$(basename "$PI")"
  run_pi() {
    (cd "$work/cwd" && echo '{"id":"1","type":"get_state"}' |
      HOME="$work/home" PI_OFFLINE=1 /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$pi_abs" --mode rpc --session "$work/big.jsonl" >"$work/pi.out")
  }
  best "$work/pi" run_pi
  grep -q '"command":"get_state","success":true' "$work/pi.out" || { echo "pi get_state failed" >&2; head -c 2000 "$work/pi.out" >&2; exit 1; }
fi

# The editor's path: a chain of short turns, no compaction (the model's context is the whole
# branch), opened over stdio.
go run ./internal/sessiongen/gensession -o "$work/chain.jsonl" -mb "$MB" -cwd "$work/cwd" -short-turns -compact-every 0 -branch-every 0 >"$work/chain.stats"
cat "$work/chain.jsonl" >/dev/null
go build -o "$work/benchopen" ./scripts/benchopen
# Cold: no index sidecar, the open scans the whole file (and writes <file>.idx).
# Warm: the sidecar from the run before is there (the second and later opens).
wire_best=""
cold_best=""
for _ in $(seq "$RUNS"); do
  rm -f "$work/chain.jsonl.idx"
  l=$("$work/benchopen" -line -bin "$work/pi-lsp" -session "$work/chain.jsonl")
  if [ -z "$cold_best" ] || awk -v a="${l%% *}" -v b="${cold_best%% *}" 'BEGIN{exit !(a<b)}'; then cold_best="$l"; fi
done
for _ in $(seq "$RUNS"); do
  l=$("$work/benchopen" -line -bin "$work/pi-lsp" -session "$work/chain.jsonl")
  if [ -z "$wire_best" ] || awk -v a="${l%% *}" -v b="${wire_best%% *}" 'BEGIN{exit !(a<b)}'; then wire_best="$l"; fi
done
if [ "$have_pi" = 1 ]; then
  run_pi_chain() {
    (cd "$work/cwd" && echo '{"id":"1","type":"get_state"}' |
      HOME="$work/home" PI_OFFLINE=1 /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$pi_abs" --mode rpc --session "$work/chain.jsonl" >"$work/pi.out")
  }
  best "$work/pichain" run_pi_chain
  grep -q '"command":"get_state","success":true' "$work/pi.out" || { echo "pi get_state (chain) failed" >&2; head -c 2000 "$work/pi.out" >&2; exit 1; }
fi

# Listing: 100 sessions of 10 MB in one cwd directory.
root="$work/sessions"
go run ./internal/sessiongen/gensession -o "$work/ten.jsonl" -mb 10 -cwd "$work/cwd" >/dev/null
enc=$(printf '%s' "$work/cwd" | sed -e 's#^[/\\]##' -e 's#[/\\:]#-#g')
mkdir -p "$root/--$enc--"
for i in $(seq -w 1 100); do cp "$work/ten.jsonl" "$root/--$enc--/2025-01-01T00-00-00-${i}0Z_bench-$i.jsonl"; done
cat "$root/--$enc--"/*.jsonl >/dev/null
run_list() {
  /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$work/pi-lsp" sessions list --sessions-dir "$root" --cwd "$work/cwd" >"$work/list.out"
}
best "$work/list" run_list
[ "$(grep -c 'bench-' "$work/list.out")" = 100 ] || { echo "list did not find 100 sessions" >&2; exit 1; }

size=$(stat -c %s "$work/big.jsonl")
read -r ow ou os om <"$work/ours"
read -r lw lu ls lm <"$work/list"
echo
echo "== open a $(awk -v s="$size" 'BEGIN{printf "%.0f", s/1e6}') MB session (best of $RUNS, warm page cache) =="
printf '%-34s %8s %8s %12s\n' "" "wall s" "cpu s" "peak RSS MB"
printf '%-34s %8.2f %8.2f %12.1f\n' "pi-lsp sessions show" "$ow" "$(awk -v u="$ou" -v s="$os" 'BEGIN{print u+s}')" "$(awk -v m="$om" 'BEGIN{print m/1024}')"
if [ "$have_pi" = 1 ]; then
  read -r pw pu ps pm <"$work/pi"
  printf '%-34s %8.2f %8.2f %12.1f\n' "pi --mode rpc --session + get_state" "$pw" "$(awk -v u="$pu" -v s="$ps" 'BEGIN{print u+s}')" "$(awk -v m="$pm" 'BEGIN{print m/1024}')"
  awk -v ow="$ow" -v pw="$pw" -v oc="$(awk -v u="$ou" -v s="$os" 'BEGIN{print u+s}')" -v pc="$(awk -v u="$pu" -v s="$ps" 'BEGIN{print u+s}')" -v om="$om" -v pm="$pm" \
    'BEGIN{ if (ow < 0.01) ow = 0.01; if (oc < 0.01) oc = 0.01;
            printf "pi-lsp is %.0fx faster (wall), %.0fx less CPU, at 1/%.0f of the peak memory\n", pw/ow, pc/oc, pm/om }'
else
  echo "(pi not installed at $PI: run npm ci --prefix test/pi for the side-by-side figure)"
fi
grep -E '^(entries|contextMessages|branchEntries):' "$work/ours.out" | tr -s ' ' | paste -sd' ' -
echo
read -r cfms coms crss _ _ _ ccpu <<<"$cold_best"
read -r fms oms rss snap tms tbytes cpu <<<"$wire_best"
echo "== the editor's path: $(cut -d: -f2- "$work/chain.stats") (best of $RUNS, load average $(cut -d' ' -f1-3 /proc/loadavg)) =="
printf 'first open (no sidecar, full scan):      answered %8.1f ms, first frame %8.1f ms, server CPU %6.0f ms, peak RSS %.1f MB\n' "$coms" "$cfms" "$ccpu" "$crss"
printf 'pi-lsp session/open answered:            %8.1f ms\n' "$oms"
printf 'pi-lsp first display/state frame:        %8.1f ms   server CPU %.0f ms   peak RSS %.1f MB\n' "$fms" "$cpu" "$rss"
printf 'display/snapshot: %d bytes; first session/tree page: %.1f ms, %d bytes\n' "$snap" "$tms" "$tbytes"
if [ "$have_pi" = 1 ]; then
  read -r qw qu qs qm <<<"$(cat "$work/pichain")"
  printf 'pi --mode rpc --session + get_state:     %8.1f ms   peak RSS %.1f MB\n' "$(awk -v w="$qw" 'BEGIN{print w*1000}')" "$(awk -v m="$qm" 'BEGIN{print m/1024}')"
  awk -v c="$cfms" -v f="$fms" -v w="$qw" -v cr="$crss" -v r="$rss" -v m="$qm" 'BEGIN{
    printf "pi-lsp is %.0fx faster to the first frame on a first open, at 1/%.0f of the peak memory\n", w*1000/c, m/1024/cr
    printf "pi-lsp is %.0fx faster to the first frame on a reopen, at 1/%.0f of the peak memory\n", w*1000/f, m/1024/r }'
fi
echo
echo "== list 100 sessions of 10 MB =="
printf 'pi-lsp sessions list: %.2f s wall, %.2f s cpu, %.1f MB peak RSS\n' "$lw" "$(awk -v u="$lu" -v s="$ls" 'BEGIN{print u+s}')" "$(awk -v m="$lm" 'BEGIN{print m/1024}')"
