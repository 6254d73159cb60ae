package harness

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// twoModels is a ModelSource of two models, the first the default.
type twoModels []llm.Model

func (m twoModels) Find(_ context.Context, ref string) (llm.Model, error) {
	for _, x := range m {
		if x.Ref() == ref || x.ID == ref {
			return x, nil
		}
	}
	return llm.Model{}, ErrInvalid
}
func (m twoModels) Default(context.Context) (llm.Model, error) { return m[0], nil }

// TestContextManagerPerModel: a run resolves its model's context manager
// once per request and decides once per request; the estimator is built
// once per model, not per call, and a manager is rebuilt only when the
// model or the compaction settings change.
func TestContextManagerPerModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	mk := func(id string, window int) llm.Model {
		return llm.Model{ID: id, Name: id, Provider: "fake", API: "openai-completions", BaseURL: srv.BaseURL(),
			ContextWindow: window, MaxTokens: 1024, APIKey: "fake-key"}
	}
	a, b := mk("gpt-4o-mini", 100000), mk("local-model", 50000)
	h := New(Config{
		Env:          env.NewLocal(dir),
		Models:       twoModels{a, b},
		Streamer:     llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Millisecond, MaxRetries: 1}),
		SessionsRoot: filepath.Join(dir, ".sessions"),
		AgentDir:     filepath.Join(dir, ".agent"),
		Yolo:         true,
	})
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	prompt := func(text string, rs ...llmtest.Response) {
		t.Helper()
		srv.Append(rs...)
		if _, err := h.Prompt(ctx, text, PromptOptions{}); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := h.Wait(wctx); err != nil {
			t.Fatal(err)
		}
	}
	count := func() (estimators, managers int, decisions int64) {
		h.ctxm.mu.Lock()
		defer h.ctxm.mu.Unlock()
		return h.ctxm.estimators, h.ctxm.managers, h.ctxm.decisions.Load()
	}
	want := func(step string, est, mgr int) {
		t.Helper()
		e, m, d := count()
		if e != est || m != mgr {
			t.Errorf("%s: %d estimators and %d managers built, want %d and %d", step, e, m, est, mgr)
		}
		if n := int64(len(srv.Requests())); d != n {
			t.Errorf("%s: %d decisions for %d model requests, want one per request", step, d, n)
		}
	}

	// Two runs on model a: a tool turn (two requests) and an answer.
	prompt("list the files", llmtest.Response{Text: "Looking.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "ls", Arguments: `{}`}}},
		llmtest.Response{Text: "Nothing much."})
	prompt("and again", llmtest.Response{Text: "Still nothing."})
	want("model a, 3 requests", 1, 1)
	if st := h.State(ctx); st.Tokens.ContextWindow != a.ContextWindow { // token accounting uses the same manager
		t.Errorf("state: context window %d, want %d", st.Tokens.ContextWindow, a.ContextWindow)
	}
	want("model a, state", 1, 1)

	// Another model: its own estimator and manager.
	if _, err := h.SetModel(ctx, b.Ref()); err != nil {
		t.Fatal(err)
	}
	prompt("on b", llmtest.Response{Text: "Hello from b."})
	want("model b", 2, 2)

	// Back to a: its manager and estimator are still there.
	if _, err := h.SetModel(ctx, a.Ref()); err != nil {
		t.Fatal(err)
	}
	prompt("on a again", llmtest.Response{Text: "Hello from a."})
	want("back to a", 2, 2)

	// A settings change builds a new manager for the same estimator.
	h.SetAutoCompaction(ctx, false)
	prompt("no auto compaction", llmtest.Response{Text: "Fine."})
	want("auto compaction off", 2, 3)
	if got := h.contextMgr(a).budget.Enabled; got {
		t.Error("the manager built after SetAutoCompaction(false) still compacts automatically")
	}
}
