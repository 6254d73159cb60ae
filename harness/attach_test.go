package harness_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Attach hands a late subscriber the current state as events — the
// session with its recent history, the mode with its name and colour, the
// model — and then the live stream, so a display needs nothing else.
func TestAttachReplaysTheStateThenStreams(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Match: "first", Text: "first answer"}, {Match: "second", Text: "second answer"}})
	ctx := context.Background()
	f.prompt(t, "first question")
	f.wait(t)
	if _, err := f.h.SetMode(ctx, "plan"); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var got []harness.Event
	unsub := f.h.Attach(ctx, func(ev harness.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})
	defer unsub()
	mu.Lock()
	replayed := append([]harness.Event(nil), got...)
	mu.Unlock()
	if len(replayed) == 0 || replayed[0].Type != harness.EvSession {
		t.Fatalf("first replayed event: %+v", replayed)
	}
	s := replayed[0]
	if s.Session == nil || s.Session.ID != f.h.SessionInfo().ID || s.History == nil {
		t.Fatalf("session_change without the session or its history: %+v", s)
	}
	var texts []string
	for i, m := range s.History.Messages {
		if s.History.EntryIDs[i] == "" {
			t.Fatalf("history message %d has no entry id", i)
		}
		texts = append(texts, string(m.Role)+":"+m.Text())
	}
	if len(texts) != 2 || texts[0] != "user:first question" || texts[1] != "assistant:first answer" {
		t.Fatalf("history %v", texts)
	}
	var mode *harness.Event
	for i := range replayed {
		if replayed[i].Type == harness.EvMode {
			mode = &replayed[i]
		}
	}
	if mode == nil || mode.Mode != "plan" || mode.ModeName != "Plan" || mode.ModeColor != "#2196f3" {
		t.Fatalf("replayed mode_change %+v", mode)
	}

	f.prompt(t, "second question")
	f.wait(t)
	mu.Lock()
	defer mu.Unlock()
	live := got[len(replayed):]
	ends := 0
	for _, ev := range live {
		if ev.Seq == 0 {
			t.Fatalf("live event %s without a seq", ev.Type)
		}
		if ev.Type == harness.EvMessageEnd && ev.Message.Role == llm.RoleAssistant && ev.Message.Text() == "second answer" {
			ends++
		}
	}
	if ends != 1 || live[len(live)-1].Type != harness.EvAgentEnd {
		t.Fatalf("live stream after Attach: %d answers, last %s", ends, live[len(live)-1].Type)
	}
}

// After a run that brought the messages recorded since the last
// session_change past twice the history bound, a session_change of the same
// session follows agent_end with the newest whole turns only, so that
// displays stay bounded.
func TestLongRunReseedsTheDisplays(t *testing.T) {
	lsCalls := func(prefix string, n int) []llmtest.ToolCall {
		calls := make([]llmtest.ToolCall, n)
		for i := range calls {
			calls[i] = llmtest.ToolCall{ID: fmt.Sprintf("%s%d", prefix, i), Name: "ls", Arguments: `{"path":"."}`}
		}
		return calls
	}
	f := newFixture(t, []llmtest.Response{
		{Match: "many", ToolCalls: lsCalls("a", 300)}, {Match: `"a299"`, Text: "listed"},
		{Match: "more", ToolCalls: lsCalls("b", 150)}, {Match: `"b149"`, Text: "listed again"},
	}, yolo)
	reseeds := func() []harness.Event {
		var out []harness.Event
		evs := f.rec.all()
		for i, e := range evs {
			if e.Type == harness.EvSession && i > 0 && evs[i-1].Type == harness.EvAgentEnd {
				out = append(out, e)
			}
		}
		return out
	}
	f.prompt(t, "many listings")
	f.wait(t)
	if n := len(reseeds()); n != 0 {
		t.Fatalf("%d reseeds after %d messages", n, 302)
	}
	f.prompt(t, "more listings")
	f.wait(t)
	rs := reseeds()
	if len(rs) != 1 {
		t.Fatalf("%d reseeds after the second run, want 1", len(rs))
	}
	h := rs[0].History
	if h == nil || len(h.Messages) == 0 || len(h.Messages) > harness.HistoryMessages || h.Older < 300 || h.Before != h.EntryIDs[0] {
		t.Fatalf("reseed history: %d messages, older %d, before %q", len(h.Messages), h.Older, h.Before)
	}
	if h.Messages[0].Role != llm.RoleUser || h.Messages[0].Text() != "more listings" {
		t.Fatalf("the reseed does not start at the newest turn: %s %q", h.Messages[0].Role, h.Messages[0].Text())
	}
}
