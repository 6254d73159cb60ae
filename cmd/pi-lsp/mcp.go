package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pi-lsp/pi-lsp/mcp"
)

// newMCP builds the MCP manager of a workspace: .mcp.json at its root, the
// user's ~/.pi/agent/mcp.json ($PI_LSP_MCP overrides the path), approvals
// in the user's settings file. Timeouts follow Claude Code's variables:
// MCP_TIMEOUT (start, ms) and MCP_TOOL_TIMEOUT (one call, ms).
func newMCP(log *slog.Logger, cwd string, environ []string) *mcp.Manager {
	user := os.Getenv("PI_LSP_MCP")
	if user == "" {
		user = filepath.Join(agentDir(), "mcp.json")
	}
	return mcp.NewManager(mcp.Options{
		Cwd:           cwd,
		Environ:       environ,
		ProjectFile:   filepath.Join(cwd, ".mcp.json"),
		UserFile:      user,
		Trust:         mcp.NewTrust(settingsPath()),
		StartTimeout:  envMillis("MCP_TIMEOUT"),
		CallTimeout:   envMillis("MCP_TOOL_TIMEOUT"),
		Logger:        log,
		Tokens:        mcpTokens(),
		ClientName:    "pi-lsp",
		ClientVersion: version,
	})
}

func envMillis(name string) time.Duration {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// mcpTokens is the store of the MCP servers' OAuth logins,
// ~/.pi/agent/mcp-auth.json (mode 0600).
func mcpTokens() *mcp.TokenStore {
	return mcp.NewTokenStore(filepath.Join(agentDir(), "mcp-auth.json"))
}
