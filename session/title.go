package session

import (
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/internal/textcut"
)

// maxTitle is the longest derived title, in runes.
const maxTitle = 60

// Title is a short title for a session: its name when set, otherwise the
// first line of its first prompt (editor attachments left out), cut at a
// word boundary. "" for a session without a prompt.
func Title(name, firstMessage string) string {
	if t := strings.TrimSpace(name); t != "" {
		return t
	}
	text := firstMessage
	if i := strings.Index(text, "<editor-context"); i >= 0 {
		text = text[:i]
	}
	line := textcut.FirstLine(text)
	if utf8.RuneCountInString(line) <= maxTitle {
		return line
	}
	r := []rune(line)[:maxTitle]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > maxTitle/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}
