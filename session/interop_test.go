package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/internal/sessiongen"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/session"
)

// Interoperability with the real pi 0.73.1 (see internal/pitest).

// projection reduces a context message to what both sides must agree on.
type projection struct {
	Role       string `json:"role"`
	Text       string `json:"text,omitempty"`
	Summary    string `json:"summary,omitempty"`
	CustomType string `json:"customType,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolCalls  int    `json:"toolCalls,omitempty"`
	Timestamp  int64  `json:"timestamp"`
}

func project(t *testing.T, raw json.RawMessage) projection {
	t.Helper()
	var m llm.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("message %s: %v", raw, err)
	}
	return projectMsg(m)
}

func projectMsg(m llm.Message) projection {
	return projection{Role: string(m.Role), Text: m.Text(), Summary: m.Summary, CustomType: m.CustomType,
		ToolCallID: m.ToolCallID, ToolCalls: len(m.ToolCalls()), Timestamp: m.Timestamp}
}

// ourContext is BuildContext of a file, projected.
func ourContext(t *testing.T, path string) []projection {
	t.Helper()
	s, err := session.Open(context.Background(), path, session.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.BuildContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.ContextInfo(context.Background())
	if err != nil || info.Messages != len(c.Messages) {
		t.Fatalf("ContextInfo %d vs BuildContext %d (%v)", info.Messages, len(c.Messages), err)
	}
	var out []projection
	for _, m := range c.Messages {
		out = append(out, projectMsg(m))
	}
	return out
}

func piContext(t *testing.T, path string) []projection {
	t.Helper()
	var out []projection
	for _, raw := range pitest.BuildContext(t, path) {
		out = append(out, project(t, raw))
	}
	return out
}

func sameContext(t *testing.T, what string, got, want []projection) {
	t.Helper()
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	if string(g) != string(w) {
		t.Errorf("%s: contexts differ\nours: %s\npi:   %s", what, g, w)
	}
}

// writeRichSession writes, with this package, a session that uses every
// entry type: two branches, labels, a compaction, custom entries and
// messages, a branch summary, model and thinking changes, a name.
func writeRichSession(t *testing.T, root, cwd string) string {
	t.Helper()
	ctx := context.Background()
	s, err := session.Create(ctx, root, cwd, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	asst := func(text string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock(text)}, API: "openai-completions",
			Provider: "fake", Model: "fake-model", StopReason: llm.StopStop}
	}
	must(s.AppendModelChange(ctx, "fake", "fake-model"))
	must(s.AppendThinkingLevel(ctx, "off"))
	u1, err := s.AppendMessage(ctx, llm.UserText("first question", time.Now().UnixMilli()))
	must(u1, err)
	a1, err := s.AppendMessage(ctx, asst("first answer"))
	must(a1, err)
	call := asst("")
	call.Content = []llm.ContentBlock{{Type: llm.BlockToolCall, ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}
	call.StopReason = llm.StopToolUse
	// A user message with details, as pi-lsp writes the plan hand-over
	// (harness.PlanHandoverMessage): pi must load it and ignore them.
	handover := llm.UserText("list files", 0)
	handover.Details = json.RawMessage(`{"note":"plan_handover","planTitle":"List files"}`)
	must(s.AppendMessage(ctx, handover))
	must(s.AppendMessage(ctx, call))
	must(s.AppendMessage(ctx, llm.Message{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "bash", Content: []llm.ContentBlock{llm.TextBlock("a.go\nb.go")}}))
	a2, err := s.AppendMessage(ctx, asst("two files"))
	must(a2, err)
	if err := s.SetLabel(ctx, u1, "start"); err != nil {
		t.Fatal(err)
	}
	must(s.AppendCustom(ctx, "pi-lsp/mode", map[string]string{"mode": "build"}))
	u3, err := s.AppendMessage(ctx, llm.UserText("third", 0))
	must(u3, err)
	must(s.AppendMessage(ctx, asst("third answer")))
	must(s.AppendCompaction(ctx, "Summary of the start.", u3, 1234, map[string]any{"readFiles": []string{}, "modifiedFiles": []string{}}, false))
	must(s.AppendCustomMessage(ctx, "pi-lsp/note", []llm.ContentBlock{llm.TextBlock("remember this")}, true, nil))
	must(s.AppendMessage(ctx, llm.UserText("after compaction", 0)))
	end, err := s.AppendMessage(ctx, asst("fine"))
	must(end, err)
	// Second branch from a2, with a summary of the branch left.
	if err := s.Navigate(ctx, a2); err != nil {
		t.Fatal(err)
	}
	must(s.AppendBranchSummary(ctx, u3, "We tried a third question.", nil, false))
	must(s.AppendMessage(ctx, llm.UserText("other way", 0)))
	must(s.AppendMessage(ctx, asst("other answer")))
	if err := s.SetName(ctx, "Rich session"); err != nil {
		t.Fatal(err)
	}
	// Back to the first branch's end: the file ends with a leaf entry.
	if err := s.Navigate(ctx, end); err != nil {
		t.Fatal(err)
	}
	return s.Path()
}

func TestPiOpensOurSession(t *testing.T) {
	pitest.Bin(t)
	srv := llmtest.NewServer(t)
	root, cwd := t.TempDir(), t.TempDir()
	path := writeRichSession(t, root, cwd)
	ours := ourContext(t, path)
	sameContext(t, "buildSessionContext", ours, piContext(t, path))

	before, _ := os.ReadFile(path)
	pi := pitest.Start(t, pitest.Env(t, srv.BaseURL()), cwd, "--session", path)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	data, err := pi.Call(ctx, map[string]any{"type": "get_messages"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	var piMsgs []projection
	for _, m := range got.Messages {
		piMsgs = append(piMsgs, project(t, m))
	}
	sameContext(t, "get_messages", ours, piMsgs)
	state, err := pi.Call(ctx, map[string]any{"type": "get_state"})
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		MessageCount int    `json:"messageCount"`
		SessionName  string `json:"sessionName"`
		SessionFile  string `json:"sessionFile"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		t.Fatal(err)
	}
	if st.MessageCount != len(ours) || st.SessionName != "Rich session" || st.SessionFile != path {
		t.Errorf("pi state %+v, want %d messages", st, len(ours))
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("pi changed the file on open:\n%s", strings.TrimPrefix(string(after), string(before)))
	}

	// pi continues our session; we read what it appended.
	srv.Append(llmtest.Response{Text: "continued by pi"})
	if _, err := pi.Call(ctx, map[string]any{"type": "prompt", "message": "continue please"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pi.WaitFor(ctx, "agent_end"); err != nil {
		t.Fatal(err)
	}
	pi.Close()
	after := ourContext(t, path)
	want := append(append([]projection(nil), ours...), projection{Role: "user", Text: "continue please"}, projection{Role: "assistant", Text: "continued by pi"})
	if len(after) != len(want) {
		t.Fatalf("after pi appended: %d messages, want %d", len(after), len(want))
	}
	for i := range want {
		if after[i].Role != want[i].Role || after[i].Text != want[i].Text {
			t.Errorf("message %d: %+v, want %+v", i, after[i], want[i])
		}
	}
	sameContext(t, "after pi appended", after, piContext(t, path))
}

func TestContextMatchesPi(t *testing.T) {
	pitest.Bin(t)
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*.jsonl"))
	legacy, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "legacy", "*.jsonl"))
	files = append(files, legacy...)
	files = append(files, writeRichSession(t, t.TempDir(), t.TempDir()))
	// A generated session with many compactions and branches.
	gen := filepath.Join(t.TempDir(), "generated.jsonl")
	f, err := os.Create(gen)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessiongen.Write(f, sessiongen.Options{Bytes: 3e6, Seed: 3, CompactEvery: 300_000, BranchEvery: 7}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	files = append(files, gen)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sameContext(t, f, ourContext(t, f), piContext(t, f))
		})
	}
}

// TestReadPiWrittenSessions loads the sessions real pi wrote (see
// TestRegeneratePiSessions) and checks our context against the one pi's own
// code built when they were recorded (NAME.context.json beside each).
func TestReadPiWrittenSessions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*.jsonl"))
	if len(files) < 2 {
		t.Fatalf("expected pi-written sessions in testdata/sessions, found %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".context.json")
			if err != nil {
				t.Fatal(err)
			}
			var want []projection
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			sameContext(t, f, ourContext(t, f), want)
			s, err := session.Open(context.Background(), f, session.OpenOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if w := s.Warnings(); len(w) > 0 {
				t.Errorf("warnings %v", w)
			}
			if _, err := s.Tree(context.Background()); err != nil {
				t.Error(err)
			}
			for _, id := range s.Children("") {
				if _, err := s.Entry(id); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// fileEntries reads the ids and types of a session file's entries.
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// lastOf returns the id of the last entry matching type and (message) role.
func lastOf(t *testing.T, path, typ, role string) string {
	t.Helper()
	es := fileEntries(t, path)
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e["type"] != typ {
			continue
		}
		if role != "" {
			m, _ := e["message"].(map[string]any)
			if m["role"] != role {
				continue
			}
		}
		return e["id"].(string)
	}
	t.Fatalf("no %s/%s entry in %s", typ, role, path)
	return ""
}

// TestRegeneratePiSessions drives real pi against the fake LLM to write the
// sessions under testdata/sessions. It runs only with PI_LSP_REGEN_TESTDATA=1.
func TestRegeneratePiSessions(t *testing.T) {
	if os.Getenv("PI_LSP_REGEN_TESTDATA") == "" {
		t.Skip("set PI_LSP_REGEN_TESTDATA=1 to rewrite testdata/sessions with real pi")
	}
	out, err := filepath.Abs(filepath.Join("..", "testdata", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := pitest.RepoRoot()
	ext := filepath.Join(root, "test", "pi", "interop-ext.ts")
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("Sessions are JSONL trees.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	env := pitest.Env(t, srv.BaseURL())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	record := func(name string, script func(pi *pitest.RPC, path string)) {
		path := filepath.Join(t.TempDir(), name+".jsonl")
		pi := pitest.Start(t, env, cwd, "--session", path, "-e", ext, "--no-extensions", "--no-skills", "--no-context-files")
		script(pi, path)
		data, err := pi.Call(ctx, map[string]any{"type": "get_messages"})
		if err != nil {
			t.Fatal(err)
		}
		var live struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(data, &live); err != nil {
			t.Fatal(err)
		}
		pi.Close()
		want := piContext(t, path)
		if len(want) != len(live.Messages) {
			t.Fatalf("%s: pi's live context has %d messages, its file %d", name, len(live.Messages), len(want))
		}
		b, _ := os.ReadFile(path)
		if err := os.WriteFile(filepath.Join(out, name+".jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		cb, _ := json.MarshalIndent(want, "", "  ")
		if err := os.WriteFile(filepath.Join(out, name+".context.json"), append(cb, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prompt := func(pi *pitest.RPC, text, reply string) {
		t.Helper()
		srv.Append(llmtest.Response{Text: reply})
		if _, err := pi.Call(ctx, map[string]any{"type": "prompt", "message": text}); err != nil {
			t.Fatal(err)
		}
		if _, err := pi.WaitFor(ctx, "agent_end"); err != nil {
			t.Fatal(err)
		}
	}
	command := func(pi *pitest.RPC, text string) {
		t.Helper()
		if _, err := pi.Call(ctx, map[string]any{"type": "prompt", "message": text}); err != nil {
			t.Fatal(err)
		}
	}

	record("pi-linear", func(pi *pitest.RPC, path string) {
		prompt(pi, "Hello pi, what is this project?", "It is a Go module.")
		srv.Append(llmtest.Response{Text: "Let me read the notes.", ToolCalls: []llmtest.ToolCall{{ID: "call_read_1", Name: "read", Arguments: `{"path":"notes.txt"}`}}})
		prompt(pi, "Read notes.txt and explain the session format in one line.", "JSONL, one entry per line, a tree by parentId.")
		if _, err := pi.Call(ctx, map[string]any{"type": "set_session_name", "name": "Linear demo"}); err != nil {
			t.Fatal(err)
		}
		prompt(pi, "And compaction?", "A summary replaces older history.")
		srv.Append(llmtest.Response{Text: "## Goal\nUnderstand the project.\n## Progress\nExplained the format."})
		if _, err := pi.Call(ctx, map[string]any{"type": "compact"}); err != nil {
			t.Fatal(err)
		}
		prompt(pi, "Thanks. One more thing after compaction?", "Sure.")
	})

	record("pi-branches", func(pi *pitest.RPC, path string) {
		prompt(pi, "Start: pick a plan.", "Plan A or plan B.")
		a1 := lastOf(t, path, "message", "assistant")
		u1 := lastOf(t, path, "message", "user")
		prompt(pi, "Try plan A.", "Plan A failed.")
		command(pi, "/label "+u1+" start here")
		command(pi, "/note tried plan A")
		srv.Append(llmtest.Response{Text: "Plan A was tried and failed."})
		command(pi, "/nav "+a1+" summarize")
		command(pi, "/inject Remember: plan A failed.")
		prompt(pi, "Try plan B.", "Plan B works.")
		b2 := lastOf(t, path, "message", "assistant")
		prompt(pi, "Polish plan B.", "Polished.")
		// A third branch without a summary, then back to plan B's end.
		command(pi, "/nav "+b2)
		prompt(pi, "Alternative polish?", "Alternative.")
		command(pi, "/label "+b2+" plan B")
		command(pi, "/label "+u1)
	})
	fmt.Println("wrote", out)
}

// TestPiContinuesEmptySession: pi 0.73.1 writes the header a second time
// when it continues a file that holds only a header (it flushes all its
// entries on the first assistant message); we must read that file cleanly.
func TestPiContinuesEmptySession(t *testing.T) {
	pitest.Bin(t)
	srv := llmtest.NewServer(t)
	root, cwd := t.TempDir(), t.TempDir()
	s, err := session.Create(context.Background(), root, cwd, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	pi := pitest.Start(t, pitest.Env(t, srv.BaseURL()), cwd, "--session", path)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv.Append(llmtest.Response{Text: "hi from pi"})
	if _, err := pi.Call(ctx, map[string]any{"type": "prompt", "message": "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pi.WaitFor(ctx, "agent_end"); err != nil {
		t.Fatal(err)
	}
	pi.Close()
	r, err := session.Open(context.Background(), path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	headers := 0
	for _, e := range fileEntries(t, path) {
		if e["type"] == "session" {
			headers++
		}
	}
	t.Logf("pi left %d header lines", headers)
	got := ourContext(t, path)
	if len(got) != 2 || got[0].Text != "hello" || got[1].Text != "hi from pi" || len(r.Warnings()) != 0 {
		t.Errorf("context %+v warnings %v", got, r.Warnings())
	}
	sameContext(t, "pi on our empty session", got, piContext(t, path))
	if _, err := r.AppendMessage(context.Background(), llm.UserText("and us", 0)); err != nil {
		t.Fatal(err)
	}
}
