package tools

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestPiDiffMatchesPi compares piDiff with pi's own generateDiffString, whose
// outputs were recorded into testdata/pidiff.json by running pi's JS.
func TestPiDiffMatchesPi(t *testing.T) {
	data, err := os.ReadFile("testdata/pidiff.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name, Old, New, Diff string
		First                int
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, first := piDiff(c.Old, c.New)
			if got != c.Diff || first != c.First {
				t.Fatalf("got (first %d)\n%s\nwant (first %d)\n%s", first, got, c.First, c.Diff)
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"same", "a\n", "a\n", ""},
		{"new file", "", "a\nb\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"no newline at end", "a\nb", "a\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"two hunks", numberedLines(20, "l") + "\n", strings.Replace(strings.Replace(numberedLines(20, "l")+"\n", "l 2\n", "two\n", 1), "l 19\n", "nineteen\n", 1),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l 1\n-l 2\n+two\n l 3\n l 4\n l 5\n@@ -16,5 +16,5 @@\n l 16\n l 17\n l 18\n-l 19\n+nineteen\n l 20\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff("f", tt.old, tt.new); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffLinesReconstructs checks the edit script on assorted inputs,
// including ones past the edit cap: replaying it yields both sides.
func TestDiffLinesReconstructs(t *testing.T) {
	var manyA, manyB strings.Builder
	for i := 0; i < 3000; i++ {
		manyA.WriteString("a" + itoa(i) + "\n")
		manyB.WriteString("b" + itoa(i) + "\n")
	}
	pairs := [][2]string{
		{"", ""}, {"", "x"}, {"x", ""}, {"a\nb\nc", "c\nb\na"},
		{"1\n2\n3\n4\n5\n", "1\n3\n4\n6\n5\n"},
		{manyA.String(), manyB.String()},
	}
	for _, p := range pairs {
		var a, b strings.Builder
		for _, o := range diffLines(p[0], p[1]) {
			if o.kind != '+' {
				a.WriteString(o.text)
			}
			if o.kind != '-' {
				b.WriteString(o.text)
			}
		}
		if a.String() != p[0] || b.String() != p[1] {
			t.Fatalf("script does not rebuild %q -> %q", tail(p[0], 40), tail(p[1], 40))
		}
	}
}

func BenchmarkDiffLines(b *testing.B) {
	old := numberedLines(5000, "line") + "\n"
	new := strings.Replace(strings.Replace(old, "line 100\n", "x\n", 1), "line 4000\n", "y\nz\n", 1)
	for b.Loop() {
		diffLines(old, new)
	}
}
