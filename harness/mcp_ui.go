package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/tools"
)

// URLOpener is a UI that can open a URL for the user (an editor's
// window/showDocument, a message with the link over ACP): MCP logins.
type URLOpener interface {
	OpenURL(ctx context.Context, server, url string) error
}

// Elicitor is a UI that can ask the user for a form an MCP server needs
// (elicitation/create): an editor's ui/elicit, ACP's elicitation/create.
type Elicitor interface {
	Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error)
}

// mcpUI routes the MCP manager's logins and elicitations to the UI the
// harness has now.
type mcpUI struct{ h *Harness }

func (u mcpUI) OpenURL(ctx context.Context, server, url string) error {
	if o, ok := u.h.getUI().(URLOpener); ok {
		err := o.OpenURL(ctx, server, url)
		if !errors.Is(err, tools.ErrNoUI) {
			return err
		}
	}
	return fmt.Errorf("no connected client can open the login page (open %s)", url)
}

func (u mcpUI) Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	if e, ok := u.h.getUI().(Elicitor); ok {
		r, err := e.Elicit(ctx, server, req)
		if !errors.Is(err, tools.ErrNoUI) {
			return r, err
		}
	}
	// Nobody can answer: what a headless run does (decline, or the
	// defaults with yolo).
	return mcp.TerminalUI{Out: discard{}, Yolo: u.h.Permissions().Yolo}.Elicit(ctx, server, req)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// mcpMentions are the @server:uri mentions of a prompt, as resources to
// attach.
func (h *Harness) mcpMentions(text string) []ResourceRef {
	if h.cfg.MCP == nil {
		return nil
	}
	var out []ResourceRef
	for _, m := range h.cfg.MCP.Mentions(text) {
		out = append(out, ResourceRef{Server: m.Server, URI: m.URI})
	}
	return out
}

// LoginMCP runs the login of an http or sse MCP server (mcp/login).
func (h *Harness) LoginMCP(ctx context.Context, name string) (mcp.Status, error) {
	if h.cfg.MCP == nil {
		return mcp.Status{}, fmt.Errorf("%w: no MCP server %q (none is configured)", ErrNotFound, name)
	}
	st, err := h.cfg.MCP.Login(ctx, name)
	h.reportMCP()
	return st, h.mcpErr(err)
}

// LogoutMCP forgets the login of an MCP server (mcp/logout).
func (h *Harness) LogoutMCP(ctx context.Context, name string) (mcp.Status, error) {
	if h.cfg.MCP == nil {
		return mcp.Status{}, fmt.Errorf("%w: no MCP server %q (none is configured)", ErrNotFound, name)
	}
	st, err := h.cfg.MCP.Logout(ctx, name)
	return st, h.mcpErr(err)
}

func (h *Harness) mcpErr(err error) error {
	switch {
	case errors.Is(err, mcp.ErrUnknownServer):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, mcp.ErrNoLogin):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return err
}
