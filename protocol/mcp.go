package protocol

// MCPListResult is the result of mcp/list: every configured MCP server, in
// precedence order (ACP session, project .mcp.json, user mcp.json), and the
// problems found in the configuration files.
type MCPListResult struct {
	Servers     []MCPServer     `json:"servers"`
	Diagnostics []MCPDiagnostic `json:"diagnostics"`
}

// MCPServer is one server's state, tools, prompts and resources.
type MCPServer struct {
	Name   string `json:"name"`
	Source string `json:"source"` // session | project | user
	Type   string `json:"type"`   // stdio | http | sse
	// Target is the command line or URL as configured (${VAR} unexpanded).
	Target string `json:"target"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	// State is pending (not started: servers start at the first turn),
	// starting, ready, failed or disabled (a project server not approved).
	State    string `json:"state"`
	Error    string `json:"error,omitempty"`
	Restarts int    `json:"restarts,omitempty"`
	// ApprovalKey is the entry of enabledMcpjsonServers in the user's
	// ~/.pi/agent/pi-lsp.json that approves a project server.
	ApprovalKey string        `json:"approvalKey,omitempty"`
	Tools       []MCPTool     `json:"tools"`
	Prompts     []MCPPrompt   `json:"prompts"`
	Resources   []MCPResource `json:"resources"`
}

// MCPTool is one tool of a server.
type MCPTool struct {
	Name        string `json:"name"`    // as the model sees it: mcp__server__tool
	MCPName     string `json:"mcpName"` // as the server names it
	Description string `json:"description,omitempty"`
}

// MCPPrompt is one prompt of a server and its slash command.
type MCPPrompt struct {
	Name        string `json:"name"`
	Command     string `json:"command"` // mcp:server:prompt (type it as /mcp:server:prompt)
	Description string `json:"description,omitempty"`
}

// MCPResource is one resource of a server; agent/prompt's resources
// attach it by URI.
type MCPResource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// MCPDiagnostic is a problem in an MCP configuration file.
type MCPDiagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

// MCPRestartParams are mcp/restart's params.
type MCPRestartParams struct {
	Name string `json:"name"`
}

// MCPRestartResult is mcp/restart's result: the server after the restart
// (ready, or failed with the reason).
type MCPRestartResult struct {
	Server MCPServer `json:"server"`
}

// PromptResource names an MCP resource for agent/prompt's "resources".
type PromptResource struct {
	Server string `json:"server,omitempty"` // "" = any server that lists the URI
	URI    string `json:"uri"`
}
