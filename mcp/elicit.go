package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitRequest is a server's question (a form: message and a flat
// JSON schema of primitive fields).
type ElicitRequest struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ElicitResult is the user's answer: accept (with content), decline or
// cancel.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// elicit answers a server's elicitation/create: the UI asks the user; an
// accepted answer gets the schema's defaults (SEP-1034) and must then
// match the schema, or the server is told why it does not.
func (m *Manager) elicit(ctx context.Context, server string, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	if p.Mode == "url" {
		// URL elicitation is not offered (the capability declares form only).
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil || p.RequestedSchema == nil {
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	ui := m.getUI()
	if ui == nil {
		ui = TerminalUI{Out: io.Discard}
	}
	r, err := ui.Elicit(ctx, server, ElicitRequest{Message: p.Message, RequestedSchema: raw})
	if err != nil {
		return nil, fmt.Errorf("elicitation: %w", err)
	}
	switch r.Action {
	case "accept":
	case "decline", "cancel":
		return &sdk.ElicitResult{Action: r.Action}, nil
	default:
		return nil, fmt.Errorf("elicitation: unknown action %q (want accept, decline or cancel)", r.Action)
	}
	content, err := CompleteElicitation(raw, r.Content)
	if err != nil {
		m.log.Warn("mcp elicitation answer refused", "server", server, "err", err)
		return nil, err
	}
	return &sdk.ElicitResult{Action: "accept", Content: content}, nil
}

// CompleteElicitation fills in the schema's defaults for the fields the
// answer leaves out (SEP-1034) and checks the result against the schema.
// The error says what does not match.
func CompleteElicitation(schema json.RawMessage, content map[string]any) (map[string]any, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the requested schema is not a JSON schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the requested schema does not resolve: %w", err)
	}
	out := map[string]any{}
	for k, v := range content {
		out[k] = v
	}
	// jsonschema-go's ApplyDefaults skips required properties; SEP-1034
	// fills in every default the answer leaves out, and elicitation
	// schemas are flat, so the top-level properties are all there is.
	for name, p := range s.Properties {
		if _, ok := out[name]; ok || p == nil || len(p.Default) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return nil, fmt.Errorf("the default of %q: %w", name, err)
		}
		out[name] = v
	}
	if err := rs.Validate(out); err != nil {
		return nil, fmt.Errorf("the answer does not match the requested schema: %w", err)
	}
	return out, nil
}

// allRequiredDefaulted reports whether every required field of a form
// schema has a default (pi-lsp exec --yolo then accepts the defaults).
func allRequiredDefaulted(schema json.RawMessage) bool {
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return false
	}
	for _, name := range s.Required {
		var f struct {
			Default json.RawMessage `json:"default"`
		}
		if err := json.Unmarshal(s.Properties[name], &f); err != nil || len(f.Default) == 0 {
			return false
		}
	}
	return true
}
