package harness_test

import (
	"context"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// "Always allow" answers are session grants: they are stored in the session
// that got them and do not carry over to a new or another opened session.
func TestReviewSessionGrantsStayInTheirSession(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Match: "FIRST", ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"echo one"}`}}},
		{Match: "b1", Text: "done one"},
		{Match: "SECOND", ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "bash", Arguments: `{"command":"echo two"}`}}},
		{Match: "b2", Text: "done two"},
	})
	ui := &recordingUI{decision: harness.DecisionAlwaysAllowCategory}
	f.h.SetUI(ui)
	f.prompt(t, "FIRST")
	f.wait(t)
	if g := f.h.Permissions().Grants.Categories; len(g) != 1 || g[0] != "execute" {
		t.Fatalf("grants after the first session: %v", g)
	}
	ctx := context.Background()
	if _, err := f.h.NewSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if g := f.h.Permissions().Grants; len(g.Categories)+len(g.Tools) != 0 {
		t.Fatalf("a new session inherited the old session's grants: %+v", g)
	}
	ui.mu.Lock()
	ui.decision = harness.DecisionDecline
	ui.mu.Unlock()
	f.prompt(t, "SECOND")
	f.wait(t)
	ui.mu.Lock()
	n := len(ui.reqs)
	ui.mu.Unlock()
	if n != 2 {
		t.Fatalf("approval requests: %d, want 2 (the new session asks again)", n)
	}
}
