package skills

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// ContextFile is a project instructions file put into the system prompt.
type ContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// contextFileNames are pi's names in pi's order: in each directory the
// first that exists is that directory's context file.
var contextFileNames = [...]string{"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// FindContextFiles returns the context files in pi's order: the agent
// directory's (~/.pi/agent) first, then one per directory from the
// filesystem root down to cwd. A file reached twice (the agent directory is
// also an ancestor) appears once. The files found are always returned; err
// joins the files that exist but could not be read, and ctx's error.
//
// Existence is decided from one directory listing per directory (fsys's
// ReadDir, which an editor overlay serves from the disk), so a file that
// does not exist is never read: only the file found is, through fsys, whose
// editor overlay asks the editor for workspace files alone.
func FindContextFiles(ctx context.Context, fsys FS, cwd, agentDir string) ([]ContextFile, error) {
	var (
		files []ContextFile
		errs  []error
		seen  = map[string]bool{}
	)
	find := func(dir string) (ContextFile, bool) {
		name, ok := contextFileIn(ctx, fsys, dir)
		if !ok {
			return ContextFile{}, false
		}
		p := filepath.Join(dir, name)
		data, err := fsys.ReadFile(ctx, p)
		if err != nil {
			if c := env.CodeOf(err); c != env.CodeNotFound && c != env.CodeNotDirectory {
				errs = append(errs, fmt.Errorf("context file: %w", err))
			}
			return ContextFile{}, false
		}
		return ContextFile{Path: p, Content: string(data)}, true
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

// contextFileIn names dir's context file from its listing: pi's names in
// pi's order, then any other spelling of agents.md, then of claude.md (a
// case-insensitive file system, or a user's "Agents.md"). A directory that
// cannot be listed but can be searched falls back to a stat per name.
func contextFileIn(ctx context.Context, fsys FS, dir string) (string, bool) {
	entries, err := fsys.ReadDir(ctx, dir)
	if err != nil {
		if env.CodeOf(err) != env.CodePermissionDenied {
			return "", false
		}
		for _, name := range contextFileNames {
			if fi, err := fsys.Stat(ctx, filepath.Join(dir, name)); err == nil && !fi.IsDir {
				return name, true
			}
		}
		return "", false
	}
	isFile := func(e env.FileInfo) bool { return !e.IsDir }
	for _, name := range contextFileNames {
		for _, e := range entries {
			if e.Name == name && (isFile(e) || isFileLink(ctx, fsys, dir, e)) {
				return name, true
			}
		}
	}
	for _, want := range [...]string{"agents.md", "claude.md"} {
		for _, e := range entries {
			if strings.EqualFold(e.Name, want) && (isFile(e) || isFileLink(ctx, fsys, dir, e)) {
				return e.Name, true
			}
		}
	}
	return "", false
}

// isFileLink reports whether e, a symbolic link, points at a file.
func isFileLink(ctx context.Context, fsys FS, dir string, e env.FileInfo) bool {
	if !e.IsSymlink {
		return false
	}
	fi, err := fsys.Stat(ctx, filepath.Join(dir, e.Name))
	return err == nil && !fi.IsDir
}
