package tools

import (
	"context"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/env"
)

// maxSearchFiles caps how many files one fuzzy search looks at, so a huge
// tree answers quickly with what it saw.
const maxSearchFiles = 100000

// FileMatch is one result of SearchFiles.
type FileMatch struct {
	Path  string `json:"path"` // slash-separated, relative to the root
	Abs   string `json:"abs"`
	Score int    `json:"score"`
	// Positions are the byte offsets in Path of the matched query runes,
	// for highlighting.
	Positions []int `json:"positions"`
}

// SearchFiles does a fuzzy search of the files under root (the query's
// runes in order, case-insensitive, anywhere in the relative path), skipping
// what .gitignore, .ignore and .git/info/exclude exclude, as the find tool
// does. Better matches come first: matches in the file name, at the start
// of a path segment or word, and runs of consecutive runes score higher,
// shorter paths break ties. An empty query lists files, shallowest first.
// truncated says the walk stopped at its file cap.
func SearchFiles(ctx context.Context, e env.Env, root, query string, limit int) (matches []FileMatch, truncated bool, err error) {
	if limit <= 0 {
		limit = 50
	}
	q := []rune(strings.ToLower(strings.TrimSpace(query)))
	seen := 0
	w := newWalker(ctx, e, root)
	err = w.walk(ctx, func(we walkEntry) error {
		if we.Info.IsDir {
			return nil
		}
		if seen++; seen > maxSearchFiles {
			truncated = true
			return stopWalk{}
		}
		score, pos, ok := fuzzyScore(we.Rel, q)
		if ok {
			matches = append(matches, FileMatch{Path: we.Rel, Abs: we.Abs, Score: score, Positions: pos})
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	sort.SliceStable(matches, func(i, j int) bool {
		a, b := matches[i], matches[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if len(a.Path) != len(b.Path) {
			return len(a.Path) < len(b.Path)
		}
		return a.Path < b.Path
	})
	if len(matches) > limit {
		matches = matches[:limit]
	}
	if matches == nil {
		matches = []FileMatch{}
	}
	return matches, truncated, nil
}

// fuzzyScore matches q (lower-case runes) as a subsequence of path. It
// prefers matching inside the base name: the match is tried there first,
// then over the whole path.
func fuzzyScore(path string, q []rune) (int, []int, bool) {
	if len(q) == 0 {
		return -strings.Count(path, "/"), nil, true
	}
	base := strings.LastIndexByte(path, '/') + 1
	if s, pos, ok := subseq(path, base, q); ok {
		return s + 20, pos, true
	}
	return subseq(path, 0, q)
}

// subseq greedily matches q in path[from:], scoring each matched rune:
// +1, +5 when it follows the previous match, +8 at the start of a segment
// or word (after / _ - . or a lower→upper change).
func subseq(path string, from int, q []rune) (int, []int, bool) {
	score, qi := 0, 0
	var pos []int
	prevMatch := -2
	prev := rune('/')
	if from > 0 {
		prev, _ = utf8.DecodeLastRuneInString(path[:from])
	}
	for i, r := range path[from:] {
		at := from + i
		if qi < len(q) && unicode.ToLower(r) == q[qi] {
			score++
			if prevMatch >= 0 && at == prevMatch+utf8.RuneLen(prev) {
				score += 5
			}
			if strings.ContainsRune("/_-. ", prev) || unicode.IsLower(prev) && unicode.IsUpper(r) {
				score += 8
			}
			pos = append(pos, at)
			prevMatch = at
			qi++
		}
		prev = r
	}
	if qi < len(q) {
		return 0, nil, false
	}
	return score - len(path)/16, pos, true
}
