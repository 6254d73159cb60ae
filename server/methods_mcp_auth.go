package server

import (
	"context"
	"fmt"
	"github.com/pi-lsp/pi-lsp/rpc"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// registerMCPAuth adds mcp/login, mcp/logout and mcp/resources (issue 31).
func (a *agent) registerMCPAuth(s *rpc.Server) {
	s.Register("mcp/login", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.MCPLoginParams) (any, error) {
		if p.Server == "" {
			return nil, rpc.ErrInvalidParams(`"server" is required (an http or sse server of mcp/list)`)
		}
		st, err := h.LoginMCP(ctx, p.Server)
		if err != nil {
			return nil, err
		}
		return protocol.MCPLoginResult{Server: mcpServer(st)}, nil
	}))
	s.Register("mcp/logout", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.MCPLoginParams) (any, error) {
		if p.Server == "" {
			return nil, rpc.ErrInvalidParams(`"server" is required (an http or sse server of mcp/list)`)
		}
		st, err := h.LogoutMCP(ctx, p.Server)
		if err != nil {
			return nil, err
		}
		return protocol.MCPLoginResult{Server: mcpServer(st)}, nil
	}))
	s.Register("mcp/resources", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.MCPResourcesParams) (any, error) {
		res := protocol.MCPResourcesResult{Servers: []protocol.MCPServerResources{}}
		m := h.MCP()
		if m == nil {
			if p.Server != "" {
				return nil, rpc.ErrNotFound(fmt.Sprintf("MCP server %q (none is configured)", p.Server))
			}
			return res, nil
		}
		if p.Server != "" && !knownServer(m, p.Server) {
			return nil, rpc.ErrNotFound(fmt.Sprintf("MCP server %q", p.Server))
		}
		for _, sr := range m.Resources(p.Server) {
			out := protocol.MCPServerResources{Server: sr.Server, Resources: []protocol.MCPResource{}, Templates: []protocol.MCPResourceTemplate{}}
			for _, r := range sr.Resources {
				out.Resources = append(out.Resources, protocol.MCPResource{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
			}
			for _, t := range sr.Templates {
				out.Templates = append(out.Templates, protocol.MCPResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, MIMEType: t.MIMEType, Description: t.Description})
			}
			res.Servers = append(res.Servers, out)
		}
		return res, nil
	}))
}

// OpenURL opens an MCP login page in every editor that answers
// window/showDocument (LSP's, with external true); the first answer wins.
func (hb *hub) OpenURL(ctx context.Context, server, url string) error {
	_, err := fanOut(ctx, hb, "window/showDocument", "showDocument", "mcp-login:"+server, func(ctx context.Context, u clientUI) (bool, error) {
		return true, u.OpenURL(ctx, server, url)
	})
	return err
}

// Elicit asks the editors' ui/elicit; the first answer wins.
func (hb *hub) Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	return fanOut(ctx, hb, "ui/elicit", "elicitation", "mcp-elicit:"+server, func(ctx context.Context, u clientUI) (mcp.ElicitResult, error) {
		return u.Elicit(ctx, server, req)
	})
}

// OpenURL asks window/showDocument {uri, external: true}.
func (u clientUI) OpenURL(ctx context.Context, _ string, url string) error {
	var resp protocol.ShowDocumentResult
	if err := u.call(ctx, "window/showDocument", protocol.ShowDocumentParams{URI: url, External: true}, &resp); err != nil {
		return err
	}
	if !resp.Success {
		return fmt.Errorf("the editor could not open the login page")
	}
	return nil
}

// Elicit asks ui/elicit.
func (u clientUI) Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	var resp protocol.ElicitResult
	if err := u.call(ctx, "ui/elicit", protocol.ElicitParams{Server: server, Message: req.Message, RequestedSchema: req.RequestedSchema}, &resp); err != nil {
		return mcp.ElicitResult{}, err
	}
	return mcp.ElicitResult{Action: resp.Action, Content: resp.Content}, nil
}

func knownServer(m *mcp.Manager, name string) bool {
	st, _ := m.List()
	for _, s := range st {
		if s.Name == name {
			return true
		}
	}
	return false
}
