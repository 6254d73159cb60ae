package compaction

import (
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Errors of Prepare.
var (
	// ErrAlreadyCompacted: the branch ends with a compaction entry.
	ErrAlreadyCompacted = errors.New("compaction: already compacted")
	// ErrNothingToCompact: everything since the last compaction fits in the
	// kept tail, or no valid cut point exists.
	ErrNothingToCompact = errors.New("compaction: nothing to compact")
)

// Preparation is pi's CompactionPreparation: what a compaction would
// summarize and keep. It is also what a session_before_compact hook sees.
type Preparation struct {
	// FirstKeptEntryID is the first entry kept verbatim after the compaction.
	FirstKeptEntryID string
	// ToSummarize are the messages before the cut (pi: messagesToSummarize),
	// from the previous compaction's kept boundary on.
	ToSummarize []llm.Message
	// TurnPrefix is the early part of a turn cut in the middle (split turn).
	TurnPrefix  []llm.Message
	IsSplitTurn bool
	// TokensBefore is the context size being replaced (ContextTokens).
	TokensBefore int
	// PreviousSummary is the latest compaction's summary, if any: the new
	// summary is an update of it.
	PreviousSummary string
	// FileOps merges the previous compaction's lists with the read, write and
	// edit calls of ToSummarize and TurnPrefix.
	FileOps  FileOps
	Settings Settings
}

// Prepare is pi's prepareCompaction with findCutPoint: it finds where to cut
// items (the current branch, root to leaf) so that about
// s.KeepRecentTokens stay, never at a tool result, and collects what to
// summarize. It returns ErrAlreadyCompacted or ErrNothingToCompact (use
// errors.Is) when there is nothing to do, and an error for an item without
// an entry id at the cut.
func Prepare(items []Item, s Settings, e *Estimator) (*Preparation, error) {
	if len(items) > 0 && items[len(items)-1].Kind == KindCompaction {
		return nil, ErrAlreadyCompacted
	}
	prev := lastCompaction(items)
	start := 0
	var previousSummary string
	var prevDetails *FileOps
	if prev >= 0 {
		c := &items[prev]
		previousSummary = c.Summary
		if previousSummary == "" && c.Message != nil {
			previousSummary = c.Message.Summary
		}
		prevDetails = c.Details
		start = contextStart(items)
	}
	cut := findCutPoint(items, start, len(items), s.KeepRecentTokens, e)
	if cut.firstKept >= len(items) {
		return nil, ErrNothingToCompact
	}
	firstKept := items[cut.firstKept].EntryID
	if firstKept == "" {
		return nil, fmt.Errorf("compaction: entry %d at the cut has no id", cut.firstKept)
	}
	historyEnd := cut.firstKept
	if cut.split {
		historyEnd = cut.turnStart
	}
	p := &Preparation{
		FirstKeptEntryID: firstKept,
		IsSplitTurn:      cut.split,
		PreviousSummary:  previousSummary,
		Settings:         s,
	}
	files := newFileSets()
	files.addDetails(prevDetails)
	p.ToSummarize = summarizable(items[start:historyEnd], files)
	if cut.split {
		p.TurnPrefix = summarizable(items[cut.turnStart:cut.firstKept], files)
	}
	if len(p.ToSummarize) == 0 && len(p.TurnPrefix) == 0 {
		return nil, ErrNothingToCompact
	}
	p.FileOps = files.lists()
	p.TokensBefore = itemsContextTokens(items, e)
	return p, nil
}

// summarizable copies the messages of items (compaction entries excluded, as
// pi's getMessageFromEntryForCompaction) and records their file operations.
func summarizable(items []Item, files *fileSets) []llm.Message {
	var out []llm.Message
	for i := range items {
		it := &items[i]
		if it.Message == nil || it.Kind == KindCompaction || it.Kind == KindOther {
			continue
		}
		out = append(out, *it.Message)
		files.addMessage(it.Message)
	}
	return out
}
