package harness

import (
	"encoding/json"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// A tool result the harness writes for a call it declined, cancelled or
// did not run records that outcome, and why, in its details (keys
// "outcome" and "reason", beside the tool's own details); any other failed
// result records "error". The model reads the text, which says the same in
// words; the display reads the details (OutcomeOf), so a reopened session
// shows what the live one did. pi ignores the keys.

// Tool outcomes as the display names them (protocol.ToolOutcome).
const (
	OutcomeDeclined    = "declined"
	OutcomeError       = "error"
	OutcomeInterrupted = "interrupted"
)

// Details keys of a result's outcome.
const (
	outcomeKey = "outcome"
	reasonKey  = "reason"
)

// refusal is the result of a call the harness did not run: the text the
// model gets, and the outcome and reason the display shows.
type refusal struct {
	text    string
	outcome string
	reason  string
}

// declined is a refusal with outcome declined.
func declined(text, reason string) *refusal {
	return &refusal{text: text, outcome: OutcomeDeclined, reason: reason}
}

// failed is a refusal with outcome error: the call could not run (for
// example an edit that would not apply), which the model must fix.
func failed(text string) *refusal {
	return &refusal{text: text, outcome: OutcomeError}
}

// result is the tool result recorded for r.
func (r *refusal) result() tools.Result {
	return withOutcome(errorResult(r.text), r.outcome, r.reason)
}

// withOutcome records outcome and reason (when not empty) in res.Details.
func withOutcome(res tools.Result, outcome, reason string) tools.Result {
	fields := map[string]string{outcomeKey: outcome}
	if reason != "" {
		fields[reasonKey] = reason
	}
	return withDetails(res, fields)
}

// withErrorOutcome records outcome error on a failed result that has no
// outcome yet (a tool that failed, an MCP tool whose server reported an
// error); other results are returned as they are.
func withErrorOutcome(res tools.Result) tools.Result {
	if !res.IsError {
		return res
	}
	if o, _ := outcomeDetails(res.Details); o != "" {
		return res
	}
	return withOutcome(res, OutcomeError, "")
}

// outcomeDetails reads the outcome and reason kept in details.
func outcomeDetails(details json.RawMessage) (outcome, reason string) {
	if len(details) == 0 {
		return "", ""
	}
	var d struct {
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
	}
	if json.Unmarshal(details, &d) != nil {
		return "", ""
	}
	return d.Outcome, d.Reason
}

// OutcomeOf is how a recorded tool result ended when it did not simply
// succeed: declined, interrupted or error, and why. ok is false for a
// result that succeeded. It reads the result's details; a failed result
// without an outcome there was recorded before outcomes were kept, and is
// read by legacyOutcome.
func OutcomeOf(m *llm.Message) (outcome, reason string, ok bool) {
	if o, r := outcomeDetails(m.Details); o != "" {
		return o, r, true
	}
	if !m.IsError {
		return "", "", false
	}
	return legacyOutcome(m.Text())
}

// legacyOutcome classifies a failed tool result recorded before outcomes
// were kept in its details (sessions written by pi-lsp before this change,
// so they still reopen with their facts), by the texts the harness wrote
// then for a call it did not run: declined with the user's reason or the
// refusal's, interrupted with the run's end, or error for any other failed
// result. New results never need it: do not add texts here.
func legacyOutcome(text string) (outcome, reason string, ok bool) {
	first, _, _ := strings.Cut(text, "\n")
	switch {
	case strings.HasPrefix(text, "Tool call declined by the user"):
		_, r, found := strings.Cut(text, userReasonLabel)
		if found {
			r, _, _ = strings.Cut(r, "\n")
		}
		return OutcomeDeclined, strings.TrimSpace(r), true
	case strings.HasPrefix(text, "Tool call declined: "), strings.HasPrefix(text, "Tool call denied by policy"):
		return OutcomeDeclined, strings.TrimPrefix(first, "Tool call declined: "), true
	case strings.HasPrefix(text, cancelledText), strings.HasPrefix(text, "Tool call cancelled: the run was aborted"):
		return OutcomeInterrupted, string(EndAborted), true
	case strings.HasPrefix(text, notRunText):
		return OutcomeInterrupted, string(EndError), true
	}
	return OutcomeError, "", true
}

// Texts of results of calls that were not run.
const (
	userReasonLabel = "The user's reason: "
	cancelledText   = "Tool call cancelled: the run was aborted before it ran."
	notRunText      = "Tool call not run: the model's response ended with an error."
)
