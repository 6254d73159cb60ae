package harness

import (
	"context"
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

// PlanHandoverText is the user message the harness sends when an approved
// plan hands over to Build mode.
func PlanHandoverText(title string) string {
	return planHandoverPrefix + strconv.Quote(title) + planHandoverSuffix
}

// IsPlanHandover reports whether text is a PlanHandoverText.
func IsPlanHandover(text string) bool {
	return strings.HasPrefix(text, planHandoverPrefix+`"`) && strings.HasSuffix(text, `"`+planHandoverSuffix)
}

// Tool outcomes as the display names them (protocol.ToolOutcome).
const (
	OutcomeDeclined    = "declined"
	OutcomeError       = "error"
	OutcomeInterrupted = "interrupted"
)

// ToolOutcome classifies a tool result by the texts the harness itself
// writes for a call it did not run (approvals.go, review.go, loop.go):
// declined with the user's reason or the refusal's, interrupted with the
// run's end, or error for any other failed result. ok is false for a
// result that succeeded. It reads the recorded text, so a reopened session
// shows the same outcome the live one did.
func ToolOutcome(text string, isError bool) (outcome, reason string, ok bool) {
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
	case isError:
		return OutcomeError, "", true
	}
	return "", "", false
}

// Texts of results of calls that were not run.
const (
	userReasonLabel = "The user's reason: "
	cancelledText   = "Tool call cancelled: the run was aborted before it ran."
	notRunText      = "Tool call not run: the model's response ended with an error."
)
