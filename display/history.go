package display

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
)

// ItemsFromMessages builds the transcript items of a session's current
// branch, for Reducer.Reset: user and assistant text, tool calls with their
// results, bash executions, summaries and displayed custom messages. Items
// get ids h1, h2, …; tool items use their tool call id.
func ItemsFromMessages(msgs []llm.Message) []Item {
	n := 0
	return itemsFrom(msgs, func(int) string { n++; return "h" + strconv.Itoa(n) }, nil)
}

// ItemsFromEntries is ItemsFromMessages for messages read from session
// entries (ids[i] is the entry of msgs[i]): an item's id is "h" and its
// entry's id, so a page of history names its items the same way whenever
// it is read. A user item's image attachments name their entry (ImageRef),
// for session/image.
func ItemsFromEntries(msgs []llm.Message, ids []string) []Item {
	return itemsFrom(msgs, func(i int) string { return "h" + ids[i] }, func(i int) string { return ids[i] })
}

// itemsFrom builds the items; entry, when not nil, is the entry of msgs[i].
func itemsFrom(msgs []llm.Message, newID func(i int) string, entry func(i int) string) []Item {
	items := []Item{}
	tools := map[string]int{}
	for i := range msgs {
		id := func() string { return newID(i) }
		m := &msgs[i]
		switch m.Role {
		case llm.RoleAssistant:
			text, thinking := assistantText(m)
			if text != "" || thinking != "" || m.StopReason == llm.StopAborted {
				it := Item{ID: id(), Kind: KindAssistant, Text: text, Thinking: thinking}
				answerFacts(&it, m)
				items = append(items, it)
			}
			for _, c := range m.ToolCalls() {
				tools[c.ID] = len(items)
				// A call without a result was interrupted.
				items = append(items, Item{ID: c.ID, Kind: KindTool, ToolName: c.Name, Args: cloneRaw(c.Arguments), Status: ToolError,
					Outcome: OutcomeInterrupted})
			}
		case llm.RoleToolResult:
			idx, ok := tools[m.ToolCallID]
			if !ok {
				idx = len(items)
				tools[m.ToolCallID] = idx
				items = append(items, Item{ID: m.ToolCallID, Kind: KindTool, ToolName: m.ToolName})
			}
			it := &items[idx]
			it.Output = textcut.Tail(m.Text(), keptOutput)
			it.IsError = m.IsError
			messageToolFacts(it, m)
			if it.ToolName == "subagent" {
				it.Child = childFromDetails(m.Details)
			}
			historyDiff(it, m)
			historyDiagnostics(it, m)
		case llm.RoleBashExecution:
			it := Item{ID: id(), Kind: KindBash, Command: m.Command}
			finishBashItem(&it, m)
			items = append(items, it)
		default:
			if it, ok := itemFromMessage(m); ok {
				it.ID = id()
				if entry != nil {
					imageRefs(&it, entry(i))
				}
				items = append(items, it)
			}
		}
	}
	return items
}

// historyDiff gives a rebuilt edit or write item the diff and path the live
// stream showed: the unified diff and path kept in the result's details,
// or — for results recorded before they were kept — a diff rendered from
// the call's arguments.
func historyDiff(it *Item, m *llm.Message) {
	var details struct {
		Diff        string `json:"diff"`
		UnifiedDiff string `json:"unifiedDiff"`
		Path        string `json:"path"`
	}
	_ = json.Unmarshal(m.Details, &details)
	if it.ToolName != "edit" && it.ToolName != "write" {
		it.Diff = details.Diff
		return
	}
	var args struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
		Edits   []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
	}
	_ = json.Unmarshal(it.Args, &args)
	if !m.IsError {
		it.Path = args.Path
		if details.Path != "" {
			it.Path = details.Path
		}
	}
	switch {
	case details.UnifiedDiff != "":
		it.Diff = details.UnifiedDiff
	case m.IsError:
	case len(args.Edits) > 0:
		it.Diff = argsDiff(args.Path, args.Edits)
	case args.Content != nil:
		it.Diff = argsDiff(args.Path, []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		}{{NewText: *args.Content}})
	default:
		it.Diff = details.Diff
	}
}

// argsDiff renders edits as a unified diff without line numbers.
func argsDiff(path string, edits []struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}) string {
	var b strings.Builder
	b.WriteString("--- a/" + path + "\n+++ b/" + path + "\n")
	for _, e := range edits {
		b.WriteString("@@ @@\n")
		for _, l := range splitLines(e.OldText) {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range splitLines(e.NewText) {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// finishBashItem fills a bash item from its bashExecution message, the same
// live (at message_end) and from history.
func finishBashItem(it *Item, m *llm.Message) {
	it.Output = textcut.Tail(m.Output, keptOutput)
	if m.Truncated {
		where := "Full output: " + m.FullOutputPath
		if m.FullOutputPath == "" {
			where = "The full output was not saved."
		}
		it.Output += "\n\n[Output truncated to its last lines. " + where + "]"
	}
	it.ExitCode = m.ExitCode
	it.Status = ToolDone
	if m.Cancelled || (m.ExitCode != nil && *m.ExitCode != 0) {
		it.Status = ToolError
	}
}
