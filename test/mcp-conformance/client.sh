#!/bin/sh
# The conformance suite's client: pi-lsp exec --yolo, with the scenario's
# server in a temporary ~/.pi/agent/mcp.json and the scripted fake model
# (cmd/fakellm) asking for the scenario's tool call. The suite runs
#   client.sh <server-url>
# with MCP_CONFORMANCE_SCENARIO (and, for some, MCP_CONFORMANCE_CONTEXT: a
# JSON object with pre-registered credentials) set. PI_LSP_BIN and
# FAKELLM_BIN name the binaries; NODE22 runs the JSON helper.
set -eu
url="$1"
scenario="${MCP_CONFORMANCE_SCENARIO:-initialize}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/pi-lsp-conf.XXXXXX")"
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/home/.pi/agent" "$work/ws"

# The MCP server entry and the fake model's script for this scenario.
"$NODE22" "$here/scenario.mjs" "$url" "$scenario" "$work/home/.pi/agent/mcp.json" "$work/script.json"

mkfifo "$work/fake.out"
"$FAKELLM_BIN" --script "$work/script.json" --models-json "$work/models.json" --no-stdin >"$work/fake.out" &
fake_pid=$!
read -r first <"$work/fake.out"
case "$first" in FAKELLM_URL=*) ;; *) echo "fakellm did not start: $first" >&2; exit 1 ;; esac

# $BROWSER "opens" the authorization URL: the suite's authorization server
# redirects at once to pi-lsp's loopback listener, which curl follows.
cd "$work/ws"
HOME="$work/home" PI_LSP_MODELS="$work/models.json" BROWSER="curl -sS -L -o /dev/null" \
  "$PI_LSP_BIN" exec --yolo --log-level debug "Use the $scenario server." 
