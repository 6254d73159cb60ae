package mcp

import (
	"context"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TemplateStatus is one resource template of a server.
type TemplateStatus struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// ServerResources are one ready server's resources and templates
// (mcp/resources), with the mention that attaches each (@server:uri).
type ServerResources struct {
	Server    string
	Resources []ResourceStatus
	Templates []TemplateStatus
}

// listTemplates loads a session's resource templates (none when the server
// has no resources or the call fails: templates are an extra).
func listTemplates(ctx context.Context, cs *sdk.ClientSession) []*sdk.ResourceTemplate {
	r := cs.InitializeResult()
	if r == nil || r.Capabilities == nil || r.Capabilities.Resources == nil {
		return nil
	}
	var out []*sdk.ResourceTemplate
	for t, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			return out
		}
		out = append(out, t)
		if len(out) >= maxResources {
			break
		}
	}
	return out
}

// Resources are the resources and templates of the ready servers, or of
// the one named (server "" = all), in precedence order.
func (m *Manager) Resources(name string) []ServerResources {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	out := []ServerResources{}
	for _, s := range servers {
		if name != "" && s.cfg.Name != name {
			continue
		}
		s.mu.Lock()
		if s.state == StateReady {
			sr := ServerResources{Server: s.cfg.Name, Resources: []ResourceStatus{}, Templates: []TemplateStatus{}}
			for _, r := range s.resources {
				sr.Resources = append(sr.Resources, ResourceStatus{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
			}
			for _, t := range s.templates {
				sr.Templates = append(sr.Templates, TemplateStatus{URITemplate: t.URITemplate, Name: t.Name, MIMEType: t.MIMEType, Description: t.Description})
			}
			out = append(out, sr)
		}
		s.mu.Unlock()
	}
	return out
}

// mentionRe finds @server:uri mentions: an @ at the start or after a
// space, a server name, a colon and the URI up to the next space.
var mentionRe = regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)`)

// Mention is one @server:uri in a prompt.
type Mention struct {
	Server, URI string
}

// Mentions finds the @server:uri mentions of configured servers in a
// prompt (as Claude Code attaches them); other @words (files) are left
// alone. A trailing sentence mark is not part of the URI.
func (m *Manager) Mentions(text string) []Mention {
	if !strings.Contains(text, "@") {
		return nil
	}
	var out []Mention
	seen := map[Mention]bool{}
	for _, g := range mentionRe.FindAllStringSubmatch(text, -1) {
		if m.find(g[1]) == nil {
			continue
		}
		mn := Mention{Server: g[1], URI: strings.TrimRight(g[2], ".,;!?)")}
		if !seen[mn] {
			seen[mn] = true
			out = append(out, mn)
		}
	}
	return out
}
