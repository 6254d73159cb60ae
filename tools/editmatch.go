package tools

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// edit is one replacement of the edit tool.
type edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// region is where one edit matched in the original content.
type region struct {
	index      int // position in the edits list
	start, end int // byte range in the content
	newText    string
}

// applyEdits applies every edit to content (already LF-normalised, without
// BOM). Each oldText is matched against the original content: exactly first,
// then, when that fails, with trailing whitespace, smart quotes, Unicode
// dashes and special spaces normalised. Unlike pi, a fuzzy match replaces
// only the matched region; the rest of the file is left byte for byte.
// Every oldText must match once and the matches must not overlap.
func applyEdits(content string, edits []edit, path string) (string, error) {
	if len(edits) == 0 {
		return "", failf("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	var fz *fuzzyText // built on first need
	regions := make([]region, 0, len(edits))
	for i, e := range edits {
		old := normalizeLF(e.OldText)
		if old == "" {
			return "", editErr(len(edits), fmt.Sprintf("oldText must not be empty in %s.", path),
				fmt.Sprintf("edits[%d].oldText must not be empty in %s.", i, path))
		}
		r := region{index: i, newText: normalizeLF(e.NewText)}
		if at := strings.Index(content, old); at >= 0 {
			if strings.Contains(content[at+1:], old) {
				return "", duplicateErr(path, i, len(edits), countOverlapping(content, old))
			}
			r.start, r.end = at, at+len(old)
		} else {
			if fz == nil {
				f := foldText(content)
				fz = &f
			}
			fo := foldText(old).s
			at := -1
			if fo != "" {
				at = strings.Index(fz.s, fo)
			}
			if at < 0 {
				return "", editErr(len(edits),
					fmt.Sprintf("Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines.", path),
					fmt.Sprintf("Could not find edits[%d] in %s. The oldText must match exactly including all whitespace and newlines.", i, path))
			}
			if strings.Contains(fz.s[at+1:], fo) {
				return "", duplicateErr(path, i, len(edits), countOverlapping(fz.s, fo))
			}
			r.start, r.end = fz.start[at], fz.end[at+len(fo)-1]
		}
		regions = append(regions, r)
	}
	sort.Slice(regions, func(a, b int) bool { return regions[a].start < regions[b].start })
	for i := 1; i < len(regions); i++ {
		prev, cur := regions[i-1], regions[i]
		if prev.end > cur.start {
			a, b := min(prev.index, cur.index), max(prev.index, cur.index)
			return "", failf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", a, b, path)
		}
	}
	var b strings.Builder
	b.Grow(len(content))
	last := 0
	for _, r := range regions {
		b.WriteString(content[last:r.start])
		b.WriteString(r.newText)
		last = r.end
	}
	b.WriteString(content[last:])
	out := b.String()
	if out == content {
		return "", editErr(len(edits),
			fmt.Sprintf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path),
			fmt.Sprintf("No changes made to %s. The replacements produced identical content.", path))
	}
	return out, nil
}

func editErr(n int, single, multi string) error {
	if n == 1 {
		return toolError(single)
	}
	return toolError(multi)
}

func duplicateErr(path string, i, n, count int) error {
	return editErr(n,
		fmt.Sprintf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", count, path),
		fmt.Sprintf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", count, i, path))
}

// countOverlapping counts occurrences of sub in s, overlapping ones included.
func countOverlapping(s, sub string) int {
	n := 0
	for {
		at := strings.Index(s, sub)
		if at < 0 {
			return n
		}
		n++
		_, size := utf8.DecodeRuneInString(s[at:])
		s = s[at+size:]
	}
}

// normalizeLF turns CRLF and lone CR into LF.
func normalizeLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// fuzzyText is text folded for tolerant matching, with a map back to the
// original: byte i of s came from the original bytes [start[i], end[i]).
type fuzzyText struct {
	s          string
	start, end []int
}

// foldText strips trailing whitespace from every line and folds smart
// quotes, Unicode dashes and special spaces to ASCII (pi's
// normalizeForFuzzyMatch without NFKC).
func foldText(s string) fuzzyText {
	f := fuzzyText{start: make([]int, 0, len(s)), end: make([]int, 0, len(s))}
	var b strings.Builder
	b.Grow(len(s))
	var buf [utf8.UTFMax]byte
	emit := func(r rune, from, to int) {
		n := utf8.EncodeRune(buf[:], r)
		b.Write(buf[:n])
		for k := 0; k < n; k++ {
			f.start = append(f.start, from)
			f.end = append(f.end, to)
		}
	}
	lineStart := 0
	for {
		nl := strings.IndexByte(s[lineStart:], '\n')
		line := s[lineStart:]
		if nl >= 0 {
			line = s[lineStart : lineStart+nl]
		}
		kept := strings.TrimRightFunc(line, unicode.IsSpace)
		for p := 0; p < len(kept); {
			r, size := utf8.DecodeRuneInString(kept[p:])
			emit(foldRune(r), lineStart+p, lineStart+p+size)
			p += size
		}
		if nl < 0 {
			break
		}
		at := lineStart + nl
		emit('\n', at, at+1)
		lineStart = at + 1
	}
	f.s = b.String()
	return f
}

func foldRune(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u00A0', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	if r >= '\u2002' && r <= '\u200A' {
		return ' '
	}
	return r
}
