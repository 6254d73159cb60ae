package display_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// outcomeCalls is an answer with four calls that did not simply succeed:
// w1 declined with the user's reason, b1 approved but cut by an abort, e1
// failed; then r1, a result of a call not seen before and without
// tool_execution events, declined (its outcome only in the details). in wraps a run's own event (childEv for a
// subagent's); sub is the subagent an approval belongs to (nil: the
// parent's own).
func outcomeCalls(in func(harness.Event) harness.Event, sub *harness.SubagentRef) []harness.Event {
	r1 := llm.Message{Role: llm.RoleToolResult, ToolCallID: "r1", ToolName: "read", IsError: true,
		Content: []llm.ContentBlock{llm.TextBlock("Tool call declined: outside the roots")},
		Details: json.RawMessage(`{"outcome":"declined","reason":"outside the roots"}`)}
	return []harness.Event{
		in(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")}),
		in(harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("",
			toolCall("w1", "write", `{"path":"x"}`), toolCall("b1", "bash", `{"command":"make"}`),
			toolCall("e1", "edit", `{"path":"y"}`))}),
		{Type: harness.EvApprovalDone, ToolCallID: "w1", Decision: string(harness.DecisionDecline), Subagent: sub},
		in(harness.Event{Type: harness.EvToolStart, ToolCallID: "w1", ToolName: "write"}),
		in(harness.Event{Type: harness.EvToolEnd, ToolCallID: "w1", ToolName: "write", Output: "declined", IsError: true,
			Outcome: harness.OutcomeDeclined, Reason: "not now"}),
		{Type: harness.EvApprovalDone, ToolCallID: "b1", Decision: string(harness.DecisionApprove), Subagent: sub},
		in(harness.Event{Type: harness.EvToolStart, ToolCallID: "b1", ToolName: "bash"}),
		in(harness.Event{Type: harness.EvToolEnd, ToolCallID: "b1", ToolName: "bash", Output: "cancelled", IsError: true,
			Outcome: harness.OutcomeInterrupted, Reason: string(harness.EndAborted)}),
		in(harness.Event{Type: harness.EvToolStart, ToolCallID: "e1", ToolName: "edit"}),
		in(harness.Event{Type: harness.EvToolEnd, ToolCallID: "e1", ToolName: "edit", Output: "no match", IsError: true}),
		in(harness.Event{Type: harness.EvMessageStart, Message: &r1}),
		in(harness.Event{Type: harness.EvMessageEnd, Message: &r1}),
	}
}

// A subagent's tool items carry the recorded outcome and reason, as the
// parent's own items do for the same events.
func TestChildToolItemsCarryTheOutcome(t *testing.T) {
	type facts struct {
		status  string
		outcome protocol.ToolOutcome
		reason  string
	}
	want := map[string]facts{
		"w1": {display.ToolDeclined, protocol.OutcomeDeclined, "not now"},
		"b1": {display.ToolError, protocol.OutcomeInterrupted, string(harness.EndAborted)},
		"e1": {display.ToolError, protocol.OutcomeError, ""},
		"r1": {display.ToolDeclined, protocol.OutcomeDeclined, "outside the roots"},
	}

	// The parent's own calls.
	parent := display.NewReducer(display.ReducerOptions{})
	parent.Apply(ev(harness.EvAgentStart))
	for _, e := range outcomeCalls(func(e harness.Event) harness.Event { return e }, nil) {
		parent.Apply(e)
	}
	st := parent.State()
	for id, w := range want {
		it := toolItem(st, id)
		if got := (facts{it.Status, it.Outcome, it.Reason}); got != w {
			t.Errorf("parent %s: %+v, want %+v", id, got, w)
		}
	}

	// The same calls made by a subagent.
	r := display.NewReducer(display.ReducerOptions{})
	clk := newFake()
	c := newClient(t, r, clk)
	r.Apply(ev(harness.EvAgentStart))
	r.Apply(harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("", toolCall("sa1", "subagent", `{"task":"t"}`))})
	r.Apply(harness.Event{Type: harness.EvToolStart, ToolCallID: "sa1", ToolName: "subagent"})
	r.Apply(harness.Event{Type: harness.EvSubagentStart, ToolCallID: "sa1", Subagent: subRef("sa1")})
	for _, e := range outcomeCalls(func(e harness.Event) harness.Event { return childEv("sa1", e) }, subRef("sa1")) {
		r.Apply(e)
	}
	ch := toolItem(r.State(), "sa1").Child
	if ch == nil {
		t.Fatal("no child on the subagent's item")
	}
	for id, w := range want {
		var it display.Item
		for _, ci := range ch.Items {
			if ci.ID == id {
				it = ci
			}
		}
		if got := (facts{it.Status, it.Outcome, it.Reason}); got != w {
			t.Errorf("child %s: %+v, want %+v", id, got, w)
		}
	}
	// The frames carry the same.
	clk.Advance(time.Second)
	c.drain()
	c.check(r)
}
