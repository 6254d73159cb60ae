package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
)

// Bounds of the recent history a session_change carries: the newest whole
// turns of the context, at most HistoryMessages messages and about
// HistoryBytes of session lines (at least one turn). The display bounds
// its state the same way (display.DefaultItems, display.MaxStateBytes).
const (
	HistoryMessages = 200
	HistoryBytes    = 512 << 10
	// historyOutput is what a tool output or command output of the history
	// is cut to (its tail), to bound what a session_change carries. It is
	// a little more than a display keeps (8 KiB, display's keptOutput), and
	// both cut with textcut.Tail, whose second cut gives what one cut
	// gives: a reopened block starts at the same line as the live one.
	historyOutput = 9 << 10
)

// History is the display-safe recent history of the current context that
// session_change carries, oldest first: Messages[i] is the message of the
// session entry EntryIDs[i]. Older counts the display items of the context
// entries before the first (session.CountItems), and Before is that first
// entry (the cursor of display/history); both are zero when the history
// starts at the context's start.
type History struct {
	Messages []llm.Message `json:"messages"`
	EntryIDs []string      `json:"entryIds"`
	Older    int           `json:"older,omitempty"`
	Before   string        `json:"before,omitempty"`
}

// recentHistory reads the newest whole turns of the current context. The
// session reads only that tail of the branch (session.RecentContext), so
// opening a large session decodes no more than what the display shows.
func (h *Harness) recentHistory(ctx context.Context) *History {
	out := &History{Messages: []llm.Message{}, EntryIDs: []string{}}
	s := h.currentSession()
	if s == nil {
		return out
	}
	rc, err := s.RecentContext(ctx, HistoryMessages, HistoryBytes)
	if err != nil {
		h.log.Warn("recent history", "err", err)
		return out
	}
	for i := range rc.Messages {
		rc.Messages[i] = cutOutput(h.displayCopy(rc.Messages[i]))
	}
	out.Messages, out.EntryIDs = rc.Messages, rc.EntryIDs
	out.Older, out.Before = rc.Older, rc.Before
	return out
}

// cutOutput keeps the tail of a long tool or command output.
func cutOutput(m llm.Message) llm.Message {
	switch m.Role {
	case llm.RoleToolResult:
		if t := m.Text(); len(t) > historyOutput {
			m.Content = []llm.ContentBlock{llm.TextBlock(textcut.Tail(t, historyOutput))}
		}
	case llm.RoleBashExecution:
		m.Output = textcut.Tail(m.Output, historyOutput)
	}
	return m
}

// sessionEvent is the session_change of the current session: its info and
// its recent history. It resets the count of messages shown since.
func (h *Harness) sessionEvent(ctx context.Context) Event {
	info := h.SessionInfo()
	hist := h.recentHistory(ctx)
	h.mu.Lock()
	h.shown = len(hist.Messages)
	h.mu.Unlock()
	// The session's tokens go with it: a display that replaces its state
	// for the session shows its totals, never the previous session's.
	return Event{Type: EvSession, SessionID: info.ID, Session: &info, History: hist, Tokens: h.tokensPtr()}
}

// reseedEvent is a session_change that bounds the displays again once
// more than twice HistoryMessages were shown since the last one (a long
// run), or nil.
func (h *Harness) reseedEvent(ctx context.Context) *Event {
	h.mu.Lock()
	over := h.sessions.cur != nil && h.shown > 2*HistoryMessages
	h.mu.Unlock()
	if !over {
		return nil
	}
	ev := h.sessionEvent(ctx)
	return &ev
}

func (h *Harness) noteShown(n int) {
	h.mu.Lock()
	h.shown += n
	h.mu.Unlock()
}

// modeEvent is the mode_change of the current mode: its id, name and
// colour, YOLO and the sandbox of commands.
func (h *Harness) modeEvent() Event {
	ms := h.ModeState()
	ev := Event{Type: EvMode, Mode: ms.Mode, Yolo: ms.Yolo, Sandbox: h.SandboxState().Mode}
	if m := h.modeByID(ms.Mode); m != nil {
		ev.ModeName, ev.ModeColor = m.Name, m.Color
	}
	return ev
}

// Attach subscribes fn as Subscribe does, first handing it the events that
// describe the current state, in order: the session (with its recent
// history), the phase, the queue, mode, model, thinking level, token
// usage, memory and the notices given so far. No event falls between them
// and the live ones. A display attaches with it: its input is events only.
func (h *Harness) Attach(ctx context.Context, fn func(Event)) (unsubscribe func()) {
	b := &h.owner.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range h.stateEvents(ctx) {
		fn(ev)
	}
	return b.subscribeLocked(fn)
}

// stateEvents are the events Attach replays (Seq 0: they are not part of
// the stream). The caller holds the bus lock.
func (h *Harness) stateEvents(ctx context.Context) []Event {
	var evs []Event
	if h.currentSession() != nil {
		evs = append(evs, h.sessionEvent(ctx))
	} else {
		// No session yet (the first prompt creates it): the display still
		// learns the cwd it will be in.
		info := h.SessionInfo()
		evs = append(evs, Event{Type: EvSession, Session: &info})
	}
	if p := h.Phase(); p != PhaseIdle {
		evs = append(evs, Event{Type: EvPhase, Phase: p})
	}
	if s, f := h.Queue(); len(s)+len(f) > 0 {
		evs = append(evs, Event{Type: EvQueueUpdate, Steering: s, FollowUp: f})
	}
	evs = append(evs, h.modeEvent())
	if m, err := h.Model(ctx); err == nil {
		evs = append(evs, Event{Type: EvModel, Model: m.Ref()})
	}
	evs = append(evs, Event{Type: EvThinking, Thinking: h.Thinking()}, Event{Type: EvUsage, Tokens: h.tokensPtr()})
	if mv, err := h.MemoryShow(ctx); err == nil && mv.Settings.Observational() {
		st := mv.Status
		evs = append(evs, Event{Type: EvMemory, Memory: &st})
	}
	for _, n := range h.Notices() {
		evs = append(evs, Event{Type: EvNotice, Notice: n})
	}
	evs = append(evs, h.jobStateEvents()...)
	return evs
}
