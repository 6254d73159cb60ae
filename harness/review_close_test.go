package harness_test

import (
	"context"
	"os"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A closed harness starts no run: the build run after an approved plan and a
// run for messages queued as a run ended are started from goroutines that
// may come after Close, and must not create a session or call the model.
func TestReviewNoRunAfterClose(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	if err := f.h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.h.Prompt(context.Background(), "hello", harness.PromptOptions{}); err == nil {
		t.Fatal("a closed harness started a run")
	}
	f.wait(t)
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("model requests after close: %d", n)
	}
	if _, err := os.Stat(f.root); err == nil {
		t.Fatalf("a session was created after close")
	}
}
