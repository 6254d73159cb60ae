package textcut

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 33 bug 7: kept output starts at a whole line, never with the cut
// line's fragment, and ends with the output's end.
func TestTailOfSeqOutput(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	b.WriteString("\n[Showing lines 1-200000 of 200000. Full output: /tmp/x.log]")
	got := Tail(b.String(), 8<<10)
	if len(got) > 8<<10 {
		t.Fatalf("kept %d bytes, want at most %d", len(got), 8<<10)
	}
	first := strings.SplitN(got, "\n", 2)[0]
	want := 0
	if _, err := fmt.Sscanf(first, "%d", &want); err != nil {
		t.Fatalf("first line %q: %v", first, err)
	}
	if !strings.Contains(b.String(), "\n"+first+"\n") || len(first) != 6 {
		t.Fatalf("first line %q is a fragment", first)
	}
	if !strings.HasSuffix(got, "Full output: /tmp/x.log]") {
		t.Fatalf("the end is lost: %q", got[len(got)-60:])
	}
	// A cut that lands on a line start keeps that line.
	if got := Tail("aa\nbb\ncc", 5); got != "bb\ncc" {
		t.Fatalf("tail at a line start = %q", got)
	}
	// One long line is cut at a rune.
	if got := Tail(strings.Repeat("é", 10), 5); got != "éé" {
		t.Fatalf("tail of one line = %q", got)
	}
}
