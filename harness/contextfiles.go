package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/skills"
)

// contextFilesCache holds the context files (AGENTS.md, CLAUDE.md) found for
// the current run: they are looked up once per run, at its first model
// request, not once per request, and looked up again by the next run (or
// when a watched skill or prompt directory changes), so an edit the user
// made between runs is in the next run's prompt.
type contextFilesCache struct {
	files []skills.ContextFile
	valid bool
}

// contextFiles returns the run's context files, finding them when the cache
// was reset.
func (h *Harness) contextFiles(ctx context.Context) []skills.ContextFile {
	h.mu.Lock()
	c := h.ctxFiles
	h.mu.Unlock()
	if c.valid {
		return c.files
	}
	cf, err := skills.FindContextFiles(ctx, h.cfg.Env, h.Cwd(), h.cfg.AgentDir)
	if err != nil {
		h.log.Warn("context files", "err", err)
		return cf // not cached: the next request tries again
	}
	h.mu.Lock()
	h.ctxFiles = contextFilesCache{files: cf, valid: true}
	h.mu.Unlock()
	return cf
}

// resetContextFiles makes the next request look the context files up again.
func (h *Harness) resetContextFiles() {
	h.mu.Lock()
	h.ctxFiles = contextFilesCache{}
	h.mu.Unlock()
}
