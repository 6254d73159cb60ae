package mcp

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	data := `{
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "server-filesystem", "${HOME}"]},
    "slack": {"type": "http", "url": "https://mcp.example/slack", "headers": {"Authorization": "Bearer ${SLACK_TOKEN}"}},
    "weird": {"type": "websocket", "url": "ws://x"},
    "broken": {"command": 42},
    "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}
  }
}`
	cs, diags := ParseConfig([]byte(data), "/p/.mcp.json", SourceProject)
	var names []string
	for _, c := range cs {
		names = append(names, c.Name+":"+c.Type)
	}
	if got := strings.Join(names, " "); got != "fs:stdio slack:http weird:websocket legacy:sse" {
		t.Fatalf("servers: %s", got)
	}
	if cs[2].Err == "" || !strings.Contains(cs[2].Err, `unknown type "websocket"`) {
		t.Fatalf("weird: %q", cs[2].Err)
	}
	if len(diags) != 2 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	// broken is on line 6, weird on line 5.
	for _, d := range diags {
		switch d.Server {
		case "weird":
			if d.Line != 5 {
				t.Errorf("weird: line %d", d.Line)
			}
		case "broken":
			if d.Line != 6 || !strings.Contains(d.Message, "bad server entry") {
				t.Errorf("broken: %+v", d)
			}
		default:
			t.Errorf("unexpected %+v", d)
		}
	}
	if cs[0].Line != 3 || cs[0].Target() != "npx -y server-filesystem \"${HOME}\"" {
		t.Fatalf("fs: line %d target %q", cs[0].Line, cs[0].Target())
	}
}

func TestParseConfigSyntaxError(t *testing.T) {
	data := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n"
	cs, diags := ParseConfig([]byte(data), "/p/.mcp.json", SourceProject)
	if len(cs) != 0 || len(diags) != 1 {
		t.Fatalf("servers %v diags %v", cs, diags)
	}
	if d := diags[0]; d.Line != 3 || d.File != "/p/.mcp.json" || !strings.Contains(d.String(), "/p/.mcp.json:3:") {
		t.Fatalf("diagnostic: %+v (%s)", d, d.String())
	}
}

func TestHashChangesWithCommand(t *testing.T) {
	a := ServerConfig{Name: "x", Type: TypeStdio, Command: "node", Args: []string{"a.js"}}
	b := a
	b.Args = []string{"b.js"}
	if a.Hash() == b.Hash() || a.ApprovalKey("/p") == b.ApprovalKey("/p") {
		t.Fatal("a changed command must change the approval key")
	}
	if a.ApprovalKey("/p") == a.ApprovalKey("/q") {
		t.Fatal("the project path must be part of the key")
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": ""}
	look := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, want, err string }{
		{"Bearer ${TOKEN}", "Bearer t0k", ""},
		{"${MISSING:-dflt}/x", "dflt/x", ""},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"${EMPTY}", "", ""},
		{"${TOKEN}${TOKEN}", "t0kt0k", ""},
		{"$TOKEN and ${", "$TOKEN and ${", ""},
		{"${not a var}", "${not a var}", ""},
		{"${MISSING}", "", "${MISSING} is not set"},
	} {
		got, err := Expand(tc.in, look)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Expand(%q): err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestFromACP(t *testing.T) {
	cs := FromACP([]ACPServer{
		{Name: "a", Command: "node", Args: []string{"s.js"}, Env: []ACPNameValue{{Name: "K", Value: "v"}}},
		{Type: "http", Name: "b", URL: "http://127.0.0.1:9/mcp", Headers: []ACPNameValue{{Name: "Authorization", Value: "Bearer ${T}"}}},
		{Type: "carrier-pigeon", Name: "c"},
	})
	if cs[0].Type != TypeStdio || cs[0].Env["K"] != "v" || cs[0].Source != SourceSession || cs[0].Err != "" {
		t.Fatalf("a: %+v", cs[0])
	}
	if cs[1].Headers["Authorization"] != "Bearer ${T}" || cs[1].Err != "" {
		t.Fatalf("b: %+v", cs[1])
	}
	if cs[2].Err == "" {
		t.Fatalf("c: %+v", cs[2])
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["${A:-b}"]}}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"type":"http"}},"x":[1,2]}`))
	f.Add([]byte(`{"mcpServers":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, diags := ParseConfig(data, "f.json", SourceUser)
		for _, d := range diags {
			if d.Line < 0 || d.Column < 0 {
				t.Fatalf("bad position %+v", d)
			}
		}
		for _, c := range cs {
			_ = c.Target()
			_ = c.Hash()
		}
	})
}

func FuzzExpand(f *testing.F) {
	f.Add("Bearer ${TOKEN}")
	f.Add("${A:-${B}}")
	f.Add("${")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Expand(s, func(k string) (string, bool) { return "v", k == "TOKEN" })
		if err == nil && !strings.Contains(s, "${") && out != s {
			t.Fatalf("text without references changed: %q -> %q", s, out)
		}
	})
}
