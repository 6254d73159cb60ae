package compaction

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// simResult sums up one simulated session.
type simResult struct {
	turns, calls, compactions, trimPasses, trimmed int
	maxRequest                                     int
}

// simulate drives turns of a tool-heavy session against a model with the
// given window, doing before every model call what the harness does:
// Plan, then record trims, compact, or fail. The "provider" reports as
// usage the true size of each request (system prompt + every message,
// chars/4) and a request over the window fails the test. With piMode the
// relief is pi 0.73.1's: fixed settings, no trimming, compact on threshold.
func simulate(t testing.TB, window, turns, outTokens int, s Settings, piMode bool) (simResult, []Item, []Trim) {
	const (
		systemTokens  = 1500 // system prompt and tool schemas
		answerTokens  = 150
		summaryTokens = 800
	)
	e := NewEstimator("")
	fake := &fakeSummarizer{answer: func(llm.Request) llm.Message { return textAnswer(tokens(summaryTokens, "s")) }}
	model := llm.Model{ID: "m", Provider: "fake", ContextWindow: window, MaxTokens: 4096}
	var (
		b     branch
		trims []Trim
		res   simResult
	)
	modelCall := func(answer *llm.Message) {
		view := ApplyTrims(b.items, trims)
		if piMode {
			tok := itemsContextTokens(view, e)
			if ShouldCompact(tok, window, s) {
				compact(t, &b, view, s, e, model, fake, &res)
				view = ApplyTrims(b.items, trims)
			}
		} else {
			d := Plan(view, window, s, e, 0)
			switch d.Action {
			case ActionTrim:
				trims = append(trims, d.Trims...) // the harness appends a TrimCustomType entry
				res.trimPasses++
				res.trimmed += len(d.Trims)
				view = d.Items
			case ActionCompact:
				compact(t, &b, view, s, e, model, fake, &res)
				view = ApplyTrims(b.items, trims)
			case ActionTooSmall:
				t.Fatalf("turn %d: %v", res.turns, d.Err)
			}
		}
		req := systemTokens + estimateAll(view, e)
		out := e.Message(answer)
		if req+out > window {
			t.Fatalf("turn %d: request of %d tokens + %d output over the %d window", res.turns, req, out, window)
		}
		res.maxRequest = max(res.maxRequest, req+out)
		res.calls++
		answer.Usage = llm.Usage{Input: req, Output: out}
		b.add(KindMessage, answer)
	}
	for turn := 1; turn <= turns; turn++ {
		res.turns = turn
		b.user(fmt.Sprintf("step %d: run the tests and fix the failures", turn))
		modelCall(&llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.ContentBlock{
			{Type: llm.BlockToolCall, ID: fmt.Sprint("c", turn), Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)},
		}})
		b.toolResult("bash", toolOutput(turn, outTokens))
		modelCall(&llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Content: []llm.ContentBlock{llm.TextBlock(tokens(answerTokens, "a"))}})
	}
	return res, b.items, trims
}

// compact runs Prepare and Summarize and appends the compaction entry, then
// checks that the context is the summary followed by the kept tail.
func compact(t testing.TB, b *branch, view []Item, s Settings, e *Estimator, model llm.Model, fake *fakeSummarizer, res *simResult) {
	p, err := Prepare(view, s, e)
	if err != nil {
		t.Fatalf("turn %d: prepare: %v", res.turns, err)
	}
	r, err := Summarize(t.Context(), p, model, fake, "")
	if err != nil {
		t.Fatalf("turn %d: summarize: %v", res.turns, err)
	}
	b.compaction(r.Summary, r.FirstKeptEntryID, &r.Details)
	b.lastMsg().TokensBefore = r.TokensBefore
	res.compactions++
	ctx := ContextMessages(b.items)
	first := b.items[ids(b.items)[r.FirstKeptEntryID]].Message
	if len(ctx) < 2 || ctx[0].Role != llm.RoleCompactionSummary || ctx[0].Summary != r.Summary ||
		first == nil || ctx[1].Timestamp != first.Timestamp || !strings.HasPrefix(r.Summary, "ssss") {
		t.Fatalf("turn %d: context after compaction does not start with the summary and the kept tail", res.turns)
	}
}

func TestSimulate150ToolTurnsIn40kWindow(t *testing.T) {
	const window, turns = 40960, 150
	res, _, _ := simulate(t, window, turns, 3000, BudgetFor(window, nil), false)
	t.Logf("pi-lsp, 40k window, %d turns x 3k tool tokens: %d model calls, %d compactions (%.3f per turn), %d trim passes trimming %d outputs, largest request %d tokens",
		res.turns, res.calls, res.compactions, float64(res.compactions)/float64(res.turns), res.trimPasses, res.trimmed, res.maxRequest)
	if res.compactions*4 > turns {
		t.Errorf("%d compactions in %d turns: more than one per 4 turns", res.compactions, turns)
	}
	if res.compactions == 0 || res.trimPasses == 0 {
		t.Errorf("the workload should need both trims and compactions: %+v", res)
	}

	pi, _, _ := simulate(t, window, turns, 3000, Settings{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens}, true)
	t.Logf("pi 0.73.1 rules (16384/20000, no trims), same workload: %d compactions (%.3f per turn), largest request %d tokens",
		pi.compactions, float64(pi.compactions)/float64(pi.turns), pi.maxRequest)
	if pi.compactions <= res.compactions {
		t.Errorf("pi's fixed budgets should compact more often than the derived ones: %d vs %d", pi.compactions, res.compactions)
	}
}
