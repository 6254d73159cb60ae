package acp

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/mcp"
)

func TestACPServersReachTheMCPManager(t *testing.T) {
	var servers []sdk.McpServer
	raw := `[{"name": "a", "command": "node", "args": ["s.js"], "env": [{"name": "K", "value": "v"}]},
	         {"type": "http", "name": "b", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "Authorization", "value": "Bearer ${T}"}]}]`
	if err := json.Unmarshal([]byte(raw), &servers); err != nil {
		t.Fatal(err)
	}
	var in []mcp.ACPServer
	for _, s := range servers {
		b, _ := json.Marshal(s)
		var a mcp.ACPServer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		in = append(in, a)
	}
	cs := mcp.FromACP(in)
	if len(cs) != 2 || cs[0].Command != "node" || cs[0].Env["K"] != "v" || cs[1].Type != "http" || cs[1].Headers["Authorization"] != "Bearer ${T}" {
		t.Fatalf("configs: %+v", cs)
	}
	for _, c := range cs {
		if c.Err != "" || c.Source != mcp.SourceSession {
			t.Fatalf("config %+v", c)
		}
	}
}
