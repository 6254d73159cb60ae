package protocol

import "encoding/json"

// The initialize exchange (docs/protocol.md, "initialize").

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProcessID             int                `json:"processId"` // 0 when null or absent
	ClientInfo            *ClientInfo        `json:"clientInfo,omitempty"`
	RootURI               string             `json:"rootUri"`
	Capabilities          ClientCapabilities `json:"capabilities"`
	InitializationOptions json.RawMessage    `json:"initializationOptions,omitempty"` // InitOptions
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ClientCapabilities is what the client declared it can do.
type ClientCapabilities struct {
	UI            UICapabilities `json:"ui"`
	FS            FSCapabilities `json:"fs"`
	HarnessEvents bool           `json:"harnessEvents"`
	// Diagnostics: the client answers editor/diagnostics and editor/lsp
	// from its own language servers.
	Diagnostics bool `json:"diagnostics,omitempty"`
	// Window is LSP's: showDocument.support lets MCP logins open in the
	// user's browser (window/showDocument with external true).
	Window WindowCapabilities `json:"window,omitzero"`
}

// UICapabilities: the client answers these server→client requests.
type UICapabilities struct {
	Approvals    bool `json:"approvals"`             // ui/requestApproval
	Questions    bool `json:"questions"`             // ui/askQuestion
	PlanApproval bool `json:"planApproval"`          // ui/approvePlan
	Elicitation  bool `json:"elicitation,omitempty"` // ui/elicit (MCP servers' forms)
}

// FSCapabilities: the client serves its editor buffers.
type FSCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`  // fs/readTextFile
	WriteTextFile bool `json:"writeTextFile"` // fs/writeTextFile
}

// InitOptions are the initializationOptions pi-lsp knows.
type InitOptions struct {
	Model    string `json:"model,omitempty"`    // provider/id, overrides --model
	Session  string `json:"session,omitempty"`  // "new" (default), "continue", or a session file path
	LogLevel string `json:"logLevel,omitempty"` // error|warn|info|debug: send window/logMessage at or above it
	// DisplayVersion is set by an attaching pi-lsp (over a session's
	// socket): the display version its editor holds, which frames continue.
	DisplayVersion int64 `json:"displayVersion,omitempty"`
	// DisplayStream goes with DisplayVersion: the display stream the
	// editor holds, which the frames continue.
	DisplayStream string `json:"displayStream,omitempty"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ServerInfo   ServerInfo         `json:"serverInfo"`
	Capabilities ServerCapabilities `json:"capabilities"`
	// Attached is true when initializationOptions.session named a session
	// another pi-lsp process owns: this connection is attached to it.
	Attached bool `json:"attached,omitempty"`
	OwnerPID int  `json:"ownerPid,omitempty"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ServerCapabilities is what the server offers.
type ServerCapabilities struct {
	DisplayState DisplayCapabilities `json:"displayState"`
	Methods      []string            `json:"methods"`
}

// DisplayCapabilities are the display state's features.
type DisplayCapabilities struct {
	Diffs bool `json:"diffs"`
}
