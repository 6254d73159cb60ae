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

// AttachParams are the params of $/pi-lsp/attach, the first message a
// pi-lsp process sends on the socket of a session another one owns (never
// sent to an editor).
type AttachParams struct {
	ProtocolVersion int         `json:"protocolVersion"`
	PID             int         `json:"pid"`
	Path            string      `json:"path"` // the session file the attacher asked for
	ClientInfo      *ClientInfo `json:"clientInfo,omitempty"`
	// Follower is true for a terminal command (exec --session, attach)
	// that cannot take the session over when the owner leaves.
	Follower bool `json:"follower,omitempty"`
}

// AttachResult answers $/pi-lsp/attach.
type AttachResult struct {
	ProtocolVersion int    `json:"protocolVersion"`
	PID             int    `json:"pid"`
	Path            string `json:"path"`
}

// HandoverParams are the params of $/pi-lsp/handover, sent by an owner that
// leaves cleanly to every attached process. The successor takes the lock;
// the others wait for it and attach.
type HandoverParams struct {
	Successor   int      `json:"successor"` // the pid of the process that takes over
	Path        string   `json:"path"`
	Steering    []string `json:"steering,omitempty"`
	FollowUp    []string `json:"followUp,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"` // a run was going and was stopped
}
