package compaction

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
)

// ToolResultMaxChars is where SerializeConversation cuts tool results (pi's
// TOOL_RESULT_MAX_CHARS), in JavaScript characters (UTF-16 code units).
const ToolResultMaxChars = 2000

// SerializeConversation turns messages into the plain text pi sends to the
// summarizer, so that the model does not continue the conversation:
//
//	[User]: ...
//	[Assistant thinking]: ...
//	[Assistant]: ...
//	[Assistant tool calls]: read(path="a.go"); bash(command="ls")
//	[Tool result]: ... (cut at 2000 characters)
//
// Bash executions, custom messages and summaries are first converted to user
// messages as pi's convertToLlm does (llm.ToModelMessages). Parts are
// separated by a blank line.
func SerializeConversation(msgs []llm.Message) string {
	var parts []string
	model := llm.ToModelMessages(msgs)
	for i := range model {
		m := &model[i]
		switch m.Role {
		case llm.RoleUser:
			if t := m.Text(); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case llm.RoleAssistant:
			var text, thinking, calls []string
			for j := range m.Content {
				b := &m.Content[j]
				switch b.Type {
				case llm.BlockText:
					text = append(text, b.Text)
				case llm.BlockThinking:
					thinking = append(thinking, b.Thinking)
				case llm.BlockToolCall:
					calls = append(calls, formatToolCall(b.Name, b.Arguments))
				}
			}
			if len(thinking) > 0 {
				parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
			}
			if len(text) > 0 {
				parts = append(parts, "[Assistant]: "+strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case llm.RoleToolResult:
			if t := m.Text(); t != "" {
				parts = append(parts, "[Tool result]: "+truncateForSummary(t, ToolResultMaxChars))
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// truncateForSummary is pi's: keep maxChars characters and append a marker
// counting the rest. Characters are UTF-16 code units, as in JavaScript; a
// surrogate pair straddling the limit is dropped whole.
func truncateForSummary(text string, maxChars int) string {
	total := utf16Len(text)
	if total <= maxChars {
		return text
	}
	units, end := 0, 0
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > maxChars {
			break
		}
		units += w
		end += n
	}
	return text[:end] + "\n\n[... " + strconv.Itoa(total-maxChars) + " more characters truncated]"
}
