package protocol

import "encoding/json"

// OwnerParams are the params of the session/owner notification: the
// process that owns (writes) the session changed.
type OwnerParams struct {
	PID    int    `json:"pid"`
	Reason string `json:"reason"` // "handover" (the owner left cleanly) or "takeover" (it died)
	// Interrupted is true when a run was going in the old owner and did
	// not finish.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Owner change reasons of OwnerParams.
const (
	OwnerHandover = "handover"
	OwnerTakeover = "takeover"
)

// ResolvedParams are the params of the ui/resolved notification: a question
// this client was asked was answered by another client.
type ResolvedParams struct {
	RequestID string `json:"requestId"` // the approval's toolCallId, or the question's or plan's id
	Kind      string `json:"kind"`      // "approval", "question" or "plan"
	// Outcome is the answer as the answering client sent it: the decision
	// of an approval ("approve", …), the answer (a string) or answers (an
	// array) of a question, or {"approved", "feedback"} of a plan.
	Outcome json.RawMessage `json:"outcome"`
	By      string          `json:"by"` // the answering client's clientInfo.name
}
