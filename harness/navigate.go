package harness

import (
	"context"
	"fmt"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
)

// NavigateOptions are session/navigate's options.
type NavigateOptions struct {
	Summarize          bool
	CustomInstructions string
	Label              string
	// RestoreFiles ("files": "restore") also puts the workspace's files
	// back as they were at the target (rewind.go).
	RestoreFiles bool
}

// NavigateResult says where the leaf went.
type NavigateResult struct {
	LeafID         string `json:"leafId"`
	EditorText     string `json:"editorText,omitempty"`
	SummaryEntryID string `json:"summaryEntryId,omitempty"`
	// Files is what RestoreFiles did.
	Files *FilesResult `json:"files,omitempty"`
}

// Navigate moves the leaf to targetID, as pi's tree navigation: a user (or
// custom) message puts the leaf on its parent and hands its text back for
// editing; any other entry becomes the leaf. With Summarize the abandoned
// branch (old leaf back to the common ancestor) is summarized into a
// branch_summary entry at the new position.
//
// It is a session operation (sessionops.go): it needs the idle harness.
func (h *Harness) Navigate(ctx context.Context, targetID string, opts NavigateOptions) (NavigateResult, error) {
	return h.sessions.navigate(ctx, targetID, opts)
}

// navigate is Navigate. With Summarize it claims PhaseBranchSummary (the
// displays show the summary being made), else PhaseIdle; either way a
// running harness refuses it with *BusyError before anything moves.
func (o *sessionHost) navigate(ctx context.Context, targetID string, opts NavigateOptions) (NavigateResult, error) {
	h := o.h
	s := o.current()
	if s == nil {
		return NavigateResult{}, ErrNoSession
	}
	target, err := s.Entry(targetID)
	if err != nil {
		return NavigateResult{}, fmt.Errorf("%w: entry %q: %w", ErrNotFound, targetID, err)
	}
	var model llm.Model
	if opts.Summarize {
		if model, err = h.Model(ctx); err != nil {
			return NavigateResult{}, err
		}
		if err := h.owner.claim(PhaseBranchSummary); err != nil {
			return NavigateResult{}, err
		}
	} else if err := h.owner.claim(PhaseIdle); err != nil {
		return NavigateResult{}, err
	}
	defer h.owner.release()
	// The end checkpoint in flight goes below the leaf it was taken at.
	if err := h.settleCheckpoint(ctx); err != nil {
		return NavigateResult{}, err
	}
	if opts.RestoreFiles {
		// A target without a whole checkpoint fails before anything moves.
		if err := h.checkRestorable(ctx, s, targetID); err != nil {
			return NavigateResult{}, err
		}
	}
	oldLeaf := s.LeafID()
	res := NavigateResult{}
	newLeaf := targetID
	switch {
	case target.Type == "message" && target.Message != nil && target.Message.Role == llm.RoleUser:
		newLeaf, res.EditorText = target.ParentID, target.Message.Text()
	case target.Type == "custom_message":
		newLeaf, res.EditorText = target.ParentID, llm.JoinText(target.Content)
	}

	var summary *compaction.BranchResult
	if opts.Summarize && oldLeaf != "" && oldLeaf != newLeaf {
		abandoned, err := h.abandonedItems(ctx, oldLeaf, newLeaf)
		if err != nil {
			return NavigateResult{}, err
		}
		if len(abandoned) > 0 {
			h.emit(Event{Type: EvCompactionStart, Reason: "branch_summary"})
			bp := compaction.PrepareBranch(abandoned, compaction.BranchBudget(model.ContextWindow, h.budget(model)), h.estimator(model))
			r, err := compaction.SummarizeBranch(ctx, bp, model, h.cfg.Streamer, opts.CustomInstructions)
			if err != nil {
				h.emit(Event{Type: EvCompactionEnd, Reason: "branch_summary", Error: err.Error()})
				return NavigateResult{}, fmt.Errorf("branch summary failed (the session is unchanged): %w", err)
			}
			h.emit(Event{Type: EvCompactionEnd, Reason: "branch_summary", Summary: r.Summary})
			summary = &r
		}
	}
	if opts.RestoreFiles {
		files, err := h.restoreFilesLocked(ctx, s, targetID)
		if err != nil {
			return NavigateResult{}, err
		}
		res.Files = &files
	}
	if err := s.Navigate(ctx, newLeaf); err != nil {
		return NavigateResult{}, fmt.Errorf("navigate: %w", err)
	}
	if summary != nil {
		id, err := s.AppendBranchSummary(ctx, newLeaf, summary.Summary, summary.Details, false)
		if err != nil {
			return NavigateResult{}, fmt.Errorf("record branch summary: %w", err)
		}
		res.SummaryEntryID = id
		if opts.Label != "" {
			if err := s.SetLabel(ctx, id, opts.Label); err != nil {
				return NavigateResult{}, err
			}
		}
	} else if opts.Label != "" {
		if err := s.SetLabel(ctx, targetID, opts.Label); err != nil {
			return NavigateResult{}, err
		}
	}
	res.LeafID = s.LeafID()
	h.reloadUsage(ctx, s) // the tokens are the new branch's
	h.resetMemory(ctx)    // another branch: its own memory records
	h.emit(h.sessionEvent(ctx))
	h.announceMemory()
	return res, nil
}

// abandonedItems returns the entries from oldLeaf back to (not including)
// the common ancestor with newLeaf, newest first.
func (h *Harness) abandonedItems(ctx context.Context, oldLeaf, newLeaf string) ([]compaction.Item, error) {
	s := h.currentSession()
	oldBranch, err := s.Branch(oldLeaf)
	if err != nil {
		return nil, err
	}
	onNew := map[string]bool{}
	if newLeaf != "" {
		nb, err := s.Branch(newLeaf)
		if err != nil {
			return nil, err
		}
		for _, e := range nb {
			onNew[e.ID] = true
		}
	}
	var out []compaction.Item
	for i := len(oldBranch) - 1; i >= 0; i-- {
		e := oldBranch[i]
		if onNew[e.ID] {
			break
		}
		out = append(out, entryItem(e))
	}
	return out, nil
}
