package protocol

import "encoding/json"

// MCPLoginParams are the params of mcp/login and mcp/logout: the server
// (a name of mcp/list).
type MCPLoginParams struct {
	Server string `json:"server"`
}

// MCPLoginResult is the server after mcp/login or mcp/logout.
type MCPLoginResult struct {
	Server MCPServer `json:"server"`
}

// MCPResourcesParams are the params of mcp/resources (server "" = every
// ready server).
type MCPResourcesParams struct {
	Server string `json:"server,omitempty"`
}

// MCPResourcesResult lists the resources and templates of ready servers.
type MCPResourcesResult struct {
	Servers []MCPServerResources `json:"servers"`
}

// MCPServerResources are one server's resources and resource templates.
// A resource is attached to a prompt by writing @server:uri.
type MCPServerResources struct {
	Server    string                `json:"server"`
	Resources []MCPResource         `json:"resources"`
	Templates []MCPResourceTemplate `json:"templates"`
}

// MCPResourceTemplate is one resource template (RFC 6570 URI template).
type MCPResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}

// ElicitParams are the params of the server→client request ui/elicit: an
// MCP server asks the user to fill in a form (a flat JSON schema).
type ElicitParams struct {
	Server          string          `json:"server"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ElicitResult answers ui/elicit: action accept (with content), decline or
// cancel. pi-lsp fills in the schema's defaults and checks the content
// against the schema before the MCP server gets it.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ShowDocumentParams are LSP's window/showDocument params (server→client):
// pi-lsp sends an MCP login page with external true.
type ShowDocumentParams struct {
	URI      string `json:"uri"`
	External bool   `json:"external,omitempty"`
}

// ShowDocumentResult answers window/showDocument.
type ShowDocumentResult struct {
	Success bool `json:"success"`
}

// WindowCapabilities are LSP's client window capabilities pi-lsp reads.
type WindowCapabilities struct {
	ShowDocument *ShowDocumentCapability `json:"showDocument,omitempty"`
}

// ShowDocumentCapability says the client answers window/showDocument.
type ShowDocumentCapability struct {
	Support bool `json:"support"`
}
