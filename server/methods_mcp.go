package server

import (
	"context"
	"log/slog"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// registerMCP adds mcp/list and mcp/restart.
func (a *agent) registerMCP(s *rpc.Server) {
	s.Register("mcp/list", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		res := protocol.MCPListResult{Servers: []protocol.MCPServer{}, Diagnostics: []protocol.MCPDiagnostic{}}
		m := h.MCP()
		if m == nil {
			return res, nil
		}
		st, diags := m.List()
		for _, s := range st {
			res.Servers = append(res.Servers, mcpServer(s))
		}
		for _, d := range diags {
			res.Diagnostics = append(res.Diagnostics, protocol.MCPDiagnostic{File: d.File, Line: d.Line, Column: d.Column, Server: d.Server, Message: d.Message})
		}
		return res, nil
	}))
	s.Register("mcp/restart", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.MCPRestartParams) (any, error) {
		if p.Name == "" {
			return nil, rpc.ErrInvalidParams(`"name" is required (a server of mcp/list)`)
		}
		st, err := h.RestartMCP(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		return protocol.MCPRestartResult{Server: mcpServer(st)}, nil
	}))
}

// logMCPDiagnostics sends the MCP and hooks configuration problems to the client as
// window/logMessage warnings (they are in mcp/list too).
func logMCPDiagnostics(c *rpc.Client, h *harness.Harness) {
	if m := h.MCP(); m != nil {
		for _, d := range m.Diagnostics() {
			c.Log(slog.LevelWarn, "MCP configuration: "+d.String())
		}
	}
	for _, d := range h.HookDiagnostics() {
		c.Log(slog.LevelWarn, "hooks configuration: "+d.String())
	}
}

func mcpServer(s mcp.Status) protocol.MCPServer {
	out := protocol.MCPServer{Name: s.Name, Source: string(s.Source), Type: s.Type, Target: s.Target, File: s.File, Line: s.Line,
		State: string(s.State), Error: s.Error, Restarts: s.Restart, ApprovalKey: s.ApprovalKey,
		Tools: []protocol.MCPTool{}, Prompts: []protocol.MCPPrompt{}, Resources: []protocol.MCPResource{}}
	for _, t := range s.Tools {
		out.Tools = append(out.Tools, protocol.MCPTool{Name: t.Name, MCPName: t.MCPName, Description: t.Description})
	}
	for _, p := range s.Prompts {
		out.Prompts = append(out.Prompts, protocol.MCPPrompt{Name: p.Name, Command: p.Command, Description: p.Description})
	}
	for _, r := range s.Resources {
		out.Resources = append(out.Resources, protocol.MCPResource{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
	}
	return out
}
