package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// ACP's /rewind and /undo put back the files and the conversation.
func TestACPRewindAndUndo(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "first turn", ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"one.txt","content":"one\n"}`}}},
		{Match: `"w1"`, Text: "wrote one"},
		{Match: "second turn", ToolCalls: []llmtest.ToolCall{{ID: "w2", Name: "write", Arguments: `{"path":"two.txt","content":"two\n"}`}}},
		{Match: `"w2"`, Text: "wrote two"},
	})
	a := e.startACP()
	defer a.close()
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &ns)
	prompt := func(text string) string {
		t.Helper()
		a.seen = nil
		a.call("session/prompt", map[string]any{"sessionId": ns.SessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}})
		var b strings.Builder
		for _, m := range a.seen {
			b.Write(m["params"])
		}
		return b.String()
	}
	prompt("first turn")
	prompt("second turn")
	if !strings.Contains(string(a.received()), `"name":"rewind"`) || !strings.Contains(string(a.received()), `"name":"undo"`) {
		t.Fatal("rewind and undo are not among the available commands")
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(e.workspace, name))
		return err == nil
	}
	if !exists("one.txt") || !exists("two.txt") {
		t.Fatal("the turns did not write their files")
	}
	if out := prompt("/rewind"); !strings.Contains(out, "1. first turn") || !strings.Contains(out, "2. second turn") {
		t.Fatalf("/rewind lists:\n%s", out)
	}
	if out := prompt("/undo"); !strings.Contains(out, "Rewound to before turn 2") || exists("two.txt") || !exists("one.txt") {
		t.Fatalf("/undo: %s (two.txt exists: %v)", out, exists("two.txt"))
	}
	if out := prompt("/rewind 9"); !strings.Contains(out, "want a turn number") {
		t.Fatalf("/rewind 9: %s", out)
	}
	if out := prompt("/rewind 1"); !strings.Contains(out, "Rewound to before turn 1") || exists("one.txt") {
		t.Fatalf("/rewind 1: %s", out)
	}
}
