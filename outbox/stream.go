package outbox

import (
	"strings"

	"github.com/pi-lsp/pi-lsp/protocol"
)

// Stream names one stream of token deltas: the subagent tool calls it runs
// under ("" for the session's own run; "call_1/" for a subagent's, nested
// subagents append theirs), its content index and its delta kind.
type Stream struct {
	Subagent string
	Kind     string
	Index    int
}

// streamOf returns the stream a message_update (or a subagent_event whose
// innermost child is one) belongs to, and its delta.
func streamOf(ev *protocol.Event) (Stream, string, bool) {
	path := ""
	for ev.Type == protocol.EvSubagentEvent && ev.Child != nil {
		if ev.Subagent != nil {
			path += ev.Subagent.ToolCallID + "/"
		}
		ev = ev.Child
	}
	if ev.Type != protocol.EvMessageUpdate || ev.DeltaKind == "" {
		return Stream{}, "", false
	}
	return Stream{Subagent: path, Kind: ev.DeltaKind, Index: ev.ContentIndex}, ev.Delta, true
}

// ends reports whether ev ends stream s: its message starts or ends, its
// run's turn or run ends, or the subagent tool call it runs under ends.
func ends(ev *protocol.Event, s Stream) bool {
	path := ""
	for ev.Type == protocol.EvSubagentEvent && ev.Child != nil {
		if ev.Subagent != nil {
			path += ev.Subagent.ToolCallID + "/"
		}
		ev = ev.Child
	}
	switch ev.Type {
	case protocol.EvMessageStart, protocol.EvMessageEnd:
		return s.Subagent == path
	case protocol.EvTurnEnd, protocol.EvAgentEnd:
		return strings.HasPrefix(s.Subagent, path)
	case protocol.EvToolEnd:
		return ev.ToolCallID != "" && strings.HasPrefix(s.Subagent, path+ev.ToolCallID+"/")
	case protocol.EvSubagentEnd:
		return ev.Subagent != nil && strings.HasPrefix(s.Subagent, path+ev.Subagent.ToolCallID+"/")
	}
	return false
}

// withDelta returns ev with its (innermost child's) delta set to text. ev
// is not modified: the chain of children is copied.
func withDelta(ev protocol.Event, text string) protocol.Event {
	if ev.Type == protocol.EvSubagentEvent && ev.Child != nil {
		c := withDelta(*ev.Child, text)
		ev.Child = &c
		return ev
	}
	ev.Delta = text
	return ev
}
