package display

import (
	"encoding/json"
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
)

// Tool output kept for display: the last keptOutput bytes. Streamed output
// grows by appends up to maxKeptOutput, then is cut back to its last
// keptOutput bytes with one set, so the wire cost stays linear.
const (
	keptOutput    = 8 << 10
	maxKeptOutput = 2 * keptOutput
)

// toolTrack follows one tool item.
type toolTrack struct {
	idx     int
	started bool   // tool_execution_start seen
	full    string // the last partial output as the harness sent it
}

// ensureTool returns the tool item for id, creating it with status when
// missing.
func (r *Reducer) ensureTool(id, name string, args json.RawMessage, status string) *toolTrack {
	if t, ok := r.tools[id]; ok {
		return t
	}
	idx := r.pushItem(Item{ID: id, Kind: KindTool, ToolName: name, Args: cloneRaw(args), Status: status})
	t := &toolTrack{idx: idx}
	r.tools[id] = t
	return t
}

func (r *Reducer) setToolStatus(t *toolTrack, status string) {
	it := &r.st.Items[t.idx]
	if it.Status == status {
		return
	}
	it.Status = status
	r.setItemField(t.idx, "status", status)
}

func (r *Reducer) toolStart(ev harness.Event) {
	t := r.ensureTool(ev.ToolCallID, ev.ToolName, ev.Args, ToolRunning)
	t.started = true
	it := &r.st.Items[t.idx]
	if len(ev.Args) > 0 && string(ev.Args) != string(it.Args) {
		// The harness's args are display-safe (redacted); prefer them.
		it.Args = cloneRaw(ev.Args)
		r.setItemField(t.idx, "args", it.Args)
	}
	if it.Status == ToolPending {
		r.setToolStatus(t, ToolRunning)
	}
}

// toolUpdate shows partial output. Output is the whole partial output so far
// (pi's partialResult, possibly a rolling tail): when it extends the last one
// only the new bytes are sent, otherwise the shown tail is replaced.
func (r *Reducer) toolUpdate(ev harness.Event) {
	t := r.ensureTool(ev.ToolCallID, ev.ToolName, nil, ToolRunning)
	t.started = true
	if strings.HasPrefix(ev.Output, t.full) {
		r.appendOutput(t, ev.Output[len(t.full):])
	} else {
		r.setOutput(t, textcut.Tail(ev.Output, keptOutput))
	}
	t.full = ev.Output
}

func (r *Reducer) appendOutput(t *toolTrack, delta string) {
	if delta == "" {
		return
	}
	it := &r.st.Items[t.idx]
	if len(it.Output)+len(delta) > maxKeptOutput {
		r.setOutput(t, textcut.Tail(it.Output+delta, keptOutput))
		return
	}
	it.Output += delta
	r.appendStr(path("items", t.idx, "output"), delta)
}

func (r *Reducer) setOutput(t *toolTrack, out string) {
	it := &r.st.Items[t.idx]
	if it.Output == out {
		return
	}
	it.Output = out
	r.setItemField(t.idx, "output", out)
}

func (r *Reducer) toolEnd(ev harness.Event) {
	t := r.ensureTool(ev.ToolCallID, ev.ToolName, ev.Args, ToolRunning)
	t.started = true
	it := &r.st.Items[t.idx]
	want := textcut.Tail(ev.Output, keptOutput)
	if strings.HasPrefix(want, it.Output) {
		r.appendOutput(t, want[len(it.Output):])
	} else {
		r.setOutput(t, want)
	}
	t.full = ""
	if ev.Diff != "" && ev.Diff != it.Diff {
		it.Diff = ev.Diff
		r.setItemField(t.idx, "diff", ev.Diff)
	}
	if ev.Path != "" && ev.Path != it.Path {
		it.Path = ev.Path
		r.setItemField(t.idx, "path", ev.Path)
	}
	if ev.IsError != it.IsError {
		it.IsError = ev.IsError
		r.setItemField(t.idx, "isError", ev.IsError)
	}
	if len(ev.Diagnostics) > 0 {
		it.Diagnostics = append([]string(nil), ev.Diagnostics...)
		r.setItemField(t.idx, "diagnostics", it.Diagnostics)
	}
	if ev.Path != "" && !ev.IsError {
		r.addFile(ev.Path)
	}
	before := *it
	// The result's outcome is the truth: a call shown declined when its
	// approval was answered may have been cancelled instead (an abort while
	// the approval was asked).
	toolFacts(it, liveOutcome(ev.Outcome, ev.IsError), ev.Reason, ev.Output)
	r.setToolFacts(t.idx, before)
}

// toolResultMessage covers a tool result that had no tool_execution events.
func (r *Reducer) toolResultMessage(m *llm.Message) {
	if _, ok := r.tools[m.ToolCallID]; ok {
		return
	}
	t := r.ensureTool(m.ToolCallID, m.ToolName, nil, ToolDone)
	r.setOutput(t, textcut.Tail(m.Text(), keptOutput))
	if m.IsError {
		r.st.Items[t.idx].IsError = true
		r.setItemField(t.idx, "isError", true)
	}
	before := r.st.Items[t.idx]
	messageToolFacts(&r.st.Items[t.idx], m)
	r.setToolFacts(t.idx, before)
}

// pendingEvent handles approval, question and plan requests and their answers.
func (r *Reducer) pendingEvent(ev harness.Event) {
	p := &r.st.Pending
	switch ev.Type {
	case harness.EvApproval:
		if ev.Approval == nil {
			return
		}
		a := WireApproval(*ev.Approval)
		a.Args = cloneRaw(a.Args)
		if a.Preview != nil {
			// The request carries the whole file before and after; the
			// display keeps the diff only (frames stay small).
			pv := *a.Preview
			pv.Before, pv.After = "", ""
			a.Preview = &pv
		}
		p.Approval = &a
		r.set(path("pending", "approval"), a)
		if ev.Subagent != nil || ev.Approval.Subagent != nil {
			if ev.Subagent == nil {
				ev.Subagent = ev.Approval.Subagent
			}
			r.childApproval(ev, ToolAwaitingApproval)
			return
		}
		t := r.ensureTool(a.ToolCallID, a.ToolName, a.Args, ToolAwaitingApproval)
		r.setToolStatus(t, ToolAwaitingApproval)
	case harness.EvApprovalDone:
		if p.Approval != nil && (ev.ToolCallID == "" || p.Approval.ToolCallID == ev.ToolCallID) {
			p.Approval = nil
			r.set(path("pending", "approval"), nil)
		}
		if ev.Subagent != nil {
			r.childApproval(ev, "")
			return
		}
		t, ok := r.tools[ev.ToolCallID]
		if !ok {
			return
		}
		switch {
		case !harness.Decision(ev.Decision).Allows():
			r.setToolStatus(t, ToolDeclined)
		case t.started:
			r.setToolStatus(t, ToolRunning)
		default:
			r.setToolStatus(t, ToolPending)
		}
	case harness.EvQuestion:
		if ev.Question == nil {
			return
		}
		q := WireQuestion(*ev.Question)
		p.Question = &q
		r.set(path("pending", "question"), q)
	case harness.EvQuestionDone:
		if p.Question != nil {
			p.Question = nil
			r.set(path("pending", "question"), nil)
		}
	case harness.EvPlan:
		if ev.Plan == nil {
			return
		}
		pl := WirePlan(*ev.Plan)
		p.Plan = &pl
		r.set(path("pending", "plan"), pl)
	case harness.EvPlanDone:
		if p.Plan != nil {
			p.Plan = nil
			r.set(path("pending", "plan"), nil)
		}
	}
}

func cloneRaw(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}
