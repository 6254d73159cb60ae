package harness_test

import (
	"context"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Token counts are restored on resume (issue 5): the cumulative usage of a
// reopened session is that of its messages, not zero, and a new session
// does not inherit the previous session's counts.
func TestReviewTokenCountsRestoredOnResume(t *testing.T) {
	usage := &llmtest.Usage{Prompt: 1000, Completion: 50}
	f := newFixture(t, []llmtest.Response{{Text: "hello", Usage: usage}})
	f.prompt(t, "hi")
	f.wait(t)
	ctx := context.Background()
	before := f.h.State(ctx).Tokens
	if before.Input == 0 || before.Output == 0 {
		t.Fatalf("no usage counted: %+v", before)
	}
	path := f.h.SessionInfo().Path
	if _, err := f.h.NewSession(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := f.h.State(ctx).Tokens; got.Input != 0 || got.Output != 0 {
		t.Fatalf("a new session inherited the old one's counts: %+v", got)
	}
	if _, err := f.h.OpenSession(ctx, path); err != nil {
		t.Fatal(err)
	}
	after := f.h.State(ctx).Tokens
	if after.Input != before.Input || after.Output != before.Output || after.Total != before.Total {
		t.Fatalf("tokens after resume %+v, before %+v", after, before)
	}
}
