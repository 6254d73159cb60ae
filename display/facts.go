package display

import (
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Facts the state carries so that no editor keeps its own copy
// (docs/protocol.md, "Display facts"): tool outcomes, plan verdicts, the
// plan hand-over note, why an answer was cut, and the banners of a turn.
// Each is read the same way live and from a session's entries, so a
// reopened session shows what the live one did.

// ErrorBanner is one entry of State.Errors.
type ErrorBanner = protocol.ErrorBanner

// OutcomeInterrupted is a tool item's outcome when its run ended first.
const OutcomeInterrupted = protocol.OutcomeInterrupted

// toolFacts sets a tool item's status, outcome and reason from its result
// (outcome and reason as the harness recorded them: harness.OutcomeOf, or a
// live tool_execution_end's); subagent and plan calls also get their
// verdict. text is the result's text.
func toolFacts(it *Item, outcome, reason, text string) {
	it.Outcome, it.Reason = protocol.ToolOutcome(outcome), reason
	switch it.Outcome {
	case protocol.OutcomeDeclined:
		it.Status = ToolDeclined
	case "":
		it.Status = ToolDone
	default:
		it.Status = ToolError
	}
	if v := tools.PlanVerdictOf(text); v != "" && it.ToolName == "submit_plan" {
		it.Verdict = protocol.PlanVerdict(v)
	}
}

// messageToolFacts is toolFacts for a recorded tool result.
func messageToolFacts(it *Item, m *llm.Message) {
	outcome, reason, _ := harness.OutcomeOf(m)
	toolFacts(it, outcome, reason, m.Text())
}

// answerFacts marks an aborted answer interrupted, with why.
func answerFacts(it *Item, m *llm.Message) {
	if r := harness.AnswerEndReason(m); r != "" {
		it.Status = AssistantInterrupted
		it.EndReason = protocol.RunEndReason(r)
	}
}

// userFacts marks the plan hand-over the harness writes as a note, with
// the plan's title.
func userFacts(it *Item, m *llm.Message) {
	if title, ok := harness.PlanHandoverOf(m); ok && len(it.Attachments) == 0 {
		it.Note, it.PlanTitle = protocol.NotePlanHandover, title
	}
}

// setToolFacts records the changes toolFacts made to item idx.
func (r *Reducer) setToolFacts(idx int, before Item) {
	it := &r.st.Items[idx]
	if it.Status != before.Status {
		r.setItemField(idx, "status", it.Status)
	}
	r.setOptional(idx, "outcome", string(before.Outcome), string(it.Outcome))
	r.setOptional(idx, "reason", before.Reason, it.Reason)
	r.setOptional(idx, "verdict", string(before.Verdict), string(it.Verdict))
}

// setOptional records the change of an item field the wire omits when
// empty: a set, or a delete when it became empty.
func (r *Reducer) setOptional(idx int, field, old, v string) {
	switch {
	case old == v:
	case v == "":
		r.ops = append(r.ops, rop{op: OpDelete, path: path("items", idx, field), at: -1})
	default:
		r.setItemField(idx, field, v)
	}
}

// interruptTool marks a tool item the run's end left unfinished.
func (r *Reducer) interruptTool(idx int, reason protocol.RunEndReason) {
	before := r.st.Items[idx]
	it := &r.st.Items[idx]
	it.Status, it.Outcome, it.Reason = ToolError, protocol.OutcomeInterrupted, string(reason)
	r.setToolFacts(idx, before)
}

// planVerdict sets the verdict of the plan's tool item when the user
// answered it (the plan's id is its submit_plan call id).
func (r *Reducer) planVerdict(ev harness.Event) {
	if ev.Plan == nil {
		return
	}
	t, ok := r.tools[ev.Plan.ID]
	if !ok {
		return
	}
	v := protocol.PlanVerdict(ev.Decision)
	if v != protocol.PlanApproved && v != protocol.PlanRejected {
		return
	}
	if it := &r.st.Items[t.idx]; it.Verdict != v {
		r.setOptional(t.idx, "verdict", string(it.Verdict), string(v))
		it.Verdict = v
	}
}

// successfulEnd reports whether a run that ended so makes the banners of
// earlier failures untrue.
func successfulEnd(reason string) bool {
	switch protocol.RunEndReason(reason) {
	case protocol.EndStop, protocol.EndLength, protocol.EndToolUse, protocol.EndTerminated:
		return true
	}
	return false
}

// clearBanners drops the error banners and the retry banner: they are no
// longer true (a later successful run, a model switch).
func (r *Reducer) clearBanners() {
	if len(r.st.Errors) > 0 {
		r.st.Errors = []ErrorBanner{}
		r.set(path("errors"), []ErrorBanner{})
	}
	if r.st.Retry != nil {
		r.st.Retry = nil
		r.set(path("retry"), nil)
	}
}

func cloneBanners(b []ErrorBanner) []ErrorBanner {
	return append(make([]ErrorBanner, 0, len(b)), b...)
}
