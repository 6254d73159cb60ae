package llm

import (
	"fmt"
	"strings"
)

// The wrappers pi puts around summaries when it sends them to a model
// (pi-coding-agent core/messages.js).
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// Placeholders pi uses when a model cannot see images.
const (
	nonVisionUserImage = "(image omitted: model does not support images)"
	nonVisionToolImage = "(tool image omitted: model does not support images)"
)

// defaultAPI is the only API this client speaks.
const defaultAPI = "openai-completions"

func apiOf(m Model) string {
	if m.API == "" {
		return defaultAPI
	}
	return m.API
}

// BashExecutionText is the user-message text pi sends for a bashExecution
// message (pi's bashExecutionToText).
func BashExecutionText(m *Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ran `%s`\n", m.Command)
	if m.Output != "" {
		fmt.Fprintf(&b, "```\n%s\n```", m.Output)
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		fmt.Fprintf(&b, "\n\n[Output truncated. Full output: %s]", m.FullOutputPath)
	}
	return b.String()
}

// ToModelMessages converts AgentMessages to the three roles a model knows
// (user, assistant, toolResult), as pi's convertToLlm does: bashExecution
// (unless excluded from context), custom, branchSummary and
// compactionSummary messages become user messages.
func ToModelMessages(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case RoleUser, RoleAssistant, RoleToolResult:
			out = append(out, *m)
		case RoleBashExecution:
			if !m.ExcludeFromContext {
				out = append(out, UserText(BashExecutionText(m), m.Timestamp))
			}
		case RoleCustom:
			out = append(out, Message{Role: RoleUser, Content: m.Content, Timestamp: m.Timestamp})
		case RoleBranchSummary:
			out = append(out, UserText(BranchSummaryPrefix+m.Summary+BranchSummarySuffix, m.Timestamp))
		case RoleCompactionSummary:
			out = append(out, UserText(CompactionSummaryPrefix+m.Summary+CompactionSummarySuffix, m.Timestamp))
		}
	}
	return out
}

func hasImageInput(m Model) bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// withoutImages replaces image blocks with a placeholder text, one per run
// of images.
func withoutImages(content []ContentBlock, placeholder string) []ContentBlock {
	var out []ContentBlock
	prevPlaceholder := false
	for _, b := range content {
		if b.Type == BlockImage {
			if !prevPlaceholder {
				out = append(out, TextBlock(placeholder))
			}
			prevPlaceholder = true
			continue
		}
		out = append(out, b)
		prevPlaceholder = b.Type == BlockText && b.Text == placeholder
	}
	return out
}

// normalizeToolCallID shortens tool call ids other APIs produce (pi's
// openai-completions normalizeToolCallId).
func normalizeToolCallID(id string, m Model) string {
	if callID, _, ok := strings.Cut(id, "|"); ok {
		clean := []byte(callID)
		for i, c := range clean {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				clean[i] = '_'
			}
		}
		return string(clean[:min(len(clean), 40)])
	}
	if m.Provider == "openai" && len(id) > 40 {
		return id[:40]
	}
	return id
}

// transformForModel prepares model messages for one target model, as pi's
// transformMessages does:
//   - images become placeholders when the model cannot see them;
//   - assistant messages of another model lose redacted thinking, have
//     their thinking turned into text and their tool call ids normalised;
//   - assistant messages that ended in error or were aborted are skipped;
//   - a tool call without a result gets a synthetic error result.
//
// In addition, a tool result whose call is not in the assistant message
// just before it (for instance the cancelled result of a call in a skipped
// aborted message), or that repeats one already given, is dropped: every
// OpenAI-compatible server rejects such a request.
func transformForModel(msgs []Message, m Model) []Message {
	vision := hasImageInput(m)
	api := apiOf(m)
	idMap := map[string]string{}
	out := make([]Message, 0, len(msgs))

	var pending []ContentBlock // tool calls of the last kept assistant message
	answered := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			if !answered[tc.ID] {
				out = append(out, Message{Role: RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name,
					Content: []ContentBlock{TextBlock("No result provided")}, IsError: true})
			}
		}
		pending = nil
		clear(answered)
	}

	for i := range msgs {
		msg := msgs[i]
		switch msg.Role {
		case RoleUser:
			flush()
			if !vision {
				msg.Content = withoutImages(msg.Content, nonVisionUserImage)
			}
			out = append(out, msg)
		case RoleToolResult:
			if id, ok := idMap[msg.ToolCallID]; ok {
				msg.ToolCallID = id
			}
			if answered[msg.ToolCallID] || !containsCall(pending, msg.ToolCallID) {
				continue
			}
			answered[msg.ToolCallID] = true
			if !vision {
				msg.Content = withoutImages(msg.Content, nonVisionToolImage)
			}
			out = append(out, msg)
		case RoleAssistant:
			flush()
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				continue
			}
			same := msg.Provider == m.Provider && msg.API == api && msg.Model == m.ID
			content := make([]ContentBlock, 0, len(msg.Content))
			for _, b := range msg.Content {
				switch b.Type {
				case BlockThinking:
					switch {
					case b.Redacted:
						if same {
							content = append(content, b)
						}
					case same && b.ThinkingSignature != "":
						content = append(content, b)
					case strings.TrimSpace(b.Thinking) == "":
					case same:
						content = append(content, b)
					default:
						content = append(content, TextBlock(b.Thinking))
					}
				case BlockToolCall:
					if !same {
						if id := normalizeToolCallID(b.ID, m); id != b.ID {
							idMap[b.ID] = id
							b.ID = id
						}
					}
					content = append(content, b)
					pending = append(pending, b)
				default:
					content = append(content, b)
				}
			}
			msg.Content = content
			out = append(out, msg)
		}
	}
	flush()
	return out
}

func containsCall(calls []ContentBlock, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}
