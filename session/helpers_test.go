package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// writeLines writes a session file made of the given lines (each gets "\n").
func writeLines(t testing.TB, dir string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const testHeader = `{"type":"session","version":3,"id":"11111111-2222-3333-4444-555555555555","timestamp":"2025-01-02T03:04:05.678Z","cwd":"/work/proj"}`

func mustCreate(t testing.TB) *Session {
	t.Helper()
	s, err := Create(context.Background(), t.TempDir(), "/work/proj", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustOpen(t testing.TB, path string, ro bool) *Session {
	t.Helper()
	s, err := Open(context.Background(), path, OpenOptions{ReadOnly: ro})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func user(text string) llm.Message { return llm.UserText(text, 1700000000000) }

func assistant(text string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock(text)},
		API: "openai-completions", Provider: "fake", Model: "fake-model", StopReason: llm.StopStop, Timestamp: 1700000000001}
}

// texts renders context messages compactly: "role:text" (summaries by summary).
func texts(ms []llm.Message) []string {
	var out []string
	for _, m := range ms {
		t := m.Text()
		if m.Role == llm.RoleBranchSummary || m.Role == llm.RoleCompactionSummary {
			t = m.Summary
		}
		if m.Role == llm.RoleBashExecution {
			t = m.Command
		}
		out = append(out, string(m.Role)+":"+t)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fileLines reads a file's non-empty lines.
func fileLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
