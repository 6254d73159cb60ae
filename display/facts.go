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

// liveOutcome is the outcome of a live tool_execution_end: its own, or
// error for a failed result that has none.
func liveOutcome(outcome string, isError bool) string {
	if outcome == "" && isError {
		return harness.OutcomeError
	}
	return outcome
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
	r.setToolFactsAt(path("items", idx), before, r.st.Items[idx])
}

// setToolFactsAt records the changes toolFacts made to the item at p (one
// of the state's items, or of a child's): before is the item before, it
// after.
func (r *Reducer) setToolFactsAt(p []any, before, it Item) {
	if it.Status != before.Status {
		r.set(field(p, "status"), it.Status)
	}
	r.setOptionalAt(field(p, "outcome"), string(before.Outcome), string(it.Outcome))
	r.setOptionalAt(field(p, "reason"), before.Reason, it.Reason)
	r.setOptionalAt(field(p, "verdict"), string(before.Verdict), string(it.Verdict))
}

// setOptional records the change of an item field the wire omits when
// empty.
func (r *Reducer) setOptional(idx int, name, old, v string) {
	r.setOptionalAt(path("items", idx, name), old, v)
}

// setOptionalAt records the change of the field at p the wire omits when
// empty: a set, or a delete when it became empty.
func (r *Reducer) setOptionalAt(p []any, old, v string) {
	switch {
	case old == v:
	case v == "":
		r.ops = append(r.ops, rop{op: OpDelete, path: p, at: -1})
	default:
		r.set(p, v)
	}
}

// field is the path of field name under the item at p (p is not changed).
func field(p []any, name string) []any {
	return append(p[:len(p):len(p)], name)
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
