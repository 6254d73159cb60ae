package harness

import (
	"context"
	"slices"

	"github.com/pi-lsp/pi-lsp/session"
)

// The end checkpoint of a run that changed files is off the turn's
// critical path too: the run ends (idle, the answer shown) while the
// workspace is walked in the background. Its entry is appended at the
// leaf when the walk is done, so everything that moves the leaf, reads
// checkpoints or changes files waits for it first (settleCheckpoint): the
// next run (before its prompt is recorded), navigate, the rewind preview,
// a files restore, fork, clone, a session switch or close, and the
// harness's Close (the process exits only after it is recorded). Entries
// that do not move the leaf (a title, a label) may land before it;
// resolveCheckpoint looks below them (endBelow).
//
// Crash safety: the entry is appended only after the manifest is in the
// store, so a process that dies first leaves no entry, never one naming a
// missing checkpoint; the files are then those of the next checkpoint (the
// next run's start, or the one a restore takes first).

// checkpointRunEnd starts the end checkpoint of a run; it is recorded only
// when the files changed since the run started. A run whose tools were all
// read tools (or that ran none), with no command hooks configured, changed
// no file: it takes none. Edits made meanwhile by someone else (the user
// in the editor) are in the next checkpoint: the next run's start, or the
// one a restore takes first.
func (h *Harness) checkpointRunEnd(ctx context.Context, start checkpointData) {
	if start.ID == "" || (!h.ck.changing.Load() && !h.hasCommandHooks()) {
		return
	}
	s := h.currentSession()
	if s == nil {
		return
	}
	ctx = context.WithoutCancel(ctx) // the run's end does not cut it short
	done := make(chan struct{})
	h.ck.endMu.Lock()
	prev := h.ck.pending
	h.ck.pending = done
	h.ck.endMu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev // one at a time, in order
		}
		h.checkpoint(ctx, s, ckEnd, start)
	}()
}

// settleCheckpoint waits until the end checkpoint in flight (if any) is
// recorded, or ctx is done.
func (h *Harness) settleCheckpoint(ctx context.Context) error {
	h.ck.endMu.Lock()
	p := h.ck.pending
	h.ck.endMu.Unlock()
	if p == nil {
		return nil
	}
	return waitFor(ctx, p, "the end checkpoint")
}

// endBelow finds the end checkpoint of a run recorded below entries that
// were appended at the leaf while it was taken in the background (a title,
// a label, a model or thinking change): it follows the entry's
// descendants, newest first, through such entries only.
func endBelow(s *session.Session, entryID string) (checkpointData, bool) {
	queue := s.Children(entryID)
	slices.Reverse(queue)
	for n := 0; len(queue) > 0 && n < 256; n++ {
		id := queue[0]
		queue = queue[1:]
		e, err := s.Entry(id)
		if err != nil {
			continue
		}
		if d, ok := checkpointOf(e); ok {
			if d.Kind == ckEnd {
				return d, true
			}
			continue
		}
		switch e.Type {
		case session.TypeCustom, session.TypeSessionInfo, session.TypeLabel, session.TypeModelChange, session.TypeThinkingLevel:
			kids := s.Children(id)
			slices.Reverse(kids)
			queue = append(queue, kids...)
		}
	}
	return checkpointData{}, false
}
