package session

import (
	"container/list"
	"encoding/json"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
)

// msgCache keeps recently decoded context messages, so that rebuilding the
// context every turn decodes only what is new. Entries never change once
// written, so a cached message is valid for the life of the session. The
// budget is counted in bytes of the entries' lines.
type msgCache struct {
	mu     sync.Mutex
	budget int
	size   int
	order  *list.List // front = most recent; values are *cached
	byRec  map[int32]*list.Element
}

type cached struct {
	rec  int32
	cost int
	msg  llm.Message
	ok   bool // the entry gives a message
}

const cacheBudget = 16 << 20

func (c *msgCache) get(i int32) (llm.Message, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, hit := c.byRec[i]
	if !hit {
		return llm.Message{}, false, false
	}
	c.order.MoveToFront(el)
	v := el.Value.(*cached)
	return cloneMessage(v.msg), v.ok, true
}

func (c *msgCache) put(i int32, cost int, m llm.Message, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byRec == nil {
		c.byRec, c.order, c.budget = map[int32]*list.Element{}, list.New(), cacheBudget
	}
	if _, dup := c.byRec[i]; dup || cost > c.budget/4 {
		return
	}
	c.byRec[i] = c.order.PushFront(&cached{rec: i, cost: cost, msg: cloneMessage(m), ok: ok})
	c.size += cost
	for c.size > c.budget {
		el := c.order.Back()
		v := el.Value.(*cached)
		c.order.Remove(el)
		delete(c.byRec, v.rec)
		c.size -= v.cost
	}
}

// cloneMessage copies the mutable parts of a message (slices and
// pointers; strings are immutable and shared), so callers may change what
// they get without touching the cache.
func cloneMessage(m llm.Message) llm.Message {
	if m.Content != nil {
		m.Content = append([]llm.ContentBlock(nil), m.Content...)
		for k := range m.Content {
			m.Content[k].Arguments = cloneRaw(m.Content[k].Arguments)
		}
	}
	m.Details = cloneRaw(m.Details)
	if m.ExitCode != nil {
		v := *m.ExitCode
		m.ExitCode = &v
	}
	return m
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}
