package tools

import (
	"context"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// searchRoot resolves the path argument of grep, find or ls and stats it.
// errRes is the error result when it is missing or cannot be read, or (with
// needDir) is not a directory.
func searchRoot(ctx context.Context, x Exec, p string, needDir bool) (abs string, info env.FileInfo, errRes *Result) {
	abs = resolvePath(x.Env, orDot(p))
	info, err := x.Env.Stat(ctx, abs)
	switch {
	case env.CodeOf(err) == env.CodeNotFound:
		r := errorResult("Path not found: " + abs)
		return abs, info, &r
	case err != nil:
		r := errorResult(fsErrorText(err, abs))
		return abs, info, &r
	case needDir && !info.IsDir:
		r := errorResult("Not a directory: " + abs)
		return abs, info, &r
	}
	return abs, info, nil
}

// capListing joins the lines of a listing and cuts it at DefaultMaxBytes;
// tr is nil when nothing was cut.
func capListing(lines []string) (text string, tr *Truncation) {
	text, t := truncateHead(strings.Join(lines, "\n"), int(^uint(0)>>1), DefaultMaxBytes)
	if !t.Truncated {
		return text, nil
	}
	return text, &t
}

// byteLimitNotice is the notice of a listing cut by capListing.
var byteLimitNotice = formatSize(DefaultMaxBytes) + " limit reached"

// listingResult is text with its notices appended in brackets, and the
// details when there are notices.
func listingResult(text string, notices []string, details any) Result {
	if len(notices) == 0 {
		return textResult(text)
	}
	return withDetails(textResult(text+"\n\n["+strings.Join(notices, ". ")+"]"), details)
}
