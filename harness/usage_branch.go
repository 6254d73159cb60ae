package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/session"
)

// reloadUsage recounts the token totals after the leaf moved: the tokens
// of the new branch's assistant messages and the last one's usage, as
// restoreState counts them at an open; the cost stays the whole file's.
func (h *Harness) reloadUsage(ctx context.Context, s *session.Session) {
	sum, last, err := s.ContextUsage(ctx)
	if err != nil {
		h.log.Warn("navigate: usage", "err", err)
		return
	}
	sum.Cost = s.Cost()
	n := s.CountOnBranch("compaction")
	h.mu.Lock()
	h.cumulative, h.lastUsage, h.compactions = sum, last, n
	h.mu.Unlock()
}
