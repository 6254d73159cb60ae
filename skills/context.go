package skills

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/env"
)

// ContextFile is a project instructions file put into the system prompt.
type ContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// contextFileNames are tried in this order in each directory; the first
// that exists is that directory's context file (pi's list).
var contextFileNames = [...]string{"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// FindContextFiles returns the context files in pi's order: the agent
// directory's (~/.pi/agent) first, then one per directory from the
// filesystem root down to cwd. A file reached twice (the agent directory is
// also an ancestor) appears once. The files found are always returned; err
// joins the files that exist but could not be read, and ctx's error.
func FindContextFiles(ctx context.Context, fsys FS, cwd, agentDir string) ([]ContextFile, error) {
	var (
		files []ContextFile
		errs  []error
		seen  = map[string]bool{}
	)
	find := func(dir string) (ContextFile, bool) {
		for _, name := range contextFileNames {
			p := filepath.Join(dir, name)
			data, err := fsys.ReadFile(ctx, p)
			if err == nil {
				return ContextFile{Path: p, Content: string(data)}, true
			}
			if c := env.CodeOf(err); c != env.CodeNotFound && c != env.CodeNotDirectory {
				errs = append(errs, fmt.Errorf("context file: %w", err))
			}
		}
		return ContextFile{}, false
	}
	if agentDir != "" {
		if f, ok := find(agentDir); ok {
			files = append(files, f)
			seen[f.Path] = true
		}
	}
	var chain []ContextFile
	if cwd != "" {
		for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
			if ctx.Err() != nil {
				errs = append(errs, ctx.Err())
				break
			}
			if f, ok := find(dir); ok && !seen[f.Path] {
				chain = append(chain, f)
				seen[f.Path] = true
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		files = append(files, chain[i])
	}
	return files, errors.Join(errs...)
}
