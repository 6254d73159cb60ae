package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

const findDefaultLimit = 1000

const findSchema = `{"type":"object","properties":{` +
	`"pattern":{"type":"string","description":"Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"},` +
	`"path":{"type":"string","description":"Directory to search in (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of results (default: 1000)"}},` +
	`"required":["pattern"]}`

func findTool() Tool {
	desc := fmt.Sprintf("Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to %d results or %dKB (whichever is hit first).", findDefaultLimit, DefaultMaxBytes/1024)
	return newTool("find", desc, CategoryRead, findSchema, runFind)
}

type findArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Limit   optInt `json:"limit"`
}

type findDetails struct {
	ResultLimitReached int         `json:"resultLimitReached,omitempty"`
	Truncation         *Truncation `json:"truncation,omitempty"`
}

// runFind matches like fd --glob: a pattern without "/" matches entry names;
// one with "/" matches the path below the search directory at any depth (an
// implicit leading "**/"), or the absolute path when it starts with "/".
// Directories are listed with a trailing "/".
func runFind(ctx context.Context, call Call, x Exec) Result {
	var a findArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("find", err)
	}
	if a.Pattern == "" {
		return errorResult("find: pattern is required")
	}
	pattern, absolute, byName := a.Pattern, false, !strings.Contains(a.Pattern, "/")
	switch {
	case byName:
	case strings.HasPrefix(pattern, "/"):
		absolute = true
	case !strings.HasPrefix(pattern, "**/") && pattern != "**":
		pattern = "**/" + pattern
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return errorResult(err.Error())
	}
	root, _, errRes := searchRoot(ctx, x, a.Path, true)
	if errRes != nil {
		return *errRes
	}
	limit := findDefaultLimit
	if a.Limit.Set && a.Limit.V > 0 {
		limit = a.Limit.V
	}
	var found []string
	err = newWalker(ctx, x.Env, root).walk(ctx, func(e walkEntry) error {
		var ok bool
		switch {
		case byName:
			ok = g.match(e.Info.Name)
		case absolute:
			ok = g.match(filepath.ToSlash(e.Abs))
		default:
			ok = g.match(e.Rel)
		}
		if !ok {
			return nil
		}
		p := e.Rel
		if e.Info.IsDir {
			p += "/"
		}
		found = append(found, p)
		if len(found) >= limit {
			return stopWalk{}
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return errorResult("Operation aborted")
		}
		return errorResult(fmt.Sprintf("find: %v", err))
	}
	if len(found) == 0 {
		return textResult("No files found matching pattern")
	}
	text, tr := capListing(found)
	d := findDetails{Truncation: tr}
	var notices []string
	if len(found) >= limit {
		notices = append(notices, fmt.Sprintf("%d results limit reached. Use limit=%d for more, or refine pattern", limit, limit*2))
		d.ResultLimitReached = limit
	}
	if tr != nil {
		notices = append(notices, byteLimitNotice)
	}
	return listingResult(text, notices, d)
}
