package protocol

import "encoding/json"

// Server → client requests (docs/protocol.md, "Server → client requests").
// The client answers only those it declared in initialize's capabilities.

// ApprovalParams are the params of ui/requestApproval: a tool call waiting
// on the user's verdict.
type ApprovalParams struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Category   string          `json:"category"` // read | edit | execute | mcp | other
	Args       json.RawMessage `json:"args"`
	Display    string          `json:"display"` // one line describing the call
	// Preview, for edit and write, is the change the call would make.
	Preview *Preview `json:"preview,omitempty"`
	// The workspace boundary: outsideWorkspace, resolvedPath, access.
	ApprovalBoundary
	// Subagent names the child whose call this is (absent for the agent's
	// own calls).
	Subagent *ApprovalSubagent `json:"subagent,omitempty"`
}

// Preview is the change an edit or write would make, for the user to
// review before approving.
type Preview struct {
	Path    string `json:"path"` // absolute
	Before  string `json:"before"`
	After   string `json:"after"`
	Diff    string `json:"diff"`
	NewFile bool   `json:"newFile,omitempty"`
	// Cut: before and after were left out (too large, or they hold a
	// secret that the wire would mask); only the diff is meaningful, and a
	// reply with content is refused.
	Cut       bool   `json:"cut,omitempty"`
	CutReason string `json:"cutReason,omitempty"`
}

// ApprovalSubagent is the subagent a call to approve belongs to.
type ApprovalSubagent struct {
	Agent      string `json:"agent"`
	ToolCallID string `json:"toolCallId"` // the parent's subagent tool call
	Session    string `json:"session,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	Fork       bool   `json:"fork,omitempty"`
}

// Decision is the user's verdict on a tool call.
type Decision string

// Decisions a client may answer.
const (
	DecisionApprove             Decision = "approve"
	DecisionDecline             Decision = "decline"
	DecisionAlwaysAllowTool     Decision = "alwaysAllowTool"
	DecisionAlwaysAllowCategory Decision = "alwaysAllowCategory"
)

// ApprovalResult is the client's answer to ui/requestApproval.
type ApprovalResult struct {
	Decision Decision `json:"decision"`
}

// QuestionParams are the params of ui/askQuestion (the ask_user tool).
type QuestionParams struct {
	ID            string   `json:"id"`
	Question      string   `json:"question"`
	Options       []string `json:"options,omitempty"`
	SelectionMode string   `json:"selectionMode,omitempty"` // single | multi
}

// QuestionResult is the client's answer to ui/askQuestion: Answer (single),
// Answers (multi) or Cancelled.
type QuestionResult struct {
	Answer    *string  `json:"answer,omitempty"`
	Answers   []string `json:"answers,omitempty"`
	Cancelled bool     `json:"cancelled,omitempty"`
}

// PlanParams are the params of ui/approvePlan (the submit_plan tool).
type PlanParams struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Plan  string `json:"plan"`
}

// PlanResult is the client's answer to ui/approvePlan. Approved is a
// pointer so that an answer without it can be told from a rejection.
type PlanResult struct {
	Approved *bool  `json:"approved"`
	Feedback string `json:"feedback,omitempty"`
}

// ReadTextFileParams are the params of fs/readTextFile.
type ReadTextFileParams struct {
	Path string `json:"path"`
}

// ReadTextFileResult is the client's answer to fs/readTextFile; a null
// result means the editor has no buffer for the path.
type ReadTextFileResult struct {
	Text string `json:"text"`
}

// WriteTextFileParams are the params of fs/writeTextFile. Content is sent as
// it is: it is the one value the wire's secret mask leaves alone.
type WriteTextFileParams struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}
