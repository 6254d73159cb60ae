package compaction

import "github.com/pi-lsp/pi-lsp/llm"

// Entry kinds of an Item, as pi's session entry types.
const (
	KindMessage       = "message"
	KindCompaction    = "compaction"
	KindBranchSummary = "branch_summary"
	KindCustomMessage = "custom_message"
	KindOther         = "other" // model_change, thinking_level_change, label, custom, session_info...
)

// Item is one entry of the current branch, given root to leaf.
type Item struct {
	EntryID string
	Kind    string // KindMessage, KindCompaction, KindBranchSummary, KindCustomMessage, KindOther
	// Message is what the entry contributes to the context: the message
	// itself, a custom message (role custom), a branchSummary or
	// compactionSummary message (with the entry's timestamp). Nil for
	// KindOther.
	Message *llm.Message

	// For KindCompaction: the compaction's summary, firstKeptEntryId and
	// details. Details must be nil when the entry came from a hook
	// (fromHook) or its details are not {readFiles, modifiedFiles}.
	// For KindBranchSummary, Details carries the summary's file lists the
	// same way.
	Summary, FirstKeptEntryID string
	Details                   *FileOps
}

// ContextMessages rebuilds what the model sees from a branch, as pi's
// buildSessionContext: with a compaction, its summary first, then the entries
// from its firstKeptEntryId up to it, then everything after it.
func ContextMessages(items []Item) []llm.Message {
	msgs, _ := contextOf(items)
	out := make([]llm.Message, len(msgs))
	for i, it := range msgs {
		out[i] = *it.Message
	}
	return out
}

// contextOf returns the items that make up the context, and the index from
// which messages were produced after the latest compaction.
func contextOf(items []Item) ([]*Item, int) {
	last := lastCompaction(items)
	var out []*Item
	add := func(i int) {
		it := &items[i]
		if it.Message == nil || it.Kind == KindOther || it.Kind == KindCompaction {
			return
		}
		if it.Kind == KindBranchSummary && it.Message.Summary == "" && it.Summary == "" {
			return
		}
		out = append(out, it)
	}
	if last < 0 {
		for i := range items {
			add(i)
		}
		return out, 0
	}
	c := &items[last]
	if c.Message != nil {
		out = append(out, c)
	} else { // no message given: the summary alone, as pi would build it
		cc := *c
		cc.Message = &llm.Message{Role: llm.RoleCompactionSummary, Summary: c.Summary}
		out = append(out, &cc)
	}
	found := false
	for i := 0; i < last; i++ {
		if items[i].EntryID == c.FirstKeptEntryID {
			found = true
		}
		if found {
			add(i)
		}
	}
	fresh := len(out)
	for i := last + 1; i < len(items); i++ {
		add(i)
	}
	return out, fresh
}

func lastCompaction(items []Item) int {
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == KindCompaction {
			return i
		}
	}
	return -1
}

// usageTokens is pi's calculateContextTokens, or false when the message has
// no trustworthy usage (not an assistant message, aborted, or an error).
func usageTokens(m *llm.Message) (int, bool) {
	if m.Role != llm.RoleAssistant || m.StopReason == llm.StopAborted || m.StopReason == llm.StopError {
		return 0, false
	}
	u := m.Usage
	if u.TotalTokens > 0 {
		return u.TotalTokens, true
	}
	t := u.Input + u.Output + u.CacheRead + u.CacheWrite
	return t, t > 0
}

// ContextTokens is pi's estimateContextTokens: the last assistant usage
// (totalTokens, else input+output+cacheRead+cacheWrite; aborted and error
// answers skipped) plus the estimate of the messages after it. Without any
// usage every message is estimated and lastUsageIndex is -1.
//
// After a compaction the kept messages carry usage from the old, larger
// context. As pi does, an assistant message whose timestamp is not after
// the latest compactionSummary message's timestamp is not trusted for usage.
func ContextTokens(msgs []llm.Message, e *Estimator) (tokens int, lastUsageIndex int) {
	var compactedAt int64
	has := false
	for i := range msgs {
		if msgs[i].Role == llm.RoleCompactionSummary {
			compactedAt, has = msgs[i].Timestamp, true
		}
	}
	lastUsageIndex = -1
	usage := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if has && m.Timestamp <= compactedAt {
			continue
		}
		if u, ok := usageTokens(m); ok {
			usage, lastUsageIndex = u, i
			break
		}
	}
	tokens = usage
	for i := lastUsageIndex + 1; i < len(msgs); i++ {
		tokens += e.Message(&msgs[i])
	}
	return tokens, lastUsageIndex
}

// itemsContextTokens is ContextTokens over a branch, using the position of
// the latest compaction rather than timestamps and the estimator's memo.
func itemsContextTokens(items []Item, e *Estimator) int {
	ctx, fresh := contextOf(items)
	last := -1
	usage := 0
	for i := len(ctx) - 1; i >= fresh; i-- {
		if u, ok := usageTokens(ctx[i].Message); ok {
			usage, last = u, i
			break
		}
	}
	tokens := usage
	for i := last + 1; i < len(ctx); i++ {
		tokens += e.item(ctx[i])
	}
	return tokens
}
