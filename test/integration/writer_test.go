package integration

import (
	"strings"
	"sync"
)

// lockedWriter lets the child's stderr be copied while a test reads it.
type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
