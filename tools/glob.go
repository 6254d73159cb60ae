package tools

// Glob matching for find and grep's glob filter. go-git's gitignore patterns
// treat a match on a directory as covering everything below it, which is
// right for ignore rules but wrong for selecting files, so selection globs
// are matched here: "/"-separated segments, "**" spanning any number of
// segments, path.Match within a segment, and {a,b} alternatives.

import (
	"fmt"
	"path"
	"strings"
)

// glob is a compiled selection pattern.
type glob struct {
	alts [][]string // brace-expanded alternatives, split into segments
}

func compileGlob(pattern string) (*glob, error) {
	g := &glob{}
	for _, alt := range expandBraces(pattern) {
		segs := strings.Split(alt, "/")
		for _, s := range segs {
			if s == "**" {
				continue
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("invalid glob %q: %w", pattern, err)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the slash-separated path p matches.
func (g *glob) match(p string) bool {
	parts := strings.Split(p, "/")
	for _, segs := range g.alts {
		if matchSegments(segs, parts) {
			return true
		}
	}
	return false
}

func matchSegments(segs, parts []string) bool {
	for len(segs) > 0 {
		if segs[0] == "**" {
			rest := segs[1:]
			for len(rest) > 0 && rest[0] == "**" {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegments(rest, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(segs[0], parts[0]); !ok {
			return false
		}
		segs, parts = segs[1:], parts[1:]
	}
	return len(parts) == 0
}

// expandBraces expands {a,b} alternatives (nested too). Unbalanced braces are
// left as they are.
func expandBraces(p string) []string {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				var out []string
				for _, alt := range splitTopLevel(p[open+1 : i]) {
					out = append(out, expandBraces(p[:open]+alt+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p}
}

// splitTopLevel splits s at commas outside nested braces.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
