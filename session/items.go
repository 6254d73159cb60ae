package session

import (
	"bytes"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Display items per entry. The display (package display, ItemsFromEntries)
// shows a context as items: a user message, an assistant message's text
// and thinking (or its interruption), each of its tool calls (a tool
// result fills in its call's item), a bash execution, a summary, a custom
// message marked for display. Its history marker counts the items older
// than what it shows, so the index keeps, per entry, how many items the
// entry gives and how many tool calls it opens; a session of 100k entries
// is counted without decoding one. display's TestItemCountsMatchItems
// checks these rules against ItemsFromEntries.

// contentInfo is what counting items needs from a message's content.
type contentInfo struct {
	text  bool // a text or thinking block with non-empty text, or non-empty string content
	calls int  // toolCall blocks
}

// walkContent reads a content value (an array of blocks or a string) at
// b[i] and returns the index just past it. Like the rest of the scanner it
// checks only the structure: where the blocks' walk meets a bad scalar, the
// array is skipped as a whole (the entry fails when it is decoded).
func walkContent(b []byte, i int) (end int, ci contentInfo, err error) {
	end, ci, err = walkBlocks(b, i)
	if err != nil && i < len(b) && b[i] == '[' {
		end, err = skipNested(b, i)
	}
	return end, ci, err
}

// walkBlocks is walkContent's single pass.
func walkBlocks(b []byte, i int) (end int, ci contentInfo, err error) {
	if i >= len(b) || b[i] != '[' {
		end, err = skipValue(b, i)
		if err == nil && b[i] == '"' && end-i > 2 {
			ci.text = true
		}
		return end, ci, err
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, ci, nil
	}
	for {
		if i >= len(b) {
			return 0, ci, errTruncated
		}
		if b[i] == '{' {
			var typ []byte
			var text, thinking bool
			if i, err = walkBlock(b, i, &typ, &text, &thinking); err != nil {
				return 0, ci, err
			}
			switch blockType(typ) {
			case llm.BlockText:
				ci.text = ci.text || text
			case llm.BlockThinking:
				ci.text = ci.text || thinking
			case llm.BlockToolCall:
				ci.calls++
			}
		} else if i, err = skipValue(b, i); err != nil {
			return 0, ci, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, ci, errTruncated
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, ci, nil
		default:
			return 0, ci, errSyntax
		}
	}
}

// walkBlock reads a content block (walkObject with the members counting
// needs picked out in line: this runs for every block of every message).
func walkBlock(b []byte, i int, typ *[]byte, text, thinking *bool) (int, error) {
	it, err := newObjIter(b, i)
	if err != nil {
		return 0, err
	}
	m, ok, err := it.next()
	for ok {
		if m.end, err = skipValue(b, m.start); err != nil {
			return 0, err
		}
		v := b[m.start:m.end]
		switch string(m.name()) {
		case "type":
			*typ = v
		case "text":
			*text = len(v) > 2 && v[0] == '"'
		case "thinking":
			*thinking = len(v) > 2 && v[0] == '"'
		}
		m, ok, err = it.following(m.end)
	}
	if err != nil {
		return 0, err
	}
	return it.i, nil
}

// blockType returns a block's type from its raw JSON value without an
// allocation for the usual types.
func blockType(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		switch string(v[1 : len(v)-1]) {
		case llm.BlockText:
			return llm.BlockText
		case llm.BlockThinking:
			return llm.BlockThinking
		case llm.BlockToolCall:
			return llm.BlockToolCall
		}
		return ""
	}
	s, _ := stringValue(v)
	return s
}

// maxItems is where an entry's counts saturate (uint16 in the record).
const maxItems = 1<<16 - 1

// setItems fills r.items and r.calls from what the scan found.
func setItems(r *rec, li *lineInfo) {
	items, calls := 0, 0
	switch r.kind {
	case kCompaction:
		items = 1 // shown as its summary when it is the compaction in effect
	case kBranchSummary:
		if li.summary {
			items = 1
		}
	case kCustomMessage:
		if li.display {
			items = 1
		}
	case kMessage:
		items, calls = messageItems(r.role, li.content, li.stopReason == string(llm.StopAborted), li.msgDisplay)
	}
	r.items, r.calls = uint16(min(items, maxItems)), uint16(min(calls, maxItems))
}

// messageItems is the number of items a message of role gives and the
// tool calls it opens (a tool result gives one item; see itemCounter for
// when its call's item takes it instead).
func messageItems(role uint8, ci contentInfo, aborted, display bool) (items, calls int) {
	if role == 0 || int(role) >= len(roleNames) {
		return 0, 0
	}
	switch roleNames[role] {
	case "user", "toolResult", "bashExecution", "branchSummary", "compactionSummary":
		return 1, 0
	case "assistant":
		if ci.text || aborted {
			items = 1
		}
		return items + ci.calls, ci.calls
	case "custom":
		if display {
			return 1, 0
		}
	}
	return 0, 0
}

// MessageSlot returns the slot of a decoded context message (entry id),
// with the same counts the index keeps for its entry.
func MessageSlot(id string, m llm.Message) Slot {
	ci := contentInfo{}
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			ci.text = ci.text || b.Text != ""
		case llm.BlockThinking:
			ci.text = ci.text || b.Thinking != ""
		case llm.BlockToolCall:
			ci.calls++
		}
	}
	role := roleOf(string(m.Role))
	items, calls := messageItems(role, ci, m.StopReason == llm.StopAborted, m.Display)
	return Slot{ID: id, User: m.Role == llm.RoleUser, Items: items, Calls: calls, Result: m.Role == llm.RoleToolResult}
}

// itemCounter adds up the display items of slots read in context order,
// turn by turn as the display builds them: a tool result fills in a call
// of its turn when one is open (the usual case: no item of its own) and
// gives its own item otherwise.
type itemCounter struct {
	n, open int
}

func (c *itemCounter) add(user, result bool, items, calls int) {
	if user {
		c.open = 0
	}
	if result {
		if c.open > 0 {
			c.open--
			return
		}
		c.n++
		return
	}
	c.n += items
	c.open += calls
}

// CountItems is the number of display items the slots give, read as
// whole turns from the context's start (or a turn's start).
func CountItems(slots []Slot) int {
	var c itemCounter
	for i := range slots {
		c.add(slots[i].User, slots[i].Result, slots[i].Items, slots[i].Calls)
	}
	return c.n
}

// addRec counts record r (a context slot).
func (c *itemCounter) addRec(r *rec) {
	c.add(r.kind == kMessage && r.role == roleUser, r.kind == kMessage && r.role == roleToolResult, int(r.items), int(r.calls))
}

// walkMessage reads the message object at b[i] (a message entry's
// "message"): its role, usage, stopReason, display and content.
func (li *lineInfo) walkMessage(b []byte, i int) (int, error) {
	it, err := newObjIter(b, i)
	if err != nil {
		return 0, err
	}
	m, ok, err := it.next()
	for ok {
		key := m.name()
		if string(key) == "content" {
			li.hasContent = true
			m.end, li.content, err = walkContent(b, m.start)
		} else {
			m.end, err = skipValue(b, m.start)
		}
		if err != nil {
			return 0, err
		}
		v := b[m.start:m.end]
		switch string(key) {
		case "role":
			li.role = knownString(v)
		case "usage":
			li.usage = v
		case "stopReason":
			li.stopReason = knownString(v)
		case "display":
			li.msgDisplay = string(v) == "true"
		case "timestamp":
			li.msgTS = v
		}
		m, ok, err = it.following(m.end)
	}
	if err != nil {
		return 0, err
	}
	return it.i, nil
}
