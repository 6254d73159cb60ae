package compaction

import (
	"context"

	"github.com/pi-lsp/pi-lsp/llm"
)

// branchSummaryMaxTokens is pi's output limit for branch summaries.
const branchSummaryMaxTokens = 2048

// BranchPreparation is pi's BranchPreparation: the newest messages of an
// abandoned branch that fit the budget, in chronological order.
type BranchPreparation struct {
	Messages    []llm.Message
	FileOps     FileOps
	TotalTokens int
}

// BranchResult is what a branch_summary entry stores: the summary and, as
// details, the file lists.
type BranchResult struct {
	Summary string
	Details FileOps
}

// BranchBudget is pi's token budget for a branch summary: the window (128000
// when unknown) minus the reserve.
func BranchBudget(contextWindow int, s Settings) int {
	if contextWindow <= 0 {
		contextWindow = 128000
	}
	return max(contextWindow-s.ReserveTokens, 0)
}

// PrepareBranch is pi's prepareBranchEntries. abandoned holds the entries
// from the old leaf back to the common ancestor, newest first. Messages are
// taken newest first until tokenBudget (0: no limit) is reached; a summary
// entry that overflows is still taken while under 90% of the budget. Tool
// results are skipped (their call says enough). File lists merge the details
// of earlier branch summaries in the whole branch with the read/write/edit
// calls of the messages looked at.
func PrepareBranch(abandoned []Item, tokenBudget int, e *Estimator) BranchPreparation {
	files := newFileSets()
	for i := range abandoned {
		if abandoned[i].Kind == KindBranchSummary {
			files.addDetails(abandoned[i].Details)
		}
	}
	var rev []llm.Message
	total := 0
	for i := range abandoned {
		it := &abandoned[i]
		m := branchMessage(it)
		if m == nil {
			continue
		}
		files.addMessage(m)
		t := e.Message(m)
		if tokenBudget > 0 && total+t > tokenBudget {
			if (it.Kind == KindCompaction || it.Kind == KindBranchSummary) && float64(total) < 0.9*float64(tokenBudget) {
				rev = append(rev, *m)
				total += t
			}
			break
		}
		rev = append(rev, *m)
		total += t
	}
	msgs := make([]llm.Message, len(rev))
	for i := range rev {
		msgs[len(rev)-1-i] = rev[i]
	}
	return BranchPreparation{Messages: msgs, FileOps: files.lists(), TotalTokens: total}
}

// branchMessage is branch-summarization's getMessageFromEntry: tool results
// and non-message entries give nil; a compaction gives its summary message.
func branchMessage(it *Item) *llm.Message {
	switch it.Kind {
	case KindMessage:
		if it.Message == nil || it.Message.Role == llm.RoleToolResult {
			return nil
		}
		return it.Message
	case KindCustomMessage, KindBranchSummary:
		return it.Message
	case KindCompaction:
		if it.Message != nil {
			return it.Message
		}
		return &llm.Message{Role: llm.RoleCompactionSummary, Summary: it.Summary}
	}
	return nil
}

// SummarizeBranch is pi's generateBranchSummary: the structured branch
// summary (at most 2048 output tokens) behind pi's preamble, with the file
// lists appended. An empty preparation gives "No content to summarize"
// without a model call. A failed, aborted or empty answer returns an error
// wrapping ErrSummaryFailed.
func SummarizeBranch(ctx context.Context, bp BranchPreparation, model llm.Model, s Summarizer, customInstructions string) (BranchResult, error) {
	if len(bp.Messages) == 0 {
		return BranchResult{Summary: "No content to summarize", Details: FileOps{ReadFiles: []string{}, ModifiedFiles: []string{}}}, nil
	}
	instructions := branchSummaryPrompt
	if customInstructions != "" {
		instructions += "\n\nAdditional focus: " + customInstructions
	}
	prompt := "<conversation>\n" + SerializeConversation(bp.Messages) + "\n</conversation>\n\n" + instructions
	text, err := complete(ctx, s, model, prompt, branchSummaryMaxTokens, "Branch summarization")
	if err != nil {
		return BranchResult{}, err
	}
	return BranchResult{
		Summary: branchSummaryPreamble + text + formatFileOperations(bp.FileOps),
		Details: bp.FileOps,
	}, nil
}
