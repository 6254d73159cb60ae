package display

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Child (subagent) status values.
const (
	ChildRunning = protocol.ChildRunning
	ChildDone    = protocol.ChildDone
	ChildError   = protocol.ChildError
	ChildAborted = protocol.ChildAborted
)

// A child's tool output is kept shorter than the parent's: the last
// childKeptOutput bytes, grown by appends up to twice that.
const childKeptOutput = 2 << 10

// DefaultMaxChildItems bounds a child's items in the display state; the
// whole transcript is in the child's session file.
const DefaultMaxChildItems = 100

// Child is a subagent's live activity, on the parent's subagent tool item.
type Child = protocol.Child

func cloneChild(c *Child) *Child {
	if c == nil {
		return nil
	}
	cp := *c
	cp.Items = append(make([]Item, 0, len(c.Items)), c.Items...)
	return &cp
}

// deepCopy returns it with its child copied, so a frame never shares a
// child the reducer goes on changing.
func deepCopy(it Item) Item {
	it.Child = cloneChild(it.Child)
	return it
}

// childTrack follows one child on the parent's tool item t.
type childTrack struct {
	parent *toolTrack
	live   int            // index of the streaming assistant item, or -1
	tools  map[string]int // child tool call id -> item index
	n      int            // item ids handed out
	// The streamed item's text lives in byte builders, as the parent's
	// (a chunk costs an append); syncLive brings the item up to date.
	text, thinking   []byte
	synced           bool
	textPath, thPath []any
}

// syncChildren brings the children's streamed items up to date. The caller
// holds mu.
func (r *Reducer) syncChildren() {
	for _, ct := range r.children {
		if ct.live < 0 || ct.synced {
			continue
		}
		if c := r.st.Items[ct.parent.idx].Child; c != nil && ct.live < len(c.Items) {
			c.Items[ct.live].Text = string(ct.text)
			c.Items[ct.live].Thinking = string(ct.thinking)
		}
		ct.synced = true
	}
}

// startChildLive pushes the child's streaming assistant item.
func (r *Reducer) startChildLive(ct *childTrack, c *Child) {
	ct.live = r.childPush(ct, c, Item{Kind: KindAssistant, Streaming: true})
	ct.text, ct.thinking, ct.synced = ct.text[:0], ct.thinking[:0], true
	ct.textPath, ct.thPath = r.childPath(ct, "items", ct.live, "text"), r.childPath(ct, "items", ct.live, "thinking")
}

func (r *Reducer) childOf(ev harness.Event) (*childTrack, *Child) {
	ref := ev.Subagent
	if ref == nil {
		return nil, nil
	}
	if r.children == nil {
		r.children = map[string]*childTrack{}
	}
	ct, ok := r.children[ref.ToolCallID]
	if !ok {
		t := r.ensureTool(ref.ToolCallID, "subagent", nil, ToolRunning)
		ct = &childTrack{parent: t, live: -1, tools: map[string]int{}}
		r.children[ref.ToolCallID] = ct
	}
	it := &r.st.Items[ct.parent.idx]
	if it.Child == nil {
		it.Child = &Child{Session: ref.Session, SessionID: ref.SessionID, Agent: ref.Agent, Fork: ref.Fork, Status: ChildRunning, Items: []Item{}}
		r.set(r.childPath(ct), *cloneChild(it.Child))
	}
	return ct, it.Child
}

func (r *Reducer) childPath(ct *childTrack, els ...any) []any {
	return append([]any{"items", ct.parent.idx, "child"}, els...)
}

// subagentEvent folds subagent_start, subagent_event and subagent_end.
func (r *Reducer) subagentEvent(ev harness.Event) (urgent bool) {
	ct, c := r.childOf(ev)
	if ct == nil {
		return false
	}
	switch ev.Type {
	case harness.EvSubagentStart:
		if ev.Model != "" && c.Model != ev.Model {
			c.Model = ev.Model
			r.set(r.childPath(ct, "model"), ev.Model)
		}
		return true
	case harness.EvSubagentEnd:
		r.childFinishLive(ct, c, nil)
		r.childTokens(ct, c, ev.Tokens)
		status := ev.Reason
		if status == "" {
			status = ChildDone
		}
		if c.Status != status {
			c.Status = status
			r.set(r.childPath(ct, "status"), status)
		}
		return true
	}
	if ev.Child == nil {
		return false
	}
	return r.childFold(ct, c, *ev.Child)
}

func (r *Reducer) childPush(ct *childTrack, c *Child, it Item) int {
	if len(c.Items) >= r.maxChild {
		r.dropOlderChildItems(ct, c)
	}
	ct.n++
	if it.ID == "" {
		it.ID = "s" + strconv.Itoa(ct.n)
	}
	c.Items = append(c.Items, it)
	r.push(r.childPath(ct, "items"), it)
	return len(c.Items) - 1
}

// dropOlderChildItems keeps the newer half of the child's items and sends
// them with one set (an op under the old indices would not fit any more).
func (r *Reducer) dropOlderChildItems(ct *childTrack, c *Child) {
	r.syncChildren()
	drop := len(c.Items) - r.maxChild/2
	c.Items = append(make([]Item, 0, r.maxChild), c.Items[drop:]...)
	c.Older += drop
	for id, idx := range ct.tools {
		if idx < drop {
			delete(ct.tools, id)
		} else {
			ct.tools[id] = idx - drop
		}
	}
	if ct.live >= 0 {
		ct.live -= drop
		if ct.live < 0 {
			ct.live = -1
		} else {
			ct.textPath, ct.thPath = r.childPath(ct, "items", ct.live, "text"), r.childPath(ct, "items", ct.live, "thinking")
		}
	}
	r.set(r.childPath(ct, "items"), append([]Item(nil), c.Items...))
	r.set(r.childPath(ct, "older"), c.Older)
}

func (r *Reducer) childSet(ct *childTrack, idx int, field string, v any) {
	r.set(r.childPath(ct, "items", idx, field), v)
}

// childFold applies one of the child's own events to its items.
func (r *Reducer) childFold(ct *childTrack, c *Child, ev harness.Event) (urgent bool) {
	switch ev.Type {
	case harness.EvMessageStart:
		if m := ev.Message; m != nil && m.Role == llm.RoleAssistant {
			r.childFinishLive(ct, c, nil)
			r.startChildLive(ct, c)
		}
	case harness.EvMessageUpdate:
		if ev.Delta == "" || (ev.DeltaKind != DeltaText && ev.DeltaKind != DeltaThinking) {
			return false
		}
		if ct.live < 0 {
			r.startChildLive(ct, c)
		}
		ct.synced = false
		if ev.DeltaKind == DeltaText {
			ct.text = append(ct.text, ev.Delta...)
			r.appendStr(ct.textPath, ev.Delta)
		} else {
			ct.thinking = append(ct.thinking, ev.Delta...)
			r.appendStr(ct.thPath, ev.Delta)
		}
	case harness.EvMessageEnd:
		m := ev.Message
		if m == nil {
			return false
		}
		switch m.Role {
		case llm.RoleAssistant:
			r.childFinishLive(ct, c, m)
			for _, tc := range m.ToolCalls() {
				r.childTool(ct, c, tc.ID, tc.Name, tc.Arguments, ToolPending)
			}
		case llm.RoleToolResult:
			if _, ok := ct.tools[m.ToolCallID]; !ok {
				idx := r.childTool(ct, c, m.ToolCallID, m.ToolName, nil, ToolDone)
				outcome, reason, _ := harness.OutcomeOf(m)
				r.childToolEnd(ct, c, idx, m.Text(), m.IsError, outcome, reason)
			}
		default:
			if it, ok := itemFromMessage(m); ok {
				r.childPush(ct, c, it)
			}
		}
	case harness.EvToolStart:
		idx := r.childTool(ct, c, ev.ToolCallID, ev.ToolName, ev.Args, ToolRunning)
		if it := &c.Items[idx]; it.Status == ToolPending {
			it.Status = ToolRunning
			r.childSet(ct, idx, "status", ToolRunning)
		}
	case harness.EvToolUpdate:
		idx := r.childTool(ct, c, ev.ToolCallID, ev.ToolName, nil, ToolRunning)
		r.childOutput(ct, c, idx, ev.Output)
	case harness.EvToolEnd:
		idx := r.childTool(ct, c, ev.ToolCallID, ev.ToolName, ev.Args, ToolRunning)
		r.childToolEnd(ct, c, idx, ev.Output, ev.IsError, ev.Outcome, ev.Reason)
		return true
	case harness.EvUsage:
		r.childTokens(ct, c, ev.Tokens)
	case harness.EvError:
		r.childPush(ct, c, Item{Kind: KindError, Text: ev.Error})
		return true
	case harness.EvQuestion, harness.EvQuestionDone, harness.EvPlan, harness.EvPlanDone:
		// What a child asks the user waits at the top, like the parent's.
		r.pendingEvent(ev)
		return true
	}
	return false
}

// childTool returns the index of the child's tool item id, creating it.
func (r *Reducer) childTool(ct *childTrack, c *Child, id, name string, args json.RawMessage, status string) int {
	if idx, ok := ct.tools[id]; ok {
		return idx
	}
	idx := r.childPush(ct, c, Item{ID: id, Kind: KindTool, ToolName: name, Args: cloneRaw(args), Status: status})
	ct.tools[id] = idx
	return idx
}

func (r *Reducer) childOutput(ct *childTrack, c *Child, idx int, out string) {
	it := &c.Items[idx]
	if strings.HasPrefix(out, it.Output) && len(out) <= 2*childKeptOutput {
		if d := out[len(it.Output):]; d != "" {
			it.Output = out
			r.appendStr(r.childPath(ct, "items", idx, "output"), d)
		}
		return
	}
	if t := textcut.Tail(out, childKeptOutput); t != it.Output {
		it.Output = t
		r.childSet(ct, idx, "output", t)
	}
}

// childToolEnd sets a child's tool item from its result: the output, and
// the status, outcome and reason as the parent's items get them
// (toolFacts); the result's outcome is the truth, as on the parent's.
func (r *Reducer) childToolEnd(ct *childTrack, c *Child, idx int, out string, isError bool, outcome, reason string) {
	it := &c.Items[idx]
	if t := textcut.Tail(out, childKeptOutput); t != it.Output {
		it.Output = t
		r.childSet(ct, idx, "output", t)
	}
	if isError != it.IsError {
		it.IsError = isError
		r.childSet(ct, idx, "isError", isError)
	}
	before := *it
	toolFacts(it, liveOutcome(outcome, isError), reason, out)
	r.setToolFactsAt(r.childPath(ct, "items", idx), before, *it)
}

// childFinishLive ends the child's streamed item, reconciling it with the
// final message when there is one.
func (r *Reducer) childFinishLive(ct *childTrack, c *Child, m *llm.Message) {
	if ct.live < 0 {
		if m == nil {
			return
		}
		text, thinking := assistantText(m)
		if text == "" && thinking == "" {
			return
		}
		r.startChildLive(ct, c)
	}
	r.syncChildren()
	idx := ct.live
	it := &c.Items[idx]
	if m != nil {
		text, thinking := assistantText(m)
		r.childReconcile(ct, idx, "text", &it.Text, text)
		r.childReconcile(ct, idx, "thinking", &it.Thinking, thinking)
	}
	it.Streaming = false
	r.childSet(ct, idx, "streaming", false)
	ct.live = -1
}

func (r *Reducer) childReconcile(ct *childTrack, idx int, field string, cur *string, want string) {
	if *cur == want {
		return
	}
	if strings.HasPrefix(want, *cur) {
		r.appendStr(r.childPath(ct, "items", idx, field), want[len(*cur):])
	} else {
		r.childSet(ct, idx, field, want)
	}
	*cur = want
}

func (r *Reducer) childTokens(ct *childTrack, c *Child, t *harness.Tokens) {
	if t == nil {
		return
	}
	tok := WireTokens(*t)
	if tok == c.Tokens {
		return
	}
	c.Tokens = tok
	r.set(r.childPath(ct, "tokens"), tok)
}

// childApproval marks the child's tool item while its call waits on the
// user (the request itself is the top-level pending approval).
func (r *Reducer) childApproval(ev harness.Event, status string) {
	ct, c := r.childOf(ev)
	if ct == nil {
		return
	}
	idx, ok := ct.tools[ev.ToolCallID]
	if !ok {
		return
	}
	it := &c.Items[idx]
	if status == "" {
		status = ToolRunning
		if !harness.Decision(ev.Decision).Allows() {
			status = ToolDeclined
		}
	}
	if it.Status != status {
		it.Status = status
		r.childSet(ct, idx, "status", status)
	}
}

// childFromDetails rebuilds a finished child from its tool result's
// details (a session reopened: the child's items are in its own file).
func childFromDetails(details json.RawMessage) *Child {
	var d struct {
		Agent     string `json:"agent"`
		Session   string `json:"session"`
		SessionID string `json:"sessionId"`
		Fork      bool   `json:"fork"`
		Model     string `json:"model"`
		Status    string `json:"status"`
		Input     int    `json:"inputTokens"`
		Output    int    `json:"outputTokens"`
	}
	if len(details) == 0 || json.Unmarshal(details, &d) != nil || d.Session == "" {
		return nil
	}
	return &Child{Session: d.Session, SessionID: d.SessionID, Agent: d.Agent, Fork: d.Fork, Model: d.Model, Status: d.Status,
		Items: []Item{}, Tokens: protocol.Tokens{Input: d.Input, Output: d.Output, Total: d.Input + d.Output}}
}
