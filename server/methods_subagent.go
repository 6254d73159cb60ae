package server

import (
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/skills"
)

// agentsList is agents/list's result.
func agentsList(r skills.AgentsResult) protocol.AgentsListResult {
	out := protocol.AgentsListResult{Agents: []protocol.AgentInfo{}, Diagnostics: []protocol.Diagnostic{}}
	for _, a := range r.Agents {
		tools := a.Tools
		out.Agents = append(out.Agents, protocol.AgentInfo{Name: a.Name, Description: a.Description, Tools: tools,
			Model: a.Model, Thinking: a.Thinking, Source: a.Source, Path: a.Path})
	}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, protocol.Diagnostic{Path: d.Path, Line: d.Line, Message: d.Message, Severity: d.Severity})
	}
	return out
}
