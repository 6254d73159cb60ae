package display

import (
	"context"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/session"
)

// sessionChange folds a session_change: the session it names becomes the
// state's, and the recent history it carries (harness.History) is seeded,
// bounded as Page bounds a page (whole turns, DefaultItems items, about
// MaxStateBytes). The first session of an empty display (the first prompt
// created it) is an op; any other change replaces the state.
func (r *Reducer) sessionChange(ev harness.Event) {
	if ev.Session == nil {
		// An event without the session: only its id is known.
		info := r.st.Session
		if ev.SessionID != info.ID {
			info = SessionInfo{ID: ev.SessionID, Cwd: info.Cwd}
		}
		r.resetState(info)
		r.resync = true
		return
	}
	info := SessionInfo{ID: ev.Session.ID, Path: ev.Session.Path, Name: ev.Session.Name, Cwd: ev.Session.Cwd}
	items, older := historyPage(ev.History)
	if len(items) == 0 && older == nil && r.st.Session.ID == "" && len(r.st.Items) == 0 {
		r.st.Session = info
		r.set(path("session"), info)
		r.setTokens(ev.Tokens)
		return
	}
	r.resetLocked(info, items, older)
	if ev.Tokens != nil {
		// The session's own totals, in the full state the reset sends.
		r.st.Tokens = WireTokens(*ev.Tokens)
	}
}

// historyPage turns the history of a session_change into the items of the
// state and the marker of what is older.
func historyPage(h *harness.History) ([]Item, *protocol.HistoryMarker) {
	if h == nil || len(h.Messages) == 0 {
		return nil, nil
	}
	src := eventHistory{h: h}
	items, older, err := Page(context.Background(), src, "", DefaultItems, MaxStateBytes)
	if err != nil {
		return nil, nil
	}
	switch {
	case older != nil:
		older.Older += h.Older
	case h.Before != "":
		older = &protocol.HistoryMarker{Older: h.Older, Before: h.Before}
	}
	return items, older
}

// eventHistory is a HistorySource over the messages a session_change
// carries.
type eventHistory struct{ h *harness.History }

func (e eventHistory) ContextSlots(context.Context) ([]session.Slot, error) {
	slots := make([]session.Slot, len(e.h.Messages))
	for i, m := range e.h.Messages {
		slots[i] = session.MessageSlot(e.h.EntryIDs[i], m)
	}
	return slots, nil
}

func (e eventHistory) DisplayMessages(_ context.Context, ids []string) ([]llm.Message, []string, error) {
	at := make(map[string]int, len(e.h.EntryIDs))
	for i, id := range e.h.EntryIDs {
		at[id] = i
	}
	msgs := make([]llm.Message, 0, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if i, ok := at[id]; ok {
			msgs = append(msgs, e.h.Messages[i])
			out = append(out, id)
		}
	}
	return msgs, out, nil
}
