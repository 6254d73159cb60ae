package compaction

import (
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestContextMessagesBuildsMissingSummaryMessage(t *testing.T) {
	var b branch
	kept := b.user("kept")
	b.compaction("SUM", kept, nil)
	b.items[1].Message = nil
	got := ContextMessages(b.items)
	if len(got) != 2 || got[0].Role != llm.RoleCompactionSummary || got[0].Summary != "SUM" || got[1].Text() != "kept" {
		t.Fatalf("%+v", got)
	}
}
