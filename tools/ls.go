package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

const lsDefaultLimit = 500

const lsSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Directory to list (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of entries to return (default: 500)"}}}`

func lsTool() Tool {
	desc := fmt.Sprintf("List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to %d entries or %dKB (whichever is hit first).", lsDefaultLimit, DefaultMaxBytes/1024)
	return newTool("ls", desc, CategoryRead, lsSchema, runLs)
}

type lsArgs struct {
	Path  string `json:"path"`
	Limit optInt `json:"limit"`
}

type lsDetails struct {
	EntryLimitReached int         `json:"entryLimitReached,omitempty"`
	Truncation        *Truncation `json:"truncation,omitempty"`
}

func runLs(ctx context.Context, call Call, x Exec) Result {
	var a lsArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("ls", err)
	}
	dir, _, errRes := searchRoot(ctx, x, a.Path, true)
	if errRes != nil {
		return *errRes
	}
	entries, err := x.Env.ReadDir(ctx, dir)
	if err != nil {
		return errorResult(fmt.Sprintf("Cannot read directory: %v", err))
	}
	sort.SliceStable(entries, func(i, j int) bool {
		li, lj := strings.ToLower(entries[i].Name), strings.ToLower(entries[j].Name)
		if li != lj {
			return li < lj
		}
		return entries[i].Name < entries[j].Name
	})
	limit := lsDefaultLimit
	if a.Limit.Set && a.Limit.V > 0 {
		limit = a.Limit.V
	}
	var out []string
	limitReached := false
	for _, e := range entries {
		if len(out) >= limit {
			limitReached = true
			break
		}
		isDir := e.IsDir
		if e.IsSymlink {
			target, err := x.Env.Stat(ctx, filepath.Join(dir, e.Name))
			if err != nil {
				continue // dangling link: skipped, as pi does
			}
			isDir = target.IsDir
		}
		if isDir {
			out = append(out, e.Name+"/")
		} else {
			out = append(out, e.Name)
		}
	}
	if len(out) == 0 {
		return textResult("(empty directory)")
	}
	text, tr := capListing(out)
	d := lsDetails{Truncation: tr}
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%d entries limit reached. Use limit=%d for more", limit, limit*2))
		d.EntryLimitReached = limit
	}
	if tr != nil {
		notices = append(notices, byteLimitNotice)
	}
	return listingResult(text, notices, d)
}
