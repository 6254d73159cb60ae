package tools

import (
	"fmt"
	"strings"
)

// TruncateExternal applies the built-in output limits (2000 lines or 50 KB,
// whichever comes first, keeping the head, as read does) to the text of a
// tool that is not built in (MCP), and says so in a notice the model sees.
func TruncateExternal(text string) (string, Truncation) {
	out, t := truncateHead(text, DefaultMaxLines, DefaultMaxBytes)
	if !t.Truncated {
		return text, t
	}
	if t.FirstLineExceedsLimit {
		out = strings.ToValidUTF8(text[:DefaultMaxBytes], "")
	}
	out += fmt.Sprintf("\n\n[Output truncated: %d of %d lines, %s of %s (limit %d lines or %s).]",
		t.OutputLines, t.TotalLines, formatSize(len(out)), formatSize(t.TotalBytes), DefaultMaxLines, formatSize(DefaultMaxBytes))
	return out, t
}
