package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// pi's output limits.
const (
	DefaultMaxLines   = 2000
	DefaultMaxBytes   = 50 * 1024
	GrepMaxLineLength = 500 // characters per grep output line
)

// Truncation describes how output was cut, in pi's details.truncation shape
// (without the content, which is in the result already).
type Truncation struct {
	Truncated             bool   `json:"truncated"`
	TruncatedBy           string `json:"truncatedBy,omitempty"` // "lines" | "bytes"
	TotalLines            int    `json:"totalLines"`
	TotalBytes            int    `json:"totalBytes"`
	OutputLines           int    `json:"outputLines"`
	OutputBytes           int    `json:"outputBytes"`
	LastLinePartial       bool   `json:"lastLinePartial"`
	FirstLineExceedsLimit bool   `json:"firstLineExceedsLimit"`
	MaxLines              int    `json:"maxLines"`
	MaxBytes              int    `json:"maxBytes"`
}

// formatSize renders a byte count as pi does: 512B, 1.5KB, 2.0MB.
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

// truncateHead keeps the first maxLines lines / maxBytes bytes, never a
// partial line. When the first line alone is over maxBytes the content is
// empty and FirstLineExceedsLimit is set.
func truncateHead(content string, maxLines, maxBytes int) (string, Truncation) {
	lines := strings.Split(content, "\n")
	t := Truncation{TotalLines: len(lines), TotalBytes: len(content), MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && len(content) <= maxBytes {
		t.OutputLines, t.OutputBytes = t.TotalLines, t.TotalBytes
		return content, t
	}
	t.Truncated = true
	if len(lines[0]) > maxBytes {
		t.TruncatedBy = "bytes"
		t.FirstLineExceedsLimit = true
		return "", t
	}
	t.TruncatedBy = "lines"
	n, size := 0, 0
	for i := 0; i < len(lines) && i < maxLines; i++ {
		add := len(lines[i])
		if i > 0 {
			add++
		}
		if size+add > maxBytes {
			t.TruncatedBy = "bytes"
			break
		}
		size += add
		n++
	}
	if n >= maxLines && size <= maxBytes {
		t.TruncatedBy = "lines"
	}
	out := strings.Join(lines[:n], "\n")
	t.OutputLines, t.OutputBytes = n, len(out)
	return out, t
}

// truncateTail keeps the last maxLines lines / maxBytes bytes. When the last
// line alone is over maxBytes, its end is kept (LastLinePartial).
func truncateTail(content string, maxLines, maxBytes int) (string, Truncation) {
	lines := strings.Split(content, "\n")
	t := Truncation{TotalLines: len(lines), TotalBytes: len(content), MaxLines: maxLines, MaxBytes: maxBytes}
	if len(lines) <= maxLines && len(content) <= maxBytes {
		t.OutputLines, t.OutputBytes = t.TotalLines, t.TotalBytes
		return content, t
	}
	t.Truncated = true
	t.TruncatedBy = "lines"
	start, size := len(lines), 0
	var partial string
	for i := len(lines) - 1; i >= 0 && len(lines)-start < maxLines; i-- {
		add := len(lines[i])
		if start < len(lines) {
			add++
		}
		if size+add > maxBytes {
			t.TruncatedBy = "bytes"
			if start == len(lines) {
				partial = tailBytes(lines[i], maxBytes)
				t.LastLinePartial = true
			}
			break
		}
		size += add
		start = i
	}
	var out string
	if t.LastLinePartial {
		out, t.OutputLines = partial, 1
	} else {
		out = strings.Join(lines[start:], "\n")
		t.OutputLines = len(lines) - start
		if t.OutputLines >= maxLines && size <= maxBytes {
			t.TruncatedBy = "lines"
		}
	}
	t.OutputBytes = len(out)
	return out, t
}

// tailBytes returns at most max bytes from the end of s, starting on a rune
// boundary.
func tailBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	start := len(s) - max
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// truncateLine cuts a line to max characters with a "... [truncated]" suffix.
func truncateLine(line string, max int) (string, bool) {
	if utf8.RuneCountInString(line) <= max {
		return line, false
	}
	n := 0
	for i := range line {
		if n == max {
			return line[:i] + "... [truncated]", true
		}
		n++
	}
	return line, false
}
