package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadKeepsRunesWhole(t *testing.T) {
	s := "héllo wörld"
	for n := 0; n <= len(s)+1; n++ {
		got := Head(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("Head(%q, %d) = %q: not valid UTF-8", s, n, got)
		}
		if n >= len(s) && got != s {
			t.Fatalf("Head(%q, %d) = %q, want it whole", s, n, got)
		}
		if n < len(s) && (!strings.HasSuffix(got, "…") || len(got)-len("…") > n) {
			t.Fatalf("Head(%q, %d) = %q: over budget or unmarked", s, n, got)
		}
	}
}

func TestTailStartsAtALine(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%17))
		b.WriteByte('\n')
	}
	s := b.String()
	for n := 1; n < 300; n++ {
		got := Tail(s, n)
		if len(got) > n || !strings.HasSuffix(s, got) {
			t.Fatalf("Tail(_, %d) = %q: not a suffix within budget", n, got)
		}
		if strings.Contains(got[:len(got)-1], "\n") && !strings.HasPrefix(got, "line ") {
			t.Fatalf("Tail(_, %d) = %q: starts inside a line", n, got)
		}
		if again := Tail(got, n); again != got {
			t.Fatalf("Tail is not stable: %q then %q", got, again)
		}
	}
}

func TestTailOfOneLongLineKeepsRunesWhole(t *testing.T) {
	s := strings.Repeat("ü", 100)
	for n := 1; n < 50; n++ {
		if got := Tail(s, n); !utf8.ValidString(got) || len(got) > n {
			t.Fatalf("Tail(_, %d) = %q", n, got)
		}
	}
}

func TestFirstLine(t *testing.T) {
	if got := FirstLine("\n  \n  fix   the\tbug \nsecond"); got != "fix the bug" {
		t.Fatalf("FirstLine = %q", got)
	}
	if got := FirstLine(" \n\t"); got != "" {
		t.Fatalf("FirstLine of blank = %q", got)
	}
}

func FuzzTail(f *testing.F) {
	f.Add("a\nbc\nd", 3)
	f.Add("ééé\n", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := Tail(s, n)
		if len(got) > n && len(s) > n {
			t.Fatalf("over budget: %d > %d", len(got), n)
		}
		if !strings.HasSuffix(s, got) {
			t.Fatalf("not a suffix")
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("split a rune: %q", got)
		}
		if Tail(got, n) != got {
			t.Fatalf("not stable")
		}
		// A cut with a larger budget first (the history's) changes
		// nothing about the final cut (the display's).
		if twice := Tail(Tail(s, n+n/8+1), n); utf8.ValidString(s) && twice != got {
			t.Fatalf("Tail(Tail(s, m), n) = %q, Tail(s, n) = %q", twice, got)
		}
	})
}
