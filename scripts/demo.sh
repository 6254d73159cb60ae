#!/usr/bin/env bash
# make demo: pi-lsp's main job, offline. Builds pi-lsp and the scripted fake
# model, then runs one headless agent run (a tool call and a streamed answer)
# in a scratch workspace, recording a session there.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill "${fpid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/fakellm" ./cmd/fakellm
mkdir -p "$tmp/work"
printf 'pi-lsp says hello from a file on disk.\n' > "$tmp/work/hello.txt"
cat > "$tmp/script.json" <<'JSON'
[
  {"text": "Let me read the file first.", "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "hello.txt"}}]},
  {"match": "hello from a file", "text": "The file says: \"pi-lsp says hello from a file on disk.\" That was a real tool call, recorded in a pi-compatible session.", "chunkDelayMs": 15}
]
JSON
mkfifo "$tmp/stdin"
"$tmp/fakellm" --script "$tmp/script.json" --models-json "$tmp/models.json" < "$tmp/stdin" > "$tmp/fakellm.out" &
fpid=$!
exec 3>"$tmp/stdin"
for _ in $(seq 100); do grep -q FAKELLM_URL "$tmp/fakellm.out" 2>/dev/null && break; sleep 0.05; done
cd "$tmp/work"
PI_LSP_MODELS="$tmp/models.json" PI_LSP_SESSIONS="$tmp/sessions" \
  "$OLDPWD/bin/pi-lsp" exec --model fake/fake-model "What does hello.txt say?"
