package tools

import (
	"context"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/env"
)

// resolvePath makes a model-supplied path absolute as pi does: a leading "@"
// is dropped, unusual Unicode spaces become plain spaces, ~ is expanded and
// relative paths are taken against the env's cwd.
func resolvePath(e env.Env, p string) string {
	p = strings.TrimPrefix(p, "@")
	p = strings.Map(func(r rune) rune {
		switch {
		case r == '\u00A0', r >= '\u2000' && r <= '\u200A', r == '\u202F', r == '\u205F', r == '\u3000':
			return ' '
		}
		return r
	}, p)
	return e.Resolve(p)
}

// resolveReadPath is resolvePath plus pi's fallback for macOS screenshot
// names, which put a narrow no-break space before AM/PM.
func resolveReadPath(ctx context.Context, e env.Env, p string) string {
	abs := resolvePath(e, p)
	if _, err := e.Stat(ctx, abs); err == nil {
		return abs
	}
	for _, ampm := range []string{" AM.", " PM.", " am.", " pm."} {
		if strings.Contains(abs, ampm) {
			alt := strings.ReplaceAll(abs, ampm, "\u202F"+ampm[1:])
			if _, err := e.Stat(ctx, alt); err == nil {
				return alt
			}
		}
	}
	return abs
}

// displayPath shows abs relative to cwd when it is inside it.
func displayPath(e env.Env, abs string) string {
	if rel, err := filepath.Rel(e.Cwd(), abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// fileLocks serialises mutations of one file (parallel edit/write calls).
type fileLocks struct {
	m sync.Map // absolute path -> *sync.Mutex
}

func (l *fileLocks) lock(path string) func() {
	mu, _ := l.m.LoadOrStore(path, &sync.Mutex{})
	m := mu.(*sync.Mutex)
	m.Lock()
	return m.Unlock
}
