// Package mcp is pi-lsp's Model Context Protocol client, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// It reads server definitions in the format Claude Code and Cursor use
// ({"mcpServers": {...}}) from the ACP session, the project's .mcp.json and
// the user's ~/.pi/agent/mcp.json, expands ${VAR} and ${VAR:-default},
// starts the servers lazily and in parallel (stdio, Streamable HTTP or
// legacy SSE), restarts crashed stdio servers with backoff, and offers their
// tools to the harness as tools.Tool values named mcp__<server>__<tool> in
// the mcp approval category. Prompts become /mcp:server:prompt commands and
// resources can be read by URI.
//
// Project servers run only after a one-time approval that is remembered in
// the user's settings file (never a project file), keyed by the project,
// the server's name and a hash of its command or URL.
package mcp
