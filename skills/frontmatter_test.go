package skills

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		in          string
		yaml, body  string
		has, closed bool
	}{
		{"no header\n", "", "no header\n", false, false},
		{"---\na: 1\n---\n\nbody\n\n", "a: 1\n", "body", true, true},
		{"\ufeff---\r\na: 1\r\n---\r\nbody\r\n", "a: 1\n", "body", true, true},
		{"---  \na: 1\n---\t\n", "a: 1\n", "", true, true},
		{"---\n---\nbody", "", "body", true, true},
		{"---\na: 1\n----\nnot closed by ----", "", "---\na: 1\n----\nnot closed by ----", true, false},
		{"---", "", "---", true, false},
		{"--- x\n---\n", "", "--- x\n---\n", false, false},
		{"---\nx\n---", "x\n", "", true, true},
	}
	for _, tc := range tests {
		y, b, has, closed := splitFrontmatter(tc.in)
		if y != tc.yaml || b != tc.body || has != tc.has || closed != tc.closed {
			t.Errorf("splitFrontmatter(%q) = %q, %q, %v, %v; want %q, %q, %v, %v", tc.in, y, b, has, closed, tc.yaml, tc.body, tc.has, tc.closed)
		}
	}
}

// FuzzParseFrontmatter checks that any text parses without a panic, that a
// reported line lies inside the text, and that a clean parse's body never
// includes the header.
func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"",
		"body only",
		"---\nname: a\ndescription: b\n---\nbody",
		"---\nname: a\n  bad: x\n---\n",
		"---\ndescription: [x\n---\n",
		"---\n- a\n---\n",
		"---\nk: &a [*a, *a]\n---\n",
		"---\nmetadata: {1: 2, [a]: b}\nallowed-tools: [a, {b: c}]\n---\n",
		"---\nname: a\nname: b\n---\n",
		"---\r\nx: \"\\u00e9\"\r\n---\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, problem, line := parseFrontmatter(s)
		total := strings.Count(strings.ReplaceAll(s, "\r\n", "\n"), "\n") + strings.Count(s, "\r") + 1
		if line < 0 || line > total {
			t.Fatalf("line %d outside 1..%d for %q (%s)", line, total, s, problem)
		}
		for _, w := range fm.warnings {
			if w.line < 1 || w.line > total {
				t.Fatalf("warning line %d outside 1..%d", w.line, total)
			}
		}
		norm := strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(s, "\ufeff"), "\r\n", "\n"), "\r", "\n")
		if !strings.Contains(norm, fm.body) {
			t.Fatalf("body %q is not part of the text %q", fm.body, norm)
		}
		for k := range fm.fields {
			fm.str(k)
			fm.boolean(k)
			if m, _, ok := fm.mapping(k); ok {
				if _, err := json.Marshal(m); err != nil {
					t.Fatalf("metadata of %q does not marshal: %v", s, err)
				}
			}
			fm.words(k)
			fm.line(k)
		}
	})
}
