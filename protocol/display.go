package protocol

import "encoding/json"

// The display state (docs/protocol.md, "display/state"): the one object an
// editor draws. The display package builds these values directly (the state
// is a wire object by definition, DESIGN.md §1); display.State, display.Item
// and the rest are aliases of the types here.

// DisplayState is everything an editor needs to draw one frame. Slices are
// never nil, so a push op always finds an array.
type DisplayState struct {
	Session       DisplaySession `json:"session"`
	Status        RunStatus      `json:"status"`
	Phase         Phase          `json:"phase"`
	Mode          DisplayMode    `json:"mode"`
	Yolo          bool           `json:"yolo"`
	Sandbox       string         `json:"sandbox"` // SandboxWorkspaceWrite | SandboxReadOnly | SandboxOff | SandboxUnavailable
	Model         string         `json:"model"`
	ThinkingLevel string         `json:"thinkingLevel"`
	Items         []Item         `json:"items"`
	History       *HistoryMarker `json:"history"` // older items, for display/history; nil when none
	Pending       Pending        `json:"pending"`
	Tasks         []Task         `json:"tasks"`
	Queue         Queue          `json:"queue"`
	Tokens        Tokens         `json:"tokens"`
	ModifiedFiles []string       `json:"modifiedFiles"`
	Errors        []ErrorBanner  `json:"errors"`
	Retry         *Retry         `json:"retry"`
	Compaction    *Compaction    `json:"compaction"`
	// ReturnedDrafts are the queued messages the last abort or interrupt
	// dropped, for the editor to put back in its input; cleared when the
	// next run starts.
	ReturnedDrafts []string `json:"returnedDrafts"`
	// Memory is observational memory's status; null until the session
	// uses it.
	Memory *MemoryStatus `json:"memory"`
	// Goal is the session's goal (goal/set); null when it has none.
	Goal *Goal `json:"goal"`
	// Jobs are the session's background jobs, oldest first (outputTail
	// bounded); job output is coalesced like token deltas.
	Jobs []Job `json:"jobs"`
}

// RunStatus is DisplayState.Status.
type RunStatus string

// Run status values.
const (
	StatusIdle    RunStatus = "idle"
	StatusRunning RunStatus = "running"
)

// Phase is the harness phase on the wire (DisplayState.phase, phase_change).
type Phase string

// Phases.
const (
	PhaseIdle          Phase = "idle"
	PhaseTurn          Phase = "turn"
	PhaseCompaction    Phase = "compaction"
	PhaseBranchSummary Phase = "branch_summary"
	PhaseRetry         Phase = "retry"
)

// DisplaySession names the current session.
type DisplaySession struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Name string `json:"name"`
	Cwd  string `json:"cwd"`
}

// DisplayMode is the current agent mode as shown to the user.
type DisplayMode struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Pending holds what waits on the user; each is null when nothing waits.
// The approval's preview keeps its diff only (before and after are empty).
type Pending struct {
	Approval *ApprovalParams `json:"approval"`
	Question *QuestionParams `json:"question"`
	Plan     *PlanParams     `json:"plan"`
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
	// ItemID is the user item of the turn being retried.
	ItemID string `json:"itemId"`
}

// Compaction describes a compaction in progress.
type Compaction struct {
	Reason string `json:"reason"` // threshold | overflow | manual
}

// Tokens is the token accounting of the session (DisplayState.tokens and
// the events that carry it).
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
	// Cost is the session's cost so far, TurnCost the last model call's,
	// in the provider's currency (usually USD).
	Cost     Cost `json:"cost"`
	TurnCost Cost `json:"turnCost"`
}

// Cost is money spent, by token class.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// ItemKind is Item.Kind.
type ItemKind string

// Item kinds.
const (
	KindUser      ItemKind = "user"
	KindAssistant ItemKind = "assistant"
	KindTool      ItemKind = "tool"
	KindBash      ItemKind = "bash"
	KindSummary   ItemKind = "summary"
	KindError     ItemKind = "error"
	KindInfo      ItemKind = "info"
)

// Tool and bash item status values (Item.Status), and an assistant item's
// AssistantInterrupted.
const (
	ToolPending          = "pending"
	ToolAwaitingApproval = "awaiting_approval"
	ToolRunning          = "running"
	ToolDone             = "done"
	ToolError            = "error"
	ToolDeclined         = "declined"

	// AssistantInterrupted is an assistant item's status when an abort cut
	// its answer ("" otherwise).
	AssistantInterrupted = "interrupted"
)

// Attachment is one editor attachment of a user item.
type Attachment struct {
	Type  string `json:"type"` // file | selection | image
	Path  string `json:"path,omitempty"`
	Lines string `json:"lines,omitempty"` // "10-20"
	// Image: where the session keeps it (items read from the session).
	Image *ImageRef `json:"image,omitempty"`
}

// Item is one entry of the transcript. On the wire it is one of the
// *Item variants below, chosen by Kind (see MarshalJSON); every field of
// its variant is present, so an append op always finds a string.
type Item struct {
	ID   string   `json:"id"`
	Kind ItemKind `json:"kind"`

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
	// tool (subagent): the child's live activity
	Child *Child `json:"child,omitempty"`
	// tool: the new problems the call's change made, one line each
	// (path:line:column: severity: message (source)).
	Diagnostics []string `json:"diagnostics,omitempty"`
	// tool: how it ended when not done, and why (display_facts.go)
	Outcome ToolOutcome `json:"outcome,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	// tool (submit_plan): approved or rejected
	Verdict PlanVerdict `json:"verdict,omitempty"`
	// user: a message the server wrote (plan_handover)
	Note ItemNote `json:"note,omitempty"`
	// user (plan_handover): the approved plan's title
	PlanTitle string `json:"planTitle,omitempty"`
	// assistant (interrupted): why the run ended
	EndReason RunEndReason `json:"endReason,omitempty"`
}

// UserItem is a user item on the wire.
type UserItem struct {
	ID          string       `json:"id"`
	Kind        ItemKind     `json:"kind"`
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments"`
	// Note marks a message the server wrote itself; omitted for the user's.
	Note ItemNote `json:"note,omitempty"`
	// PlanTitle is the approved plan's title, on the plan_handover note.
	PlanTitle string `json:"planTitle,omitempty"`
}

// AssistantItem is an assistant item on the wire.
type AssistantItem struct {
	ID        string   `json:"id"`
	Kind      ItemKind `json:"kind"`
	Text      string   `json:"text"`
	Thinking  string   `json:"thinking"`
	Streaming bool     `json:"streaming"`
	Status    string   `json:"status"` // "" | AssistantInterrupted
	// EndReason says why an interrupted answer was cut (aborted,
	// client_gone, error); omitted otherwise.
	EndReason RunEndReason `json:"endReason,omitempty"`
}

// ToolItem is a tool item on the wire; Child only on a subagent's.
type ToolItem struct {
	ID       string          `json:"id"`
	Kind     ItemKind        `json:"kind"`
	ToolName string          `json:"toolName"`
	Args     json.RawMessage `json:"args"`
	Status   string          `json:"status"`
	Output   string          `json:"output"`
	Diff     string          `json:"diff"`
	Path     string          `json:"path"`
	IsError  bool            `json:"isError"`
	Child    *Child          `json:"child,omitempty"`
	// Diagnostics are the new problems of the call's change (docs/tools.md).
	Diagnostics []string `json:"diagnostics,omitempty"`
	// Outcome is how the call ended when it did not succeed, Reason why
	// (the user's reason for a decline, the run's end for an interrupt);
	// both omitted while it runs and when it is done.
	Outcome ToolOutcome `json:"outcome,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	// Verdict is a submit_plan call's: approved or rejected.
	Verdict PlanVerdict `json:"verdict,omitempty"`
}

// BashItem is a user-run shell command on the wire.
type BashItem struct {
	ID       string   `json:"id"`
	Kind     ItemKind `json:"kind"`
	Command  string   `json:"command"`
	Status   string   `json:"status"`
	Output   string   `json:"output"`
	ExitCode *int     `json:"exitCode"`
}

// SummaryItem is a compaction or branch summary on the wire.
type SummaryItem struct {
	ID          string   `json:"id"`
	Kind        ItemKind `json:"kind"`
	Text        string   `json:"text"`
	SummaryKind string   `json:"summaryKind"` // compaction | branch
}

// TextItem is an error or info item on the wire.
type TextItem struct {
	ID   string   `json:"id"`
	Kind ItemKind `json:"kind"`
	Text string   `json:"text"`
}

// MarshalJSON writes the variant of the item's kind, every field present.
func (it Item) MarshalJSON() ([]byte, error) {
	switch it.Kind {
	case KindAssistant:
		return json.Marshal(AssistantItem{it.ID, it.Kind, it.Text, it.Thinking, it.Streaming, it.Status, it.EndReason})
	case KindTool:
		args := it.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return json.Marshal(ToolItem{it.ID, it.Kind, it.ToolName, args, it.Status, it.Output, it.Diff, it.Path, it.IsError, it.Child, it.Diagnostics, it.Outcome, it.Reason, it.Verdict})
	case KindBash:
		return json.Marshal(BashItem{it.ID, it.Kind, it.Command, it.Status, it.Output, it.ExitCode})
	case KindSummary:
		return json.Marshal(SummaryItem{it.ID, it.Kind, it.Text, it.SummaryKind})
	case KindUser:
		att := it.Attachments
		if att == nil {
			att = []Attachment{}
		}
		return json.Marshal(UserItem{it.ID, it.Kind, it.Text, att, it.Note, it.PlanTitle})
	default: // error, info
		return json.Marshal(TextItem{it.ID, it.Kind, it.Text})
	}
}

// Child (subagent) status values.
const (
	ChildRunning = "running"
	ChildDone    = "done"
	ChildError   = "error"
	ChildAborted = "aborted"
)

// Child is a subagent's live activity, on the parent's subagent tool item:
// its session, agent, status, its own transcript (items of the same shape
// as the parent's) and its tokens, kept apart from the parent's totals.
type Child struct {
	Session   string `json:"session"` // the child's session file
	SessionID string `json:"sessionId"`
	Agent     string `json:"agent"`
	Fork      bool   `json:"fork"`
	Model     string `json:"model"`
	Status    string `json:"status"`
	Items     []Item `json:"items"`
	// Older counts the items dropped from the front of Items.
	Older  int    `json:"older"`
	Tokens Tokens `json:"tokens"`
}

// DisplayFrame is one display/state notification. Exactly one of Ops and
// State is set: ops apply in order to the state of the previous frame; a
// State frame replaces everything the client holds. Versions rise by one per
// frame within a stream (docs/protocol.md, "Display streams").
type DisplayFrame struct {
	// Stream names the sequence the version counts in: new for each server
	// process and each connection, kept across session switches. A client
	// that sees another stream discards what it holds.
	Stream  string        `json:"stream"`
	Version int64         `json:"version"`
	Ops     []Op          `json:"ops,omitempty"`
	State   *DisplayState `json:"state,omitempty"`
}

// DisplaySnapshot is the answer to display/snapshot.
type DisplaySnapshot struct {
	Stream  string       `json:"stream"` // as DisplayFrame.Stream
	Version int64        `json:"version"`
	State   DisplayState `json:"state"`
}
