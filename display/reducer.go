package display

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// MaxErrors is how many recent errors State.Errors keeps.
const MaxErrors = 20

// ReducerOptions configure a Reducer.
type ReducerOptions struct {
	// MaxChildItems bounds a subagent's items on its parent's tool item
	// (0 = DefaultMaxChildItems): past it, the older half is dropped.
	MaxChildItems int
}

// DefaultModeInfo knows the harness's built-in modes and titles any other
// id: the name and colour of a mode_change that carries none.
func DefaultModeInfo(id string) Mode {
	for _, m := range harness.DefaultModes() {
		if m.ID == id {
			return Mode{ID: m.ID, Name: m.Name, Color: m.Color}
		}
	}
	if id == "" {
		return Mode{}
	}
	return Mode{ID: id, Name: strings.ToUpper(id[:1]) + id[1:]}
}

// Reducer folds harness events into one State and records each change as an
// op for the attached schedulers. One Reducer serves one harness; every
// client attaches its own Scheduler. All methods are safe for concurrent use.
// Its only input is Apply: it is attached with harness.Attach, which
// hands it the current state as events and then the live stream.
type Reducer struct {
	mu       sync.Mutex
	st       State
	maxChild int

	nextID int
	live   *liveItem             // the assistant message being streamed
	open   int                   // item made by the last non-assistant message_start, or -1
	tools  map[string]*toolTrack // by tool call id
	files  map[string]bool       // modifiedFiles membership
	// children follows subagents by the parent's tool call id (child.go).
	children map[string]*childTrack
	turn     string // the id of the last user item: the turn banners belong to

	scheds []*Scheduler
	ops    []rop // ops of the Apply in progress (scratch, reused)
	resync bool  // the Apply in progress replaced the whole state
}

// rop is an op as recorded, before a scheduler coalesces it. Strings travel
// in str (op append) so recording one does not box them.
type rop struct {
	op   string
	path []any
	str  string
	val  any
	at   int // push: the array index the value lands at, or -1
}

// liveItem is the assistant item being streamed. Its text lives in byte
// builders so each chunk costs an append, not a string copy; Items[idx] is
// brought up to date (sync) before anyone reads the state.
type liveItem struct {
	idx              int
	text, thinking   []byte
	synced           bool
	textPath, thPath []any
}

// NewReducer returns a Reducer holding an empty idle state.
func NewReducer(opts ReducerOptions) *Reducer {
	r := &Reducer{st: NewState(), open: -1, maxChild: opts.MaxChildItems}
	if r.maxChild <= 0 {
		r.maxChild = DefaultMaxChildItems
	}
	r.resetTracking()
	return r
}

func (r *Reducer) resetTracking() {
	r.live = nil
	r.open = -1
	r.tools = map[string]*toolTrack{}
	r.files = map[string]bool{}
	r.children = nil
	r.turn = ""
}

// State returns a deep copy of the current state.
func (r *Reducer) State() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncLive()
	return cloneState(&r.st)
}

// Apply folds one harness event into the state and hands the resulting ops
// to every attached scheduler.
func (r *Reducer) Apply(ev harness.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	urgent := r.fold(ev)
	r.dispatch(urgent)
}

// resetLocked replaces the state for a new current session: the session
// info and the newest page of its history (see Page); older names what the
// state leaves out. Mode, model, thinking level and yolo are kept. Every
// client gets a full state. The caller holds mu.
func (r *Reducer) resetLocked(session SessionInfo, history []Item, older *protocol.HistoryMarker) {
	r.resetState(session)
	if older != nil {
		o := *older
		r.st.History = &o
	}
	for _, it := range history {
		if it.ID == "" {
			it.ID = r.newID()
		}
		r.st.Items = append(r.st.Items, it)
		if it.Kind == KindUser {
			r.turn = it.ID
		}
		if it.Kind == KindTool {
			r.tools[it.ID] = &toolTrack{idx: len(r.st.Items) - 1, started: true}
		}
		if it.Path != "" && !it.IsError {
			r.addFile(it.Path)
		}
	}
	r.resync = true
}

// ItemCount is the number of items in the state.
func (r *Reducer) ItemCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.st.Items)
}

func (r *Reducer) resetState(session SessionInfo) {
	old := r.st
	r.st = NewState()
	r.st.Session = session
	r.st.Mode, r.st.Yolo, r.st.Model, r.st.ThinkingLevel = old.Mode, old.Yolo, old.Model, old.ThinkingLevel
	r.st.Status, r.st.Phase = old.Status, old.Phase
	r.st.Tokens.ContextWindow = old.Tokens.ContextWindow
	if old.Session.ID == session.ID {
		r.st.Jobs = old.Jobs // the same session at another leaf: its jobs run on
	}
	r.resetTracking()
}

// dispatch hands the recorded ops to the schedulers. The caller holds mu.
func (r *Reducer) dispatch(urgent bool) {
	if r.resync {
		r.resync = false
		r.ops = r.ops[:0]
		for _, s := range r.scheds {
			s.resyncLocked()
		}
		return
	}
	if len(r.ops) == 0 {
		return
	}
	for _, s := range r.scheds {
		s.addLocked(r.ops, urgent)
	}
	clear(r.ops) // drop references held by the scratch slice
	r.ops = r.ops[:0]
}

// fold applies ev to the state and records ops; it reports whether the
// event must reach clients at once.
func (r *Reducer) fold(ev harness.Event) (urgent bool) {
	switch ev.Type {
	case harness.EvAgentStart:
		r.setStatus(StatusRunning)
		if len(r.st.ReturnedDrafts) > 0 {
			r.st.ReturnedDrafts = []string{}
			r.set(path("returnedDrafts"), []string{})
		}
		return true
	case harness.EvDraftsReturned:
		r.st.ReturnedDrafts = cloneStrings(ev.Drafts)
		r.set(path("returnedDrafts"), cloneStrings(ev.Drafts))
		return true
	case harness.EvAgentEnd:
		r.endRun(protocol.RunEndReason(ev.Reason))
		if successfulEnd(ev.Reason) {
			r.clearBanners()
		}
		return true
	case harness.EvPhase:
		if ph := protocol.Phase(ev.Phase); r.st.Phase != ph {
			r.st.Phase = ph
			r.set(path("phase"), string(ph))
		}
	case harness.EvMessageStart:
		r.messageStart(ev)
	case harness.EvMessageUpdate:
		r.messageUpdate(ev)
	case harness.EvMessageEnd:
		r.messageEnd(ev)
	case harness.EvToolStart:
		r.toolStart(ev)
	case harness.EvToolUpdate:
		r.toolUpdate(ev)
	case harness.EvToolEnd:
		r.toolEnd(ev)
		return true
	case harness.EvSubagentStart, harness.EvSubagentEvent, harness.EvSubagentEnd:
		return r.subagentEvent(ev)
	case harness.EvApproval, harness.EvApprovalDone, harness.EvQuestion, harness.EvQuestionDone,
		harness.EvPlan, harness.EvPlanDone:
		r.pendingEvent(ev)
		if ev.Type == harness.EvPlanDone {
			r.planVerdict(ev)
		}
		return true
	case harness.EvTasks:
		tasks := WireTasks(ev.Tasks)
		if slices.Equal(r.st.Tasks, tasks) {
			break
		}
		r.st.Tasks = tasks
		r.set(path("tasks"), r.st.Tasks)
	case harness.EvQueueUpdate:
		r.st.Queue = Queue{Steering: cloneStrings(ev.Steering), FollowUp: cloneStrings(ev.FollowUp)}
		r.set(path("queue"), r.st.Queue)
		return true
	case harness.EvRetryStart:
		r.st.Retry = &Retry{Attempt: ev.Attempt, DelayMs: ev.DelayMs, Error: ev.Error, ItemID: r.turn}
		r.set(path("retry"), *r.st.Retry)
	case harness.EvRetryEnd:
		if r.st.Retry != nil {
			r.st.Retry = nil
			r.set(path("retry"), nil)
		}
	case harness.EvCompactionStart:
		r.st.Compaction = &Compaction{Reason: ev.Reason}
		r.set(path("compaction"), *r.st.Compaction)
	case harness.EvCompactionEnd:
		r.compactionEnd(ev)
	case harness.EvMode:
		m := Mode{ID: ev.Mode, Name: ev.ModeName, Color: ev.ModeColor}
		if m.Name == "" {
			m = DefaultModeInfo(ev.Mode)
		}
		if m != r.st.Mode {
			r.st.Mode = m
			r.set(path("mode"), m)
		}
		if ev.Yolo != r.st.Yolo {
			r.st.Yolo = ev.Yolo
			r.set(path("yolo"), ev.Yolo)
		}
		if ev.Sandbox != "" && ev.Sandbox != r.st.Sandbox {
			r.st.Sandbox = ev.Sandbox
			r.set(path("sandbox"), ev.Sandbox)
		}
		return true
	case harness.EvModel:
		if ev.Model != r.st.Model {
			if r.st.Model != "" {
				r.clearBanners() // another model: the last one's failures are not this one's
			}
			r.st.Model = ev.Model
			r.set(path("model"), ev.Model)
		}
		r.setTokens(ev.Tokens) // the new model's context window
		return true
	case harness.EvThinking:
		if string(ev.Thinking) != r.st.ThinkingLevel {
			r.st.ThinkingLevel = string(ev.Thinking)
			r.set(path("thinkingLevel"), string(ev.Thinking))
		}
	case harness.EvSessionInfo:
		if ev.Name != r.st.Session.Name {
			r.st.Session.Name = ev.Name
			r.set(path("session", "name"), ev.Name)
		}
	case harness.EvUsage:
		r.setTokens(ev.Tokens)
	case harness.EvMemory:
		r.setMemory(ev.Memory)
	case harness.EvGoal:
		r.setGoal(ev.Goal)
		return true
	case harness.EvSession:
		r.sessionChange(ev)
		return true
	case harness.EvError, harness.EvMCPServer:
		r.addError(ev.Error)
		return true
	case harness.EvNotice:
		r.pushItem(Item{Kind: KindInfo, Text: "⚠ " + ev.Notice})
		return true
	case harness.EvJob:
		r.jobUpdate(ev.Job)
		return true
	case harness.EvJobOutput:
		r.jobOutput(ev.Job, ev.Output) // not urgent: coalesced like token deltas
	}
	return false
}

func (r *Reducer) setStatus(s protocol.RunStatus) {
	if r.st.Status != s {
		r.st.Status = s
		r.set(path("status"), s)
	}
}

// endRun settles everything a finished (or aborted) run left open; tool
// calls it cut are interrupted for reason.
func (r *Reducer) endRun(reason protocol.RunEndReason) {
	r.finishLive(nil)
	for _, ct := range r.children {
		if c := r.st.Items[ct.parent.idx].Child; c != nil && c.Status == ChildRunning {
			c.Status = ChildAborted
			r.set(r.childPath(ct, "status"), ChildAborted)
		}
	}
	for _, t := range r.tools {
		switch r.st.Items[t.idx].Status {
		case ToolPending, ToolAwaitingApproval, ToolRunning:
			r.interruptTool(t.idx, reason)
		}
	}
	if r.st.Pending.Approval != nil {
		r.st.Pending.Approval = nil
		r.set(path("pending", "approval"), nil)
	}
	if r.st.Pending.Question != nil {
		r.st.Pending.Question = nil
		r.set(path("pending", "question"), nil)
	}
	if r.st.Pending.Plan != nil {
		r.st.Pending.Plan = nil
		r.set(path("pending", "plan"), nil)
	}
	if r.st.Retry != nil {
		r.st.Retry = nil
		r.set(path("retry"), nil)
	}
	r.setStatus(StatusIdle)
}

func (r *Reducer) compactionEnd(ev harness.Event) {
	if r.st.Compaction != nil {
		r.st.Compaction = nil
		r.set(path("compaction"), nil)
	}
	if ev.Summary != "" {
		r.pushItem(Item{Kind: KindSummary, Text: ev.Summary, SummaryKind: "compaction"})
	}
	if ev.Error != "" {
		r.addError(ev.Error)
	}
	r.setTokens(ev.Tokens)
}

// setTokens sends the counters that changed, one set each (the scheduler
// sends neighbouring sets as one merge).
func (r *Reducer) setTokens(ht *harness.Tokens) {
	if ht == nil {
		return
	}
	t := WireTokens(*ht)
	if t == r.st.Tokens {
		return
	}
	old := r.st.Tokens
	r.st.Tokens = t
	for _, f := range []struct {
		name     string
		old, new int
	}{
		{"input", old.Input, t.Input}, {"output", old.Output, t.Output},
		{"cacheRead", old.CacheRead, t.CacheRead}, {"cacheWrite", old.CacheWrite, t.CacheWrite},
		{"total", old.Total, t.Total}, {"contextTokens", old.ContextTokens, t.ContextTokens},
		{"contextWindow", old.ContextWindow, t.ContextWindow}, {"reserveTokens", old.ReserveTokens, t.ReserveTokens},
		{"keepRecentTokens", old.KeepRecent, t.KeepRecent}, {"compactions", old.Compactions, t.Compactions},
	} {
		if f.old != f.new {
			r.set(path("tokens", f.name), f.new)
		}
	}
	if old.Cost != t.Cost {
		r.set(path("tokens", "cost"), t.Cost)
	}
	if old.TurnCost != t.TurnCost {
		r.set(path("tokens", "turnCost"), t.TurnCost)
	}
}

func (r *Reducer) addError(msg string) {
	if msg == "" {
		msg = "unknown error"
	}
	b := ErrorBanner{Text: msg, ItemID: r.turn}
	if len(r.st.Errors) >= MaxErrors {
		kept := append(make([]ErrorBanner, 0, MaxErrors), r.st.Errors[len(r.st.Errors)-MaxErrors+1:]...)
		r.st.Errors = append(kept, b)
		r.set(path("errors"), cloneBanners(r.st.Errors))
	} else {
		r.st.Errors = append(r.st.Errors, b)
		r.push(path("errors"), b)
	}
	r.pushItem(Item{Kind: KindError, Text: msg})
}

func (r *Reducer) addFile(p string) {
	if p == "" || r.files[p] {
		return
	}
	r.files[p] = true
	r.st.ModifiedFiles = append(r.st.ModifiedFiles, p)
	r.push(path("modifiedFiles"), p)
}

// pushItem appends it (with a fresh id if it has none) and returns its index.
func (r *Reducer) pushItem(it Item) int {
	if it.ID == "" {
		it.ID = r.newID()
	}
	if it.Kind == KindUser {
		r.turn = it.ID
	}
	r.st.Items = append(r.st.Items, it)
	r.ops = append(r.ops, rop{op: OpPush, path: path("items"), val: it, at: len(r.st.Items) - 1})
	return len(r.st.Items) - 1
}

func (r *Reducer) newID() string {
	r.nextID++
	return "i" + strconv.Itoa(r.nextID)
}

func (r *Reducer) setItemField(idx int, field string, v any) {
	r.set(path("items", idx, field), v)
}

// Op recorders. Values must be copies the reducer never mutates afterwards.
func (r *Reducer) set(p []any, v any) { r.ops = append(r.ops, rop{op: OpSet, path: p, val: v}) }
func (r *Reducer) push(p []any, v any) {
	r.ops = append(r.ops, rop{op: OpPush, path: p, val: v, at: -1})
}
func (r *Reducer) appendStr(p []any, s string) {
	r.ops = append(r.ops, rop{op: OpAppend, path: p, str: s, at: -1})
}

func path(els ...any) []any { return els }

// syncLive brings the streamed item's strings up to date. The caller holds mu.
func (r *Reducer) syncLive() {
	r.syncChildren()
	l := r.live
	if l == nil || l.synced {
		return
	}
	r.st.Items[l.idx].Text = string(l.text)
	r.st.Items[l.idx].Thinking = string(l.thinking)
	l.synced = true
}

// snapshotLocked returns a deep copy of the state. The caller holds mu.
func (r *Reducer) snapshotLocked() State {
	r.syncLive()
	return cloneState(&r.st)
}
