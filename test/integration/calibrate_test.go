package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// seqTurns scripts n turns of `seq 1 2500` (about 7.5k provider tokens of
// numbers each) and a short answer, and a summarizer that answers every
// compaction request.
func seqScript(n int) []llmtest.Response {
	script := []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}}
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("Turn %03d: count", i)
		script = append(script,
			llmtest.Response{Match: p, ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%03d", i), Name: "bash", Arguments: `{"command":"seq 1 2500"}`}}, ChunkSize: 1 << 16},
			llmtest.Response{Match: p, Text: fmt.Sprintf("Counted to 2500 in turn %d.", i), ChunkSize: 1 << 16})
	}
	return script
}

// Budgets in the provider's tokens (issue 15, deliver 5): a 40k model,
// tool output made of numbers, a provider that counts them as a real one
// does and rejects over-window requests with a 400. chars/4 underestimates
// this context about 3.5×; calibrated from the reported usage, every turn
// answers and no request is over the window.
func TestSeqTurnsCalibratedBudget(t *testing.T) {
	const turns = 30
	e := newEnv(t, seqScript(turns), llmtest.ModelSpec{ID: "m1", Name: "M1", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokens(llmtest.RealisticTokens, windowTokens)
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}})
	for i := 1; i <= turns; i++ {
		s.prompt(fmt.Sprintf("Turn %03d: count to 2500 with seq.", i))
		s.waitIdle()
		want := fmt.Sprintf("Counted to 2500 in turn %d.", i)
		s.waitFor("the answer of turn "+fmt.Sprint(i), func() bool {
			v, _ := s.Display()
			if len(v.State.Errors) > 0 {
				t.Fatalf("turn %d: %v", i, v.State.Errors)
			}
			n := len(v.State.Items)
			return n > 0 && v.State.Items[n-1].Kind == "assistant" && strings.Contains(v.State.Items[n-1].Text, want)
		})
	}
	over, compactions := 0, 0
	for _, b := range e.llm.Requests() {
		if n := llmtest.RealisticTokens(b); n > windowTokens {
			over++
		}
		if isSummaryRequest(b) {
			compactions++
		}
	}
	if over > 0 {
		t.Fatalf("%d requests were over the %d-token window", over, windowTokens)
	}
	if compactions == 0 || compactions > turns {
		t.Fatalf("%d summarizer calls in %d turns", compactions, turns)
	}
	t.Logf("%d turns, %d requests, %d summarizer calls, none over the window", turns, len(e.llm.Requests()), compactions)
}
