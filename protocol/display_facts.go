package protocol

// Facts of the display state that an editor draws as they are and never
// keeps on its own (docs/protocol.md, "Display facts"): a tool item's
// outcome, a plan's verdict, a note mark on the server's own user
// messages, the reason a run ended, and the turn a banner belongs to.

// ToolOutcome is how a tool item ended when it did not simply succeed
// (Item.Outcome; "" while it runs and when it is done).
type ToolOutcome string

// Tool outcomes.
const (
	// OutcomeDeclined: the call was not run, declined by the user (Reason
	// is the user's reason, "" when they gave none) or refused by policy,
	// the sandbox or a missing approver (Reason says which).
	OutcomeDeclined ToolOutcome = "declined"
	// OutcomeError: the tool ran and failed.
	OutcomeError ToolOutcome = "error"
	// OutcomeInterrupted: the run ended before the call finished; Reason
	// is the RunEndReason.
	OutcomeInterrupted ToolOutcome = "interrupted"
)

// PlanVerdict is a submit_plan tool item's verdict (Item.Verdict; ""
// while the plan waits).
type PlanVerdict string

// Plan verdicts.
const (
	PlanApproved PlanVerdict = "approved"
	PlanRejected PlanVerdict = "rejected"
)

// ItemNote marks a user item the server wrote itself (Item.Note): an editor
// draws it as a note, not as the user's bubble.
type ItemNote string

// Item notes.
const (
	// NotePlanHandover is the message that hands an approved plan over to
	// Build mode.
	NotePlanHandover ItemNote = "plan_handover"
)

// RunEndReason is why a run ended (agent_end's reason; an interrupted
// assistant item's EndReason; an interrupted tool item's Reason).
type RunEndReason string

// Run end reasons.
const (
	EndStop       RunEndReason = "stop"       // the model finished its answer
	EndLength     RunEndReason = "length"     // the model hit its output limit
	EndToolUse    RunEndReason = "toolUse"    // ended after tool calls (a hook or an approved plan ended it)
	EndError      RunEndReason = "error"      // a provider or harness error
	EndAborted    RunEndReason = "aborted"    // the user stopped it (Stop, interrupt, shutdown)
	EndBlocked    RunEndReason = "blocked"    // a hook refused the prompt
	EndTerminated RunEndReason = "terminated" // a hook or an approved plan ended it
	// EndClientGone: the client went away (its connection closed, stdin
	// reached EOF) while the run was going.
	EndClientGone RunEndReason = "client_gone"
)

// ErrorBanner is one entry of DisplayState.Errors: an error shown above the
// input until it stops being true (a later successful run, a model switch,
// a navigate or a session switch clear it).
type ErrorBanner struct {
	Text string `json:"text"`
	// ItemID is the user item of the turn the error belongs to ("" before
	// any turn).
	ItemID string `json:"itemId"`
}
