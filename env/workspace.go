package env

import (
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the boundary the harness judges tool paths against: the
// roots the agent may read and write (the session's cwd and the configured
// extra roots) and the roots it may only read (pi-lsp's own skill, prompt
// and temp directories). Every path is resolved through symbolic links
// before it is judged, and so is every root. The zero value has no roots:
// everything is outside.
type Workspace struct {
	roots     []string // resolved; read and write
	readRoots []string // resolved; read only
}

// NewWorkspace resolves roots (read and write) and readRoots (read only).
// Empty entries are skipped.
func NewWorkspace(roots, readRoots []string) *Workspace {
	w := &Workspace{}
	for _, r := range roots {
		if r != "" {
			w.roots = appendUnique(w.roots, ResolveLinks(r))
		}
	}
	for _, r := range readRoots {
		if r != "" {
			w.readRoots = appendUnique(w.readRoots, ResolveLinks(r))
		}
	}
	return w
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Roots are the resolved read-write roots.
func (w *Workspace) Roots() []string { return append([]string(nil), w.roots...) }

// ReadRoots are the resolved read-only roots.
func (w *Workspace) ReadRoots() []string { return append([]string(nil), w.readRoots...) }

// Judge resolves path through its links and reports whether the access is
// inside the workspace: a write must fall under a read-write root, a read
// under any root.
func (w *Workspace) Judge(path string, write bool) (resolved string, inside bool) {
	resolved = ResolveLinks(path)
	for _, r := range w.roots {
		if Within(resolved, r) {
			return resolved, true
		}
	}
	if !write {
		for _, r := range w.readRoots {
			if Within(resolved, r) {
				return resolved, true
			}
		}
	}
	return resolved, false
}

// Contains reports whether path, its links resolved, lies under one of the
// read-write roots: the files an editor may hold buffers for.
func (w *Workspace) Contains(path string) bool {
	resolved := ResolveLinks(path)
	for _, r := range w.roots {
		if Within(resolved, r) {
			return true
		}
	}
	return false
}

// Within reports whether path is root or lies under it (both clean and
// absolute).
func Within(path, root string) bool {
	if path == root || root == "/" {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// maxLinkHops bounds the links ResolveLinks follows through dangling links.
const maxLinkHops = 40

// ResolveLinks returns the absolute, clean path with every symbolic link
// resolved, also for a path that does not exist yet: the longest existing
// prefix is resolved and the rest joined to it. A dangling link is judged by
// its target, since writing through it would create the target.
func ResolveLinks(path string) string {
	return resolveLinks(path, 0)
}

func resolveLinks(path string, hops int) string {
	p, err := filepath.Abs(path)
	if err != nil {
		p = filepath.Clean(path)
	}
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 && hops < maxLinkHops {
			if target, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return filepath.Join(resolveLinks(target, hops+1), rest)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
