package display_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// runEvents is one run: a prompt, thinking and text streamed, an edit tool
// that waits for approval, a bash tool streaming output, the final answer.
func runEvents() []harness.Event {
	ec := 0
	return []harness.Event{
		ev(harness.EvAgentStart),
		{Type: harness.EvPhase, Phase: harness.PhaseTurn},
		{Type: harness.EvMessageStart, Message: userMsg("fix the test")},
		{Type: harness.EvMessageEnd, Message: userMsg("fix the test")},
		{Type: harness.EvMessageStart, Message: assistantMsg("")},
		delta("thinking", "Let me "),
		delta("thinking", "look."),
		delta("text", "Look"),
		delta("text", "ing"),
		delta("toolcall", `{"pa`),
		{Type: harness.EvMessageEnd, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{
			{Type: llm.BlockThinking, Thinking: "Let me look."}, llm.TextBlock("Looking"),
			toolCall("call_1", "edit", `{"path":"a.go"}`), toolCall("call_2", "bash", `{"command":"go test"}`),
		}}},
		{Type: harness.EvToolStart, ToolCallID: "call_1", ToolName: "edit", Args: json.RawMessage(`{"path":"a.go"}`)},
		{Type: harness.EvApproval, ToolCallID: "call_1", Approval: &harness.ApprovalRequest{ToolCallID: "call_1", ToolName: "edit", Category: "edit", Args: json.RawMessage(`{"path":"a.go"}`), Display: "edit a.go"}},
		{Type: harness.EvApprovalDone, ToolCallID: "call_1", Decision: "approve"},
		{Type: harness.EvToolEnd, ToolCallID: "call_1", ToolName: "edit", Output: "edited a.go", Diff: "-a\n+b\n", Path: "a.go"},
		{Type: harness.EvToolStart, ToolCallID: "call_2", ToolName: "bash", Args: json.RawMessage(`{"command":"go test"}`)},
		{Type: harness.EvToolUpdate, ToolCallID: "call_2", Output: "ok  \t"},
		{Type: harness.EvToolUpdate, ToolCallID: "call_2", Output: "ok  \tpkg 0.1s\n"},
		{Type: harness.EvToolEnd, ToolCallID: "call_2", ToolName: "bash", Output: "ok  \tpkg 0.1s\nPASS\n"},
		{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: 100, Output: 20, Total: 120, ContextTokens: 120, ContextWindow: 128000}},
		{Type: harness.EvTasks, Tasks: []tools.Task{{ID: "t1", Content: "Fix", Status: "in_progress"}}},
		{Type: harness.EvQueueUpdate, FollowUp: []string{"then commit"}},
		{Type: harness.EvMessageStart, Message: assistantMsg("")},
		delta("text", "Fixed "),
		delta("text", "it."),
		{Type: harness.EvMessageEnd, Message: assistantMsg("Fixed it.")},
		{Type: harness.EvQueueUpdate},
		{Type: harness.EvMessageStart, Message: &llm.Message{Role: llm.RoleBashExecution, Command: "ls"}},
		{Type: harness.EvMessageEnd, Message: &llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "a.go\n", ExitCode: &ec}},
		{Type: harness.EvPhase, Phase: harness.PhaseIdle},
		ev(harness.EvAgentEnd),
	}
}

func TestReducerRun(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	for _, e := range runEvents() {
		r.Apply(e)
	}
	st := r.State()
	if st.Status != display.StatusIdle || st.Phase != protocol.PhaseIdle {
		t.Errorf("status/phase = %q/%q", st.Status, st.Phase)
	}
	var kinds []string
	for _, it := range st.Items {
		kinds = append(kinds, string(it.Kind))
	}
	if got, want := strings.Join(kinds, ","), "user,assistant,tool,tool,assistant,bash"; got != want {
		t.Fatalf("item kinds = %s, want %s", got, want)
	}
	a := st.Items[1]
	if a.Text != "Looking" || a.Thinking != "Let me look." || a.Streaming {
		t.Errorf("assistant item = %+v", a)
	}
	edit := st.Items[2]
	if edit.ID != "call_1" || edit.Status != display.ToolDone || edit.Diff != "-a\n+b\n" || edit.Path != "a.go" || edit.Output != "edited a.go" {
		t.Errorf("edit item = %+v", edit)
	}
	bash := st.Items[3]
	if bash.Status != display.ToolDone || bash.Output != "ok  \tpkg 0.1s\nPASS\n" {
		t.Errorf("bash tool item = %+v", bash)
	}
	if st.Items[4].Text != "Fixed it." {
		t.Errorf("final answer = %q", st.Items[4].Text)
	}
	if b := st.Items[5]; b.Command != "ls" || b.Output != "a.go\n" || b.ExitCode == nil || *b.ExitCode != 0 || b.Status != display.ToolDone {
		t.Errorf("bash item = %+v", b)
	}
	if len(st.ModifiedFiles) != 1 || st.ModifiedFiles[0] != "a.go" {
		t.Errorf("modifiedFiles = %v", st.ModifiedFiles)
	}
	if st.Tokens.ContextTokens != 120 || len(st.Tasks) != 1 || len(st.Queue.FollowUp) != 0 {
		t.Errorf("tokens/tasks/queue = %+v %+v %+v", st.Tokens, st.Tasks, st.Queue)
	}
	if st.Pending.Approval != nil {
		t.Errorf("approval still pending")
	}
}

func TestReducerPendingAndStatus(t *testing.T) {
	tests := []struct {
		name   string
		events []harness.Event
		check  func(t *testing.T, st display.State)
	}{
		{"approval pending marks the tool", []harness.Event{
			{Type: harness.EvToolStart, ToolCallID: "c1", ToolName: "write"},
			{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c1", ToolName: "write"}},
		}, func(t *testing.T, st display.State) {
			if st.Pending.Approval == nil || st.Pending.Approval.ToolCallID != "c1" || st.Items[0].Status != display.ToolAwaitingApproval {
				t.Errorf("pending=%+v item=%+v", st.Pending.Approval, st.Items[0])
			}
		}},
		{"declined stays declined after the declined result", []harness.Event{
			{Type: harness.EvToolStart, ToolCallID: "c1", ToolName: "write"},
			{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c1", ToolName: "write"}},
			{Type: harness.EvApprovalDone, ToolCallID: "c1", Decision: "decline"},
			{Type: harness.EvToolEnd, ToolCallID: "c1", IsError: true, Output: "declined by the user", Outcome: harness.OutcomeDeclined},
		}, func(t *testing.T, st display.State) {
			if st.Pending.Approval != nil || st.Items[0].Status != display.ToolDeclined || !st.Items[0].IsError {
				t.Errorf("pending=%+v item=%+v", st.Pending.Approval, st.Items[0])
			}
		}},
		{"approval before start creates a pending tool", []harness.Event{
			{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c9", ToolName: "bash", Args: json.RawMessage(`{"command":"rm"}`)}},
			{Type: harness.EvApprovalDone, ToolCallID: "c9", Decision: "alwaysAllowTool"},
		}, func(t *testing.T, st display.State) {
			if it := st.Items[0]; it.ID != "c9" || it.Status != display.ToolPending || string(it.Args) != `{"command":"rm"}` {
				t.Errorf("item=%+v", it)
			}
		}},
		{"question and plan", []harness.Event{
			{Type: harness.EvQuestion, Question: &tools.Question{ID: "q1", Question: "Which?", Options: []string{"a", "b"}}},
			{Type: harness.EvPlan, Plan: &tools.Plan{ID: "p1", Title: "T", Plan: "1."}},
			{Type: harness.EvQuestionDone, Question: &tools.Question{ID: "q1"}},
		}, func(t *testing.T, st display.State) {
			if st.Pending.Question != nil || st.Pending.Plan == nil || st.Pending.Plan.ID != "p1" {
				t.Errorf("pending=%+v", st.Pending)
			}
		}},
		{"agent end settles an aborted run", []harness.Event{
			ev(harness.EvAgentStart),
			{Type: harness.EvMessageStart, Message: assistantMsg("")},
			delta("text", "partial"),
			{Type: harness.EvToolStart, ToolCallID: "c1", ToolName: "bash"},
			{Type: harness.EvQuestion, Question: &tools.Question{ID: "q1"}},
			{Type: harness.EvRetryStart, Attempt: 1, DelayMs: 500, Error: "429"},
			ev(harness.EvAgentEnd),
		}, func(t *testing.T, st display.State) {
			if st.Status != display.StatusIdle || st.Items[0].Streaming || st.Items[0].Text != "partial" ||
				st.Items[1].Status != display.ToolError || st.Pending.Question != nil || st.Retry != nil {
				t.Errorf("state=%+v", st)
			}
		}},
		{"retry, compaction, mode, model, thinking", []harness.Event{
			{Type: harness.EvRetryStart, Attempt: 2, DelayMs: 1000, Error: "500"},
			{Type: harness.EvCompactionStart, Reason: "threshold"},
			{Type: harness.EvMode, Mode: "plan"},
			{Type: harness.EvModel, Model: "fake/m2"},
			{Type: harness.EvThinking, Thinking: llm.ThinkingHigh},
		}, func(t *testing.T, st display.State) {
			if st.Retry == nil || st.Retry.Attempt != 2 || st.Compaction == nil || st.Compaction.Reason != "threshold" ||
				st.Mode != (display.Mode{ID: "plan", Name: "Plan", Color: "#2196f3"}) || st.Model != "fake/m2" || st.ThinkingLevel != string(llm.ThinkingHigh) {
				t.Errorf("state=%+v", st)
			}
		}},
		{"compaction end pushes the summary", []harness.Event{
			{Type: harness.EvCompactionStart, Reason: "manual"},
			{Type: harness.EvCompactionEnd, Summary: "## Goal", Tokens: &harness.Tokens{ContextTokens: 10, Compactions: 1}},
		}, func(t *testing.T, st display.State) {
			if st.Compaction != nil || st.Items[0].Kind != display.KindSummary || st.Items[0].Text != "## Goal" || st.Tokens.Compactions != 1 {
				t.Errorf("state=%+v", st)
			}
		}},
		{"final message corrects diverging deltas", []harness.Event{
			{Type: harness.EvMessageStart, Message: assistantMsg("")},
			delta("text", "Helo"),
			{Type: harness.EvMessageEnd, Message: assistantMsg("Hello")},
		}, func(t *testing.T, st display.State) {
			if st.Items[0].Text != "Hello" {
				t.Errorf("text=%q", st.Items[0].Text)
			}
		}},
		{"hidden custom messages are not shown", []harness.Event{
			{Type: harness.EvMessageStart, Message: &llm.Message{Role: llm.RoleCustom, Content: []llm.ContentBlock{llm.TextBlock("x")}}},
			{Type: harness.EvMessageEnd, Message: &llm.Message{Role: llm.RoleCustom, Content: []llm.ContentBlock{llm.TextBlock("x")}}},
			{Type: harness.EvMessageEnd, Message: &llm.Message{Role: llm.RoleCustom, Display: true, Content: []llm.ContentBlock{llm.TextBlock("shown")}}},
		}, func(t *testing.T, st display.State) {
			if len(st.Items) != 1 || st.Items[0].Kind != display.KindInfo || st.Items[0].Text != "shown" {
				t.Errorf("items=%+v", st.Items)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := display.NewReducer(display.ReducerOptions{})
			c := newClient(t, r, newFake())
			for _, e := range tt.events {
				r.Apply(e)
			}
			tt.check(t, r.State())
			c.s.Flush()
			c.drain()
			c.check(r)
		})
	}
}

func TestReducerKeepsLastErrors(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	for i := range display.MaxErrors + 5 {
		r.Apply(harness.Event{Type: harness.EvError, Error: fmt.Sprintf("e%d", i)})
	}
	st := r.State()
	if len(st.Errors) != display.MaxErrors || st.Errors[0].Text != "e5" || st.Errors[display.MaxErrors-1].Text != "e24" {
		t.Fatalf("errors = %v", st.Errors)
	}
	if n := len(st.Items); n != display.MaxErrors+5 || st.Items[n-1].Kind != display.KindError {
		t.Fatalf("error items = %d", n)
	}
	c.drain()
	c.check(r)
}

func TestReducerToolOutputIsCapped(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvToolStart, ToolCallID: "b", ToolName: "bash"})
	line := strings.Repeat("x", 99) + "\n"
	full := ""
	sent := 0
	for range 1000 { // 100 KB of output, cumulative as pi sends it
		full += line
		r.Apply(harness.Event{Type: harness.EvToolUpdate, ToolCallID: "b", Output: full})
		c.s.Flush()
		for _, f := range c.drain() {
			sent += len(mustJSON(t, f))
		}
	}
	out := r.State().Items[0].Output
	if len(out) > 16<<10 || !strings.HasSuffix(full, out) || len(out) < 8<<10 {
		t.Fatalf("kept output is %d bytes (suffix of full: %v)", len(out), strings.HasSuffix(full, out))
	}
	// Appends up to 16 KB, then one 8 KB set: the wire carries at most about
	// twice the output plus per-frame overhead, not the square of it.
	if sent > 3*len(full) {
		t.Fatalf("sent %d bytes for %d bytes of output", sent, len(full))
	}
	r.Apply(harness.Event{Type: harness.EvToolEnd, ToolCallID: "b", Output: full})
	c.drain()
	c.check(r)
	if got := r.State().Items[0].Output; !strings.HasSuffix(full, got) || len(got) > 8<<10 {
		t.Fatalf("final output %d bytes", len(got))
	}
}

func TestReducerRollingOutputReplaces(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(harness.Event{Type: harness.EvToolUpdate, ToolCallID: "b", ToolName: "bash", Output: "line1\nline2\n"})
	r.Apply(harness.Event{Type: harness.EvToolUpdate, ToolCallID: "b", Output: "line2\nline3\n"})
	if got := r.State().Items[0].Output; got != "line2\nline3\n" {
		t.Fatalf("output = %q", got)
	}
}

func TestResetSeedsHistory(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(harness.Event{Type: harness.EvModel, Model: "fake/m1"})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: userMsg("old")})
	c.drain()
	one := 1
	msgs := []llm.Message{
		*userMsg("hi"),
		*assistantMsg("calling", toolCall("c1", "edit", `{"path":"x.go"}`)),
		{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "edit", Content: []llm.ContentBlock{llm.TextBlock("ok")}, Details: json.RawMessage(`{"diff":"+x"}`)},
		{Role: llm.RoleBashExecution, Command: "false", Output: "", ExitCode: &one},
		{Role: llm.RoleCompactionSummary, Summary: "sum"},
		*assistantMsg("", toolCall("c2", "bash", `{}`)),
	}
	ids := []string{"e1", "e2", "e3", "e4", "e5", "e6"}
	r.Apply(harness.Event{Type: harness.EvSession, SessionID: "s2", Session: &harness.SessionInfo{ID: "s2", Path: "/p", Cwd: "/w"},
		History: &harness.History{Messages: msgs, EntryIDs: ids, Older: 3, Before: "e0"}})
	frames := c.drain()
	if len(frames) != 1 || frames[0].State == nil {
		t.Fatalf("reset did not send one full state: %+v", frames)
	}
	st := r.State()
	var got []string
	for _, it := range st.Items {
		got = append(got, string(it.Kind)+":"+it.Status)
	}
	if want := "user:,assistant:,tool:done,bash:error,summary:,tool:error"; strings.Join(got, ",") != want {
		t.Fatalf("items = %s, want %s", strings.Join(got, ","), want)
	}
	if st.Items[2].Diff != "+x" || st.Items[2].Path != "x.go" || len(st.ModifiedFiles) != 1 {
		t.Fatalf("tool item = %+v files=%v", st.Items[2], st.ModifiedFiles)
	}
	if st.Model != "fake/m1" || st.Session.ID != "s2" || st.Session.Path != "/p" {
		t.Fatalf("model %q session %+v", st.Model, st.Session)
	}
	if st.History == nil || st.History.Older != 3 || st.History.Before != "e0" {
		t.Fatalf("history marker %+v, want the event's (3 older, before e0)", st.History)
	}
	// After a reset the stream goes on with ops on top of the new state.
	r.Apply(harness.Event{Type: harness.EvToolEnd, ToolCallID: "c2", Output: "late"})
	c.drain()
	c.check(r)
}

// A mode_change names the mode and its colour: the display shows what the
// event says, a custom mode included.
func TestModeChangeCarriesNameAndColour(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(harness.Event{Type: harness.EvMode, Mode: "review", ModeName: "Review", ModeColor: "#123456"})
	if m := r.State().Mode; m != (display.Mode{ID: "review", Name: "Review", Color: "#123456"}) {
		t.Fatalf("mode = %+v", m)
	}
}

// A session_change's history larger than the state's bound is cut at a turn
// boundary, and the marker counts what was cut on top of what the event
// left out.
func TestSessionChangeHistoryIsBounded(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	var msgs []llm.Message
	var ids []string
	for i := range display.DefaultItems {
		msgs = append(msgs, *userMsg(fmt.Sprintf("q%d", i)), *assistantMsg(fmt.Sprintf("a%d", i)))
		ids = append(ids, fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i))
	}
	r.Apply(harness.Event{Type: harness.EvSession, Session: &harness.SessionInfo{ID: "s"},
		History: &harness.History{Messages: msgs, EntryIDs: ids, Older: 10, Before: "u0"}})
	st := r.State()
	if len(st.Items) != display.DefaultItems || st.Items[0].Text != "q100" {
		t.Fatalf("%d items, first %q: want the newest %d from a turn start", len(st.Items), st.Items[0].Text, display.DefaultItems)
	}
	if st.History == nil || st.History.Before != "u100" || st.History.Older != 10+200 {
		t.Fatalf("marker %+v", st.History)
	}
}

func TestSessionChangeResyncs(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: userMsg("old")})
	r.Apply(harness.Event{Type: harness.EvSession, SessionID: "new"})
	frames := c.drain()
	if last := frames[len(frames)-1]; last.State == nil || len(last.State.Items) != 0 || last.State.Session.ID != "new" {
		t.Fatalf("last frame = %+v", last)
	}
	c.check(r)
}

func TestItemWireShapes(t *testing.T) {
	tests := []struct {
		item display.Item
		want string
	}{
		{display.Item{ID: "a", Kind: display.KindUser, Text: "hi"}, `{"id":"a","kind":"user","text":"hi","attachments":[]}`},
		{display.Item{ID: "b", Kind: display.KindAssistant}, `{"id":"b","kind":"assistant","text":"","thinking":"","streaming":false,"status":""}`},
		{display.Item{ID: "c", Kind: display.KindTool, ToolName: "edit", Status: "running"},
			`{"id":"c","kind":"tool","toolName":"edit","args":{},"status":"running","output":"","diff":"","path":"","isError":false}`},
		{display.Item{ID: "d", Kind: display.KindBash, Command: "ls", Status: "running"}, `{"id":"d","kind":"bash","command":"ls","status":"running","output":"","exitCode":null}`},
		{display.Item{ID: "e", Kind: display.KindSummary, Text: "s", SummaryKind: "branch"}, `{"id":"e","kind":"summary","text":"s","summaryKind":"branch"}`},
	}
	for _, tt := range tests {
		if got := string(mustJSON(t, tt.item)); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	// The empty state has arrays, not nulls, wherever a push may land.
	got := string(mustJSON(t, display.NewState()))
	for _, k := range []string{`"items":[]`, `"tasks":[]`, `"steering":[]`, `"followUp":[]`, `"modifiedFiles":[]`, `"errors":[]`, `"approval":null`, `"retry":null`} {
		if !strings.Contains(got, k) {
			t.Errorf("empty state lacks %s: %s", k, got)
		}
	}
}
