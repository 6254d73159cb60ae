package integration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Over ACP a background job runs locally (client terminals are not used,
// even when offered), and a session/load in another process replays the
// job's tool call with its recorded output as content, naming no terminal
// (zed #64538: a terminal id from another process makes Zed drop updates).
func TestACPBackgroundJobReplay(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{backgroundCall("b1", "echo from-the-job")}},
		{ToolCalls: []llmtest.ToolCall{jobCall("o1", "job_output", map[string]any{"jobId": "job-1", "waitSeconds": 30})}},
		{Text: "the job printed its line"},
	})
	caps := map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"terminal": true}}
	a := e.startACP()
	a.call("initialize", caps)
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &sess); err != nil {
		t.Fatal(err)
	}
	a.call("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "run it in the background"}}})
	live := string(a.received())
	if !strings.Contains(live, "started job-1 (pid ") || !strings.Contains(live, "from-the-job") {
		t.Fatalf("the live updates lack the job: %s", live)
	}
	if strings.Contains(live, `"terminal/create"`) || strings.Contains(live, `"terminalId"`) {
		t.Fatalf("a terminal was used: %s", live)
	}
	a.close()

	b := e.startACP()
	b.call("initialize", caps)
	b.call("session/load", map[string]any{"sessionId": sess.SessionID, "cwd": e.workspace, "mcpServers": []any{}})
	replay := string(b.received())
	if !strings.Contains(replay, `"tool_call`) || !strings.Contains(replay, "started job-1 (pid ") || !strings.Contains(replay, "from-the-job") {
		t.Fatalf("the replay lacks the job's tool call and output: %s", replay)
	}
	if strings.Contains(replay, `"terminalId"`) || strings.Contains(replay, `"type":"terminal"`) {
		t.Fatalf("the replay names a terminal: %s", replay)
	}
	b.close()
}
