package harness

import (
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/tools"
)

// EventType names a harness event. The names follow pi's AgentEvent.
type EventType string

// Harness events, in the order a run emits them.
const (
	EvAgentStart       EventType = "agent_start"
	EvAgentEnd         EventType = "agent_end"
	EvTurnStart        EventType = "turn_start"
	EvTurnEnd          EventType = "turn_end"
	EvMessageStart     EventType = "message_start"
	EvMessageUpdate    EventType = "message_update"
	EvMessageEnd       EventType = "message_end"
	EvToolStart        EventType = "tool_execution_start"
	EvToolUpdate       EventType = "tool_execution_update"
	EvToolEnd          EventType = "tool_execution_end"
	EvQueueUpdate      EventType = "queue_update"
	EvDraftsReturned   EventType = "drafts_returned" // an abort or interrupt dropped queued messages (Drafts)
	EvRetryStart       EventType = "retry_start"
	EvRetryEnd         EventType = "retry_end"
	EvPhase            EventType = "phase_change"
	EvCompactionStart  EventType = "compaction_start"
	EvCompactionUpdate EventType = "compaction_update" // Summary says what is being summarized
	EvCompactionEnd    EventType = "compaction_end"
	EvApproval         EventType = "approval_pending"  // Approval set: waiting on the user
	EvApprovalDone     EventType = "approval_resolved" // ToolCallID, Decision
	EvQuestion         EventType = "question_pending"
	EvQuestionDone     EventType = "question_resolved"
	EvPlan             EventType = "plan_pending"
	EvPlanDone         EventType = "plan_resolved"
	EvTasks            EventType = "tasks_update"
	EvMode             EventType = "mode_change"
	EvModel            EventType = "model_change"
	EvThinking         EventType = "thinking_change"
	EvUsage            EventType = "usage_update"
	EvSession          EventType = "session_change" // a different session (or leaf) is now current
	EvSessionInfo      EventType = "session_info"   // the current session was renamed (Name)
	EvError            EventType = "error"
	EvSkills           EventType = "skills_changed"
	EvMemory           EventType = "memory_update" // Memory set; Reason: buffer|observe|activate|reflect|configure|restore; Summary: start|end
	EvNotice           EventType = "notice"        // Notice: something the user must be told once (a warning)
	EvGoal             EventType = "goal_update"   // Goal: the session's goal changed (nil: none)
)

// Phase is the harness phase. Entry points that need PhaseIdle answer busy.
type Phase string

// Harness phases.
const (
	PhaseIdle          Phase = "idle"
	PhaseTurn          Phase = "turn"
	PhaseCompaction    Phase = "compaction"
	PhaseBranchSummary Phase = "branch_summary"
	PhaseRetry         Phase = "retry"
)

// ApprovalRequest is a tool call waiting on the user's verdict.
type ApprovalRequest struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Category   string          `json:"category"`
	Args       json.RawMessage `json:"args"`
	Display    string          `json:"display"`
	// Preview, for edit and write, is the change the call would make.
	Preview *tools.Preview `json:"preview,omitempty"`
	// OutsideWorkspace is set when the call reads or writes ResolvedPath
	// (links resolved) outside the workspace roots; Access is read|write.
	OutsideWorkspace bool   `json:"outsideWorkspace"`
	ResolvedPath     string `json:"resolvedPath,omitempty"`
	Access           string `json:"access,omitempty"`
	// Subagent names the child whose call this is (nil for the agent's own).
	Subagent *SubagentRef `json:"subagent,omitempty"`
}

// Tokens is the token accounting the harness reports.
type Tokens struct {
	Input         int `json:"input"`
	Output        int `json:"output"`
	CacheRead     int `json:"cacheRead"`
	CacheWrite    int `json:"cacheWrite"`
	Total         int `json:"total"`
	ContextTokens int `json:"contextTokens"`
	ContextWindow int `json:"contextWindow"`
	ReserveTokens int `json:"reserveTokens,omitempty"`
	KeepRecent    int `json:"keepRecentTokens,omitempty"`
	Compactions   int `json:"compactions"`
	// Cost is the session's cost so far (models.json cost × usage, in the
	// provider's currency, usually USD); TurnCost is the last turn's (the
	// last model call's).
	Cost     llm.Cost `json:"cost"`
	TurnCost llm.Cost `json:"turnCost"`
}

// Event is one ordered harness event. Only the fields that belong to Type are
// set. Message is a snapshot the receiver may keep; Delta carries what a
// message_update appended (DeltaKind "text", "thinking" or "toolcall" at
// ContentIndex), so a consumer never needs to diff messages.
type Event struct {
	Type EventType `json:"type"`
	Seq  uint64    `json:"seq"`

	Message      *llm.Message `json:"message,omitempty"`
	DeltaKind    string       `json:"deltaKind,omitempty"`
	Delta        string       `json:"delta,omitempty"`
	ContentIndex int          `json:"contentIndex,omitempty"`

	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Output     string          `json:"output,omitempty"` // tool_execution_update: partial output (display-safe); tool_execution_end: result text (display-safe)
	IsError    bool            `json:"isError,omitempty"`
	Diff       string          `json:"diff,omitempty"` // tool_execution_end of an edit/write: unified diff
	Path       string          `json:"path,omitempty"` // file a tool modified
	// Diagnostics (tool_execution_end): the new problems of the call's
	// change, one line each (diagnostics.go).
	Diagnostics []string `json:"diagnostics,omitempty"`
	// Outcome (tool_execution_end): how a call that did not simply succeed
	// ended (OutcomeDeclined, OutcomeError, OutcomeInterrupted), with why in
	// Reason; the result's details keep the same (outcome.go).
	Outcome   string            `json:"outcome,omitempty"`
	Steering  []string          `json:"steering,omitempty"`
	FollowUp  []string          `json:"followUp,omitempty"`
	Drafts    []string          `json:"drafts,omitempty"`
	Phase     Phase             `json:"phase,omitempty"`
	Error     string            `json:"error,omitempty"`
	Attempt   int               `json:"attempt,omitempty"`
	DelayMs   int               `json:"delayMs,omitempty"`
	Approval  *ApprovalRequest  `json:"approval,omitempty"`
	Decision  string            `json:"decision,omitempty"`
	Question  *tools.Question   `json:"question,omitempty"`
	Plan      *tools.Plan       `json:"plan,omitempty"`
	Tasks     []tools.Task      `json:"tasks,omitempty"`
	Mode      string            `json:"mode,omitempty"`
	ModeName  string            `json:"modeName,omitempty"`  // mode_change: the mode's name
	ModeColor string            `json:"modeColor,omitempty"` // mode_change: the mode's colour (#rrggbb)
	Yolo      bool              `json:"yolo,omitempty"`      // mode_change: YOLO is on
	Sandbox   string            `json:"sandbox,omitempty"`   // mode_change: the sandbox mode of commands (workspace-write|read-only|off|unavailable)
	Notice    string            `json:"notice,omitempty"`    // notice: the text
	Name      string            `json:"name,omitempty"`      // session_info: the session's name
	Model     string            `json:"model,omitempty"`
	Thinking  llm.ThinkingLevel `json:"thinkingLevel,omitempty"`
	Tokens    *Tokens           `json:"tokens,omitempty"`
	Reason    string            `json:"reason,omitempty"` // compaction_*: "threshold" | "overflow" | "manual"; agent_end: stop reason; tool_execution_end: why of Outcome
	Summary   string            `json:"summary,omitempty"`
	SessionID string            `json:"sessionId,omitempty"`
	// Session and History are session_change's: the session now current
	// and the display-safe newest whole turns of its context.
	Session *SessionInfo   `json:"session,omitempty"`
	History *History       `json:"history,omitempty"`
	Memory  *memory.Status `json:"memory,omitempty"`
	// Subagent names the child of subagent_* events (and of approvals a
	// child asks for); Child is the child's own event (subagent_event).
	Subagent *SubagentRef `json:"subagent,omitempty"`
	Child    *Event       `json:"child,omitempty"`
	// Goal is goal_update's: the session's goal now.
	Goal *Goal `json:"goal,omitempty"`
	// Job is the job of job_update (its state) and job_output (its id;
	// Output is the chunk).
	Job *JobView `json:"job,omitempty"`
}
