package harness

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

// EndReason is why a run ended: agent_end's reason (protocol.RunEndReason
// on the wire, the same values).
type EndReason string

// Run end reasons. The model's own stop reasons (stop, length, toolUse,
// error, aborted) keep their llm.StopReason spelling.
const (
	EndStop       EndReason = EndReason(llm.StopStop)
	EndLength     EndReason = EndReason(llm.StopLength)
	EndToolUse    EndReason = EndReason(llm.StopToolUse)
	EndError      EndReason = EndReason(llm.StopError)
	EndAborted    EndReason = EndReason(llm.StopAborted)
	EndBlocked    EndReason = "blocked"
	EndTerminated EndReason = "terminated"
	// EndClientGone: the client went away (Close while the run went on:
	// the connection closed, stdin reached EOF).
	EndClientGone EndReason = "client_gone"
)

// ErrClientGone is the cause a run's context is cancelled with when the
// harness is closed under it (the client went away).
var ErrClientGone = errors.New("the client went away")

// ClientGoneMessage is the errorMessage recorded on an answer cut because
// the client went away (pi records "Request was aborted" for a Stop), so a
// reopened session still says why it ended.
const ClientGoneMessage = "Request was aborted: the client went away"

// endReasonOf is the reason of a run whose context is done: client_gone
// when the harness was closed under it, aborted otherwise.
func endReasonOf(ctx context.Context) EndReason {
	if errors.Is(context.Cause(ctx), ErrClientGone) {
		return EndClientGone
	}
	return EndAborted
}

// AnswerEndReason is why an aborted answer was cut, read from the message
// as recorded: client_gone or aborted ("" for an answer not aborted).
func AnswerEndReason(m *llm.Message) EndReason {
	switch {
	case m.StopReason != llm.StopAborted:
		return ""
	case m.ErrorMessage == ClientGoneMessage:
		return EndClientGone
	default:
		return EndAborted
	}
}

// planHandoverPrefix and planHandoverSuffix frame the message that hands
// an approved plan over to Build mode (PlanHandoverText).
const (
	planHandoverPrefix = "The plan "
	planHandoverSuffix = " was approved. You are now in Build mode with all tools: implement it step by step."
)

// PlanHandoverText is the text of the user message the harness sends when
// an approved plan hands over to Build mode.
func PlanHandoverText(title string) string {
	return planHandoverPrefix + strconv.Quote(title) + planHandoverSuffix
}

// NotePlanHandover is the note of the hand-over message's details.
const NotePlanHandover = "plan_handover"

// planHandoverDetails is the details of the hand-over user message: the
// model reads its text, the display reads these (pi ignores a user
// message's details).
type planHandoverDetails struct {
	Note      string `json:"note"`
	PlanTitle string `json:"planTitle"`
}

// PlanHandoverMessage is the user message that hands the approved plan
// title over to Build mode.
func PlanHandoverMessage(title string, ts int64) llm.Message {
	m := llm.UserText(PlanHandoverText(title), ts)
	m.Details, _ = json.Marshal(planHandoverDetails{Note: NotePlanHandover, PlanTitle: title})
	return m
}

// PlanHandoverOf reports whether m is the plan hand-over message, and the
// plan's title. It reads m's details; a message without details was
// written before they were kept, and is read by legacyPlanHandover.
func PlanHandoverOf(m *llm.Message) (title string, ok bool) {
	if m.Role != llm.RoleUser {
		return "", false
	}
	if len(m.Details) > 0 {
		var d planHandoverDetails
		if json.Unmarshal(m.Details, &d) == nil && d.Note == NotePlanHandover {
			return d.PlanTitle, true
		}
		return "", false
	}
	return legacyPlanHandover(m.Text())
}

// legacyPlanHandover reads the hand-over sentence of a session written
// before the message carried its details (so old sessions reopen with the
// note and the title). New messages never need it.
func legacyPlanHandover(text string) (title string, ok bool) {
	if !strings.HasPrefix(text, planHandoverPrefix+`"`) || !strings.HasSuffix(text, `"`+planHandoverSuffix) {
		return "", false
	}
	t, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(text, planHandoverPrefix), planHandoverSuffix))
	if err != nil {
		return "", false
	}
	return t, true
}
