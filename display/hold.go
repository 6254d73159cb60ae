package display

import (
	"strconv"
	"strings"
)

// Holder says how much of the end of streamed text could be the beginning
// of a secret; *tools.Redactor satisfies it.
type Holder interface {
	HoldLen(s string) int
}

// heldTail is the end of one item's streamed string that waits: it could
// be the start of a secret that the next append completes.
type heldTail struct {
	path []any
	text string
}

// holdOps cuts the streamed text of a frame's ops where no secret can be
// split (SchedulerOptions.Hold), so that the egress, which masks each
// frame, sees every secret whole. The unsafe tail of an item's string waits
// here, keyed by its path: it goes out in front of that string's next
// append, or as an append of its own just before the op that ends the
// string (a set of a sibling such as "streaming", a push of the next item,
// a merge above it); a set or delete of the string or a member above it
// sends the text whole and drops it. A pushed item's first text (an
// append folded into its push) is held at the item's index (at[i], the
// index op i pushes to, or -1). The caller holds r.mu.
func (s *Scheduler) holdOps(ops []Op, at []int) []Op {
	if s.hold == nil {
		return ops
	}
	out := make([]Op, 0, len(ops)+len(s.held))
	for i, o := range ops {
		for k, h := range s.held {
			parent := h.path[:len(h.path)-1]
			switch {
			case o.Op == OpAppend:
				// Another string's text never ends this one.
			case hasPrefix(h.path, o.Path) && (o.Op == OpSet || o.Op == OpDelete):
				delete(s.held, k) // sent whole, or gone
			case hasPrefix(h.path, o.Path) || len(o.Path) == len(h.path) && hasPrefix(o.Path, parent):
				out = append(out, Op{Op: OpAppend, Path: h.path, Value: h.text})
				delete(s.held, k)
			}
		}
		switch {
		case o.Op == OpAppend && s.whole[pathKey(o.Path)] != nil:
			// The client got this string's unsafe end in a full state: it
			// is sent again whole (less its new tail), never joined to it.
			idx, field := s.whole[pathKey(o.Path)].idx, s.whole[pathKey(o.Path)].field
			delete(s.whole, pathKey(o.Path))
			delete(s.held, pathKey(o.Path))
			if idx < len(s.r.st.Items) {
				o.Op, o.Value = OpSet, s.holdText(o.Path, itemString(&s.r.st.Items[idx], field))
				out = append(out, o)
				continue
			}
			fallthrough
		case o.Op == OpAppend:
			str, _ := o.Value.(string)
			if send := s.holdText(o.Path, str); send != "" {
				o.Value = send
				out = append(out, o)
			}
			continue
		case o.Op == OpPush && at[i] >= 0:
			// Only an item still streaming: a finished one (its end
			// folded into the push too) goes out whole.
			if it, ok := o.Value.(Item); ok && (it.Streaming || it.Status == ToolRunning) {
				if it.Streaming {
					it.Text = s.holdText(path("items", at[i], "text"), it.Text)
					it.Thinking = s.holdText(path("items", at[i], "thinking"), it.Thinking)
				} else {
					it.Output = s.holdText(path("items", at[i], "output"), it.Output)
				}
				o.Value = it
			}
		}
		out = append(out, o)
	}
	return out
}

// holdText takes the next text of the string at p and returns what may go
// now; the rest is held. The caller holds r.mu.
func (s *Scheduler) holdText(p []any, text string) string {
	k := pathKey(p)
	if h, ok := s.held[k]; ok {
		text = h.text + text
	}
	n := s.hold.HoldLen(text)
	if n == 0 {
		delete(s.held, k)
		return text
	}
	s.held[k] = heldTail{path: p, text: text[len(text)-n:]}
	return text[:len(text)-n]
}

// dropHeld forgets what is held: a full state (snapshot, resync) sends the
// text whole. The streamed item's strings that end in text that could be
// the start of a secret are marked: their next append is sent as a set of
// the whole string, so that the client never joins the end it got in the
// state to the rest of a secret. The caller holds r.mu.
func (s *Scheduler) dropHeld() {
	clear(s.held)
	clear(s.whole)
	l := s.r.live
	if s.hold == nil || l == nil || l.idx >= len(s.r.st.Items) {
		return
	}
	for _, f := range []struct {
		field string
		text  []byte
	}{{"text", l.text}, {"thinking", l.thinking}} {
		if len(f.text) > 0 && s.hold.HoldLen(string(f.text)) > 0 {
			s.whole[pathKey(path("items", l.idx, f.field))] = &wholeString{idx: l.idx, field: f.field}
		}
	}
}

// wholeString is a streamed item string to send whole at its next append.
type wholeString struct {
	idx   int
	field string
}

// itemString is an item's streamed string by its field name.
func itemString(it *Item, field string) string {
	switch field {
	case "text":
		return it.Text
	case "thinking":
		return it.Thinking
	}
	return it.Output
}

// pathKey is a map key for a path of strings and ints.
func pathKey(p []any) string {
	var b strings.Builder
	for _, el := range p {
		switch v := el.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case string:
			b.WriteString(strconv.Quote(v))
		}
		b.WriteByte('/')
	}
	return b.String()
}
