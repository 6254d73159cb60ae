package integration

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Display facts (docs/protocol.md, "Display facts"): what the state says
// about tool outcomes, plan verdicts, run ends and the session's tokens,
// live and after a reopen in another process.

func snapshotState(t *testing.T, s *server) display.State {
	t.Helper()
	var snap protocol.DisplaySnapshot
	s.call("display/snapshot", nil, &snap)
	return snap.State
}

func findItem(st display.State, id string) *display.Item {
	for i := range st.Items {
		if st.Items[i].ID == id {
			return &st.Items[i]
		}
	}
	return nil
}

// shutdownServer ends s cleanly so another process can open its session.
func shutdownServer(t *testing.T, s *server) {
	t.Helper()
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
}

// A declined edit says declined, with the user's reason, live and after the
// session is reopened by another process (it never becomes "error").
func TestDeclinedEditKeepsReasonAfterReopen(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"old","newText":"new"}]}`}}},
		{Match: "declined by the user", Text: "ok, I will not"},
	})
	writeFile(t, e.workspace+"/a.txt", "old text\n")
	s := e.start(startOpt{})
	s.Handle("ui/requestApproval", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"decision": "decline", "feedback": "keep the old name"}, nil
	})
	s.prompt("rename it")
	path := s.waitIdle().Path
	check := func(when string, st display.State) {
		t.Helper()
		it := findItem(st, "e1")
		if it == nil || it.Status != display.ToolDeclined || it.Outcome != protocol.OutcomeDeclined || it.Reason != "keep the old name" {
			t.Fatalf("%s: the declined edit is %+v", when, it)
		}
	}
	s.waitFor("display settles", func() bool {
		v, _ := s.Display()
		it := findItem(v.State, "e1")
		return v.State.Status == display.StatusIdle && it != nil && it.Outcome != ""
	})
	v, _ := s.Display()
	check("live (client)", v.State)
	check("live (snapshot)", snapshotState(t, s))
	shutdownServer(t, s)

	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": path}, nil)
	check("reopened", snapshotState(t, s2))
}

// The display's tokens and cost are the session's after a navigate, a
// session/new and a session/open of another session: never zeros, never
// another session's.
func TestTokensAfterNavigateAndSwitch(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "first", Text: "one", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300}},
		{Match: "second", Text: "two", Usage: &llmtest.Usage{Prompt: 2500, Completion: 80}},
		{Match: "other", Text: "three", Usage: &llmtest.Usage{Prompt: 100, Completion: 10}},
	}, llmtest.ModelSpec{ID: "m1", Name: "M1", Cost: &llmtest.Cost{Input: 3, Output: 15}})
	s := e.start(startOpt{})
	// tokens is the display's, taken as a client resyncs: the snapshot the
	// server answers, then the frames after it, as the client holds them.
	tokens := func() protocol.Tokens {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := s.Resync(ctx); err != nil {
			t.Fatalf("resync: %v", err)
		}
		v, _ := s.Display()
		if v.Stale || v.State.Session.ID != s.state().SessionID {
			t.Fatalf("display after resync: stale %v session %q", v.Stale, v.State.Session.ID)
		}
		return v.State.Tokens
	}
	s.prompt("first question")
	s.waitIdle()
	first := tokens()
	s.prompt("second question")
	pathA := s.waitIdle().Path
	live := tokens()
	if live.Cost.Total <= first.Cost.Total || live.Output <= first.Output || first.Output == 0 {
		t.Fatalf("live tokens %+v after first %+v", live, first)
	}
	secondUser := ""
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(mustJSON(m["content"]), "second question") {
			secondUser = en["id"].(string)
		}
	}
	s.call("session/navigate", map[string]any{"targetId": secondUser}, nil)
	nav := tokens()
	// The branch is the first turn: its tokens; the cost stays the file's.
	if nav.Output != first.Output || nav.Input != first.Input || nav.Cost.Total != live.Cost.Total || nav.ContextWindow == 0 || nav.ContextTokens == 0 {
		t.Fatalf("tokens after navigate %+v, want the first turn's %+v with the session's cost %v", nav, first, live.Cost.Total)
	}
	s.call("session/new", nil, nil)
	if fresh := tokens(); fresh.Cost.Total != 0 || fresh.Output != 0 {
		t.Fatalf("a new session shows tokens %+v", fresh)
	}
	s.prompt("other question")
	s.waitIdle()
	other := tokens()
	if other.Cost.Total == 0 || other.Cost.Total == live.Cost.Total {
		t.Fatalf("second session tokens %+v", other)
	}
	s.call("session/open", map[string]any{"path": pathA}, nil)
	back := tokens()
	if back.Cost.Total != live.Cost.Total || back.Output != first.Output || back.ContextWindow == 0 {
		t.Fatalf("tokens after switching back %+v, want the first session's (cost %v, output %d)", back, live.Cost.Total, first.Output)
	}
}

// A rejected plan says rejected and an approved one approved; the hand-over
// message is marked as the server's note. The same after a reopen.
func TestPlanVerdictsAndHandoverNote(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "p1", Name: "submit_plan", Arguments: `{"title":"Add cache","plan":"1. add a map"}`}}},
		{Match: "use an LRU", ToolCalls: []llmtest.ToolCall{{ID: "p2", Name: "submit_plan", Arguments: `{"title":"Add LRU cache","plan":"1. add an LRU"}`}}},
		{Match: "Build mode", Text: "implemented"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	var plans atomic.Int32
	s.Handle("ui/approvePlan", func(context.Context, json.RawMessage) (any, error) {
		if plans.Add(1) == 1 {
			return map[string]any{"approved": false, "feedback": "use an LRU"}, nil
		}
		return map[string]any{"approved": true}, nil
	})
	s.call("mode/set", map[string]any{"mode": "plan"}, nil)
	s.prompt("plan a cache")
	s.waitFor("build run finished", func() bool {
		st := s.state()
		return st.Mode == "build" && !st.IsRunning && e.llm.Pending() == 0
	})
	path := s.waitIdle().Path
	check := func(when string, st display.State) {
		t.Helper()
		p1, p2 := findItem(st, "p1"), findItem(st, "p2")
		if p1 == nil || p1.Verdict != protocol.PlanRejected || p2 == nil || p2.Verdict != protocol.PlanApproved {
			t.Fatalf("%s: plan items %+v / %+v", when, p1, p2)
		}
		notes := 0
		for _, it := range st.Items {
			if it.Kind == display.KindUser && it.Note == protocol.NotePlanHandover {
				notes++
				if it.PlanTitle != "Add LRU cache" {
					t.Fatalf("%s: hand-over note's planTitle %q", when, it.PlanTitle)
				}
			}
			if it.Kind == display.KindUser && it.Text == "plan a cache" && it.Note != "" {
				t.Fatalf("%s: the user's prompt is marked %q", when, it.Note)
			}
		}
		if notes != 1 {
			t.Fatalf("%s: %d hand-over notes, want 1: %+v", when, notes, st.Items)
		}
	}
	check("live", snapshotState(t, s))
	handovers := 0
	for _, en := range readSessionFile(t, path) {
		m, _ := en["message"].(map[string]any)
		if d, ok := m["details"].(map[string]any); ok && m["role"] == "user" {
			if d["note"] != "plan_handover" || d["planTitle"] != "Add LRU cache" {
				t.Fatalf("hand-over message details %v", d)
			}
			handovers++
		}
	}
	if handovers != 1 {
		t.Fatalf("%d user messages with hand-over details in the file, want 1", handovers)
	}
	shutdownServer(t, s)
	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": path}, nil)
	check("reopened", snapshotState(t, s2))
}

// Closing stdin while a run streams ends the run as client_gone: the
// reopened session labels the cut answer so, not as a Stop.
func TestClosingStdinMidRunSaysClientGone(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "LONG", Text: strings.Repeat("long ", 400), ChunkDelayMs: 15},
	})
	s := e.start(startOpt{})
	s.prompt("LONG answer")
	path := s.state().Path
	s.waitFor("streaming text", func() bool {
		v, _ := s.Display()
		return len(v.State.Items) > 1 && len(v.State.Items[1].Text) > 20
	})
	_ = s.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("pi-lsp did not exit after its stdin closed")
	}
	found := false
	for _, en := range readSessionFile(t, path) {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "assistant" {
			found = m["stopReason"] == "aborted" && m["errorMessage"] == "Request was aborted: the client went away"
		}
	}
	if !found {
		t.Fatalf("the session file does not record the cut answer as client gone: %v", readSessionFile(t, path))
	}
	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": path}, nil)
	st := snapshotState(t, s2)
	var cut *display.Item
	for i := range st.Items {
		if st.Items[i].Kind == display.KindAssistant {
			cut = &st.Items[i]
		}
	}
	if cut == nil || cut.Status != display.AssistantInterrupted || cut.EndReason != protocol.EndClientGone {
		t.Fatalf("reopened answer: %+v", cut)
	}
}
