package tools

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/pi-lsp/pi-lsp/env"
)

// alwaysSkipped directories are never walked.
func alwaysSkipped(name string) bool { return name == ".git" || name == "node_modules" }

// walkEntry is one file or directory found under the walk root.
type walkEntry struct {
	Abs  string // absolute path
	Rel  string // slash-separated, relative to the walk root
	Info env.FileInfo
}

// stopWalk ends a walk early without an error.
type stopWalk struct{}

func (stopWalk) Error() string { return "stop" }

// walker walks a tree through an env, skipping .git, node_modules and
// whatever .gitignore / .ignore files exclude, nested ones included. When the
// root is inside a git work tree, the ignore files of the directories above
// it (up to the work tree's top) and .git/info/exclude apply too.
type walker struct {
	env  env.Env
	root string
	base string   // top of the git work tree, else root
	rel  []string // root's path components relative to base
}

// newWalker walks root on the disk (env.Disk): a walk reads the ignore files
// of every directory, which must not become one editor request each.
func newWalker(ctx context.Context, e env.Env, root string) *walker {
	e = env.Disk(e)
	w := &walker{env: e, root: root, base: root}
	for dir := root; ; {
		if _, err := e.Lstat(ctx, filepath.Join(dir, ".git")); err == nil {
			w.base = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if rel, err := filepath.Rel(w.base, root); err == nil && rel != "." {
		w.rel = strings.Split(filepath.ToSlash(rel), "/")
	}
	return w
}

// walk calls visit for every entry below the root (pre-order, by name). A
// visit returning stopWalk{} ends the walk; other errors abort it.
func (w *walker) walk(ctx context.Context, visit func(walkEntry) error) error {
	patterns := w.readPatterns(ctx, filepath.Join(w.base, ".git", "info", "exclude"), nil)
	// Ignore files of the directories from the work tree's top down to the root's parent.
	dir := w.base
	for i := range w.rel {
		patterns = append(patterns, w.dirPatterns(ctx, dir, w.rel[:i])...)
		dir = filepath.Join(dir, w.rel[i])
	}
	err := w.walkDir(ctx, w.root, "", append([]string(nil), w.rel...), patterns, visit)
	if _, ok := err.(stopWalk); ok {
		return nil
	}
	return err
}

func (w *walker) walkDir(ctx context.Context, dir, rel string, comps []string, patterns []gitignore.Pattern, visit func(walkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	patterns = append(patterns[:len(patterns):len(patterns)], w.dirPatterns(ctx, dir, comps)...)
	m := gitignore.NewMatcher(patterns)
	entries, err := w.env.ReadDir(ctx, dir)
	if err != nil {
		if env.CodeOf(err) == env.CodeAborted {
			return err
		}
		return nil // unreadable directories are skipped, as rg and fd do
	}
	for _, fi := range entries {
		if fi.IsDir && alwaysSkipped(fi.Name) {
			continue
		}
		c := append(comps[:len(comps):len(comps)], fi.Name)
		if m.Match(c, fi.IsDir) {
			continue
		}
		e := walkEntry{Abs: filepath.Join(dir, fi.Name), Rel: path.Join(rel, fi.Name), Info: fi}
		if err := visit(e); err != nil {
			return err
		}
		if fi.IsDir && !fi.IsSymlink {
			if err := w.walkDir(ctx, e.Abs, e.Rel, c, patterns, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// dirPatterns reads the ignore files of one directory; domain is the
// directory's components relative to the walk base.
func (w *walker) dirPatterns(ctx context.Context, dir string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, name := range [...]string{".gitignore", ".ignore"} { // later wins
		ps = append(ps, w.readPatterns(ctx, filepath.Join(dir, name), domain)...)
	}
	return ps
}

func (w *walker) readPatterns(ctx context.Context, file string, domain []string) []gitignore.Pattern {
	data, err := w.env.ReadFile(ctx, file)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
