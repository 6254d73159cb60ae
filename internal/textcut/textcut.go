// Package textcut cuts text to a byte budget without splitting a rune,
// and, for the end of command output, at the start of a line. The
// harness's history, the display's tool output and titles all cut with
// these, so a block reopened from the session starts where the live one
// did.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// Head returns s cut to at most n bytes on a rune boundary, with "…"
// after it when anything was cut.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Tail returns the end of s in at most n bytes. When s is longer it
// starts at the first whole line inside those bytes; when they hold no
// line break it starts at the first whole rune. For m >= n,
// Tail(Tail(s, m), n) == Tail(s, n): a cut made twice (the history's,
// then the display's) gives what the last cut alone gives.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	atLine := s[len(s)-n-1] == '\n'
	s = s[len(s)-n:]
	if atLine {
		return s
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 && i+1 < len(s) {
		return s[i+1:]
	}
	i := 0
	for i < len(s) && i < utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// FirstLine returns the first line of s that is not blank, trimmed, with
// runs of white space inside it made single spaces.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}
