package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/tools"
)

var (
	_ harness.URLOpener = permissionUI{}
	_ harness.Elicitor  = permissionUI{}
)

// OpenURL shows an MCP server's login page as a message with the link: ACP
// has no request that opens a browser. The login's loopback listener waits
// for the redirect.
func (u permissionUI) OpenURL(_ context.Context, server, url string) error {
	u.s.send(sdk.UpdateAgentMessageText(fmt.Sprintf("The MCP server %q needs a login. Open this link to log in: %s\n\n", server, url)))
	return nil
}

// Elicit sends ACP's elicitation/create (form mode) when the client
// declared elicitation.form; otherwise no one here can answer.
func (u permissionUI) Elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	caps := u.s.a.clientCaps()
	if caps.Elicitation == nil || caps.Elicitation.Form == nil {
		return mcp.ElicitResult{}, tools.ErrNoUI
	}
	var schema sdk.UnstableElicitationSchema
	if err := json.Unmarshal(req.RequestedSchema, &schema); err != nil {
		return mcp.ElicitResult{}, fmt.Errorf("the requested schema: %w", err)
	}
	if err := u.s.do(ctx, u.s.flush); err != nil {
		return mcp.ElicitResult{}, err
	}
	resp, err := u.s.a.conn.UnstableCreateElicitation(ctx, sdk.UnstableCreateElicitationRequest{Form: &sdk.UnstableCreateElicitationForm{
		Message: fmt.Sprintf("%s (MCP server %q)", req.Message, server), Mode: "form", RequestedSchema: schema,
		Meta: map[string]any{"sessionId": string(u.s.id)},
	}})
	if err != nil {
		return mcp.ElicitResult{}, fmt.Errorf("elicitation/create: %w", err)
	}
	switch {
	case resp.Accept != nil:
		return mcp.ElicitResult{Action: "accept", Content: resp.Accept.Content}, nil
	case resp.Decline != nil:
		return mcp.ElicitResult{Action: "decline"}, nil
	default:
		return mcp.ElicitResult{Action: "cancel"}, nil
	}
}
