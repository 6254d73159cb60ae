package session

import (
	"context"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Recent is the newest part of the current context that a display shows
// first (see RecentContext).
type Recent struct {
	Messages []llm.Message // oldest first
	EntryIDs []string      // the entry of each message
	// Older counts the display items (see CountItems) of the context
	// slots before the first one read, and Before is that first slot's
	// entry id; both are zero when the recent part starts at the
	// context's start.
	Older  int
	Before string
}

// slotRef is one context slot read from the end.
type slotRef struct {
	i     int32
	user  bool
	bytes int
}

// isSlot reports whether record r is a slot of ContextSlots.
func isSlot(r *rec) bool {
	return r.kind.inContext() && (r.kind != kMessage || r.role != 0)
}

// RecentContext returns the newest whole turns of the current context: the
// slots ContextSlots would list, read from the end one turn (a user
// message and what follows it) at a time while they stay within maxMsgs
// slots and maxBytes of session lines (at least one turn), with their
// messages decoded as ContextMessages does. It reads only that tail of the
// branch, so its cost does not grow with the session.
func (s *Session) RecentContext(ctx context.Context, maxMsgs, maxBytes int) (Recent, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out Recent
	var prov, model, th string
	p, ok, err := s.contextHead(&prov, &model, &th)
	if err != nil || !ok {
		return out, err
	}
	recs := s.idx.recs
	var rev []slotRef // newest first, read as far back as needed
	e, compLeft := len(p.emit), p.compaction != none
	more := func() bool {
		for e > 0 {
			e--
			if r := &recs[p.emit[e]]; isSlot(r) {
				rev = append(rev, slotRef{p.emit[e], r.kind == kMessage && r.role == roleUser, int(r.n)})
				return true
			}
		}
		if compLeft {
			compLeft = false
			rev = append(rev, slotRef{p.compaction, false, int(recs[p.compaction].n)})
			return true
		}
		return false
	}
	has := func(k int) bool {
		for len(rev) <= k {
			if !more() {
				return false
			}
		}
		return true
	}
	n, size, taken := 0, 0, 0
	for has(taken) {
		// The turn: back to its user message, or to the first slot.
		j := taken
		for !rev[j].user && has(j+1) {
			j++
		}
		ts := 0
		for _, sl := range rev[taken : j+1] {
			ts += sl.bytes
		}
		if cnt := j + 1 - taken; n > 0 && (n+cnt > maxMsgs || size+ts > maxBytes) {
			break
		}
		n, size, taken = n+j+1-taken, size+ts, j+1
		if n >= maxMsgs {
			break
		}
	}
	// The items of the older slots, oldest first: the compaction's
	// summary when it was not read, the slots not read, then those read
	// but not taken.
	var c itemCounter
	olderSlots := len(rev) - taken
	if compLeft {
		olderSlots++
		c.addRec(&recs[p.compaction])
	}
	for k, i := range p.emit[:e] {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return Recent{}, err
			}
		}
		if isSlot(&recs[i]) {
			olderSlots++
			c.addRec(&recs[i])
		}
	}
	for k := len(rev) - 1; k >= taken; k-- {
		c.addRec(&recs[rev[k].i])
	}
	older := c.n
	out.Messages = make([]llm.Message, 0, taken)
	out.EntryIDs = make([]string, 0, taken)
	for k := taken - 1; k >= 0; k-- {
		i := rev[k].i
		m, ok, err := s.contextMessage(i)
		if err != nil {
			s.warn(err.Error() + " (left out of the display)")
			continue
		}
		if ok {
			out.Messages = append(out.Messages, m)
			out.EntryIDs = append(out.EntryIDs, s.idx.id(i))
		}
	}
	if olderSlots > 0 {
		out.Older, out.Before = older, s.idx.id(rev[taken-1].i)
	}
	return out, nil
}
