package compaction

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
)

// DefaultTrimChars is how much of an old tool output TrimToolOutputs keeps
// (head and tail together), the same size pi's serializer keeps for the
// summarizer.
const DefaultTrimChars = 2000

// trimSlack: outputs at most this much over the limit are left alone. It is
// larger than the marker, so a trimmed output is never trimmed again.
const trimSlack = 512

// TrimCustomType is the customType of the custom entry (type "custom", not in
// the model's context) in which the harness records Trims, so that a reloaded
// session re-applies them with ApplyTrims.
const TrimCustomType = "pi-lsp/trim"

// Trim records one tool output cut to its head and tail. Offsets are bytes
// of the output's joined text blocks.
type Trim struct {
	EntryID        string `json:"entryId"`
	ToolName       string `json:"toolName,omitempty"`
	OriginalBytes  int    `json:"originalBytes"`
	HeadBytes      int    `json:"headBytes"`
	TailBytes      int    `json:"tailBytes"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
	SavedTokens    int    `json:"savedTokens"`
}

// TrimToolOutputs cuts old tool outputs to about maxChars (DefaultTrimChars
// when <= 0): every tool result in the context that lies before the kept
// tail (the part Prepare would keep, s.KeepRecentTokens) and is longer than
// maxChars keeps its head and tail around a marker naming the full output's
// path (the result's details.fullOutputPath) or saying how to get it back.
// Nothing in the kept tail is touched, nor anything already out of context.
//
// It returns the branch with the trims applied (items itself is not
// modified), the estimated tokens saved and the trims to record.
func TrimToolOutputs(items []Item, s Settings, e *Estimator, maxChars int) (trimmed []Item, saved int, trims []Trim) {
	if maxChars <= 0 {
		maxChars = DefaultTrimChars
	}
	start := contextStart(items)
	cut := findCutPoint(items, start, len(items), s.KeepRecentTokens, e).firstKept
	return trimRange(items, start, cut, e, maxChars)
}

// minTailChars is the smallest size TrimTail cuts a tool output to.
const minTailChars = 250

// TrimTail is the last resort when even the newest turn does not fit the
// window and nothing before it is left to compact: it cuts every tool
// output still in the context, the kept tail included, to the largest size
// (maxChars, halved down to minTailChars) at which the branch is under the
// threshold. items must be the branch without earlier trims applied (the
// trims returned replace those). ok is false when even the smallest size
// does not fit; size is the size used.
func TrimTail(items []Item, contextWindow int, s Settings, e *Estimator, maxChars int) (trimmed []Item, saved int, trims []Trim, size int, ok bool) {
	if maxChars <= 0 {
		maxChars = DefaultTrimChars
	}
	before := max(itemsContextTokens(items, e), ContentTokens(items, e))
	start := contextStart(items)
	for size = maxChars; size >= minTailChars; size /= 2 {
		trimmed, saved, trims = trimRange(items, start, len(items), e, size)
		if saved > 0 && !ShouldCompact(before-saved, contextWindow, s) {
			return trimmed, saved, trims, size, true
		}
	}
	return items, 0, nil, 0, false
}

// trimRange cuts the tool outputs in items[from:to] longer than maxChars.
func trimRange(items []Item, from, to int, e *Estimator, maxChars int) (trimmed []Item, saved int, trims []Trim) {
	trimmed = items
	copied := false
	for i := from; i < to; i++ {
		it := &items[i]
		m := it.Message
		if it.Kind != KindMessage || m == nil || m.Role != llm.RoleToolResult {
			continue
		}
		text := m.Text()
		if len(text) <= maxChars+trimSlack {
			continue
		}
		head, tail := trimBounds(text, maxChars)
		path := fullOutputPath(m.Details)
		nm := applyTrim(m, text, head, tail, path)
		if !copied {
			trimmed = append([]Item(nil), items...)
			copied = true
		}
		trimmed[i].Message = nm
		t := Trim{
			EntryID: it.EntryID, ToolName: m.ToolName, OriginalBytes: len(text),
			HeadBytes: head, TailBytes: tail, FullOutputPath: path,
			SavedTokens: max(e.item(it)-e.item(&trimmed[i]), 0),
		}
		saved += t.SavedTokens
		trims = append(trims, t)
	}
	return trimmed, saved, trims
}

// ApplyTrims re-applies recorded trims to a branch (for example after a
// reload). Only entries still in the context are touched. A trim whose entry
// is missing, is not a tool result, or whose output no longer has the
// recorded size is ignored.
func ApplyTrims(items []Item, trims []Trim) []Item {
	if len(trims) == 0 {
		return items
	}
	byID := make(map[string]*Trim, len(trims))
	for i := range trims {
		byID[trims[i].EntryID] = &trims[i]
	}
	out := items
	copied := false
	for i := contextStart(items); i < len(items); i++ { // older entries are out of context
		t, ok := byID[items[i].EntryID]
		m := items[i].Message
		if !ok || m == nil || m.Role != llm.RoleToolResult {
			continue
		}
		text := m.Text()
		if len(text) != t.OriginalBytes || t.HeadBytes < 0 || t.TailBytes < 0 || t.HeadBytes+t.TailBytes > len(text) {
			continue
		}
		if !copied {
			out = append([]Item(nil), items...)
			copied = true
		}
		out[i].Message = applyTrim(m, text, t.HeadBytes, t.TailBytes, t.FullOutputPath)
	}
	return out
}

// contextStart is the first item still in the context: the latest
// compaction's first kept entry (or the entry after it), else 0.
func contextStart(items []Item) int {
	prev := lastCompaction(items)
	if prev < 0 {
		return 0
	}
	for i := 0; i < prev; i++ {
		if items[i].EntryID == items[prev].FirstKeptEntryID {
			return i
		}
	}
	return prev + 1
}

// trimBounds splits maxChars bytes between head and tail, moving each cut
// to a line boundary when one is near and never splitting a UTF-8 sequence.
func trimBounds(text string, maxChars int) (head, tail int) {
	head = maxChars / 2
	if i := strings.LastIndexByte(text[:head], '\n'); i >= head/2 {
		head = i + 1
	}
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	from := len(text) - (maxChars - maxChars/2)
	if i := strings.IndexByte(text[from:], '\n'); i >= 0 && i < (len(text)-from)/2 {
		from += i + 1
	}
	for from < len(text) && !utf8.RuneStart(text[from]) {
		from++
	}
	return head, len(text) - from
}

// applyTrim returns a copy of m whose text is head + marker + tail; other
// blocks (images) are kept.
func applyTrim(m *llm.Message, text string, head, tail int, path string) *llm.Message {
	removed := text[head : len(text)-tail]
	marker := "\n\n[... " + strconv.Itoa(utf8.RuneCountInString(removed)) +
		" characters of this old tool output were trimmed by pi-lsp to save context"
	if path != "" {
		marker += ". Full output: " + path + " ...]\n\n"
	} else {
		marker += "; run the tool again if you need them ...]\n\n"
	}
	nm := *m
	nm.Content = make([]llm.ContentBlock, 0, len(m.Content))
	placed := false
	for _, b := range m.Content {
		if b.Type != llm.BlockText {
			nm.Content = append(nm.Content, b)
			continue
		}
		if !placed {
			nm.Content = append(nm.Content, llm.TextBlock(text[:head]+marker+text[len(text)-tail:]))
			placed = true
		}
	}
	return &nm
}

// fullOutputPath reads details.fullOutputPath of a tool result (pi's bash
// tool writes it when the output was truncated).
func fullOutputPath(details json.RawMessage) string {
	if len(details) == 0 {
		return ""
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(details, &d) != nil {
		return ""
	}
	var p string
	if json.Unmarshal(d["fullOutputPath"], &p) != nil {
		return ""
	}
	return p
}
