package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/session"
)

// fixedModels is a ModelSource with one model pointing at the fake server.
type fixedModels struct{ m llm.Model }

func (f fixedModels) Find(_ context.Context, ref string) (llm.Model, error) {
	if ref == f.m.Ref() || ref == f.m.ID {
		return f.m, nil
	}
	if ref == "fake/other" {
		o := f.m
		o.ID, o.Name = "other", "Other"
		return o, nil
	}
	return llm.Model{}, fmt.Errorf("model %q not found", ref)
}

func (f fixedModels) Default(context.Context) (llm.Model, error) { return f.m, nil }

// recorder keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []harness.Event
}

func (r *recorder) add(ev harness.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// types returns the event types, leaving out the noisy ones.
func (r *recorder) types(skip ...harness.EventType) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(skip) == 0 {
		skip = []harness.EventType{harness.EvMessageUpdate, harness.EvUsage, harness.EvPhase, harness.EvQueueUpdate, harness.EvTasks, harness.EvSession, harness.EvModel, harness.EvThinking, harness.EvMode}
	}
	var out []string
	for _, e := range r.events {
		if slices.Contains(skip, e.Type) {
			continue
		}
		s := string(e.Type)
		if e.Message != nil && (e.Type == harness.EvMessageStart || e.Type == harness.EvMessageEnd) {
			s += ":" + string(e.Message.Role)
		}
		if e.Type == harness.EvToolStart || e.Type == harness.EvToolEnd {
			s += ":" + e.ToolName
		}
		out = append(out, s)
	}
	return out
}

func (r *recorder) all() []harness.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]harness.Event(nil), r.events...)
}

// waitFor polls until cond holds (or fails the test after 10 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type fixture struct {
	h    *harness.Harness
	srv  *llmtest.Server
	rec  *recorder
	dir  string
	root string
}

type option func(*harness.Config)

func newFixture(t *testing.T, script []llmtest.Response, opts ...option) *fixture {
	t.Helper()
	srv := llmtest.NewServer(t, script...)
	dir := t.TempDir()
	root := filepath.Join(t.TempDir(), "sessions")
	model := llm.Model{ID: "m1", Name: "M1", Provider: "fake", API: "openai-completions", BaseURL: srv.BaseURL(),
		ContextWindow: 128000, MaxTokens: 4096, APIKey: "fake-key"}
	cfg := harness.Config{
		Env:          env.NewLocal(dir),
		Models:       fixedModels{model},
		Streamer:     llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Millisecond, MaxRetries: 2}),
		SessionsRoot: root,
		AgentDir:     filepath.Join(dir, ".agent-home"),
	}
	for _, o := range opts {
		o(&cfg)
	}
	h := harness.New(cfg)
	rec := &recorder{}
	h.Subscribe(rec.add)
	t.Cleanup(func() { _ = h.Close() })
	return &fixture{h: h, srv: srv, rec: rec, dir: dir, root: root}
}

func (f *fixture) prompt(t *testing.T, text string) {
	t.Helper()
	if _, err := f.h.Prompt(context.Background(), text, harness.PromptOptions{}); err != nil {
		t.Fatalf("prompt: %v", err)
	}
}

func (f *fixture) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := f.h.Wait(ctx); err != nil {
		t.Fatalf("run did not end: %v", err)
	}
}

// roles reads the session file back and lists the roles of the branch's
// messages, with the assistant's stop reason.
func (f *fixture) roles(t *testing.T) []string {
	t.Helper()
	s, err := session.Open(context.Background(), f.h.SessionInfo().Path, session.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopen session: %v", err)
	}
	defer s.Close()
	c, err := s.BuildContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range c.Messages {
		r := string(m.Role)
		switch m.Role {
		case llm.RoleAssistant:
			r += ":" + string(m.StopReason)
		case llm.RoleUser:
			r += ":" + m.Text()
		case llm.RoleToolResult:
			if m.IsError {
				r += ":error"
			}
		}
		out = append(out, r)
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func yolo(c *harness.Config) { c.Yolo = true }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
