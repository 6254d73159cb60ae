package integration

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/mcp/mcptest"
)

// TestMCPEverythingStdio: server-everything over stdio, configured in the
// user's mcp.json, next to a server that fails: the model's tool list
// carries mcp__everything__echo with the server's schema, the call asks
// for approval in the mcp category and returns the server's answer, and
// the failing server is in mcp/list while the run goes on.
func TestMCPEverythingStdio(t *testing.T) {
	node, modules := npmMCP(t)
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__everything__echo", Arguments: `{"message":"hello from the model"}`}}},
		{Match: "Echo: hello from the model", Text: "the server echoed it"},
	})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {
  "everything": {"command": %q, "args": [%q, "stdio"]},
  "broken": {"command": %q, "args": ["exit"]}
}}`, node, everythingScript(modules), fakeMCP(t)))
	s := e.start(startOpt{})
	ap := &approvals{decisions: []string{"approve"}}
	ap.install(s)

	if l := s.mcpList(); l.Servers[l.server(t, "everything")].State != "pending" {
		t.Fatalf("servers start at the first turn, not at initialize: %+v", l)
	}
	s.prompt("echo something")
	st := s.waitIdle()
	if st.Phase != "idle" || e.llm.Pending() != 0 {
		t.Fatalf("run did not finish with the server's answer: pending %d", e.llm.Pending())
	}
	first := string(e.llm.Requests()[0])
	if !strings.Contains(first, `"name":"mcp__everything__echo"`) || !strings.Contains(first, `"message"`) {
		t.Fatalf("the model's tool list lacks mcp__everything__echo with its schema:\n%.2000s", first)
	}
	if ap.count() != 1 || ap.seen[0]["category"] != "mcp" || ap.seen[0]["toolName"] != "mcp__everything__echo" {
		t.Fatalf("approval: %v", ap.seen)
	}
	l := s.mcpList()
	ev := l.Servers[l.server(t, "everything")]
	br := l.Servers[l.server(t, "broken")]
	if ev.State != "ready" || len(ev.Tools) < 10 || len(ev.Prompts) == 0 || len(ev.Resources) == 0 {
		t.Fatalf("everything: %+v", ev)
	}
	if br.State != "failed" || !strings.Contains(br.Error, "cannot open the database") {
		t.Fatalf("broken: %+v", br)
	}
	// The failure reached the display.
	s.waitShown(`MCP server \"broken\" failed`, "the failed server is not in the display")
	// Prompts are slash commands; resources attach by URI.
	var cmds struct {
		Commands []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"commands"`
	}
	s.call("commands/list", nil, &cmds)
	found := false
	for _, c := range cmds.Commands {
		found = found || (c.Name == "mcp:everything:simple-prompt" && c.Kind == "mcp")
	}
	if !found {
		t.Fatalf("commands/list: %+v", cmds)
	}
	e.llm.Append(llmtest.Response{Match: "This is a simple prompt", Text: "prompt seen"},
		llmtest.Response{Match: "<resource uri=", Text: "resource seen"})
	s.prompt("/mcp:everything:simple-prompt")
	s.waitIdle()
	s.call("agent/prompt", map[string]any{"text": "summarize the attached doc", "resources": []map[string]any{{"uri": ev.Resources[0].URI}}}, nil)
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("prompt or resource did not reach the model; last request:\n%.1500s", e.llm.Requests()[len(e.llm.Requests())-1])
	}
	// mcp/restart over the wire.
	var rr struct {
		Server struct {
			State string `json:"state"`
		} `json:"server"`
	}
	s.call("mcp/restart", map[string]any{"name": "everything"}, &rr)
	if rr.Server.State != "ready" {
		t.Fatalf("restart: %+v", rr)
	}
	if err := s.try("mcp/restart", map[string]any{"name": "nope"}, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("restart of an unknown server: %v", err)
	}
	if err := s.try("mcp/restart", map[string]any{}, nil); err == nil {
		t.Fatal("restart without a name succeeded")
	}
}

// TestMCPEverythingHTTP: server-everything over Streamable HTTP.
func TestMCPEverythingHTTP(t *testing.T) {
	node, modules := npmMCP(t)
	url := startEverythingHTTP(t, node, modules)
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__remote__get-sum", Arguments: `{"a":19,"b":23}`}}},
		{Match: "42", Text: "nineteen and twenty-three"},
	})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, url))
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("add them")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the sum did not reach the model; requests:\n%s", e.llm.Requests()[len(e.llm.Requests())-1])
	}
}

// TestMCPFilesystemStdio: server-filesystem over stdio, its root given by
// ${VAR:-default} in args.
func TestMCPFilesystemStdio(t *testing.T) {
	node, modules := npmMCP(t)
	e := newEnv(t, nil)
	writeFile(t, filepath.Join(e.workspace, "data", "note.txt"), "the filesystem server read me\n")
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{{ID: "f1", Name: "mcp__fs__read_text_file", Arguments: mustJSON(map[string]any{"path": filepath.Join(e.workspace, "data", "note.txt")})}}},
		llmtest.Response{Match: "the filesystem server read me", Text: "read it"},
	)
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"fs": {"command": %q, "args": [%q, "${FS_ROOT:-/nonexistent}"]}}}`,
		node, filepath.Join(modules, "server-filesystem", "dist", "index.js")))
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"FS_ROOT=" + filepath.Join(e.workspace, "data")}})
	s.prompt("read the note")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("file content did not reach the model: %+v", s.mcpList())
	}
}

// TestMCPTimeoutAndAbort: a hung call times out (MCP_TOOL_TIMEOUT) and the
// model gets an error result; abort cancels a long call and the server
// gets notifications/cancelled.
func TestMCPTimeoutAndAbort(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "mcp__fake__slow", Arguments: `{}`}}},
		{Match: "timed out after 700ms", Text: "it timed out"},
		{Match: "second", ToolCalls: []llmtest.ToolCall{{ID: "s2", Name: "mcp__fake__slow", Arguments: `{}`}}},
	})
	logPath := filepath.Join(t.TempDir(), "fake.log")
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"fake": {"command": %q, "args": ["ok"], "env": {"FAKEMCP_LOG": %q}}}}`, fakeMCP(t), logPath))
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"MCP_TOOL_TIMEOUT=700"}})
	s.prompt("first")
	s.waitIdle()
	if e.llm.Pending() != 1 {
		t.Fatalf("the timeout did not reach the model (pending %d)", e.llm.Pending())
	}
	waitLogCount(t, logPath, "cancelled slow", 1)

	// The second call runs with the same 700 ms timeout: abort it before.
	s.prompt("second")
	s.waitFor("the slow call", func() bool { return strings.Contains(s.allNotifications(), `"s2"`) })
	time.Sleep(100 * time.Millisecond)
	s.call("agent/abort", nil, nil)
	s.waitIdle()
	waitLogCount(t, logPath, "cancelled slow", 2)
	var found bool
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["toolCallId"] == "s2" {
			found = strings.Contains(mustJSON(m["content"]), "aborted") || strings.Contains(mustJSON(m["content"]), "cancelled")
		}
	}
	if !found {
		t.Fatal("the aborted call has no cancelled result in the session")
	}
}

func waitLogCount(t *testing.T, path, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), line) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %d×%q, want %d:\n%s", path, strings.Count(string(b), line), line, n, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMCPHeaderTokenFromEnv: ${TOKEN} in a header is expanded from the
// environment and reaches the HTTP server; the token never reaches the
// editor.
func TestMCPHeaderTokenFromEnv(t *testing.T) {
	const token = "mcp-bearer-0123456789abcdef"
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(mcptest.HTTPHandler(token, func(a string) { mu.Lock(); seen = append(seen, a); mu.Unlock() }))
	// Registered first, so it runs after pi-lsp (and its event stream) is gone.
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "h1", Name: "mcp__slack__echo", Arguments: `{"text":"over http"}`}}},
		{Match: "echo: over http", Text: "done"},
	})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"slack": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${SLACK_TOKEN}"}}}}`, srv.URL))
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"SLACK_TOKEN=" + token}})
	s.prompt("say it over http")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the call did not work: %+v", s.mcpList())
	}
	mu.Lock()
	ok := false
	for _, a := range seen {
		ok = ok || a == "Bearer "+token
	}
	mu.Unlock()
	if !ok {
		t.Fatalf("the server never saw the token: %q", seen)
	}
	if strings.Contains(s.allNotifications(), token) {
		t.Fatal("the token crossed the wire")
	}
}

// TestMCPProjectApprovalAndDiagnostics: a project .mcp.json server asks
// once (ui/requestApproval, category mcp, its command line) and the answer
// is remembered in the user's pi-lsp.json; a malformed server entry is a
// diagnostic with file and line in mcp/list and window/logMessage.
func TestMCPProjectApprovalAndDiagnostics(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "one", Repeat: true}})
	writeFile(t, filepath.Join(e.workspace, ".mcp.json"), fmt.Sprintf("{\n  \"mcpServers\": {\n    \"proj\": {\"command\": %q, \"args\": [\"ok\"]},\n    \"odd\": {\"type\": \"gopher\", \"url\": \"x\"}\n  }\n}\n", fakeMCP(t)))
	s := e.start(startOpt{initOpts: map[string]any{"logLevel": "warn"}})
	ap := &approvals{decisions: []string{"approve"}}
	ap.install(s)
	s.prompt("hi")
	s.waitIdle()
	if ap.count() != 1 {
		t.Fatalf("approvals: %v", ap.seen)
	}
	req := ap.seen[0]
	if req["category"] != "mcp" || !strings.Contains(req["display"].(string), fakeMCP(t)+" ok") {
		t.Fatalf("approval request: %v", req)
	}
	l := s.mcpList()
	p := l.Servers[l.server(t, "proj")]
	if p.State != "ready" || p.Source != "project" || p.ApprovalKey == "" {
		t.Fatalf("proj: %+v", p)
	}
	settings := readFile(t, filepath.Join(e.home, ".pi", "agent", "pi-lsp.json"))
	if !strings.Contains(settings, "enabledMcpjsonServers") || !strings.Contains(settings, p.ApprovalKey) {
		t.Fatalf("the approval is not in the user's settings:\n%s", settings)
	}
	odd := l.Servers[l.server(t, "odd")]
	if odd.State != "failed" || !strings.Contains(odd.Error, `unknown type "gopher"`) {
		t.Fatalf("odd: %+v", odd)
	}
	var diag bool
	for _, d := range l.Diagnostics {
		diag = diag || (d.Server == "odd" && d.Line == 4 && strings.HasSuffix(d.File, ".mcp.json"))
	}
	if !diag {
		t.Fatalf("diagnostics: %+v", l.Diagnostics)
	}
	var logged bool
	for _, n := range s.Notifications("window/logMessage") {
		logged = logged || strings.Contains(string(n.Params), ".mcp.json:4:")
	}
	if !logged {
		t.Fatal("no window/logMessage with the diagnostic")
	}
	// A second process does not ask again.
	s2 := e.start(startOpt{})
	ap2 := &approvals{}
	ap2.install(s2)
	s2.prompt("again")
	s2.waitIdle()
	if ap2.count() != 0 {
		t.Fatalf("asked again: %v", ap2.seen)
	}
	if l := s2.mcpList(); l.Servers[l.server(t, "proj")].State != "ready" {
		t.Fatalf("proj after a remembered approval: %+v", l)
	}
}
