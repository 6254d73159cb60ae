package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// branchItems converts the part of the current branch that the model's
// context is made of (session.ContextEntries) into compaction items, with
// the recorded tool-output trims applied. Nothing before that part is in the
// context, nor read by the compaction functions (they all start at
// compaction's contextStart), so the result is the same as for the whole
// branch, and the work of a model call stays bounded by the window, not by
// the length of the session.
func (h *Harness) branchItems(ctx context.Context) ([]compaction.Item, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil
	}
	entries, err := s.ContextEntries(ctx)
	if err != nil {
		return nil, fmt.Errorf("read branch: %w", err)
	}
	items := make([]compaction.Item, 0, len(entries))
	for _, e := range entries {
		items = append(items, entryItem(e))
	}
	return compaction.ApplyTrims(items, h.loadTrims(s)), nil
}

func entryItem(e *session.Entry) compaction.Item {
	it := compaction.Item{EntryID: e.ID, Kind: compaction.KindOther}
	switch e.Type {
	case "message":
		if e.Message != nil {
			m := *e.Message
			it.Kind, it.Message = compaction.KindMessage, &m
		}
	case "compaction":
		it.Kind, it.Summary, it.FirstKeptEntryID = compaction.KindCompaction, e.Summary, e.FirstKeptEntryID
		it.Details = fileOps(e)
		it.Message = &llm.Message{Role: llm.RoleCompactionSummary, Summary: e.Summary, TokensBefore: e.TokensBefore, Timestamp: e.TimestampMillis()}
	case "branch_summary":
		it.Kind, it.Summary = compaction.KindBranchSummary, e.Summary
		it.Details = fileOps(e)
		m := llm.Message{Role: llm.RoleBranchSummary, Summary: e.Summary, FromID: e.FromID, Timestamp: e.TimestampMillis()}
		it.Message = &m
	case "custom_message":
		it.Kind = compaction.KindCustomMessage
		if m, ok := e.ContextMessage(); ok {
			it.Message = &m
		}
	}
	return it
}

func fileOps(e *session.Entry) *compaction.FileOps {
	if e.FromHook || len(e.Details) == 0 {
		return nil
	}
	var f compaction.FileOps
	if json.Unmarshal(e.Details, &f) != nil {
		return nil
	}
	return &f
}

// loadTrims returns the tool-output trims recorded on the current branch.
func (h *Harness) loadTrims(s *session.Session) []compaction.Trim {
	raw, ok := s.LatestCustom(customTrim)
	if !ok {
		return nil
	}
	var rec struct {
		Trims []compaction.Trim `json:"trims"`
	}
	if json.Unmarshal(raw, &rec) != nil {
		return nil
	}
	return rec.Trims
}

// contextMessages is what the model sees: the session's context with the
// recorded trims applied. It is the same as
// compaction.ContextMessages(branchItems), but built by the session's
// BuildContext (pi's buildSessionContext), which keeps decoded messages in
// a cache: the context is rebuilt for every model call, usage event and
// session/state, and decoding it each time cost more than the rest of a
// turn.
func (h *Harness) contextMessages(ctx context.Context) ([]llm.Message, error) {
	s := h.currentSession()
	if s == nil {
		return []llm.Message{}, nil
	}
	if msgs, ok, err := h.memoryContext(ctx); ok {
		return msgs, err
	}
	c, err := s.BuildContext(ctx)
	h.reportSessionWarnings(s)
	if err != nil {
		return nil, err
	}
	return h.withTrims(s, c), nil
}

// withTrims applies the recorded tool-output trims to c's messages.
func (h *Harness) withTrims(s *session.Session, c session.Context) []llm.Message {
	trims := h.loadTrims(s)
	if len(trims) == 0 {
		return c.Messages
	}
	items := make([]compaction.Item, len(c.Messages))
	for i := range c.Messages {
		items[i] = compaction.Item{EntryID: c.EntryIDs[i], Kind: compaction.KindMessage, Message: &c.Messages[i]}
	}
	items = compaction.ApplyTrims(items, trims)
	out := make([]llm.Message, len(items))
	for i := range items {
		out[i] = *items[i].Message
	}
	return out
}

func (h *Harness) recordTrims(ctx context.Context, trims []compaction.Trim) error {
	s := h.currentSession()
	all := map[string]compaction.Trim{}
	for _, t := range h.loadTrims(s) {
		all[t.EntryID] = t
	}
	for _, t := range trims {
		all[t.EntryID] = t
	}
	// Only trims of entries still in context matter; the record stays small.
	items, err := h.branchItems(ctx)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, m := range items {
		live[m.EntryID] = true
	}
	list := make([]compaction.Trim, 0, len(all))
	for id, t := range all {
		if live[id] {
			list = append(list, t)
		}
	}
	if _, err := s.AppendCustom(ctx, customTrim, map[string]any{"trims": list}); err != nil {
		return fmt.Errorf("record trims: %w", err)
	}
	return nil
}

// CompactionResult is what compaction/run returns.
type CompactionResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int    `json:"tokensBefore"`
}

// Compact summarizes old history now (compaction/run). It needs the idle
// phase.
func (h *Harness) Compact(ctx context.Context, customInstructions string) (CompactionResult, error) {
	model, err := h.Model(ctx)
	if err != nil {
		return CompactionResult{}, err
	}
	if err := h.owner.claim(PhaseCompaction); err != nil {
		return CompactionResult{}, err
	}
	defer h.owner.release()
	if err := h.compactLocked(ctx, model, "manual", customInstructions); err != nil {
		return CompactionResult{}, err
	}
	s := h.currentSession()
	last, err := s.Entry(s.LeafID())
	if err != nil {
		return CompactionResult{}, fmt.Errorf("read compaction: %w", err)
	}
	if last.Type != "compaction" {
		// A session_before_compact hook cancelled it; nothing was written.
		return CompactionResult{}, errors.New("compaction cancelled by a session_before_compact hook")
	}
	return CompactionResult{Summary: last.Summary, FirstKeptEntryID: last.FirstKeptEntryID, TokensBefore: last.TokensBefore}, nil
}

// compact runs a compaction inside a run (phase compaction, then back).
func (h *Harness) compact(ctx context.Context, model llm.Model, reason, instructions string) error {
	h.owner.setPhase(PhaseCompaction)
	defer h.owner.setPhase(PhaseTurn)
	return h.compactLocked(ctx, model, reason, instructions)
}

func (h *Harness) compactLocked(ctx context.Context, model llm.Model, reason, instructions string) error {
	s := h.currentSession()
	if s == nil {
		return ErrNoSession
	}
	items, err := h.branchItems(ctx)
	if err != nil {
		return err
	}
	cm := h.contextMgr(model)
	prep, err := compaction.Prepare(items, cm.budget, cm.est)
	if err != nil || prep == nil {
		if err == nil {
			err = compaction.ErrNothingToCompact
		}
		if reason == "manual" {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return err
	}
	h.emit(Event{Type: EvCompactionStart, Reason: reason})
	h.emit(Event{Type: EvCompactionUpdate, Reason: reason,
		Summary: fmt.Sprintf("summarizing %d messages (%d tokens)", len(prep.ToSummarize)+len(prep.TurnPrefix), prep.TokensBefore)})
	var res compaction.Result
	cancelled := false
	hookCtx := context.WithValue(ctx, compactReasonKey{}, reason)
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.beforeCompact) {
		v := fn(hookCtx, prep)
		if v.Cancel {
			cancelled = true
			break
		}
		if v.Summary != "" {
			res = compaction.Result{Summary: v.Summary, FirstKeptEntryID: prep.FirstKeptEntryID, TokensBefore: prep.TokensBefore, Details: prep.FileOps}
		}
	}
	if cancelled {
		h.emit(Event{Type: EvCompactionEnd, Reason: reason, Error: "cancelled by a hook"})
		return nil
	}
	fromHook := res.Summary != ""
	if !fromHook {
		res, err = compaction.Summarize(ctx, prep, model, h.cfg.Streamer, instructions)
		if err != nil {
			h.emit(Event{Type: EvCompactionEnd, Reason: reason, Error: err.Error()})
			return fmt.Errorf("compaction failed (the session is unchanged): %w", err)
		}
	}
	if _, err := s.AppendCompaction(ctx, res.Summary, res.FirstKeptEntryID, res.TokensBefore, res.Details, fromHook); err != nil {
		h.emit(Event{Type: EvCompactionEnd, Reason: reason, Error: err.Error()})
		return fmt.Errorf("record compaction: %w", err)
	}
	h.mu.Lock()
	h.compactions++
	h.mu.Unlock()
	h.emit(Event{Type: EvCompactionEnd, Reason: reason, Summary: res.Summary, Tokens: h.tokensPtr()})
	return nil
}

// SetAutoCompaction turns automatic compaction on or off.
func (h *Harness) SetAutoCompaction(ctx context.Context, on bool) {
	h.mu.Lock()
	h.autoCompact = on
	h.mu.Unlock()
	h.persistState(ctx)
}
