package compaction

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func smallSession() *branch {
	var b branch
	b.user("Fix the parser")
	b.assistant("", call{"read", `{"path":"src/parser.go"}`})
	b.toolResult("read", strings.Repeat("x", 2500))
	b.assistant("Fixed.")
	b.user(tokens(3000, "k")) // kept
	b.assistant("ok")
	return &b
}

func TestSummarizeRequest(t *testing.T) {
	b := smallSession()
	s := Settings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 2000}
	p, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeSummarizer{}
	model := llm.Model{ID: "m", Provider: "p", ContextWindow: 50000, MaxTokens: 32000}
	res, err := Summarize(t.Context(), p, model, fake, "focus on tests")
	if err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if req.SystemPrompt != SummarizationSystemPrompt || !strings.HasPrefix(req.SystemPrompt, "You are a context summarization assistant.") {
		t.Errorf("system prompt %q", req.SystemPrompt)
	}
	if req.Model.MaxTokens != 8000 || req.Model.ID != "m" {
		t.Errorf("max tokens %d, want 0.8*10000", req.Model.MaxTokens)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser || len(req.Tools) != 0 {
		t.Fatalf("request messages %+v", req.Messages)
	}
	want := "<conversation>\n" +
		"[User]: Fix the parser\n\n" +
		"[Assistant tool calls]: read(path=\"src/parser.go\")\n\n" +
		"[Tool result]: " + strings.Repeat("x", 2000) + "\n\n[... 500 more characters truncated]\n\n" +
		"[Assistant]: Fixed.\n" +
		"</conversation>\n\n" +
		"The messages above are a conversation to summarize. Create a structured context checkpoint summary"
	got := promptOf(req)
	if !strings.HasPrefix(got, want) {
		t.Fatalf("prompt starts\n%q\nwant\n%q", got[:min(len(got), len(want)+50)], want)
	}
	for _, h := range []string{"## Goal", "## Constraints & Preferences", "## Progress", "### Done", "### In Progress", "### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"} {
		if !strings.Contains(got, "\n"+h+"\n") {
			t.Errorf("prompt lacks heading %q", h)
		}
	}
	if !strings.HasSuffix(got, "Preserve exact file paths, function names, and error messages.\n\nAdditional focus: focus on tests") {
		t.Errorf("prompt end %q", got[len(got)-120:])
	}
	if strings.Contains(got, "<previous-summary>") {
		t.Error("first compaction used the update prompt")
	}
	wantSummary := "SUMMARY\n\n<read-files>\nsrc/parser.go\n</read-files>"
	if res.Summary != wantSummary || res.FirstKeptEntryID != "e04" || res.TokensBefore != p.TokensBefore {
		t.Errorf("result %+v", res)
	}
}

func TestSecondCompactionUsesUpdatePrompt(t *testing.T) {
	b := smallSession()
	s := Settings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 2000}
	p1, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Summarize(t.Context(), p1, llm.Model{}, &fakeSummarizer{answer: func(llm.Request) llm.Message { return textAnswer("## Goal\nfirst") }}, "")
	if err != nil {
		t.Fatal(err)
	}
	b.compaction(r1.Summary, r1.FirstKeptEntryID, &r1.Details)
	b.user("next task")
	b.assistant("done")
	b.user(tokens(2500, "n"))
	p2, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeSummarizer{}
	if _, err := Summarize(t.Context(), p2, llm.Model{}, fake, ""); err != nil {
		t.Fatal(err)
	}
	got := promptOf(fake.requests()[0])
	wantMid := "</conversation>\n\n<previous-summary>\n## Goal\nfirst\n\n<read-files>\nsrc/parser.go\n</read-files>\n</previous-summary>\n\n" +
		"The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags."
	if !strings.Contains(got, wantMid) {
		t.Fatalf("update prompt missing; prompt:\n%s", got)
	}
	if !strings.HasPrefix(got, "<conversation>\n[User]: "+tokens(3000, "k")+"\n\n[Assistant]: ok\n\n[User]: next task\n\n[Assistant]: done\n</conversation>") {
		t.Errorf("second compaction should summarize the previously kept messages and the new ones before the cut:\n%.200s", got)
	}
}

func TestSummarizeSplitTurn(t *testing.T) {
	var b branch
	b.user("old question")
	b.assistant("old answer")
	b.user("big task") // e02: turn start
	b.assistant("", call{"read", `{"path":"a.go"}`})
	b.toolResult("read", tokens(3000, "r"))
	b.assistant("", call{"write", `{"path":"b.go"}`}) // e05: cut here
	b.toolResult("write", "ok")
	b.assistant(tokens(10, "f"))
	s := Settings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 50}
	p, err := Prepare(b.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.IsSplitTurn || p.FirstKeptEntryID != "e05" || len(p.ToSummarize) != 2 || len(p.TurnPrefix) != 3 {
		t.Fatalf("prep: split %v kept %s hist %d prefix %d", p.IsSplitTurn, p.FirstKeptEntryID, len(p.ToSummarize), len(p.TurnPrefix))
	}
	fake := &fakeSummarizer{answer: func(req llm.Request) llm.Message {
		if strings.Contains(promptOf(req), "This is the PREFIX of a turn") {
			return textAnswer("PREFIX")
		}
		return textAnswer("HISTORY")
	}}
	res, err := Summarize(t.Context(), p, llm.Model{}, fake, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<read-files>\na.go\n</read-files>" // b.go is written in the kept part
	if res.Summary != want {
		t.Fatalf("summary %q", res.Summary)
	}
	var prefixReq llm.Request
	for _, r := range fake.requests() {
		if strings.Contains(promptOf(r), "PREFIX of a turn") {
			prefixReq = r
		}
	}
	if prefixReq.Model.MaxTokens != 5000 {
		t.Errorf("prefix max tokens %d, want 0.5*10000", prefixReq.Model.MaxTokens)
	}
	wantPrefix := "<conversation>\n[User]: big task\n\n[Assistant tool calls]: read(path=\"a.go\")\n\n[Tool result]: "
	gotPrefix := promptOf(prefixReq)
	if !strings.HasPrefix(gotPrefix, wantPrefix) || !strings.Contains(gotPrefix, "## Original Request\n") ||
		!strings.Contains(gotPrefix, "## Early Progress\n") || !strings.Contains(gotPrefix, "## Context for Suffix\n") {
		t.Errorf("prefix prompt:\n%s", gotPrefix)
	}

	// With no history before the split turn, only the prefix is summarized.
	only := branch{}
	only.user("big task")
	only.assistant("", call{"read", `{"path":"a.go"}`})
	only.toolResult("read", tokens(3000, "r"))
	only.assistant(tokens(100, "f"))
	p2, err := Prepare(only.items, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake2 := &fakeSummarizer{answer: func(llm.Request) llm.Message { return textAnswer("P") }}
	res2, err := Summarize(t.Context(), p2, llm.Model{}, fake2, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(fake2.requests()) != 1 || !strings.HasPrefix(res2.Summary, "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nP") {
		t.Errorf("%d requests, summary %q", len(fake2.requests()), res2.Summary)
	}
}

func TestSummarizeFailuresChangeNothing(t *testing.T) {
	split := func() *Preparation {
		var b branch
		b.user("q")
		b.assistant("a")
		b.user("task")
		b.assistant("", call{"read", `{"path":"a.go"}`})
		b.toolResult("read", tokens(3000, "r"))
		b.assistant(tokens(100, "f"))
		p, err := Prepare(b.items, Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 50}, nil)
		if err != nil || !p.IsSplitTurn {
			t.Fatalf("setup: %v", err)
		}
		return p
	}
	tests := []struct {
		name   string
		answer func(llm.Request) llm.Message
		ctx    func() context.Context
		want   string
	}{
		{"provider error", func(llm.Request) llm.Message {
			return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "HTTP 500"}
		}, nil, "HTTP 500"},
		{"aborted", func(llm.Request) llm.Message {
			return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopAborted}
		}, nil, "aborted"},
		{"empty answer", func(llm.Request) llm.Message { return textAnswer("  ") }, nil, "no text"},
		{"prefix fails, history fine", func(req llm.Request) llm.Message {
			if strings.Contains(promptOf(req), "PREFIX of a turn") {
				return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "boom"}
			}
			return textAnswer("H")
		}, nil, "Turn prefix summarization failed: boom"},
		{"cancelled context", func(llm.Request) llm.Message { return textAnswer("late") }, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			res, err := Summarize(ctx, split(), llm.Model{}, &fakeSummarizer{answer: tt.answer}, "")
			if !errors.Is(err, ErrSummaryFailed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want ErrSummaryFailed containing %q", err, tt.want)
			}
			if res.Summary != "" {
				t.Errorf("partial result %+v", res)
			}
		})
	}
}
