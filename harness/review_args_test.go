package harness_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// An assistant message's tool-call arguments reach the editor through
// message_end (the display's pending tool item) and the display history.
// The harness knows no wire: its events carry the real value, and rpc's
// egress masks it on the way out (test/integration's
// TestNoSecretReachesTheClient asserts the bytes the editor gets). The
// session and the tool get the real value.
func TestReviewAssistantToolCallArgsReachTheToolUnchanged(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"cfg.txt","content":"password=` + reviewSecret + `"}`}}},
		{Match: "w1", Text: "written"},
	}, withSecretEnv, yolo)
	f.prompt(t, "write the config")
	f.wait(t)
	if got := readFileT(t, f.dir+"/cfg.txt"); !strings.Contains(got, reviewSecret) {
		t.Fatalf("the tool did not get the real value: %q", got)
	}
	var start *harness.Event
	for _, e := range f.rec.all() {
		if e.Type == harness.EvToolStart {
			start = &e
		}
	}
	if start == nil || !json.Valid(start.Args) || !strings.Contains(string(start.Args), reviewSecret) {
		t.Fatalf("tool_execution_start must carry the call's own arguments: %+v", start)
	}
	if b, _ := json.Marshal(f.h.DisplayHistory(context.Background())); !strings.Contains(string(b), `"arguments":{"path":"cfg.txt"`) {
		t.Fatalf("the display history lost the arguments: %s", b)
	}
	msgs, err := f.h.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(msgs); !strings.Contains(string(b), reviewSecret) {
		t.Fatal("the session lost the real value")
	}
}
