package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// until reads the client's lines until one holds want (agent requests are
// answered as call does), and returns it.
func (c *acpClient) until(want string) string {
	c.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("pi-lsp acp closed its output waiting for %s", want)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil {
				if _, isReq := m["method"]; isReq {
					if rid, ok := m["id"]; ok {
						ans, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
						_, _ = c.in.Write(append(ans, '\n'))
						continue
					}
					c.seen = append(c.seen, m)
				}
			}
			if strings.Contains(string(line), want) {
				return string(line)
			}
		case <-timeout:
			c.t.Fatalf("no line with %s", want)
		}
	}
}

// TestACPGoalCommand: ACP lists a /goal command; /goal sets a goal whose
// runs go on after the command's turn, and its status comes as the first
// plan entry until it is met.
func TestACPGoalCommand(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "working", Repeat: true}})
	a := e.startACP()
	defer a.close()
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &ns); err != nil {
		t.Fatal(err)
	}
	a.until(`"name":"goal"`)
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(a.call("session/prompt", map[string]any{"sessionId": ns.SessionID, "prompt": []any{map[string]any{"type": "text",
		"text": `/goal ship the feature --check '` + countingCheck(2) + `' --max-turns 4`}}}), &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason %q", r.StopReason)
	}
	line := a.until(`Goal (met, run 2/4): ship the feature`)
	if !strings.Contains(line, `"sessionUpdate":"plan"`) {
		t.Fatalf("the goal's status is not a plan entry: %s", line)
	}
	if n := len(e.llm.Requests()); n != 2 {
		t.Fatalf("%d model requests, want 2", n)
	}
}
