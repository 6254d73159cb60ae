package mcp

import (
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one configured server and its live session.
type server struct {
	cfg ServerConfig

	mu        sync.Mutex
	state     State
	reason    string
	session   *sdk.ClientSession
	stderr    *tailWriter
	gen       int // bumped on every (re)connect, restart and close
	restarts  int
	dirty     bool // a list_changed notification arrived
	tools     []*sdk.Tool
	prompts   []*sdk.Prompt
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
	login     loginState
}

func (s *server) markDirty() {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
}

func (s *server) isDirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty && s.session != nil
}

func (s *server) isPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == StatePending
}

func (s *server) current() (*sdk.ClientSession, State, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session, s.state, s.reason
}

// Status is one server as mcp/list shows it.
type Status struct {
	Name    string `json:"name"`
	Source  Source `json:"source"`
	Type    string `json:"type"`
	Target  string `json:"target"` // command line or URL, as configured (before ${VAR} expansion)
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	State   State  `json:"state"`
	Error   string `json:"error,omitempty"`
	Restart int    `json:"restarts,omitempty"`
	// ApprovalKey is the enabledMcpjsonServers entry for a project server.
	ApprovalKey string           `json:"approvalKey,omitempty"`
	Tools       []ToolStatus     `json:"tools"`
	Prompts     []PromptStatus   `json:"prompts"`
	Resources   []ResourceStatus `json:"resources"`
}

// ToolStatus is one tool of a server.
type ToolStatus struct {
	Name        string `json:"name"`    // the model's name: mcp__server__tool
	MCPName     string `json:"mcpName"` // the server's name for it
	Description string `json:"description,omitempty"`
}

// PromptStatus is one prompt of a server, with its slash command.
type PromptStatus struct {
	Name        string `json:"name"`
	Command     string `json:"command"` // mcp:server:prompt
	Description string `json:"description,omitempty"`
}

// ResourceStatus is one resource of a server.
type ResourceStatus struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

func (s *server) status(cwd string) Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Source: s.cfg.Source, Type: s.cfg.Type, Target: s.cfg.Target(), File: s.cfg.File,
		Line: s.cfg.Line, State: s.state, Error: s.reason, Restart: s.restarts,
		Tools: []ToolStatus{}, Prompts: []PromptStatus{}, Resources: []ResourceStatus{}}
	if s.cfg.Source == SourceProject {
		st.ApprovalKey = s.cfg.ApprovalKey(cwd)
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolStatus{Name: ToolName(s.cfg.Name, t.Name), MCPName: t.Name, Description: t.Description})
	}
	for _, p := range s.prompts {
		st.Prompts = append(st.Prompts, PromptStatus{Name: p.Name, Command: PromptCommand(s.cfg.Name, p.Name), Description: p.Description})
	}
	for _, r := range s.resources {
		st.Resources = append(st.Resources, ResourceStatus{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
	}
	return st
}

// List is every server's status, in precedence order, with the
// configuration diagnostics.
func (m *Manager) List() ([]Status, []Diagnostic) {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	diags := append([]Diagnostic{}, m.diags...)
	m.mu.Unlock()
	out := make([]Status, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.status(m.opts.Cwd))
	}
	return out, diags
}
