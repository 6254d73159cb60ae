package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFoldTextMapping(t *testing.T) {
	src := "a \u201cb\u201d  \n\u2014c\u00a0\n"
	f := foldText(src)
	if f.s != "a \"b\"\n-c\n" {
		t.Fatalf("folded %q", f.s)
	}
	if len(f.start) != len(f.s) || len(f.end) != len(f.s) {
		t.Fatal("map length")
	}
	// Every folded byte maps back to a rune of the source.
	for i := range f.s {
		if f.start[i] >= f.end[i] || !utf8.RuneStart(src[f.start[i]]) {
			t.Fatalf("byte %d maps to [%d,%d)", i, f.start[i], f.end[i])
		}
	}
}

// FuzzApplyEdits checks the matcher's invariants on arbitrary input: no
// panic; on success the result differs from the input, and an exact unique
// match gives exactly strings.Replace; text outside the replaced region is
// never touched.
func FuzzApplyEdits(f *testing.F) {
	f.Add("hello world\n", "world", "there")
	f.Add("a  \nb\n", "a\nb", "c")
	f.Add("say \u201chi\u201d\n", `say "hi"`, "x")
	f.Add("x\u2014y \n z", "x-y\n z", "")
	f.Add("aaa", "aa", "b")
	f.Add("\xff\xfe\n\u2019", "\u2019", "'")
	f.Add("", "a", "b")
	f.Fuzz(func(t *testing.T, content, old, new string) {
		content = normalizeLF(content)
		out, err := applyEdits(content, []edit{{OldText: old, NewText: new}}, "f")
		if err != nil {
			return
		}
		if out == content {
			t.Fatal("success without change")
		}
		o := normalizeLF(old)
		if strings.Count(content, o) == 1 {
			if want := strings.Replace(content, o, normalizeLF(new), 1); out != want {
				t.Fatalf("exact match: got %q want %q", out, want)
			}
			return
		}
		// Fuzzy: some prefix and suffix of the content survive, and the
		// new text sits between them.
		n := normalizeLF(new)
		p := 0
		for p < len(out) && p < len(content) && out[p] == content[p] {
			p++
		}
		s := 0
		for s < len(out)-p && s < len(content)-p && out[len(out)-1-s] == content[len(content)-1-s] {
			s++
		}
		if len(out)-p-s > len(n) {
			t.Fatalf("more than the new text changed: %q -> %q (new %q)", content, out, n)
		}
	})
}
