package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
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

// The first prompt on a session far over the window (issue 15, deliver
// 4): a generated chain of about 300k provider tokens whose recorded usage
// says 3k, opened on a 40k model. The prompt compacts first (the
// history summarized in chunks that each fit the summarizer), is
// answered, and no request is over the window; the compaction entry has
// pi's fields.
func TestFirstPromptOnOverWindowSession(t *testing.T) {
	script := []llmtest.Response{
		{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16},
		{Match: "FIRST QUESTION", Text: "The first answer after opening.", ChunkSize: 1 << 16},
	}
	e := newEnv(t, script, llmtest.ModelSpec{ID: "m1", Name: "M1", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokens(llmtest.RealisticTokens, windowTokens)
	path, st := genSession(t, t.TempDir(), sessiongen.Options{Bytes: 1.2e6, Seed: 11, ShortTurns: true, Usage: 3000})
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}})
	s.call("session/open", map[string]any{"path": path}, nil)
	s.prompt("FIRST QUESTION: what did we do?")
	s.waitIdle()
	s.waitFor("the answer", func() bool {
		v, _ := s.Display()
		if len(v.State.Errors) > 0 {
			t.Fatalf("errors: %v", v.State.Errors)
		}
		n := len(v.State.Items)
		return n > 0 && strings.Contains(v.State.Items[n-1].Text, "The first answer after opening.")
	})
	summaries := 0
	for i, b := range e.llm.Requests() {
		if n := llmtest.RealisticTokens(b); n > windowTokens {
			t.Fatalf("request %d: %d tokens, over the %d window", i, n, windowTokens)
		}
		if isSummaryRequest(b) {
			summaries++
		}
	}
	if summaries < 2 {
		t.Fatalf("%d summarizer calls for a %d-byte session on a %d window: not chunked", summaries, st.Bytes, windowTokens)
	}
	var comp map[string]any
	for _, en := range readSessionFile(t, path) {
		if en["type"] == "compaction" {
			comp = en
		}
	}
	if comp == nil {
		t.Fatal("no compaction entry")
	}
	if _, ok := comp["summary"].(string); !ok || comp["firstKeptEntryId"] == nil || comp["tokensBefore"] == nil || comp["parentId"] == nil {
		t.Fatalf("compaction entry: %v", comp)
	}
	t.Logf("%d requests, %d summarizer calls, tokensBefore %v", len(e.llm.Requests()), summaries, comp["tokensBefore"])
}
