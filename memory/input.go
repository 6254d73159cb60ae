package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Msg is one message entry of the branch, as the engine sees it.
type Msg struct {
	EntryID string
	Message *llm.Message
	// Tokens is the message's size in the context, in the provider's tokens.
	Tokens int
}

// Tool results reach the observer cut to their head and tail: what a tool
// printed is mostly re-readable, what the agent concluded from it is in the
// assistant's next message.
const (
	ToolResultHead = 1500
	ToolResultTail = 500
	// ArgsMax bounds one tool call's arguments (a write's whole file).
	ArgsMax = 1500
)

// controlPrefixes are the texts pi-lsp itself sends as user messages.
var controlPrefixes = []string{
	"The plan \"", // harness: an approved plan hands over to Build mode
}

// IsControl reports whether m was written by pi-lsp or an extension rather
// than by the user or the model: custom messages, compaction and branch
// summaries, and the harness's own prompts. The observer never records
// them as user statements.
func IsControl(m *llm.Message) bool {
	switch m.Role {
	case llm.RoleCustom, llm.RoleCompactionSummary, llm.RoleBranchSummary:
		return true
	case llm.RoleUser:
		t := strings.TrimSpace(m.Text())
		for _, p := range controlPrefixes {
			if strings.HasPrefix(t, p) && strings.Contains(t, "was approved. You are now in Build mode") {
				return true
			}
		}
	}
	return false
}

// stripObservations removes pasted observation blocks from a user's text.
func stripObservations(s string) string {
	for _, tag := range []string{"observations", "current-task", "suggested-response"} {
		open, closeTag := "<"+tag+">", "</"+tag+">"
		for {
			i := strings.Index(s, open)
			if i < 0 {
				break
			}
			j := strings.Index(s[i:], closeTag)
			if j < 0 {
				s = s[:i] + "[earlier observations left out]"
				break
			}
			s = s[:i] + "[earlier observations left out]" + s[i+j+len(closeTag):]
		}
	}
	return s
}

// trimMiddle keeps the first head and last tail characters of s.
func trimMiddle(s string, head, tail int) string {
	if utf8.RuneCountInString(s) <= head+tail+40 {
		return s
	}
	r := []rune(s)
	return string(r[:head]) + fmt.Sprintf("\n[… %d characters trimmed …]\n", len(r)-head-tail) + string(r[len(r)-tail:])
}

// Part is one message as the observer reads it.
type Part struct {
	EntryID string
	Text    string
}

// Serialize renders msgs for the observer, one Part per message that has
// something to observe. Day headers ("Date: Dec 4, 2025") precede the first
// message of each day; each line carries the message's time, in loc.
func Serialize(msgs []Msg, loc *time.Location) []Part {
	if loc == nil {
		loc = time.UTC
	}
	var out []Part
	day := ""
	for _, mm := range msgs {
		m := mm.Message
		if m == nil {
			continue
		}
		var b strings.Builder
		ts := time.UnixMilli(m.Timestamp).In(loc)
		if d := ts.Format("Jan 2, 2006"); d != day && m.Timestamp > 0 {
			day = d
			fmt.Fprintf(&b, "Date: %s\n", d)
		}
		at := ts.Format("15:04")
		switch {
		case IsControl(m):
			// Context for the observer, never a user statement.
			text := m.Text()
			if m.Summary != "" {
				text = m.Summary
			}
			if strings.TrimSpace(text) == "" {
				continue
			}
			fmt.Fprintf(&b, "[%s control, not from the user]: %s", at, trimMiddle(text, ToolResultHead, ToolResultTail))
		case m.Role == llm.RoleUser:
			t := stripObservations(m.Text())
			if strings.TrimSpace(t) == "" {
				continue
			}
			fmt.Fprintf(&b, "[%s User]: %s", at, t)
		case m.Role == llm.RoleAssistant:
			var parts []string
			for i := range m.Content {
				c := &m.Content[i]
				switch c.Type {
				case llm.BlockText:
					if strings.TrimSpace(c.Text) != "" {
						parts = append(parts, fmt.Sprintf("[%s Assistant]: %s", at, c.Text))
					}
				case llm.BlockToolCall:
					parts = append(parts, fmt.Sprintf("[%s Assistant tool call] %s(%s)", at, c.Name, trimMiddle(compactJSON(c.Arguments), ArgsMax, 200)))
				}
			}
			if len(parts) == 0 {
				continue
			}
			b.WriteString(strings.Join(parts, "\n"))
		case m.Role == llm.RoleToolResult:
			status := ""
			if m.IsError {
				status = " (error)"
			}
			fmt.Fprintf(&b, "[%s Tool result %s%s]: %s", at, m.ToolName, status, trimMiddle(m.Text(), ToolResultHead, ToolResultTail))
		case m.Role == llm.RoleBashExecution:
			if m.ExcludeFromContext {
				continue
			}
			fmt.Fprintf(&b, "[%s User ran] $ %s\n%s", at, m.Command, trimMiddle(m.Output, ToolResultHead, ToolResultTail))
		default:
			continue
		}
		out = append(out, Part{EntryID: mm.EntryID, Text: b.String()})
	}
	return out
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Batches groups parts into observer inputs of at most maxTokens each
// (count measures a text). A part larger than maxTokens on its own is cut
// into pieces, each a batch of its own, so that a single huge message is
// still observed.
func Batches(parts []Part, maxTokens int, count func(string) int) []string {
	var out []string
	var cur []string
	curTokens := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n\n"))
			cur, curTokens = nil, 0
		}
	}
	for _, p := range parts {
		n := count(p.Text)
		if n > maxTokens {
			flush()
			pieces := Pieces(p.Text, maxTokens, n)
			for i, s := range pieces {
				out = append(out, fmt.Sprintf("(one long message, part %d of %d)\n%s", i+1, len(pieces), s))
			}
			continue
		}
		if curTokens+n > maxTokens {
			flush()
		}
		cur = append(cur, p.Text)
		curTokens += n
	}
	flush()
	return out
}

// Pieces cuts text (of tokens tokens) into pieces of about maxTokens,
// preferring line breaks.
func Pieces(text string, maxTokens, tokens int) []string {
	if tokens <= maxTokens || maxTokens <= 0 {
		return []string{text}
	}
	n := (tokens + maxTokens - 1) / maxTokens
	size := (len(text) + n - 1) / n
	var out []string
	for len(text) > 0 {
		if len(text) <= size {
			out = append(out, text)
			break
		}
		cut := size
		if i := strings.LastIndexByte(text[:cut], '\n'); i > size/2 {
			cut = i + 1
		}
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	return out
}
