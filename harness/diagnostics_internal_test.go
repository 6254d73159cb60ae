package harness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/tools"
)

func TestNewProblemsOnlyNewErrorsAndWarnings(t *testing.T) {
	d := func(line, sev int, msg string) tools.Diagnostic {
		return tools.Diagnostic{Path: "/w/a.go", Line: line, Column: 2, Severity: sev, Message: msg, Source: "compiler"}
	}
	before := map[string][]tools.Diagnostic{"/w/a.go": {d(4, 2, "declared and not used: x"), d(9, 1, "old error")}}
	after := []tools.Diagnostic{
		d(5, 2, "declared and not used: x"), // moved down a line: not new
		d(6, 1, "undefined: frobnicate"),
		d(7, 3, "an information"),
		d(8, 4, "a hint"),
		d(9, 1, "old error"),
		d(10, 1, "old error"), // a second one is new
	}
	got := newProblems(before, after, "/w")
	want := []string{"a.go:6:2: error: undefined: frobnicate (compiler)", "a.go:10:2: error: old error (compiler)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestDiagFinishCapsAndAppends(t *testing.T) {
	var after []tools.Diagnostic
	for i := 0; i < 25; i++ {
		after = append(after, tools.Diagnostic{Path: "/w/a.go", Line: i + 1, Column: 1, Severity: 1, Message: fmt.Sprintf("e%d", i)})
	}
	lines := capLines(newProblems(nil, after, "/w"))
	if len(lines) != 21 || lines[19] != "a.go:20:1: error: e19" || lines[20] != "and 5 more" {
		t.Fatalf("capped: %q", lines)
	}
	res := appendText(tools.Result{Content: nil}, "x")
	if res.Text() != "x" {
		t.Fatalf("append to empty: %q", res.Text())
	}
}
