package integration

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestACPNoSecretReachesTheClient: over `pi-lsp acp`, a tool call whose
// JSON-escaped arguments hold a token and whose output holds an environment
// secret. Not one byte the ACP client read carries either, the tool call's
// arguments it saw are still valid JSON, and the model's request carries the
// real values.
func TestACPNoSecretReachesTheClient(t *testing.T) {
	args := `{"command":"echo \"MY_TOKEN=` + shapeSecret + `\"; echo key=$MY_SERVICE_API_KEY"}`
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: args}}},
		{Match: envSecret, Text: "I saw the key and will not repeat it."},
	})
	a := e.startACP("MY_SERVICE_API_KEY=" + envSecret)
	defer a.close()
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &ns); err != nil || ns.SessionID == "" {
		t.Fatalf("session/new: %v", err)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(a.call("session/prompt", map[string]any{"sessionId": ns.SessionID,
		"prompt": []any{map[string]any{"type": "text", "text": "print the key"}}}), &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason %q", r.StopReason)
	}
	reqs := e.llm.Requests()
	if e.llm.Pending() != 0 || len(reqs) != 2 || !strings.Contains(string(reqs[1]), envSecret) || !strings.Contains(string(reqs[1]), shapeSecret) {
		t.Fatalf("the model's request must carry the real values: %d requests, %d pending", len(reqs), e.llm.Pending())
	}
	got := a.received()
	for _, secret := range []string{envSecret, shapeSecret} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Fatalf("%q crossed the wire: …%s…", secret, got[max(0, i-300):min(len(got), i+100)])
		}
	}
	// The tool call the client saw carries the masked arguments, still JSON.
	sawArgs := false
	for _, m := range a.seen {
		var p struct {
			Update struct {
				SessionUpdate string          `json:"sessionUpdate"`
				RawInput      json.RawMessage `json:"rawInput"`
			} `json:"update"`
		}
		if json.Unmarshal(m["params"], &p) != nil || p.Update.SessionUpdate != "tool_call" || len(p.Update.RawInput) == 0 {
			continue
		}
		var in struct{ Command string }
		raw := p.Update.RawInput
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw = json.RawMessage(s)
		}
		if err := json.Unmarshal(raw, &in); err != nil || !strings.Contains(in.Command, `"MY_TOKEN=••••••"`) {
			t.Fatalf("tool_call rawInput %s (%v): want valid JSON with the token masked", p.Update.RawInput, err)
		}
		sawArgs = true
	}
	if !sawArgs {
		t.Fatal("no tool_call with rawInput reached the client")
	}
	if !bytes.Contains(got, []byte("key=••••••")) {
		t.Fatalf("the tool output's env secret is not shown masked: %.2000s", got)
	}
}
