package skills

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/pi-lsp/pi-lsp/env"
)

// ignoreFiles are read in every directory of a skills walk, in this order
// (later files win), as pi does.
var ignoreFiles = [...]string{".gitignore", ".ignore", ".fdignore"}

// ignoreRules are the patterns in force in one directory of a walk: those
// of every ancestor up to the walk's root, then its own. Each pattern is
// anchored (go-git's "domain") at the directory that holds its file.
type ignoreRules struct {
	patterns []gitignore.Pattern
}

// with returns the rules of dir: r plus dir's own ignore files. rel is dir
// relative to the walk root, split into components (nil at the root);
// entries is dir's listing, so that only ignore files present are read.
func (r ignoreRules) with(ctx context.Context, fsys FS, dir string, rel []string, entries []env.FileInfo) ignoreRules {
	out := ignoreRules{patterns: r.patterns[:len(r.patterns):len(r.patterns)]}
	for _, name := range ignoreFiles {
		if !slices.ContainsFunc(entries, func(e env.FileInfo) bool { return e.Name == name }) {
			continue
		}
		data, err := fsys.ReadFile(ctx, filepath.Join(dir, name))
		if err != nil {
			continue // absent or unreadable: no rules, as pi
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			// "\#x" and "\!x" need no rewriting: go-git passes them to
			// filepath.Match, where the backslash makes # and ! literal.
			out.patterns = append(out.patterns, gitignore.ParsePattern(line, rel))
		}
	}
	return out
}

// ignored reports whether the entry at rel (components from the walk root)
// is excluded.
func (r ignoreRules) ignored(rel []string, isDir bool) bool {
	if len(r.patterns) == 0 {
		return false
	}
	return gitignore.NewMatcher(r.patterns).Match(rel, isDir)
}
