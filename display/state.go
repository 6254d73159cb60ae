package display

import (
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Run status values of State.Status.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
)

// Item kinds (Item.Kind).
const (
	KindUser      = "user"
	KindAssistant = "assistant"
	KindTool      = "tool"
	KindBash      = "bash"
	KindSummary   = "summary"
	KindError     = "error"
	KindInfo      = "info"
)

// Tool and bash item status values (Item.Status).
const (
	ToolPending          = "pending"
	ToolAwaitingApproval = "awaiting_approval"
	ToolRunning          = "running"
	ToolDone             = "done"
	ToolError            = "error"
	ToolDeclined         = "declined"
)

// State is the DisplayState of docs/protocol.md: everything an editor needs
// to draw one frame. Slices are never nil, so a push op always finds an array.
type State struct {
	Session       SessionInfo             `json:"session"`
	Status        string                  `json:"status"`
	Phase         harness.Phase           `json:"phase"`
	Mode          Mode                    `json:"mode"`
	Yolo          bool                    `json:"yolo"`
	Sandbox       string                  `json:"sandbox"` // sandbox mode of commands: workspace-write|read-only|off|unavailable
	Model         string                  `json:"model"`
	ThinkingLevel llm.ThinkingLevel       `json:"thinkingLevel"`
	Items         []Item                  `json:"items"`
	History       *protocol.HistoryMarker `json:"history"` // older items, for display/history; nil when none
	Pending       Pending                 `json:"pending"`
	Tasks         []tools.Task            `json:"tasks"`
	Queue         Queue                   `json:"queue"`
	Tokens        harness.Tokens          `json:"tokens"`
	ModifiedFiles []string                `json:"modifiedFiles"`
	Errors        []string                `json:"errors"`
	Retry         *Retry                  `json:"retry"`
	Compaction    *Compaction             `json:"compaction"`
	// ReturnedDrafts are the queued messages the last abort or interrupt
	// dropped, for the editor to put back in its input; cleared when the
	// next run starts.
	ReturnedDrafts []string `json:"returnedDrafts"`
	// Memory is observational memory's status; null until the session
	// uses it.
	Memory *protocol.MemoryStatus `json:"memory"`
}

// SessionInfo names the current session.
type SessionInfo struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Name string `json:"name"`
	Cwd  string `json:"cwd"`
}

// AssistantInterrupted is an assistant item's status when its answer was
// cut by an abort ("" otherwise).
const AssistantInterrupted = "interrupted"

// Attachment is one editor attachment of a user item.
type Attachment struct {
	Type  string `json:"type"` // file | selection | image
	Path  string `json:"path,omitempty"`
	Lines string `json:"lines,omitempty"` // "10-20"
}

// Mode is the current agent mode as shown to the user.
type Mode struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Pending holds what waits on the user; each is null when nothing waits.
type Pending struct {
	Approval *harness.ApprovalRequest `json:"approval"`
	Question *tools.Question          `json:"question"`
	Plan     *tools.Plan              `json:"plan"`
}

// Queue is the content of the steering and follow-up queues.
type Queue struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// Retry describes a provider retry in progress.
type Retry struct {
	Attempt int    `json:"attempt"`
	DelayMs int    `json:"delayMs"`
	Error   string `json:"error"`
}

// Compaction describes a compaction in progress.
type Compaction struct {
	Reason string `json:"reason"`
}

// Item is one entry of the transcript. Which fields it carries on the wire
// depends on Kind (see MarshalJSON); the fields a stream appends to are always
// present for their kind, so an append op always finds a string.
type Item struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`

	// user, assistant, summary, error, info
	Text string `json:"text,omitempty"`
	// user: the editor attachments sent with the prompt
	Attachments []Attachment `json:"attachments,omitempty"`
	// assistant
	Thinking  string `json:"thinking,omitempty"`
	Streaming bool   `json:"streaming,omitempty"`
	// tool
	ToolName string          `json:"toolName,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Diff     string          `json:"diff,omitempty"`
	Path     string          `json:"path,omitempty"`
	IsError  bool            `json:"isError,omitempty"`
	// tool, bash
	Status string `json:"status,omitempty"`
	Output string `json:"output,omitempty"`
	// bash
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	// summary: "compaction" or "branch"
	SummaryKind string `json:"summaryKind,omitempty"`
	// tool (subagent): the child's live activity (child.go)
	Child *Child `json:"child,omitempty"`
}

// MarshalJSON writes the fields of the item's kind, all of them present.
func (it Item) MarshalJSON() ([]byte, error) {
	switch it.Kind {
	case KindAssistant:
		return json.Marshal(struct {
			ID        string `json:"id"`
			Kind      string `json:"kind"`
			Text      string `json:"text"`
			Thinking  string `json:"thinking"`
			Streaming bool   `json:"streaming"`
			Status    string `json:"status"`
		}{it.ID, it.Kind, it.Text, it.Thinking, it.Streaming, it.Status})
	case KindTool:
		args := it.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if it.Child != nil {
			return json.Marshal(struct {
				ID       string          `json:"id"`
				Kind     string          `json:"kind"`
				ToolName string          `json:"toolName"`
				Args     json.RawMessage `json:"args"`
				Status   string          `json:"status"`
				Output   string          `json:"output"`
				Diff     string          `json:"diff"`
				Path     string          `json:"path"`
				IsError  bool            `json:"isError"`
				Child    *Child          `json:"child"`
			}{it.ID, it.Kind, it.ToolName, args, it.Status, it.Output, it.Diff, it.Path, it.IsError, it.Child})
		}
		return json.Marshal(struct {
			ID       string          `json:"id"`
			Kind     string          `json:"kind"`
			ToolName string          `json:"toolName"`
			Args     json.RawMessage `json:"args"`
			Status   string          `json:"status"`
			Output   string          `json:"output"`
			Diff     string          `json:"diff"`
			Path     string          `json:"path"`
			IsError  bool            `json:"isError"`
		}{it.ID, it.Kind, it.ToolName, args, it.Status, it.Output, it.Diff, it.Path, it.IsError})
	case KindBash:
		return json.Marshal(struct {
			ID       string `json:"id"`
			Kind     string `json:"kind"`
			Command  string `json:"command"`
			Status   string `json:"status"`
			Output   string `json:"output"`
			ExitCode *int   `json:"exitCode"`
		}{it.ID, it.Kind, it.Command, it.Status, it.Output, it.ExitCode})
	case KindSummary:
		return json.Marshal(struct {
			ID          string `json:"id"`
			Kind        string `json:"kind"`
			Text        string `json:"text"`
			SummaryKind string `json:"summaryKind"`
		}{it.ID, it.Kind, it.Text, it.SummaryKind})
	case KindUser:
		att := it.Attachments
		if att == nil {
			att = []Attachment{}
		}
		return json.Marshal(struct {
			ID          string       `json:"id"`
			Kind        string       `json:"kind"`
			Text        string       `json:"text"`
			Attachments []Attachment `json:"attachments"`
		}{it.ID, it.Kind, it.Text, att})
	default: // error, info
		return json.Marshal(struct {
			ID   string `json:"id"`
			Kind string `json:"kind"`
			Text string `json:"text"`
		}{it.ID, it.Kind, it.Text})
	}
}

// NewState returns an empty, idle state with every slice non-nil.
func NewState() State {
	return State{
		Status:        StatusIdle,
		Phase:         harness.PhaseIdle,
		Items:         []Item{},
		Tasks:         []tools.Task{},
		Queue:         Queue{Steering: []string{}, FollowUp: []string{}},
		ModifiedFiles: []string{},
		Errors:        []string{},

		ReturnedDrafts: []string{},
	}
}

// Clone returns a deep copy: the copy shares no mutable memory with s. Byte
// slices and pointed-to values that the reducer only ever replaces (item args,
// exit codes, option lists) are shared read-only.
func (s *State) Clone() State {
	c := *s
	c.Items = append(make([]Item, 0, len(s.Items)), s.Items...)
	for i := range c.Items {
		if c.Items[i].Child != nil {
			c.Items[i].Child = c.Items[i].Child.clone()
		}
	}
	c.Tasks = append(make([]tools.Task, 0, len(s.Tasks)), s.Tasks...)
	c.Queue = s.Queue.clone()
	c.ModifiedFiles = cloneStrings(s.ModifiedFiles)
	c.Errors = cloneStrings(s.Errors)
	c.ReturnedDrafts = cloneStrings(s.ReturnedDrafts)
	c.Pending = s.Pending.clone()
	if s.History != nil {
		h := *s.History
		c.History = &h
	}
	if s.Retry != nil {
		r := *s.Retry
		c.Retry = &r
	}
	if s.Compaction != nil {
		cp := *s.Compaction
		c.Compaction = &cp
	}
	c.Memory = cloneMemory(s.Memory)
	return c
}

func (p Pending) clone() Pending {
	if p.Approval != nil {
		a := *p.Approval
		p.Approval = &a
	}
	if p.Question != nil {
		q := *p.Question
		p.Question = &q
	}
	if p.Plan != nil {
		pl := *p.Plan
		p.Plan = &pl
	}
	return p
}

func (q Queue) clone() Queue {
	return Queue{Steering: cloneStrings(q.Steering), FollowUp: cloneStrings(q.FollowUp)}
}

func cloneStrings(s []string) []string {
	return append(make([]string, 0, len(s)), s...)
}
