package display

import (
	"encoding/json"
	"strconv"

	"github.com/pi-lsp/pi-lsp/llm"
)

// ItemsFromMessages builds the transcript items of a session's current
// branch, for Reducer.Reset: user and assistant text, tool calls with their
// results, bash executions, summaries and displayed custom messages. Items
// get ids h1, h2, …; tool items use their tool call id.
func ItemsFromMessages(msgs []llm.Message) []Item {
	n := 0
	return itemsFrom(msgs, func(int) string { n++; return "h" + strconv.Itoa(n) })
}

// ItemsFromEntries is ItemsFromMessages for messages read from session
// entries (ids[i] is the entry of msgs[i]): an item's id is "h" and its
// entry's id, so a page of history names its items the same way whenever
// it is read.
func ItemsFromEntries(msgs []llm.Message, ids []string) []Item {
	return itemsFrom(msgs, func(i int) string { return "h" + ids[i] })
}

func itemsFrom(msgs []llm.Message, newID func(i int) string) []Item {
	items := []Item{}
	tools := map[string]int{}
	for i := range msgs {
		id := func() string { return newID(i) }
		m := &msgs[i]
		switch m.Role {
		case llm.RoleAssistant:
			text, thinking := assistantText(m)
			if text != "" || thinking != "" {
				items = append(items, Item{ID: id(), Kind: KindAssistant, Text: text, Thinking: thinking})
			}
			for _, c := range m.ToolCalls() {
				tools[c.ID] = len(items)
				// A call without a result was interrupted.
				items = append(items, Item{ID: c.ID, Kind: KindTool, ToolName: c.Name, Args: cloneRaw(c.Arguments), Status: ToolError})
			}
		case llm.RoleToolResult:
			idx, ok := tools[m.ToolCallID]
			if !ok {
				idx = len(items)
				tools[m.ToolCallID] = idx
				items = append(items, Item{ID: m.ToolCallID, Kind: KindTool, ToolName: m.ToolName})
			}
			it := &items[idx]
			it.Output = tail(m.Text(), keptOutput)
			it.IsError = m.IsError
			it.Status = ToolDone
			if m.IsError {
				it.Status = ToolError
			}
			if it.ToolName == "subagent" {
				it.Child = childFromDetails(m.Details)
			}
			var details struct {
				Diff string `json:"diff"`
			}
			if json.Unmarshal(m.Details, &details) == nil {
				it.Diff = details.Diff
			}
			if !m.IsError && (it.ToolName == "edit" || it.ToolName == "write") {
				var args struct {
					Path string `json:"path"`
				}
				if json.Unmarshal(it.Args, &args) == nil {
					it.Path = args.Path
				}
			}
		case llm.RoleBashExecution:
			it := Item{ID: id(), Kind: KindBash, Command: m.Command}
			finishBashItem(&it, m)
			items = append(items, it)
		default:
			if it, ok := itemFromMessage(m); ok {
				it.ID = id()
				items = append(items, it)
			}
		}
	}
	return items
}

// finishBashItem fills a bash item from its bashExecution message, the same
// live (at message_end) and from history.
func finishBashItem(it *Item, m *llm.Message) {
	it.Output = tail(m.Output, keptOutput)
	it.ExitCode = m.ExitCode
	it.Status = ToolDone
	if m.Cancelled || (m.ExitCode != nil && *m.ExitCode != 0) {
		it.Status = ToolError
	}
}
