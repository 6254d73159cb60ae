package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
)

// useSessionMCP hands the MCP servers of session/new or session/load to
// the harness's MCP manager, where they win over the project's and the
// user's definitions. The SDK's McpServer marshals to ACP's wire form,
// which mcp.ACPServer reads.
func useSessionMCP(h *harness.Harness, servers []sdk.McpServer) {
	m := h.MCP()
	if m == nil {
		return
	}
	// Over ACP, servers that answer 401 log in as they start: the link
	// goes to the client as a message (permissionUI.OpenURL).
	m.SetAutoLogin(true)
	if len(servers) == 0 {
		return
	}
	var in []mcp.ACPServer
	for _, s := range servers {
		var a mcp.ACPServer
		b, err := json.Marshal(s)
		if err == nil {
			err = json.Unmarshal(b, &a)
		}
		if err != nil {
			a = mcp.ACPServer{Name: "(unreadable)", Type: "invalid"}
		}
		in = append(in, a)
	}
	m.SetSessionServers(mcp.FromACP(in))
}
