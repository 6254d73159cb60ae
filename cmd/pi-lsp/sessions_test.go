package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

func runSessions(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunSessions(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestRunSessions(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	cwd := t.TempDir()
	s, err := session.Create(ctx, root, cwd, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u1, _ := s.AppendMessage(ctx, llm.UserText("first question", 1))
	if _, err := s.AppendModelChange(ctx, "openai", "gpt-4o"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendThinkingLevel(ctx, "high"); err != nil {
		t.Fatal(err)
	}
	a1, _ := s.AppendMessage(ctx, llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock("answer")}, Provider: "fake", Model: "m1", StopReason: llm.StopStop})
	u2, err := s.AppendMessage(ctx, llm.UserText("second question", 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetName(ctx, "CLI test"); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()

	// show, text and JSON
	out, _, code := runSessions(t, "show", path)
	for _, want := range []string{"version:", "id:", "cwd:", "entries:         6", "leafId:", "branchEntries:   6", "contextMessages: 3", "model:           fake/m1", "thinkingLevel:   high"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show lacks %q (code %d):\n%s", want, code, out)
		}
	}
	out, _, _ = runSessions(t, "show", "--json", path)
	var shown showResult
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err, out)
	}
	if shown.Version != 3 || shown.Entries != 6 || shown.ContextMessages != 3 || shown.Model != "fake/m1" || shown.ThinkingLevel != "high" || shown.Name != "CLI test" || shown.Cwd != cwd {
		t.Errorf("show --json %+v", shown)
	}

	// list
	out, _, code = runSessions(t, "list", "--cwd", cwd, "--sessions-dir", root, "--json")
	var list []session.Info
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatal(err, out)
	}
	if len(list) != 1 || list[0].Path != path || list[0].Name != "CLI test" || list[0].FirstMessage != "first question" {
		t.Errorf("list %+v", list)
	}
	out, _, _ = runSessions(t, "list", "--sessions-dir", root, "--cwd", cwd)
	if !strings.Contains(out, "CLI test") || !strings.Contains(out, path) {
		t.Errorf("list text:\n%s", out)
	}

	// fork before a user message: beside the source, text returned
	out, _, code = runSessions(t, "fork", path, u2, "--json")
	var forked struct {
		Path, Text string
		Entries    int
	}
	if err := json.Unmarshal([]byte(out), &forked); err != nil || code != 0 {
		t.Fatal(err, out)
	}
	if forked.Text != "second question" || forked.Entries != 4 || filepath.Dir(forked.Path) != filepath.Dir(path) {
		t.Errorf("fork %+v", forked)
	}
	out, _, _ = runSessions(t, "show", "--json", forked.Path)
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.ContextMessages != 2 || shown.ParentSession != path || shown.LeafID != a1 {
		t.Errorf("forked show %+v", shown)
	}
	out, _, code = runSessions(t, "fork", "--at", path, u1)
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), ".jsonl") {
		t.Errorf("fork --at: %d %s", code, out)
	}

	// errors
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "Usage"},
		{[]string{"nope"}, 2, "unknown command"},
		{[]string{"show"}, 2, "want 1 argument"},
		{[]string{"show", filepath.Join(root, "missing.jsonl")}, 1, "no such file"},
		{[]string{"fork", path, a1}, 1, "not a user message"},
		{[]string{"fork", path, "zzzzzzzz", "--at"}, 1, "not found"},
		{[]string{"list", "--bogus"}, 2, "flag provided but not defined"},
	}
	for _, tc := range tests {
		_, errOut, code := runSessions(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: code %d, stderr %q", tc.args, code, errOut)
		}
	}
}
