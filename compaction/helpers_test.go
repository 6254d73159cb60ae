package compaction

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
)

// branch builds a hand-made session branch. Texts of 4*n ASCII characters are
// n tokens for the chars/4 estimator.
type branch struct {
	items []Item
	ts    int64
}

func tokens(n int, fill string) string { return strings.Repeat(fill, 4*n) }

func (b *branch) add(kind string, m *llm.Message) string {
	id := fmt.Sprintf("e%02d", len(b.items))
	b.ts += 1000
	if m != nil {
		m.Timestamp = b.ts
	}
	b.items = append(b.items, Item{EntryID: id, Kind: kind, Message: m})
	return id
}

func (b *branch) user(text string) string {
	m := llm.UserText(text, 0)
	return b.add(KindMessage, &m)
}

type call struct{ name, args string }

func (b *branch) assistant(text string, calls ...call) string {
	m := &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Provider: "fake", Model: "m"}
	if text != "" {
		m.Content = append(m.Content, llm.TextBlock(text))
	}
	for i, c := range calls {
		m.Content = append(m.Content, llm.ContentBlock{Type: llm.BlockToolCall, ID: fmt.Sprintf("c%d_%d", len(b.items), i), Name: c.name, Arguments: json.RawMessage(c.args)})
		m.StopReason = llm.StopToolUse
	}
	return b.add(KindMessage, m)
}

func (b *branch) toolResult(name, text string) string {
	m := &llm.Message{Role: llm.RoleToolResult, ToolCallID: "c", ToolName: name, Content: []llm.ContentBlock{llm.TextBlock(text)}}
	return b.add(KindMessage, m)
}

func (b *branch) other() string { return b.add(KindOther, nil) }

func (b *branch) compaction(summary, firstKept string, details *FileOps) string {
	id := b.add(KindCompaction, &llm.Message{Role: llm.RoleCompactionSummary, Summary: summary})
	it := &b.items[len(b.items)-1]
	it.Summary, it.FirstKeptEntryID, it.Details = summary, firstKept, details
	return id
}

// lastMsg returns the message of the newest item.
func (b *branch) lastMsg() *llm.Message { return b.items[len(b.items)-1].Message }

// fakeSummarizer records requests and answers from a script keyed by prompt
// kind, or with a fixed answer.
type fakeSummarizer struct {
	mu     sync.Mutex
	reqs   []llm.Request
	answer func(req llm.Request) llm.Message
}

func (f *fakeSummarizer) Stream(ctx context.Context, req llm.Request, emit func(llm.Event)) llm.Message {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.answer != nil {
		return f.answer(req)
	}
	return textAnswer("SUMMARY")
}

func (f *fakeSummarizer) requests() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.reqs...)
}

func textAnswer(s string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Content: []llm.ContentBlock{llm.TextBlock(s)}}
}

// promptOf returns the text of a summary request's single user message.
func promptOf(req llm.Request) string {
	if len(req.Messages) != 1 {
		return ""
	}
	return req.Messages[0].Text()
}

func ids(items []Item) map[string]int {
	out := map[string]int{}
	for i, it := range items {
		out[it.EntryID] = i
	}
	return out
}
