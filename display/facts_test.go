package display_test

import (
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// declineResult is the text the harness records when the user declines an
// edit with a reason (harness/review.go declineText).
const declineResult = "Tool call declined by the user: edit was not run. The user's reason: use tabs\nTake this into account; do not retry the same call unchanged."

func toolResult(id, name, text string, isError bool) llm.Message {
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: name, IsError: isError, Content: []llm.ContentBlock{llm.TextBlock(text)}}
}

func sessionWith(id string, msgs []llm.Message, tokens *harness.Tokens) harness.Event {
	ids := make([]string, len(msgs))
	for i := range ids {
		ids[i] = id + "e" + string(rune('a'+i))
	}
	return harness.Event{Type: harness.EvSession, SessionID: id, Session: &harness.SessionInfo{ID: id, Path: "/" + id},
		History: &harness.History{Messages: msgs, EntryIDs: ids}, Tokens: tokens}
}

func itemByID(t *testing.T, st display.State, id string) display.Item {
	t.Helper()
	for _, it := range st.Items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("no item %q in %+v", id, st.Items)
	return display.Item{}
}

// A declined edit, an interrupted call, a plan's verdict, the plan
// hand-over note and a cut answer read the same live and from history.
func TestFactsLiveAndFromHistory(t *testing.T) {
	handover := harness.PlanHandoverText("Dark mode")
	legacy := harness.PlanHandoverText("Old plan")
	msgs := []llm.Message{
		*userMsg("edit it"),
		*assistantMsg("", toolCall("c1", "edit", `{"path":"a.go"}`), toolCall("p1", "submit_plan", `{"title":"T","plan":"x"}`)),
		toolResult("c1", "edit", declineResult, true),
		toolResult("p1", "submit_plan", "Plan was not approved. The user wants revisions.\n\nUser feedback: no", false),
		harness.PlanHandoverMessage("Dark mode", 1),
		{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock("half")}, StopReason: llm.StopAborted, ErrorMessage: harness.ClientGoneMessage},
		*assistantMsg("", toolCall("c2", "bash", `{}`)),
		// Written before the message kept its details: read from the text.
		*userMsg(legacy),
		// The user typing the same words is not a hand-over once
		// hand-overs carry details.
		{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock(handover)}, Details: []byte(`{"other":1}`)},
	}
	check := func(name string, st display.State) {
		t.Helper()
		if it := itemByID(t, st, "c1"); it.Status != display.ToolDeclined || it.Outcome != protocol.OutcomeDeclined || it.Reason != "use tabs" {
			t.Errorf("%s: declined edit = status %q outcome %q reason %q", name, it.Status, it.Outcome, it.Reason)
		}
		if it := itemByID(t, st, "p1"); it.Verdict != protocol.PlanRejected {
			t.Errorf("%s: plan verdict = %q, want rejected", name, it.Verdict)
		}
		var note, cut bool
		notes := 0
		for _, it := range st.Items {
			if it.Kind == display.KindUser && it.Note == protocol.NotePlanHandover {
				notes++
			}
			note = note || (it.Kind == display.KindUser && it.Text == handover && it.Note == protocol.NotePlanHandover && it.PlanTitle == "Dark mode")
			if it.Kind == display.KindUser && it.Text == legacy && (it.Note != protocol.NotePlanHandover || it.PlanTitle != "Old plan") {
				t.Errorf("%s: the old hand-over is %+v", name, it)
			}
			cut = cut || (it.Kind == display.KindAssistant && it.Status == display.AssistantInterrupted && it.EndReason == protocol.EndClientGone)
			if it.Kind == display.KindUser && it.Text == "edit it" && it.Note != "" {
				t.Errorf("%s: the user's own message has note %q", name, it.Note)
			}
		}
		if notes != 2 {
			t.Errorf("%s: %d hand-over notes, want 2 (the new one and the old one)", name, notes)
		}
		if !note || !cut {
			t.Errorf("%s: hand-over note %v, client_gone answer %v", name, note, cut)
		}
	}

	// From history (a reopen).
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(sessionWith("s1", msgs, nil))
	st := r.State()
	check("history", st)
	if it := itemByID(t, st, "c2"); it.Outcome != protocol.OutcomeInterrupted {
		t.Errorf("history: call without result outcome %q", it.Outcome)
	}

	// Live.
	r = display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvAgentStart})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[0]})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[0]})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[1]})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[1]})
	r.Apply(harness.Event{Type: harness.EvApprovalDone, ToolCallID: "c1", Decision: "decline"})
	r.Apply(harness.Event{Type: harness.EvToolEnd, ToolCallID: "c1", ToolName: "edit", Output: declineResult, IsError: true,
		Outcome: harness.OutcomeDeclined, Reason: "use tabs"})
	r.Apply(harness.Event{Type: harness.EvToolStart, ToolCallID: "p1", ToolName: "submit_plan"})
	r.Apply(harness.Event{Type: harness.EvPlanDone, Plan: &tools.Plan{ID: "p1", Title: "T"}, Decision: "rejected"})
	r.Apply(harness.Event{Type: harness.EvToolEnd, ToolCallID: "p1", ToolName: "submit_plan", Output: "Plan was not approved. The user wants revisions."})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[4]})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[4]})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[5]})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[5]})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[6]})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[6]})
	for i := 7; i < len(msgs); i++ {
		r.Apply(harness.Event{Type: harness.EvMessageStart, Message: &msgs[i]})
		r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: &msgs[i]})
	}
	r.Apply(harness.Event{Type: harness.EvAgentEnd, Reason: string(harness.EndClientGone)})
	st = r.State()
	check("live", st)
	if it := itemByID(t, st, "c2"); it.Outcome != protocol.OutcomeInterrupted || it.Reason != string(protocol.EndClientGone) {
		t.Errorf("live: cut call outcome %q reason %q", it.Outcome, it.Reason)
	}
	c.drain()
	c.check(r)
}

// A result's outcome is read from its details, whatever its text says; a
// failed result without one (a session written before outcomes were kept)
// is read from the old sentences; a successful one never is.
func TestOutcomeFromDetailsAndLegacyText(t *testing.T) {
	withDetails := func(m llm.Message, details string) llm.Message {
		m.Details = []byte(details)
		return m
	}
	msgs := []llm.Message{
		*userMsg("go"),
		*assistantMsg("", toolCall("d1", "edit", `{}`), toolCall("d2", "bash", `{}`), toolCall("d3", "mcp_x", `{}`),
			toolCall("l1", "edit", `{}`), toolCall("l2", "bash", `{}`), toolCall("l3", "read", `{}`), toolCall("ok", "bash", `{}`)),
		withDetails(toolResult("d1", "edit", "no words to match", true), `{"outcome":"declined","reason":"not now"}`),
		withDetails(toolResult("d2", "bash", "whatever", true), `{"exitCode":1,"outcome":"interrupted","reason":"client_gone"}`),
		withDetails(toolResult("d3", "mcp_x", "server said no", true), `{"outcome":"error"}`),
		toolResult("l1", "edit", "Tool call declined: edit needs the user's approval (edit category) and no client that can approve is connected.", true),
		toolResult("l2", "bash", "Tool call cancelled: the run was aborted before it ran.", true),
		toolResult("l3", "read", "ENOENT", true),
		toolResult("ok", "bash", "Tool call declined by the user (an echo)", false),
	}
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(sessionWith("s1", msgs, nil))
	st := r.State()
	for _, want := range []struct {
		id, status string
		outcome    protocol.ToolOutcome
		reason     string
	}{
		{"d1", display.ToolDeclined, protocol.OutcomeDeclined, "not now"},
		{"d2", display.ToolError, protocol.OutcomeInterrupted, "client_gone"},
		{"d3", display.ToolError, protocol.OutcomeError, ""},
		{"l1", display.ToolDeclined, protocol.OutcomeDeclined, "edit needs the user's approval (edit category) and no client that can approve is connected."},
		{"l2", display.ToolError, protocol.OutcomeInterrupted, "aborted"},
		{"l3", display.ToolError, protocol.OutcomeError, ""},
		{"ok", display.ToolDone, "", ""},
	} {
		if it := itemByID(t, st, want.id); it.Status != want.status || it.Outcome != want.outcome || it.Reason != want.reason {
			t.Errorf("%s: status %q outcome %q reason %q, want %q %q %q", want.id, it.Status, it.Outcome, it.Reason, want.status, want.outcome, want.reason)
		}
	}
}

// Error and retry banners carry their turn and are cleared by a later
// successful run and by a model switch; a failed run keeps them.
func TestBannersBelongToTheirTurnAndClear(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvModel, Model: "fake/a"})
	u := userMsg("go")
	r.Apply(harness.Event{Type: harness.EvAgentStart})
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: u})
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: u})
	turn := r.State().Items[0].ID
	r.Apply(harness.Event{Type: harness.EvRetryStart, Attempt: 3, DelayMs: 4000, Error: "503"})
	if rt := r.State().Retry; rt == nil || rt.ItemID != turn {
		t.Fatalf("retry = %+v, want item %q", rt, turn)
	}
	r.Apply(harness.Event{Type: harness.EvError, Error: "gave up after 3 retries"})
	r.Apply(harness.Event{Type: harness.EvAgentEnd, Reason: string(harness.EndError)})
	st := r.State()
	if len(st.Errors) != 1 || st.Errors[0] != (display.ErrorBanner{Text: "gave up after 3 retries", ItemID: turn}) || st.Retry != nil {
		t.Fatalf("after the failed run: errors %+v retry %+v", st.Errors, st.Retry)
	}
	r.Apply(harness.Event{Type: harness.EvModel, Model: "fake/b"})
	if st := r.State(); len(st.Errors) != 0 {
		t.Fatalf("a model switch kept errors %+v", st.Errors)
	}
	r.Apply(harness.Event{Type: harness.EvError, Error: "again"})
	r.Apply(harness.Event{Type: harness.EvAgentStart})
	r.Apply(harness.Event{Type: harness.EvAgentEnd, Reason: string(harness.EndStop)})
	if st := r.State(); len(st.Errors) != 0 {
		t.Fatalf("a successful run kept errors %+v", st.Errors)
	}
	c.drain()
	c.check(r)
}

// A session change carries the session's tokens: the state shows them, not
// zeros and not the previous session's.
func TestSessionChangeCarriesTokens(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(sessionWith("s1", []llm.Message{*userMsg("a")}, &harness.Tokens{Input: 10, Total: 12, ContextTokens: 5, ContextWindow: 1000, Cost: llm.Cost{Total: 0.5}}))
	r.Apply(sessionWith("s2", []llm.Message{*userMsg("b")}, &harness.Tokens{Input: 3, Total: 4, ContextWindow: 1000, Cost: llm.Cost{Total: 0.01}}))
	tk := r.State().Tokens
	if tk.Input != 3 || tk.Total != 4 || tk.Cost.Total != 0.01 || tk.ContextWindow != 1000 {
		t.Fatalf("tokens after the switch = %+v", tk)
	}
	c.drain()
	c.check(r)
}
