package protocol

// AgentInfo is one subagent definition of agents/list.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools are the tool names the agent may use; absent means all of the
	// parent's tools except subagent.
	Tools    []string `json:"tools,omitempty"`
	Model    string   `json:"model,omitempty"` // provider/id; absent = the parent's
	Thinking string   `json:"thinking,omitempty"`
	// Source is builtin, user (~/.pi/agent/agents), project (.pi/agents)
	// or claude-project (.claude/agents).
	Source string `json:"source"`
	Path   string `json:"path,omitempty"`
}

// Diagnostic is a problem found while loading definitions. Line is
// 1-based, absent when unknown.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
	Severity string `json:"severity"` // warning | error
}

// AgentsListResult is the result of agents/list.
type AgentsListResult struct {
	Agents      []AgentInfo  `json:"agents"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}
