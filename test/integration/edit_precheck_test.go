package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// An edit whose oldText is not in the file fails before anyone is asked to
// approve it (issue 33, bug 12): no ui/requestApproval, the model gets the
// edit tool's own reason, and the file is untouched. An edit that applies
// is still asked about.
func TestEditThatCannotApplyFailsWithoutAsking(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"not there","newText":"x"}]}`}}},
		{Match: "Could not find the exact text", Text: "the text was not there"},
		{Match: "now a good one", ToolCalls: []llmtest.ToolCall{{ID: "e2", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"old","newText":"new"}]}`}}},
		{Match: "declined by the user", Text: "ok"},
	})
	file := filepath.Join(e.workspace, "a.txt")
	writeFile(t, file, "old text\n")
	s := e.start(startOpt{})
	ap := &approvals{decisions: []string{"decline"}}
	ap.install(s)

	s.prompt("change something")
	s.waitIdle()
	if n := ap.count(); n != 0 {
		t.Fatalf("an edit that cannot apply asked for approval %d time(s): %v", n, ap.seen)
	}
	if got := readFile(t, file); got != "old text\n" {
		t.Fatalf("file changed: %q", got)
	}
	reqs := e.llm.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "Could not find the exact text in a.txt") {
		t.Fatalf("the model did not get the edit's reason: %.400s", last)
	}

	s.prompt("now a good one")
	s.waitIdle()
	if n := ap.count(); n != 1 {
		t.Fatalf("an edit that applies was asked %d time(s), want 1", n)
	}
	if e.llm.Pending() != 0 {
		t.Fatalf("unused scripted answers: %d", e.llm.Pending())
	}
}
