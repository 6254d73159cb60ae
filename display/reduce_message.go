package display

import (
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
)

// Delta kinds of message_update events.
const (
	DeltaText     = "text"
	DeltaThinking = "thinking"
	DeltaToolCall = "toolcall"
)

func (r *Reducer) messageStart(ev harness.Event) {
	m := ev.Message
	if m == nil {
		return
	}
	switch m.Role {
	case llm.RoleAssistant:
		r.startLive(m)
	case llm.RoleBashExecution:
		r.open = r.pushItem(Item{Kind: KindBash, Command: m.Command, Status: ToolRunning})
	default:
		if it, ok := itemFromMessage(m); ok {
			r.open = r.pushItem(it)
		}
	}
}

func (r *Reducer) messageUpdate(ev harness.Event) {
	if ev.Delta == "" {
		return
	}
	if r.live == nil {
		if ev.DeltaKind != DeltaText && ev.DeltaKind != DeltaThinking {
			return
		}
		r.startLive(nil)
	}
	l := r.live
	switch ev.DeltaKind {
	case DeltaText:
		l.text = append(l.text, ev.Delta...)
		l.synced = false
		r.appendStr(l.textPath, ev.Delta)
	case DeltaThinking:
		l.thinking = append(l.thinking, ev.Delta...)
		l.synced = false
		r.appendStr(l.thPath, ev.Delta)
	}
	// toolcall deltas are not shown: the tool item appears with its final
	// arguments at message_end or tool_execution_start.
}

func (r *Reducer) messageEnd(ev harness.Event) {
	m := ev.Message
	if m == nil {
		return
	}
	switch m.Role {
	case llm.RoleAssistant:
		if r.live == nil {
			r.startLive(nil)
		}
		r.finishLive(m)
		for _, c := range m.ToolCalls() {
			r.ensureTool(c.ID, c.Name, c.Arguments, ToolPending)
		}
	case llm.RoleBashExecution:
		idx := r.open
		if idx < 0 || r.st.Items[idx].Kind != KindBash {
			idx = r.pushItem(Item{Kind: KindBash, Command: m.Command, Status: ToolRunning})
		}
		r.finishBash(idx, m)
	case llm.RoleToolResult:
		r.toolResultMessage(m)
	default:
		if r.open < 0 {
			if it, ok := itemFromMessage(m); ok {
				r.pushItem(it)
			}
		}
	}
	r.open = -1
}

// startLive pushes a streaming assistant item, seeded from m when given.
func (r *Reducer) startLive(m *llm.Message) {
	r.finishLive(nil)
	it := Item{Kind: KindAssistant, Streaming: true}
	if m != nil {
		it.Text, it.Thinking = assistantText(m)
	}
	idx := r.pushItem(it)
	r.live = &liveItem{
		idx:      idx,
		text:     []byte(it.Text),
		thinking: []byte(it.Thinking),
		synced:   true,
		textPath: path("items", idx, "text"),
		thPath:   path("items", idx, "thinking"),
	}
}

// finishLive ends the streamed item. With the final message it reconciles
// the text: what the deltas missed is appended, a divergent text is set.
func (r *Reducer) finishLive(m *llm.Message) {
	l := r.live
	if l == nil {
		return
	}
	r.syncLive()
	it := &r.st.Items[l.idx]
	if m != nil {
		text, thinking := assistantText(m)
		r.reconcile(l.idx, "text", &it.Text, text)
		r.reconcile(l.idx, "thinking", &it.Thinking, thinking)
	}
	it.Streaming = false
	r.setItemField(l.idx, "streaming", false)
	if m != nil {
		before := *it
		answerFacts(it, m)
		if it.Status != before.Status {
			r.setItemField(l.idx, "status", it.Status)
		}
		r.setOptional(l.idx, "endReason", string(before.EndReason), string(it.EndReason))
	}
	r.live = nil
}

// reconcile makes *cur equal want with an append when it extends *cur.
func (r *Reducer) reconcile(idx int, field string, cur *string, want string) {
	if *cur == want {
		return
	}
	if strings.HasPrefix(want, *cur) {
		r.appendStr(path("items", idx, field), want[len(*cur):])
	} else {
		r.setItemField(idx, field, want)
	}
	*cur = want
}

func (r *Reducer) finishBash(idx int, m *llm.Message) {
	it := &r.st.Items[idx]
	finishBashItem(it, m)
	r.set(path("items", idx), *it)
}

// assistantText returns the concatenated text and thinking of m.
func assistantText(m *llm.Message) (text, thinking string) {
	var t, th strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			t.WriteString(b.Text)
		case llm.BlockThinking:
			th.WriteString(b.Thinking)
		}
	}
	return t.String(), th.String()
}

// itemFromMessage maps a non-assistant, non-tool message to its item; ok is
// false for messages that are not shown.
func itemFromMessage(m *llm.Message) (Item, bool) {
	switch m.Role {
	case llm.RoleUser:
		return userItem(m), true
	case llm.RoleCustom:
		if !m.Display {
			return Item{}, false
		}
		return Item{Kind: KindInfo, Text: m.Text()}, true
	case llm.RoleBranchSummary:
		return Item{Kind: KindSummary, Text: m.Summary, SummaryKind: "branch"}, true
	case llm.RoleCompactionSummary:
		return Item{Kind: KindSummary, Text: m.Summary, SummaryKind: "compaction"}, true
	}
	return Item{}, false
}

// userItem shows what the user typed; editor attachments (text blocks
// opening with harness.ContextTag, and images) are listed, not shown.
func userItem(m *llm.Message) Item {
	it := Item{Kind: KindUser}
	var b strings.Builder
	for _, c := range m.Content {
		switch {
		case c.Type == llm.BlockText && strings.HasPrefix(c.Text, harness.ContextTag):
			it.Attachments = append(it.Attachments, attachmentOf(c.Text))
		case c.Type == llm.BlockText:
			b.WriteString(c.Text)
		case c.Type == llm.BlockImage:
			it.Attachments = append(it.Attachments, Attachment{Type: "image", Path: c.MimeType})
		}
	}
	it.Text = b.String()
	userFacts(&it, m)
	return it
}

// attachmentOf reads the type, path and lines attributes of an
// <editor-context …> block's first line.
func attachmentOf(block string) Attachment {
	head, _, _ := strings.Cut(block, ">")
	attr := func(name string) string {
		_, v, ok := strings.Cut(head, " "+name+"=\"")
		if !ok {
			return ""
		}
		v, _, _ = strings.Cut(v, "\"")
		return v
	}
	return Attachment{Type: attr("type"), Path: attr("path"), Lines: attr("lines")}
}

// imageRefs names where the session keeps each image attachment of a user
// item read from entry: the n-th image attachment is the entry's n-th image.
func imageRefs(it *Item, entry string) {
	n := 0
	for k := range it.Attachments {
		if it.Attachments[k].Type == "image" {
			it.Attachments[k].Image = &ImageRef{Entry: entry, Index: n}
			n++
		}
	}
}
