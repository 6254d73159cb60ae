package tools

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

const grepDefaultLimit = 100

// grepMaxFileBytes skips larger files while walking (explicit files are
// searched whatever their size).
const grepMaxFileBytes = 16 << 20

const grepSchema = `{"type":"object","properties":{` +
	`"pattern":{"type":"string","description":"Search pattern (regex or literal string)"},` +
	`"path":{"type":"string","description":"Directory or file to search (default: current directory)"},` +
	`"glob":{"type":"string","description":"Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},` +
	`"ignoreCase":{"type":"boolean","description":"Case-insensitive search (default: false)"},` +
	`"literal":{"type":"boolean","description":"Treat pattern as literal string instead of regex (default: false)"},` +
	`"context":{"type":"number","description":"Number of lines to show before and after each match (default: 0)"},` +
	`"limit":{"type":"number","description":"Maximum number of matches to return (default: 100)"}},` +
	`"required":["pattern"]}`

func grepTool() Tool {
	desc := fmt.Sprintf("Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to %d matches or %dKB (whichever is hit first). Long lines are truncated to %d chars.", grepDefaultLimit, DefaultMaxBytes/1024, GrepMaxLineLength)
	return newTool("grep", desc, CategoryRead, grepSchema, runGrep)
}

type grepArgs struct {
	Pattern    string  `json:"pattern"`
	Path       string  `json:"path"`
	Glob       string  `json:"glob"`
	IgnoreCase optBool `json:"ignoreCase"`
	Literal    optBool `json:"literal"`
	Context    optInt  `json:"context"`
	Limit      optInt  `json:"limit"`
}

type grepDetails struct {
	MatchLimitReached int         `json:"matchLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
	LinesTruncated    bool        `json:"linesTruncated,omitempty"`
}

type grepMatch struct {
	file  string   // display path
	lines []string // the file's lines (shared by all its matches)
	line  int      // 1-based
}

func runGrep(ctx context.Context, call Call, x Exec) Result {
	var a grepArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("grep", err)
	}
	if a.Pattern == "" {
		return errorResult("grep: pattern is required")
	}
	expr := a.Pattern
	if a.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errorResult(fmt.Sprintf("Invalid regex %q: %v", a.Pattern, err))
	}
	// Most files do not match at all: one multi-line search over the whole
	// file rules them out before it is split into lines. \A and \z mean
	// something else across a whole file, so such patterns skip this.
	var pre *regexp.Regexp
	if !strings.Contains(expr, `\A`) && !strings.Contains(expr, `\z`) {
		pre, _ = regexp.Compile("(?m)" + expr)
	}
	sel, err := newFileFilter(a.Glob)
	if err != nil {
		return errorResult(err.Error())
	}
	root, info, errRes := searchRoot(ctx, x, a.Path, false)
	if errRes != nil {
		return *errRes
	}
	limit := grepDefaultLimit
	if a.Limit.Set {
		limit = max(1, a.Limit.V)
	}
	ctxLines := max(0, a.Context.V)

	var matches []grepMatch
	limitReached := false
	disk := env.Disk(x.Env) // grep searches the files on disk, as rg does
	search := func(abs, display string) error {
		data, err := disk.ReadFile(ctx, abs)
		if err != nil {
			if env.CodeOf(err) == env.CodeAborted {
				return err
			}
			return nil
		}
		if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			return nil // binary
		}
		if pre != nil && bytes.IndexByte(data, '\r') < 0 && !pre.Match(data) {
			return nil
		}
		lines := strings.Split(normalizeLF(string(data)), "\n")
		for i, l := range lines {
			if !re.MatchString(l) {
				continue
			}
			if len(matches) >= limit {
				limitReached = true
				return stopWalk{}
			}
			matches = append(matches, grepMatch{file: display, lines: lines, line: i + 1})
		}
		return nil
	}

	if !info.IsDir {
		err = search(root, filepath.Base(root))
	} else {
		err = newWalker(ctx, x.Env, root).walk(ctx, func(e walkEntry) error {
			if e.Info.IsDir || e.Info.IsSymlink || !e.Info.Mode.IsRegular() || e.Info.Size > grepMaxFileBytes {
				return nil
			}
			if !sel.match(e.Rel) {
				return nil
			}
			return search(e.Abs, e.Rel)
		})
	}
	if _, stopped := err.(stopWalk); err != nil && !stopped {
		if ctx.Err() != nil {
			return errorResult("Operation aborted")
		}
		return errorResult(fmt.Sprintf("grep: %v", err))
	}
	if len(matches) == 0 {
		return textResult("No matches found")
	}

	var out []string
	var d grepDetails
	for _, m := range matches {
		from, to := m.line, m.line
		if ctxLines > 0 {
			from, to = max(1, m.line-ctxLines), min(len(m.lines), m.line+ctxLines)
		}
		for n := from; n <= to; n++ {
			text, cut := truncateLine(m.lines[n-1], GrepMaxLineLength)
			d.LinesTruncated = d.LinesTruncated || cut
			if n == m.line {
				out = append(out, fmt.Sprintf("%s:%d: %s", m.file, n, text))
			} else {
				out = append(out, fmt.Sprintf("%s-%d- %s", m.file, n, text))
			}
		}
	}
	text, tr := capListing(out)
	d.Truncation = tr
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%d matches limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		d.MatchLimitReached = limit
	}
	if tr != nil {
		notices = append(notices, byteLimitNotice)
	}
	if d.LinesTruncated {
		notices = append(notices, fmt.Sprintf("Some lines truncated to %d chars. Use read tool to see full lines", GrepMaxLineLength))
	}
	return listingResult(text, notices, d)
}

// fileFilter is grep's glob filter, as rg --glob reads it: a pattern without
// "/" matches the file name, one with "/" the path from the search root; a
// leading "!" excludes.
type fileFilter struct {
	g       *glob
	byName  bool
	exclude bool
}

func newFileFilter(pattern string) (*fileFilter, error) {
	if pattern == "" {
		return &fileFilter{}, nil
	}
	f := &fileFilter{}
	if strings.HasPrefix(pattern, "!") {
		f.exclude, pattern = true, pattern[1:]
	}
	pattern = strings.TrimPrefix(pattern, "/")
	f.byName = !strings.Contains(pattern, "/")
	g, err := compileGlob(pattern)
	if err != nil {
		return nil, err
	}
	f.g = g
	return f, nil
}

func (f *fileFilter) match(rel string) bool {
	if f.g == nil {
		return true
	}
	target := rel
	if f.byName {
		target = filepath.Base(rel)
	}
	return f.g.match(target) != f.exclude
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}
