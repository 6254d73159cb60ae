package display_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
)

func subRef(id string) *harness.SubagentRef {
	return &harness.SubagentRef{Agent: "explore", ToolCallID: id, Session: "/s/" + id + ".jsonl", SessionID: "sid-" + id}
}

func childEv(parent string, e harness.Event) harness.Event {
	return harness.Event{Type: harness.EvSubagentEvent, ToolCallID: parent, Subagent: subRef(parent), Child: &e}
}

// childRun is a parent that calls one subagent, whose child streams an
// answer, runs a tool that waits on an approval, and ends.
func childRun() []harness.Event {
	return []harness.Event{
		ev(harness.EvAgentStart),
		{Type: harness.EvMessageStart, Message: assistantMsg("")},
		{Type: harness.EvMessageEnd, Message: assistantMsg("", toolCall("sa1", "subagent", `{"task":"find it"}`))},
		{Type: harness.EvToolStart, ToolCallID: "sa1", ToolName: "subagent", Args: json.RawMessage(`{"task":"find it"}`)},
		{Type: harness.EvSubagentStart, ToolCallID: "sa1", Subagent: subRef("sa1"), Model: "fake/m1"},
		childEv("sa1", harness.Event{Type: harness.EvMessageStart, Message: userMsg("find it")}),
		childEv("sa1", harness.Event{Type: harness.EvMessageEnd, Message: userMsg("find it")}),
		childEv("sa1", harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")}),
		childEv("sa1", delta("text", "Look")),
		childEv("sa1", delta("text", "ing.")),
		childEv("sa1", harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("Looking.", toolCall("w1", "write", `{"path":"x"}`))}),
		{Type: harness.EvApproval, ToolCallID: "w1", Subagent: subRef("sa1"), Approval: &harness.ApprovalRequest{ToolCallID: "w1", ToolName: "write", Subagent: subRef("sa1")}},
		{Type: harness.EvApprovalDone, ToolCallID: "w1", Decision: "decline", Subagent: subRef("sa1")},
		childEv("sa1", harness.Event{Type: harness.EvToolStart, ToolCallID: "w1", ToolName: "write"}),
		childEv("sa1", harness.Event{Type: harness.EvToolEnd, ToolCallID: "w1", ToolName: "write", Output: "declined", IsError: true,
			Outcome: harness.OutcomeDeclined, Reason: "not now"}),
		childEv("sa1", harness.Event{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: 70, Output: 5, Total: 75}}),
		childEv("sa1", harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")}),
		childEv("sa1", delta("text", "Found it.")),
		childEv("sa1", harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("Found it.")}),
		{Type: harness.EvSubagentEnd, ToolCallID: "sa1", Subagent: subRef("sa1"), Reason: "done", Tokens: &harness.Tokens{Input: 140, Output: 9, Total: 149}},
		{Type: harness.EvToolEnd, ToolCallID: "sa1", ToolName: "subagent", Output: "Found it.\n\n[subagent explore: 2 turns]"},
		{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: 10, Output: 3, Total: 13}},
		ev(harness.EvAgentEnd),
	}
}

func toolItem(st display.State, id string) display.Item {
	for _, it := range st.Items {
		if it.ID == id {
			return it
		}
	}
	return display.Item{}
}

func TestReducerNestsTheChild(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	clk := newFake()
	c := newClient(t, r, clk)
	for i, e := range childRun() {
		r.Apply(e)
		if i == 6 {
			clk.Advance(time.Second)
			c.drain()
		}
		if i == 9 {
			// Mid-stream the child's text is on the parent's tool item.
			clk.Advance(time.Second)
			c.drain()
			st := r.State()
			if ch := toolItem(st, "sa1").Child; ch == nil || ch.Status != display.ChildRunning || ch.Items[1].Text != "Looking." || !ch.Items[1].Streaming {
				t.Fatalf("mid-stream child: %+v", st.Items[0].Child)
			}
		}
	}
	clk.Advance(time.Second)
	c.drain()
	c.check(r)
	st := r.State()
	if len(st.Items) != 2 {
		t.Fatalf("the child's items leaked to the top: %+v", st.Items)
	}
	ch := toolItem(st, "sa1").Child
	var got []string
	for _, it := range ch.Items {
		got = append(got, string(it.Kind)+"/"+it.Status+"/"+it.Text)
	}
	if strings.Join(got, "|") != "user//find it|assistant//Looking.|tool/declined/|assistant//Found it." {
		t.Fatalf("child items: %v", got)
	}
	if ch.Status != display.ChildDone || ch.Agent != "explore" || ch.Session != "/s/sa1.jsonl" || ch.Model != "fake/m1" || ch.Tokens.Input != 140 {
		t.Fatalf("child: %+v", ch)
	}
	if st.Tokens.Input != 10 || st.Pending.Approval != nil {
		t.Fatalf("parent tokens %+v, pending %+v", st.Tokens, st.Pending)
	}
	// The child's text travels as appends under the parent's item.
	raw := string(mustJSON(t, c.frames))
	if !strings.Contains(raw, `["a",["items",1,"child","items",1,"text"],"Look`) {
		t.Fatalf("frames: %s", raw)
	}
	// A snapshot is a deep copy: later changes to the child do not reach it.
	snap := r.State()
	r.Apply(childEv("sa1", harness.Event{Type: harness.EvError, Error: "late"}))
	if len(toolItem(snap, "sa1").Child.Items) != 4 {
		t.Fatal("the snapshot shares the child's items")
	}
}

func TestHistoryRebuildsTheChildLink(t *testing.T) {
	details := json.RawMessage(`{"agent":"review","session":"/s/c.jsonl","sessionId":"c","status":"done","turns":1,"toolCalls":0,"inputTokens":50,"outputTokens":7}`)
	items := display.ItemsFromMessages([]llm.Message{
		*assistantMsg("", toolCall("sa1", "subagent", `{"task":"t"}`)),
		{Role: llm.RoleToolResult, ToolCallID: "sa1", ToolName: "subagent", Content: []llm.ContentBlock{llm.TextBlock("ok")}, Details: details},
	})
	ch := items[0].Child
	if ch == nil || ch.Agent != "review" || ch.Session != "/s/c.jsonl" || ch.Status != "done" || ch.Tokens.Input != 50 {
		t.Fatalf("child from history: %+v", ch)
	}
	raw := string(mustJSON(t, items[0]))
	if !strings.Contains(raw, `"child":{"session":"/s/c.jsonl"`) {
		t.Fatalf("wire shape: %s", raw)
	}
	if plain := string(mustJSON(t, display.Item{ID: "x", Kind: display.KindTool, ToolName: "read"})); strings.Contains(plain, "child") {
		t.Fatalf("a plain tool item carries child: %s", plain)
	}
}

// FuzzReducerChildFrames: whatever the order of a child's events (and of
// its parent's), a client applying every frame ends with the reducer's state.
func FuzzReducerChildFrames(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{3, 3, 4, 4, 19, 9, 9, 33, 7, 8, 12, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 300 {
			data = data[:300]
		}
		r := display.NewReducer(display.ReducerOptions{MaxChildItems: 6})
		clk := newFake()
		c := newClient(t, r, clk)
		for i, b := range data {
			r.Apply(childEventFromByte(b, i))
			if b&0x20 != 0 {
				clk.Advance(time.Duration(b) * 3 * time.Millisecond)
			}
			c.drain()
		}
		clk.Advance(time.Second)
		c.drain()
		c.check(r)
	})
}

func childEventFromByte(b byte, n int) harness.Event {
	parent := "p" + strconv.Itoa(int(b>>6)%2)
	id := "k" + strconv.Itoa(int(b>>4)%2)
	text := "w" + strconv.Itoa(n) + " "
	switch b % 16 {
	case 0:
		return ev(harness.EvAgentStart)
	case 1:
		return ev(harness.EvAgentEnd)
	case 2:
		return harness.Event{Type: harness.EvToolStart, ToolCallID: parent, ToolName: "subagent"}
	case 3:
		return harness.Event{Type: harness.EvSubagentStart, ToolCallID: parent, Subagent: subRef(parent), Model: text}
	case 4:
		return childEv(parent, harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	case 5, 6:
		return childEv(parent, delta("text", text))
	case 7:
		return childEv(parent, harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("final"+text, toolCall(id, "read", `{}`))})
	case 8:
		return childEv(parent, harness.Event{Type: harness.EvToolStart, ToolCallID: id, ToolName: "read"})
	case 9:
		return childEv(parent, harness.Event{Type: harness.EvToolUpdate, ToolCallID: id, Output: strings.Repeat(text, n%700)})
	case 10:
		return childEv(parent, harness.Event{Type: harness.EvToolEnd, ToolCallID: id, Output: text, IsError: b&1 == 1})
	case 11:
		return harness.Event{Type: harness.EvApproval, ToolCallID: id, Subagent: subRef(parent), Approval: &harness.ApprovalRequest{ToolCallID: id, ToolName: "read", Subagent: subRef(parent)}}
	case 12:
		return harness.Event{Type: harness.EvApprovalDone, ToolCallID: id, Decision: []string{"approve", "decline"}[b&1], Subagent: subRef(parent)}
	case 13:
		return childEv(parent, harness.Event{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: n}})
	case 14:
		return harness.Event{Type: harness.EvSubagentEnd, ToolCallID: parent, Subagent: subRef(parent), Reason: []string{"done", "aborted"}[b&1]}
	default:
		return harness.Event{Type: harness.EvToolEnd, ToolCallID: parent, ToolName: "subagent", Output: text}
	}
}

func TestChildItemsAreBounded(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{MaxChildItems: 4})
	clk := newFake()
	c := newClient(t, r, clk)
	r.Apply(harness.Event{Type: harness.EvToolStart, ToolCallID: "sa1", ToolName: "subagent"})
	for i := range 7 {
		id := "t" + strconv.Itoa(i)
		r.Apply(childEv("sa1", harness.Event{Type: harness.EvToolStart, ToolCallID: id, ToolName: "read"}))
		r.Apply(childEv("sa1", harness.Event{Type: harness.EvToolEnd, ToolCallID: id, ToolName: "read", Output: id}))
	}
	r.Apply(childEv("sa1", harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")}))
	r.Apply(childEv("sa1", delta("text", "still streaming")))
	clk.Advance(time.Second)
	c.drain()
	c.check(r)
	ch := toolItem(r.State(), "sa1").Child
	if len(ch.Items) > 4 || ch.Older+len(ch.Items) != 8 || ch.Items[len(ch.Items)-1].Text != "still streaming" || ch.Items[0].Output != "t4" {
		t.Fatalf("bounded child: older %d, items %+v", ch.Older, ch.Items)
	}
}
