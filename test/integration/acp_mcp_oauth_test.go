package integration

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestACPMCPCapabilitiesAndLogin: pi-lsp acp advertises mcpCapabilities
// http and sse and auth.logout; an http server passed in session/new that
// needs OAuth logs in at the first turn with the link sent as a message
// (a "browser" follows it here), and the model's first request already
// offers its tools.
func TestACPMCPCapabilitiesAndLogin(t *testing.T) {
	o := newOAuthMCP(t)
	e := newEnv(t, []llmtest.Response{{Match: "mcp__remote__whoami", Text: "I see the tool"}})
	a := e.startACP()
	defer a.close()
	var init struct {
		AgentCapabilities struct {
			McpCapabilities struct {
				HTTP bool `json:"http"`
				SSE  bool `json:"sse"`
			} `json:"mcpCapabilities"`
			Auth struct {
				Logout *struct{} `json:"logout"`
			} `json:"auth"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}), &init); err != nil {
		t.Fatal(err)
	}
	if c := init.AgentCapabilities; !c.McpCapabilities.HTTP || !c.McpCapabilities.SSE || c.Auth.Logout == nil {
		t.Fatalf("capabilities: %+v", c)
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{
		map[string]any{"type": "http", "name": "remote", "url": o.srv.URL + "/mcp", "headers": []any{}},
	}}), &sess)
	// The browser: follows the login link once it arrives as a message.
	done := make(chan struct{})
	defer close(done)
	go func() {
		re := regexp.MustCompile(`Open this link to log in: (http\S+)`)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			// Read the link from the decoded message text, as a client
			// shows it (the JSON may escape its "&").
			for _, line := range strings.Split(string(a.received()), "\n") {
				var n struct {
					Params struct {
						Update struct {
							Content struct {
								Text string `json:"text"`
							} `json:"content"`
						} `json:"update"`
					} `json:"params"`
				}
				if json.Unmarshal([]byte(line), &n) != nil {
					continue
				}
				if m := re.FindStringSubmatch(n.Params.Update.Content.Text); m != nil {
					if resp, err := http.Get(m[1]); err == nil {
						resp.Body.Close()
					}
					return
				}
			}
		}
	}()
	a.call("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "what can you use?"}}})
	if e.llm.Pending() != 0 {
		t.Fatalf("the model's first request did not offer the logged-in server's tool:\n%.1500s", e.llm.Requests()[0])
	}
	if !strings.Contains(string(a.received()), "needs a login") {
		t.Fatal("no login message reached the client")
	}
}
