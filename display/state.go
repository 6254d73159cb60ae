package display

import "github.com/pi-lsp/pi-lsp/protocol"

// The display state is a wire object (DESIGN.md §1): its types are
// protocol's, and display builds them directly. The names below keep the
// reducer's vocabulary.
type (
	// State is the DisplayState of docs/protocol.md.
	State = protocol.DisplayState
	// SessionInfo names the current session.
	SessionInfo = protocol.DisplaySession
	// Attachment is one editor attachment of a user item.
	Attachment = protocol.Attachment
	// ImageRef names where the session keeps an attached image.
	ImageRef = protocol.ImageRef
	// Mode is the current agent mode as shown to the user.
	Mode = protocol.DisplayMode
	// Pending holds what waits on the user.
	Pending = protocol.Pending
	// Queue is the content of the steering and follow-up queues.
	Queue = protocol.Queue
	// Retry describes a provider retry in progress.
	Retry = protocol.Retry
	// Compaction describes a compaction in progress.
	Compaction = protocol.Compaction
	// Item is one entry of the transcript.
	Item = protocol.Item
	// Op is one change to the state.
	Op = protocol.Op
	// Fields is the value of a merge op as the scheduler makes it.
	Fields = protocol.Fields
	// Field is one key of a merge op's value.
	Field = protocol.Field
)

// Run status values of State.Status.
const (
	StatusIdle    = protocol.StatusIdle
	StatusRunning = protocol.StatusRunning
)

// Item kinds (Item.Kind).
const (
	KindUser      = protocol.KindUser
	KindAssistant = protocol.KindAssistant
	KindTool      = protocol.KindTool
	KindBash      = protocol.KindBash
	KindSummary   = protocol.KindSummary
	KindError     = protocol.KindError
	KindInfo      = protocol.KindInfo
)

// Tool and bash item status values (Item.Status).
const (
	ToolPending          = protocol.ToolPending
	ToolAwaitingApproval = protocol.ToolAwaitingApproval
	ToolRunning          = protocol.ToolRunning
	ToolDone             = protocol.ToolDone
	ToolError            = protocol.ToolError
	ToolDeclined         = protocol.ToolDeclined

	// AssistantInterrupted is an assistant item's status when its answer
	// was cut by an abort ("" otherwise).
	AssistantInterrupted = protocol.AssistantInterrupted
)

// Op kinds.
const (
	OpSet    = protocol.OpSet
	OpAppend = protocol.OpAppend
	OpPush   = protocol.OpPush
	OpDelete = protocol.OpDelete
	OpMerge  = protocol.OpMerge
)

// NewState returns an empty, idle state with every slice non-nil.
func NewState() State {
	return State{
		Status:        StatusIdle,
		Phase:         protocol.PhaseIdle,
		Items:         []Item{},
		Tasks:         []protocol.Task{},
		Queue:         Queue{Steering: []string{}, FollowUp: []string{}},
		ModifiedFiles: []string{},
		Errors:        []ErrorBanner{},

		ReturnedDrafts: []string{},
		Jobs:           []protocol.Job{},
	}
}

// cloneState returns a deep copy: the copy shares no mutable memory with s. Byte
// slices and pointed-to values that the reducer only ever replaces (item args,
// exit codes, option lists) are shared read-only.
func cloneState(s *State) State {
	c := *s
	c.Items = append(make([]Item, 0, len(s.Items)), s.Items...)
	for i := range c.Items {
		if c.Items[i].Child != nil {
			c.Items[i].Child = cloneChild(c.Items[i].Child)
		}
	}
	c.Tasks = append(make([]protocol.Task, 0, len(s.Tasks)), s.Tasks...)
	c.Queue = cloneQueue(s.Queue)
	c.ModifiedFiles = cloneStrings(s.ModifiedFiles)
	c.Errors = cloneBanners(s.Errors)
	c.ReturnedDrafts = cloneStrings(s.ReturnedDrafts)
	c.Pending = clonePending(s.Pending)
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
	if s.Goal != nil {
		g := *s.Goal
		c.Goal = &g
	}
	// Exit codes and end times are only ever replaced, never mutated.
	c.Jobs = append(make([]protocol.Job, 0, len(s.Jobs)), s.Jobs...)
	return c
}

func clonePending(p Pending) Pending {
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

func cloneQueue(q Queue) Queue {
	return Queue{Steering: cloneStrings(q.Steering), FollowUp: cloneStrings(q.FollowUp)}
}

func cloneStrings(s []string) []string {
	return append(make([]string, 0, len(s)), s...)
}
