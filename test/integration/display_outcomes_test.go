package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Tool outcomes are recorded where they are known: in the tool result's
// details, written by the harness (harness/outcome.go). The display reads
// them live and after a reopen; sessions written before read the old
// sentences.

// resultDetails is the details object of each toolResult in the session
// file at path, by tool call id.
func resultDetails(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, en := range readSessionFile(t, path) {
		m, ok := en["message"].(map[string]any)
		if !ok || m["role"] != "toolResult" {
			continue
		}
		d, _ := m["details"].(map[string]any)
		out[m["toolCallId"].(string)] = d
	}
	return out
}

type wantOutcome struct {
	id      string
	status  string
	outcome protocol.ToolOutcome
	reason  string
}

func checkOutcomes(t *testing.T, when string, st display.State, want []wantOutcome) {
	t.Helper()
	for _, w := range want {
		it := findItem(st, w.id)
		if it == nil || it.Status != w.status || it.Outcome != w.outcome || it.Reason != w.reason {
			t.Fatalf("%s: item %s is %+v, want status %q outcome %q reason %q", when, w.id, it, w.status, w.outcome, w.reason)
		}
	}
}

// A failed tool, a call aborted while it waited for approval and a call
// the abort left unrun record error / interrupted in their details; the
// state says so live and after a reopen in another process.
func TestToolOutcomesRecordedInDetails(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{
			{ID: "r1", Name: "read", Arguments: `{"path":"missing.txt"}`},
			{ID: "e1", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"old","newText":"new"}]}`},
			{ID: "b1", Name: "bash", Arguments: `{"command":"echo hi"}`},
		}},
	})
	writeFile(t, e.workspace+"/a.txt", "old text\n")
	s := e.start(startOpt{})
	asked := make(chan struct{}, 1)
	s.Handle("ui/requestApproval", func(ctx context.Context, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.prompt("go")
	<-asked
	s.call("agent/abort", map[string]any{}, nil)
	path := s.waitIdle().Path

	details := resultDetails(t, path)
	for id, want := range map[string][2]string{"r1": {"error", ""}, "e1": {"interrupted", "aborted"}, "b1": {"interrupted", "aborted"}} {
		d := details[id]
		if d["outcome"] != want[0] || (want[1] != "" && d["reason"] != want[1]) {
			t.Fatalf("result %s details %v, want outcome %q reason %q", id, d, want[0], want[1])
		}
	}
	want := []wantOutcome{
		{"r1", display.ToolError, protocol.OutcomeError, ""},
		{"e1", display.ToolError, protocol.OutcomeInterrupted, "aborted"},
		{"b1", display.ToolError, protocol.OutcomeInterrupted, "aborted"},
	}
	s.waitFor("display settles", func() bool {
		v, _ := s.Display()
		it := findItem(v.State, "b1")
		return v.State.Status == display.StatusIdle && it != nil && it.Outcome != ""
	})
	v, _ := s.Display()
	checkOutcomes(t, "live (client)", v.State, want)
	checkOutcomes(t, "live (snapshot)", snapshotState(t, s), want)
	shutdownServer(t, s)

	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": path}, nil)
	checkOutcomes(t, "reopened", snapshotState(t, s2), want)
}

// A session written before outcomes were kept in details (hand-written in
// that format: the outcomes are only in the results' sentences) reopens
// with its facts.
func TestLegacySessionKeepsOutcomes(t *testing.T) {
	e := newEnv(t, nil)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "legacy", "facts-v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.jsonl")
	writeFile(t, path, string(data))
	s := e.start(startOpt{})
	s.call("session/open", map[string]any{"path": path}, nil)
	st := snapshotState(t, s)
	checkOutcomes(t, "old session", st, []wantOutcome{
		{"e1", display.ToolDeclined, protocol.OutcomeDeclined, "keep the old name"},
		{"b1", display.ToolError, protocol.OutcomeInterrupted, "aborted"},
		{"r1", display.ToolError, protocol.OutcomeError, ""},
		{"g1", display.ToolDone, "", ""},
	})
	checkLegacyHandover(t, st)
}

// checkLegacyHandover: the old session's hand-over sentence is a hand-over
// note with the plan's title.
func checkLegacyHandover(t *testing.T, st display.State) {
	t.Helper()
	for _, it := range st.Items {
		if it.Kind == display.KindUser && it.Note == protocol.NotePlanHandover && it.PlanTitle == "Add LRU cache" {
			return
		}
	}
	t.Fatalf("no hand-over note in %+v", st.Items)
}
