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
// message_end (the display's pending tool item) and the display history: a
// secret in them is masked, while the session and the tool get the real value.
func TestReviewAssistantToolCallArgsAreMasked(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"cfg.txt","content":"password=` + reviewSecret + `"}`}}},
		{Match: "w1", Text: "written"},
	}, withSecretEnv, yolo)
	f.prompt(t, "write the config")
	f.wait(t)
	if got := readFileT(t, f.dir+"/cfg.txt"); !strings.Contains(got, reviewSecret) {
		t.Fatalf("the tool did not get the real value: %q", got)
	}
	for _, e := range f.rec.all() {
		if e.Type == harness.EvMessageUpdate && e.DeltaKind == "toolcall" {
			continue // raw argument deltas: only in opt-in harness/event logs
		}
		if b, _ := json.Marshal(e); strings.Contains(string(b), reviewSecret) {
			t.Fatalf("event %s carries the secret: %s", e.Type, b)
		}
	}
	if b, _ := json.Marshal(f.h.DisplayHistory(context.Background())); strings.Contains(string(b), reviewSecret) {
		t.Fatalf("the display history carries the secret: %s", b)
	}
	msgs, err := f.h.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(msgs); !strings.Contains(string(b), reviewSecret) {
		t.Fatal("the session lost the real value")
	}
}
