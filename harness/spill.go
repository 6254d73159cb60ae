package harness

import (
	"os"

	"github.com/pi-lsp/pi-lsp/tools"
)

// trackSpill remembers a bash spill file made in the current session; it is
// removed when the session closes.
func (h *Harness) trackSpill(path string) {
	if path == "" {
		return
	}
	h.mu.Lock()
	h.spills = append(h.spills, path)
	h.mu.Unlock()
}

// removeSpills deletes the spill files of the session being closed.
func (h *Harness) removeSpills() {
	h.mu.Lock()
	paths := h.spills
	h.spills = nil
	h.mu.Unlock()
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			h.log.Warn("remove bash output file", "path", p, "err", err)
		}
	}
}

// spillOf is the spill file a tool result names, if it is one of ours.
func spillOf(res tools.Result) string { return tools.SpillPath(res.Details) }
