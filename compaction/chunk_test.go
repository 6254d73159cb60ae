package compaction

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// recordingSummarizer answers every request with a short summary and
// keeps the prompts.
type recordingSummarizer struct {
	mu      sync.Mutex
	prompts []string
}

func (r *recordingSummarizer) Stream(_ context.Context, req llm.Request, _ func(llm.Event)) llm.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prompts = append(r.prompts, req.Messages[0].Text())
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock(fmt.Sprintf("summary %d", len(r.prompts)))}, StopReason: llm.StopStop}
}

func TestSummarizeInChunksWhenOverTheWindow(t *testing.T) {
	model := llm.Model{ID: "small", ContextWindow: 16000, MaxTokens: 4096}
	var msgs []llm.Message
	for i := range 200 {
		msgs = append(msgs, llm.UserText(fmt.Sprintf("turn %d: %s", i, strings.Repeat("1234567\n", 60)), int64(i)))
	}
	p := &Preparation{ToSummarize: msgs, Settings: Settings{ReserveTokens: 4000}, FirstKeptEntryID: "x"}
	s := &recordingSummarizer{}
	res, err := Summarize(context.Background(), p, model, s, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.prompts) < 3 {
		t.Fatalf("%d summarizer calls for about %d characters on a %d-token window", len(s.prompts), len(SerializeConversation(msgs)), model.ContextWindow)
	}
	for i, pr := range s.prompts {
		if len(pr)/summaryCharsPerToken > model.ContextWindow-int(0.8*4000) {
			t.Fatalf("request %d: %d characters, over the window at 2 characters a token", i, len(pr))
		}
		if i > 0 && !strings.Contains(pr, fmt.Sprintf("<previous-summary>\nsummary %d\n</previous-summary>", i)) {
			t.Fatalf("request %d does not fold the previous chunk's summary", i)
		}
	}
	for i := range 200 {
		n := 0
		for _, pr := range s.prompts {
			n += strings.Count(pr, fmt.Sprintf("turn %d: ", i))
		}
		if n != 1 {
			t.Fatalf("turn %d summarized %d times", i, n)
		}
	}
	if !strings.HasPrefix(res.Summary, fmt.Sprintf("summary %d", len(s.prompts))) {
		t.Fatalf("the result is not the last fold: %q", res.Summary)
	}
	// A conversation that fits is one call, as before.
	s2 := &recordingSummarizer{}
	p.ToSummarize = msgs[:5]
	if _, err := Summarize(context.Background(), p, model, s2, ""); err != nil || len(s2.prompts) != 1 {
		t.Fatalf("small conversation: %d calls, %v", len(s2.prompts), err)
	}
}
