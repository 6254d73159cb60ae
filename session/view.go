package session

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/pi-lsp/pi-lsp/llm"
)

// This file reads the current context from the index, decoding only what a
// caller asks for: what opening a large session in an editor needs (the
// usage totals, the tail the token count is made of, the layout the
// display pages through) costs what is shown, not the size of the file.

var (
	roleUser       = roleOf("user")
	roleAssistant  = roleOf("assistant")
	roleToolResult = roleOf("toolResult")
)

// usageRec is an assistant message's usage, read while indexing.
type usageRec struct {
	input, output, cacheRead, cacheWrite, total int32
	cost                                        int32 // 1 + its index in index.costs, 0 if no cost was recorded
	bad                                         bool  // stopReason aborted or error
}

// parseUsage reads the counters of a raw usage object (missing or odd
// values count 0) and its recorded cost (usage.cost, models.json prices
// applied when the message was made) into cost. It runs for every answer
// of a session being indexed, so it reads the members in one loop (no
// callback) and the usual small integers without strconv.
func parseUsage(raw []byte, stop string, cost *llm.Cost) usageRec {
	u := usageRec{bad: stop == string(llm.StopAborted) || stop == string(llm.StopError)}
	if len(raw) == 0 || raw[0] != '{' {
		return u
	}
	it, err := newObjIter(raw, 0)
	if err != nil {
		return u
	}
	m, ok, err := it.next()
	for ok && err == nil {
		if m.end, err = skipValue(raw, m.start); err != nil {
			break
		}
		v := raw[m.start:m.end]
		switch string(m.name()) {
		case "input":
			u.input = usageNum(v)
		case "output":
			u.output = usageNum(v)
		case "cacheRead":
			u.cacheRead = usageNum(v)
		case "cacheWrite":
			u.cacheWrite = usageNum(v)
		case "totalTokens":
			u.total = usageNum(v)
		case "cost":
			*cost = parseCost(v)
		}
		var more bool
		if more, err = it.after(m.end); err != nil || !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	return u
}

// usageNum reads a token count: an int32 (a float is truncated); odd,
// negative-float or out-of-range values count 0.
func usageNum(v []byte) int32 {
	if len(v) > 0 && len(v) <= 9 {
		n := int32(0)
		for _, c := range v {
			if c < '0' || c > '9' {
				goto slow
			}
			n = n*10 + int32(c-'0')
		}
		return n
	}
slow:
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(v), 64)
		if ferr != nil || f < 0 || f > 1<<31-1 {
			return 0
		}
		return int32(f)
	}
	return int32(n)
}

// parseCost reads a recorded cost object ({input, output, cacheRead,
// cacheWrite, total}); missing, odd or negative values count 0.
func parseCost(raw []byte) llm.Cost {
	var c llm.Cost
	if len(raw) == 0 || raw[0] != '{' {
		return c
	}
	num := func(v []byte) float64 {
		if len(v) == 1 && v[0] == '0' {
			return 0
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return 0
		}
		return f
	}
	it, err := newObjIter(raw, 0)
	if err != nil {
		return c
	}
	m, ok, err := it.next()
	for ok && err == nil {
		if m.end, err = skipValue(raw, m.start); err != nil {
			break
		}
		v := raw[m.start:m.end]
		switch string(m.name()) {
		case "input":
			c.Input = num(v)
		case "output":
			c.Output = num(v)
		case "cacheRead":
			c.CacheRead = num(v)
		case "cacheWrite":
			c.CacheWrite = num(v)
		case "total":
			c.Total = num(v)
		}
		var more bool
		if more, err = it.after(m.end); err != nil || !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	return c
}

// Cost is the recorded cost of every assistant message in the file, on
// every branch (what the session has cost, abandoned branches and
// compacted turns included), from the index alone.
func (s *Session) Cost() llm.Cost {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.cost
}

func (u usageRec) usage() llm.Usage {
	return llm.Usage{Input: int(u.input), Output: int(u.output), CacheRead: int(u.cacheRead), CacheWrite: int(u.cacheWrite), TotalTokens: int(u.total)}
}

// ContextUsage sums the recorded usage of the assistant messages in the
// current context and returns the usage of the last one that was neither
// aborted nor an error (pi's session stats), from the index alone.
func (s *Session) ContextUsage(ctx context.Context) (sum, last llm.Usage, err error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var p plan
	var prov, model, th string
	p, ok, err := s.contextHead(&prov, &model, &th)
	if err != nil || !ok {
		return sum, last, err
	}
	for k, i := range p.emit {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return llm.Usage{}, llm.Usage{}, err
			}
		}
		r := &s.idx.recs[i]
		if r.kind != kMessage || r.role != roleAssistant || r.aux == 0 {
			continue
		}
		u := s.idx.usage[r.aux-1]
		sum.Input += int(u.input)
		sum.Output += int(u.output)
		sum.CacheRead += int(u.cacheRead)
		sum.CacheWrite += int(u.cacheWrite)
		sum.TotalTokens += int(u.total)
		if !u.bad {
			last = u.usage()
			if u.cost > 0 {
				last.Cost = s.idx.costs[u.cost-1]
			}
		}
		if u.cost > 0 {
			sum.Cost = sum.Cost.Add(s.idx.costs[u.cost-1])
		}
	}
	return sum, last, nil
}

// ContextTail returns the end of the current context that its token count
// is made of (compaction.ContextTokens gives the same count for it as for
// the whole context): the messages from the last assistant message with
// trustworthy usage after the latest compaction to the leaf. When there is
// none, it is the whole context. It decodes only those entries.
func (s *Session) ContextTail(ctx context.Context) (Context, error) {
	s.mu.RLock()
	out := Context{ThinkingLevel: "off"}
	p, ok, err := s.contextHead(&out.Provider, &out.ModelID, &out.ThinkingLevel)
	if err != nil || !ok {
		s.mu.RUnlock()
		return out, err
	}
	from := -1
	for k := len(p.emit) - 1; k >= p.kept; k-- {
		r := &s.idx.recs[p.emit[k]]
		if r.kind == kMessage && r.role == roleAssistant && r.aux != 0 {
			if u := s.idx.usage[r.aux-1]; !u.bad && (u.total > 0 || u.input+u.output+u.cacheRead+u.cacheWrite > 0) {
				from = k
				break
			}
		}
	}
	if from < 0 {
		s.mu.RUnlock()
		return s.BuildContext(ctx)
	}
	defer s.mu.RUnlock()
	for _, i := range p.emit[from:] {
		if m, ok, err := s.contextMessage(i); err != nil {
			s.warn(err.Error() + " (left out of the context)")
		} else if ok {
			out.Messages = append(out.Messages, m)
			out.EntryIDs = append(out.EntryIDs, s.idx.id(i))
		}
	}
	return out, nil
}

// contextMessage is the message record i gives the context, through the
// cache. The caller holds s.mu.
func (s *Session) contextMessage(i int32) (llm.Message, bool, error) {
	r := &s.idx.recs[i]
	if r.kind == kCompaction {
		c, err := s.decode(i)
		if err != nil {
			return llm.Message{}, false, err
		}
		return llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: c.TimestampMillis()}, true, nil
	}
	if !r.kind.inContext() {
		return llm.Message{}, false, nil
	}
	m, ok, hit := s.cache.get(i)
	if !hit {
		e, err := s.decode(i)
		if err != nil {
			return llm.Message{}, false, err
		}
		m, ok = e.ContextMessage()
		s.cache.put(i, int(r.n), m, ok)
	}
	return m, ok, nil
}

// Slot is one entry of the current context, as the index knows it: the
// compaction in effect (its summary) first, then every entry that may give
// a message, root to leaf.
type Slot struct {
	ID    string
	User  bool // a user message: a turn starts here
	Bytes int  // length of the entry's line
	// Items is how many display items the entry gives, Calls how many tool
	// calls it opens, and Result marks a tool result, which fills in an
	// open call of its turn instead of giving an item (see CountItems).
	Items  int
	Calls  int
	Result bool
}

// slotOf is record i as a slot.
func (x *index) slotOf(i int32) Slot {
	r := &x.recs[i]
	return Slot{ID: x.id(i), User: r.kind == kMessage && r.role == roleUser, Bytes: int(r.n),
		Items: int(r.items), Calls: int(r.calls), Result: r.kind == kMessage && r.role == roleToolResult}
}

// ContextSlots lists the current context's entries without decoding them.
func (s *Session) ContextSlots(ctx context.Context) ([]Slot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var prov, model, th string
	p, ok, err := s.contextHead(&prov, &model, &th)
	if err != nil || !ok {
		return nil, err
	}
	out := make([]Slot, 0, len(p.emit)+1)
	if p.compaction != none {
		out = append(out, s.idx.slotOf(p.compaction))
	}
	for k, i := range p.emit {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := &s.idx.recs[i]
		if !r.kind.inContext() || (r.kind == kMessage && r.role == 0) {
			continue
		}
		out = append(out, s.idx.slotOf(i))
	}
	return out, nil
}

// ContextMessages returns the context messages of the entries ids (slots
// of ContextSlots), in the order given, with the id of each; entries that
// give no message are left out.
func (s *Session) ContextMessages(ctx context.Context, ids []string) ([]llm.Message, []string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	msgs := make([]llm.Message, 0, len(ids))
	out := make([]string, 0, len(ids))
	for k, id := range ids {
		if k%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		i, ok := s.idx.lookup(id)
		if !ok {
			return nil, nil, fmt.Errorf("session: entry %s: %w", id, ErrNotFound)
		}
		m, ok, err := s.contextMessage(i)
		if err != nil {
			s.warn(err.Error() + " (left out of the display)")
			continue
		}
		if ok {
			msgs = append(msgs, m)
			out = append(out, id)
		}
	}
	return msgs, out, nil
}
