package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestMCPOAuthLoginShowDocument: a server behind OAuth shows needs-login
// (not failed) at the first turn and the run goes on without its tools;
// mcp/login opens the authorization page through window/showDocument
// (external), the test client follows the redirect back to the loopback
// listener, and the server is ready with its tools. The token is kept in
// mcp-auth.json (0600), each use refreshes it and the rotated refresh
// token is stored; the model's next request offers the tool and its call
// reaches the server as the logged-in user. mcp/logout forgets the token.
func TestMCPOAuthLoginShowDocument(t *testing.T) {
	o := newOAuthMCP(t)
	e := newEnv(t, []llmtest.Response{
		{Text: "no tools yet"},
		{Match: "mcp__remote__whoami", ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "mcp__remote__whoami", Arguments: `{}`}}},
		{Match: "you are user-1", Text: "logged in"},
	})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, o.srv.URL+"/mcp"))
	s := e.start(startOpt{caps: map[string]any{
		"ui":     map[string]any{"approvals": true},
		"window": map[string]any{"showDocument": map[string]any{"support": true}},
	}})
	var mu sync.Mutex
	var opened []map[string]any
	followBrowser(s, &opened, &mu)
	(&approvals{decisions: []string{"approve"}}).install(s)

	s.prompt("hello")
	s.waitIdle()
	l := s.mcpList()
	if r := l.Servers[l.server(t, "remote")]; r.State != "needs-login" || len(r.Tools) != 0 {
		t.Fatalf("before the login: %+v", r)
	}
	if strings.Contains(string(e.llm.Requests()[0]), "mcp__remote__") {
		t.Fatal("the model was offered the tools of a server that needs a login")
	}

	var res struct {
		Server struct {
			State string `json:"state"`
			Error string `json:"error"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"server"`
	}
	s.call("mcp/login", map[string]any{"server": "remote"}, &res)
	if res.Server.State != "ready" || len(res.Server.Tools) != 2 {
		t.Fatalf("mcp/login: %+v", res.Server)
	}
	mu.Lock()
	if len(opened) != 1 || opened[0]["external"] != true {
		t.Fatalf("window/showDocument: %+v", opened)
	}
	mu.Unlock()
	authz, refreshes, refresh := o.stats()
	q := authz[0]
	if q.Get("resource") != o.srv.URL+"/mcp" || q.Get("code_challenge_method") != "S256" || !strings.Contains(q.Get("scope"), "offline_access") ||
		!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Fatalf("the authorization request: %v", q)
	}
	path := filepath.Join(e.home, ".pi", "agent", "mcp-auth.json")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mcp-auth.json: %v %v", fi, err)
	}

	s.prompt("who am I?")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the run did not reach the logged-in tool: %d responses left", e.llm.Pending())
	}
	_, refreshes2, refresh2 := o.stats()
	if refreshes2 <= refreshes || refresh2 == refresh {
		t.Fatalf("no refresh with rotation: %d→%d, %q→%q", refreshes, refreshes2, refresh, refresh2)
	}
	var stored map[string]struct {
		RefreshToken string `json:"refreshToken"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &stored); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range stored {
		found = found || v.RefreshToken == refresh2
	}
	if !found {
		t.Fatalf("the rotated refresh token %q is not stored: %v", refresh2, stored)
	}
	// Tokens do not reach the wire.
	if strings.Contains(string(s.Received()), "access-") || strings.Contains(string(s.Received()), refresh2) {
		t.Fatal("a token reached the editor")
	}

	s.call("mcp/logout", map[string]any{"server": "remote"}, &res)
	if res.Server.State != "needs-login" || strings.Contains(readFile(t, path), refresh2) {
		t.Fatalf("mcp/logout: %+v\n%s", res.Server, readFile(t, path))
	}
	if err := s.try("mcp/login", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "-32602") {
		t.Fatalf("mcp/login without a server: %v", err)
	}
}

// TestMCPOAuthLoginFails: an authorization server that answers the
// redirect with an error leaves the server "login failed: <reason>", and
// the session goes on.
func TestMCPOAuthLoginFails(t *testing.T) {
	o := newOAuthMCP(t)
	e := newEnv(t, []llmtest.Response{{Repeat: true, Text: "fine"}})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, o.srv.URL+"/mcp"))
	s := e.start(startOpt{caps: map[string]any{"window": map[string]any{"showDocument": map[string]any{"support": true}}}})
	s.Handle("window/showDocument", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(params, &p)
		// The user refuses: the authorization server redirects with an error.
		redirect := p.URI[strings.Index(p.URI, "redirect_uri=")+len("redirect_uri="):]
		redirect = redirect[:strings.IndexByte(redirect+"&", '&')]
		go func() { _, _ = httpGetUnescaped(redirect, "?error=access_denied&error_description=the+user+said+no") }()
		return map[string]any{"success": true}, nil
	})
	var res struct {
		Server struct {
			State string `json:"state"`
			Error string `json:"error"`
		} `json:"server"`
	}
	s.call("mcp/login", map[string]any{"server": "remote"}, &res)
	if res.Server.State != "failed" || !strings.HasPrefix(res.Server.Error, "login failed: ") || !strings.Contains(res.Server.Error, "access_denied") {
		t.Fatalf("mcp/login: %+v", res.Server)
	}
	s.prompt("still here?")
	if st := s.waitIdle(); st.Phase != "idle" {
		t.Fatalf("the session stopped: %+v", st)
	}
}

// TestMCPElicitationAndResource: a tool's elicitation goes to the editor as
// ui/elicit; an accepted form gets the schema's default for the field the
// user left out; a declined one reaches the server as decline; an answer
// that does not match the schema is refused with the reason. A prompt's
// @server:uri attaches the resource's content to the model's request, and
// mcp/resources lists it.
func TestMCPElicitationAndResource(t *testing.T) {
	o := newOAuthMCP(t)
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "a1", Name: "mcp__open__ask", Arguments: `{}`}}},
		{Match: "Ada likes blue", ToolCalls: []llmtest.ToolCall{{ID: "a2", Name: "mcp__open__ask", Arguments: `{}`}}},
		{Match: "the user chose decline", ToolCalls: []llmtest.ToolCall{{ID: "a3", Name: "mcp__open__ask", Arguments: `{}`}}},
		{Match: "does not match", Text: "done asking"},
		{Match: "purple elephants", Text: "read the note"},
	})
	e.userMCP(fmt.Sprintf(`{"mcpServers": {"open": {"type": "http", "url": %q}}}`, o.srv.URL+"/open"))
	s := e.start(startOpt{caps: map[string]any{"ui": map[string]any{"approvals": true, "elicitation": true}}})
	(&approvals{decisions: []string{"approve", "approve", "approve"}}).install(s)
	var mu sync.Mutex
	var asked []map[string]any
	answers := []any{
		map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}},
		map[string]any{"action": "decline"},
		map[string]any{"action": "accept", "content": map[string]any{"name": "Bob", "color": "green"}},
	}
	s.Handle("ui/elicit", func(_ context.Context, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})
	s.prompt("ask me")
	s.waitIdle()
	mu.Lock()
	if len(asked) != 3 || asked[0]["server"] != "open" || asked[0]["message"] != "Who are you?" || asked[0]["requestedSchema"] == nil {
		t.Fatalf("ui/elicit: %+v", asked)
	}
	mu.Unlock()
	if e.llm.Pending() != 1 {
		t.Fatalf("the elicitations did not go as scripted: %d responses left", e.llm.Pending())
	}
	reqs := e.llm.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "color") || !strings.Contains(last, "green") {
		t.Fatalf("the mismatching answer's reason did not reach the server's result:\n%.1500s", last)
	}

	var rl struct {
		Servers []struct {
			Server    string `json:"server"`
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		} `json:"servers"`
	}
	s.call("mcp/resources", map[string]any{"server": "open"}, &rl)
	if len(rl.Servers) != 1 || len(rl.Servers[0].Resources) != 1 || rl.Servers[0].Resources[0].URI != "note://hello" {
		t.Fatalf("mcp/resources: %+v", rl)
	}
	if err := s.try("mcp/resources", map[string]any{"server": "nope"}, nil); err == nil {
		t.Fatal("mcp/resources of an unknown server did not fail")
	}
	s.prompt("summarize @open:note://hello please")
	s.waitIdle()
	reqs = e.llm.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "purple elephants") || !strings.Contains(last, `note://hello`) {
		t.Fatalf("the resource did not reach the model:\n%.1500s", last)
	}
}
