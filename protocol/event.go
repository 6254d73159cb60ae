package protocol

import (
	"encoding/json"
	"fmt"
)

// harness/event (docs/protocol.md, "harness/event"): the raw, ordered
// harness events, for clients that asked for them with
// capabilities.harnessEvents.

// EventParams are the params of a harness/event notification.
type EventParams struct {
	Event Event `json:"event"`
}

// EventType names a harness event (pi's AgentEvent names).
type EventType string

// Event types.
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
	EvDraftsReturned   EventType = "drafts_returned"
	EvRetryStart       EventType = "retry_start"
	EvRetryEnd         EventType = "retry_end"
	EvPhase            EventType = "phase_change"
	EvCompactionStart  EventType = "compaction_start"
	EvCompactionUpdate EventType = "compaction_update"
	EvCompactionEnd    EventType = "compaction_end"
	EvApproval         EventType = "approval_pending"
	EvApprovalDone     EventType = "approval_resolved"
	EvQuestion         EventType = "question_pending"
	EvQuestionDone     EventType = "question_resolved"
	EvPlan             EventType = "plan_pending"
	EvPlanDone         EventType = "plan_resolved"
	EvTasks            EventType = "tasks_update"
	EvMode             EventType = "mode_change"
	EvModel            EventType = "model_change"
	EvThinking         EventType = "thinking_change"
	EvUsage            EventType = "usage_update"
	EvSession          EventType = "session_change"
	EvSessionInfo      EventType = "session_info"
	EvError            EventType = "error"
	EvSkills           EventType = "skills_changed"
	EvMemory           EventType = "memory_update"
	EvNotice           EventType = "notice"
	EvSubagentStart    EventType = "subagent_start"
	EvSubagentEvent    EventType = "subagent_event"
	EvSubagentEnd      EventType = "subagent_end"
	EvGoal             EventType = "goal_update"
	// EvJob is a background job's state (started, ended): job.
	EvJob EventType = "job_update"
	// EvJobOutput is a chunk of a job's output: job (its id) and output.
	// MERGEABLE: consecutive job_output events of one job may be merged by
	// concatenating output (a connection's outbox may coalesce them).
	EvJobOutput EventType = "job_output"
)

// Event is one harness event. Only the members of its type are present.
type Event struct {
	Type EventType `json:"type"`
	Seq  uint64    `json:"seq"`

	Message      *AgentMessage `json:"message,omitempty"`
	DeltaKind    string        `json:"deltaKind,omitempty"` // message_update: text | thinking | toolcall
	Delta        string        `json:"delta,omitempty"`
	ContentIndex int           `json:"contentIndex,omitempty"`

	ToolCallID string            `json:"toolCallId,omitempty"`
	ToolName   string            `json:"toolName,omitempty"`
	Args       json.RawMessage   `json:"args,omitempty"`
	Output     string            `json:"output,omitempty"`
	IsError    bool              `json:"isError,omitempty"`
	Diff       string            `json:"diff,omitempty"`
	Path       string            `json:"path,omitempty"`
	Steering   []string          `json:"steering,omitempty"`
	FollowUp   []string          `json:"followUp,omitempty"`
	Drafts     []string          `json:"drafts,omitempty"`
	Phase      Phase             `json:"phase,omitempty"`
	Error      string            `json:"error,omitempty"`
	Attempt    int               `json:"attempt,omitempty"`
	DelayMs    int               `json:"delayMs,omitempty"`
	Approval   *ApprovalParams   `json:"approval,omitempty"`
	Decision   string            `json:"decision,omitempty"`
	Question   *QuestionParams   `json:"question,omitempty"`
	Plan       *PlanParams       `json:"plan,omitempty"`
	Tasks      []Task            `json:"tasks,omitempty"`
	Mode       string            `json:"mode,omitempty"`
	ModeName   string            `json:"modeName,omitempty"`  // mode_change: the mode's display name
	ModeColor  string            `json:"modeColor,omitempty"` // mode_change: the mode's colour (#rrggbb)
	Yolo       bool              `json:"yolo,omitempty"`
	Sandbox    string            `json:"sandbox,omitempty"`
	Notice     string            `json:"notice,omitempty"`
	Name       string            `json:"name,omitempty"`
	Model      string            `json:"model,omitempty"`
	Thinking   string            `json:"thinkingLevel,omitempty"`
	Tokens     *Tokens           `json:"tokens,omitempty"`
	Reason     string            `json:"reason,omitempty"` // compaction_*: threshold | overflow | manual; agent_end: the stop reason
	Summary    string            `json:"summary,omitempty"`
	SessionID  string            `json:"sessionId,omitempty"`
	Session    *EventSession     `json:"session,omitempty"` // session_change: the session now current (its history goes to the display state, not here)
	Memory     *MemoryStatus     `json:"memory,omitempty"`
	Subagent   *ApprovalSubagent `json:"subagent,omitempty"`
	Child      *Event            `json:"child,omitempty"` // subagent_event: the child's own event
	Goal       *Goal             `json:"goal,omitempty"`  // goal_update: the session's goal (absent: none)
	Job        *Job              `json:"job,omitempty"`   // job_update: the job; job_output: its id
}

// AgentMessage is one of pi's AgentMessage variants (the session file's
// message shape), told apart by Role; on the wire only its role's variant
// is written (UserMessage, AssistantMessage, …).
type AgentMessage struct {
	Role      string
	Content   []ContentBlock
	Timestamp int64

	API, Provider, Model string
	Usage                Usage
	StopReason           string
	ErrorMessage         string

	ToolCallID, ToolName string
	IsError              bool
	Details              json.RawMessage

	Command              string
	Output               string
	ExitCode             *int
	Cancelled, Truncated bool
	FullOutputPath       string
	ExcludeFromContext   bool
	CustomType           string
	Display              bool
	Summary, FromID      string
	TokensBefore         int
}

// Usage is the provider-reported token usage of one assistant message.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// UserMessage is a user message on the wire.
type UserMessage struct {
	Role      string         `json:"role"`
	Content   []ContentBlock `json:"content"`
	Timestamp int64          `json:"timestamp"`
}

// AssistantMessage is an assistant message on the wire.
type AssistantMessage struct {
	Role         string         `json:"role"`
	Content      []ContentBlock `json:"content"`
	API          string         `json:"api"`
	Provider     string         `json:"provider"`
	Model        string         `json:"model"`
	Usage        Usage          `json:"usage"`
	StopReason   string         `json:"stopReason"` // stop | length | toolUse | error | aborted
	ErrorMessage string         `json:"errorMessage,omitempty"`
	Timestamp    int64          `json:"timestamp"`
}

// ToolResultMessage is a tool result on the wire.
type ToolResultMessage struct {
	Role       string          `json:"role"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    []ContentBlock  `json:"content"`
	Details    json.RawMessage `json:"details,omitempty"`
	IsError    bool            `json:"isError"`
	Timestamp  int64           `json:"timestamp"`
}

// BashExecutionMessage is a user-run shell command on the wire.
type BashExecutionMessage struct {
	Role               string `json:"role"`
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
	Timestamp          int64  `json:"timestamp"`
}

// CustomMessage is an extension's message on the wire.
type CustomMessage struct {
	Role       string          `json:"role"`
	CustomType string          `json:"customType"`
	Content    []ContentBlock  `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
	Timestamp  int64           `json:"timestamp"`
}

// BranchSummaryMessage is a branch summary on the wire.
type BranchSummaryMessage struct {
	Role      string `json:"role"`
	Summary   string `json:"summary"`
	FromID    string `json:"fromId"`
	Timestamp int64  `json:"timestamp"`
}

// CompactionSummaryMessage is a compaction summary on the wire.
type CompactionSummaryMessage struct {
	Role         string `json:"role"`
	Summary      string `json:"summary"`
	TokensBefore int    `json:"tokensBefore"`
	Timestamp    int64  `json:"timestamp"`
}

func nonNilBlocks(c []ContentBlock) []ContentBlock {
	if c == nil {
		return []ContentBlock{}
	}
	return c
}

// MarshalJSON writes the variant of the message's role.
func (m AgentMessage) MarshalJSON() ([]byte, error) {
	switch m.Role {
	case "user":
		return json.Marshal(UserMessage{m.Role, nonNilBlocks(m.Content), m.Timestamp})
	case "assistant":
		return json.Marshal(AssistantMessage{m.Role, nonNilBlocks(m.Content), m.API, m.Provider, m.Model, m.Usage, m.StopReason, m.ErrorMessage, m.Timestamp})
	case "toolResult":
		return json.Marshal(ToolResultMessage{m.Role, m.ToolCallID, m.ToolName, nonNilBlocks(m.Content), m.Details, m.IsError, m.Timestamp})
	case "bashExecution":
		return json.Marshal(BashExecutionMessage{m.Role, m.Command, m.Output, m.ExitCode, m.Cancelled, m.Truncated, m.FullOutputPath, m.ExcludeFromContext, m.Timestamp})
	case "custom":
		return json.Marshal(CustomMessage{m.Role, m.CustomType, nonNilBlocks(m.Content), m.Display, m.Details, m.Timestamp})
	case "branchSummary":
		return json.Marshal(BranchSummaryMessage{m.Role, m.Summary, m.FromID, m.Timestamp})
	case "compactionSummary":
		return json.Marshal(CompactionSummaryMessage{m.Role, m.Summary, m.TokensBefore, m.Timestamp})
	default:
		return nil, fmt.Errorf("protocol: unknown message role %q", m.Role)
	}
}

// ContentBlock is one block of message content; on the wire only its
// type's variant is written (TextContent, ImageContent, …).
type ContentBlock struct {
	Type                        string
	Text                        string
	Data, MimeType              string
	Thinking, ThinkingSignature string
	Redacted                    bool
	ID, Name                    string
	Arguments                   json.RawMessage
}

// TextContent is a text block.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ImageContent is an image block.
type ImageContent struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// ThinkingContent is a thinking block.
type ThinkingContent struct {
	Type              string `json:"type"`
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
}

// ToolCallContent is a tool call block.
type ToolCallContent struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// MarshalJSON writes the variant of the block's type.
func (b ContentBlock) MarshalJSON() ([]byte, error) {
	switch b.Type {
	case "text":
		return json.Marshal(TextContent{b.Type, b.Text})
	case "image":
		return json.Marshal(ImageContent{b.Type, b.Data, b.MimeType})
	case "thinking":
		return json.Marshal(ThinkingContent{b.Type, b.Thinking, b.ThinkingSignature, b.Redacted})
	case "toolCall":
		args := b.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return json.Marshal(ToolCallContent{b.Type, b.ID, b.Name, args})
	default:
		return nil, fmt.Errorf("protocol: unknown content block type %q", b.Type)
	}
}

// EventSession is the session a session_change event switched to.
type EventSession struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Cwd       string `json:"cwd"`
	Name      string `json:"name"`
}
