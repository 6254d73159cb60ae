package compaction

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// newestFirst reverses a branch's items: PrepareBranch takes the abandoned
// entries from the old leaf back to the common ancestor.
func newestFirst(items []Item) []Item {
	out := make([]Item, len(items))
	for i := range items {
		out[len(items)-1-i] = items[i]
	}
	return out
}

func TestPrepareBranch(t *testing.T) {
	var b branch
	b.add(KindBranchSummary, &llm.Message{Role: llm.RoleBranchSummary, Summary: tokens(300, "b")}) // e00, oldest
	b.items[0].Details = &FileOps{ReadFiles: []string{"old.go"}, ModifiedFiles: []string{"mod.go"}}
	b.user(tokens(50, "u"))                                             // e01
	b.assistant(tokens(500, "t"), call{"read", `{"path":"beyond.go"}`}) // e02: over the budget of 1000
	b.toolResult("read", tokens(5000, "r"))                             // e03: tool results are skipped
	b.assistant("", call{"edit", `{"path":"new.go"}`})                  // e04
	b.user(tokens(400, "v"))                                            // e05
	b.assistant(tokens(100, "w"))                                       // e06, newest

	all := PrepareBranch(newestFirst(b.items), 0, nil)
	if got := roles(all.Messages); !reflect.DeepEqual(got, []llm.Role{llm.RoleBranchSummary, llm.RoleUser, llm.RoleAssistant, llm.RoleAssistant, llm.RoleUser, llm.RoleAssistant}) {
		t.Fatalf("no budget: %v", got)
	}
	wantAll := FileOps{ReadFiles: []string{"beyond.go", "old.go"}, ModifiedFiles: []string{"mod.go", "new.go"}}
	if !reflect.DeepEqual(all.FileOps, wantAll) {
		t.Errorf("file ops %+v", all.FileOps)
	}

	// Budget 1000: e06 (100) + e05 (400) + e04 (~6) fit; e02 does not, but
	// its file op is still recorded (pi extracts before the check).
	bp := PrepareBranch(newestFirst(b.items), 1000, nil)
	if len(bp.Messages) != 3 || bp.Messages[0].Role != llm.RoleAssistant || bp.Messages[2].Text() != tokens(100, "w") {
		t.Fatalf("budget 1000: %v", roles(bp.Messages))
	}
	if bp.TotalTokens > 1000 || !reflect.DeepEqual(bp.FileOps.ReadFiles, []string{"beyond.go", "old.go"}) {
		t.Errorf("budget 1000: %d tokens, %+v", bp.TotalTokens, bp.FileOps)
	}

	// A summary entry that overflows is still taken while under 90%.
	var s branch
	s.add(KindBranchSummary, &llm.Message{Role: llm.RoleBranchSummary, Summary: tokens(300, "b")})
	s.user(tokens(500, "u"))
	if got := PrepareBranch(newestFirst(s.items), 600, nil); len(got.Messages) != 2 || got.TotalTokens != 800 {
		t.Errorf("summary exception: %v %d", roles(got.Messages), got.TotalTokens)
	}
	if got := PrepareBranch(newestFirst(s.items), 550, nil); len(got.Messages) != 1 {
		t.Errorf("over 90%%: %v", roles(got.Messages))
	}
}

func TestSummarizeBranch(t *testing.T) {
	var b branch
	b.user("try approach B")
	b.assistant("", call{"edit", `{"path":"b.go"}`})
	b.toolResult("edit", "ok")
	b.assistant("B is worse")
	bp := PrepareBranch(newestFirst(b.items), BranchBudget(0, BudgetFor(0, nil)), nil)
	fake := &fakeSummarizer{answer: func(llm.Request) llm.Message { return textAnswer("## Goal\nB") }}
	res, err := SummarizeBranch(t.Context(), bp, llm.Model{MaxTokens: 8000}, fake, "why B failed")
	if err != nil {
		t.Fatal(err)
	}
	req := fake.requests()[0]
	want := "<conversation>\n[User]: try approach B\n\n[Assistant tool calls]: edit(path=\"b.go\")\n\n[Assistant]: B is worse\n</conversation>\n\n" +
		"Create a structured summary of this conversation branch for context when returning later."
	got := promptOf(req)
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "error messages.\n\nAdditional focus: why B failed") {
		t.Fatalf("prompt:\n%s", got)
	}
	if req.Model.MaxTokens != 2048 || req.SystemPrompt != SummarizationSystemPrompt {
		t.Errorf("max tokens %d", req.Model.MaxTokens)
	}
	wantSummary := "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nB\n\n<modified-files>\nb.go\n</modified-files>"
	if res.Summary != wantSummary || !reflect.DeepEqual(res.Details.ModifiedFiles, []string{"b.go"}) {
		t.Errorf("result %q %+v", res.Summary, res.Details)
	}

	empty, err := SummarizeBranch(t.Context(), BranchPreparation{}, llm.Model{}, fake, "")
	if err != nil || empty.Summary != "No content to summarize" || len(fake.requests()) != 1 {
		t.Errorf("empty branch: %q %v", empty.Summary, err)
	}
	_, err = SummarizeBranch(t.Context(), bp, llm.Model{}, &fakeSummarizer{answer: func(llm.Request) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopAborted}
	}}, "")
	if err == nil {
		t.Error("aborted branch summary accepted")
	}
}
