#!/bin/sh
# Runs :PiChat in a real terminal (tmux) against pi-lsp and the scripted fake LLM, answers
# the approval prompt like a user would, and prints the screen (tmux capture-pane -p).
#
#   PI_LSP_BIN=/abs/bin/pi-lsp FAKELLM_BIN=/abs/fakellm scripts/capture.sh > doc/screenshot.txt
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
: "${PI_LSP_BIN:?set PI_LSP_BIN}" "${FAKELLM_BIN:?set FAKELLM_BIN}"
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }

tmp=$(mktemp -d)
session="pi-capture-$$"
fake_pid=""
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

proj="$tmp/greeter"
mkdir -p "$proj" "$tmp/sessions"
cat > "$proj/hello.go" <<'GO'
package main

import "fmt"

func main() {
	fmt.Println("hello")
}
GO

cat > "$tmp/script.json" <<'JSON'
[
  {"thinking": "The user wants a greeting helper. I will add greet() and call it from main.",
   "text": "I'll add a `greet` function and use it in `main`.",
   "toolCalls": [{"id": "call_1", "name": "edit", "arguments": {"path": "hello.go", "edits": [
     {"oldText": "\tfmt.Println(\"hello\")", "newText": "\tfmt.Println(greet(\"world\"))"},
     {"oldText": "func main() {", "newText": "func greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n\nfunc main() {"}]}}],
   "chunkDelayMs": 30},
  {"text": "Done. `hello.go` now has:\n\n- `greet(name string) string`, which returns \"Hello, <name>!\"\n- `main` printing `greet(\"world\")`\n\nRun `go run .` to see **Hello, world!**", "chunkDelayMs": 30}
]
JSON

"$FAKELLM_BIN" --no-stdin --script "$tmp/script.json" --models-json "$tmp/models.json" > "$tmp/fakellm.out" 2>"$tmp/fakellm.err" &
fake_pid=$!
i=0
until grep -q FAKELLM_URL "$tmp/fakellm.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 100 ] && { echo "fakellm did not start" >&2; cat "$tmp/fakellm.err" >&2; exit 1; }
  sleep 0.1
done

cat > "$tmp/init.lua" <<LUA
vim.opt.rtp:prepend('$here')
vim.cmd('runtime plugin/pi_lsp.lua')
vim.cmd('syntax on')
vim.cmd('filetype plugin on')
vim.o.laststatus = 2
vim.o.statusline = ' %f %= %{v:lua.require("pi_lsp").statusline()} '
vim.o.shortmess = vim.o.shortmess .. 'I'
require('pi_lsp').setup({
  cmd = { '$PI_LSP_BIN' },
  model = 'fake/fake-model',
  env = { PI_LSP_MODELS = '$tmp/models.json', PI_LSP_SESSIONS = '$tmp/sessions' },
  chat = { size = 0.55 },
})
LUA

screen() { tmux capture-pane -p -t "$session"; }
wait_for() { # text, tries
  n=0
  until screen | grep -qF -- "$1"; do
    n=$((n + 1)); [ $n -gt "${2:-100}" ] && { echo "timed out waiting for: $1" >&2; screen >&2; exit 1; }
    sleep 0.1
  done
}

cd "$proj"
tmux new-session -d -s "$session" -x 140 -y 50 "XDG_CACHE_HOME=$tmp XDG_STATE_HOME=$tmp nvim -i NONE -n -u $tmp/init.lua hello.go"
wait_for 'package main'
tmux send-keys -t "$session" ':PiChat' Enter
wait_for 'New session'
tmux send-keys -t "$session" 'i' 'Add a greet function and use it in main' Enter
# The approval comes through vim.ui.select (here Neovim's default, inputlist()).
wait_for 'Always allow tool' 150
sleep 0.3
echo "== the approval prompt (vim.ui.select; here Neovim's default) =="
screen
echo
tmux send-keys -t "$session" '1' Enter
wait_for 'Hello, world!' 150
tmux send-keys -t "$session" Escape
sleep 0.5
echo "== :PiChat after the run (thinking and tool call folded; hello.go reloaded) =="
screen
# Open the folds in the transcript so the diff shows.
tmux send-keys -t "$session" C-w k 'zR' 'gg'
sleep 0.5
echo
echo "== the same transcript with the folds opened (zR) =="
screen
