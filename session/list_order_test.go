package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/session"
)

// TestListOrderMatchesPi: pi-mono's modified-timestamp case rebuilt as
// files. The files' mtimes run against their message times, so a list by
// mtime and pi's list disagree; pi-lsp's list must give pi's order and pi's
// modified times.
func TestListOrderMatchesPi(t *testing.T) {
	root := t.TempDir()
	cwd := "/work/project"
	dir := session.DirFor(root, cwd)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ms := func(s string) int64 {
		tt, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tt.UnixMilli()
	}
	header := func(id, ts string) string {
		return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`, id, ts, cwd)
	}
	files := map[string][]string{
		// The message's own timestamp (ms) wins over its entry's.
		"a": {header("aaaaaaaa-0000-4000-8000-000000000001", "2026-01-01T00:00:00.000Z"),
			fmt.Sprintf(`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":%d}}`, ms("2026-03-01T00:00:00Z"))},
		// No message timestamp: the entry's.
		"b": {header("bbbbbbbb-0000-4000-8000-000000000002", "2026-01-02T00:00:00.000Z"),
			`{"type":"message","id":"b0000001","parentId":null,"timestamp":"2026-02-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hello"}]}}`},
		// No messages at all: the header's timestamp.
		"c": {header("cccccccc-0000-4000-8000-000000000003", "2026-04-01T00:00:00.000Z"),
			`{"type":"custom","id":"c0000001","parentId":null,"timestamp":"2026-06-01T00:00:00.000Z","customType":"x","data":{}}`},
		// A later tool result does not count; the user message does.
		"d": {header("dddddddd-0000-4000-8000-000000000004", "2026-01-03T00:00:00.000Z"),
			fmt.Sprintf(`{"type":"message","id":"d0000001","parentId":null,"timestamp":"2026-01-20T00:00:00.000Z","message":{"role":"user","content":"run it","timestamp":%d}}`, ms("2026-01-20T00:00:00Z")),
			fmt.Sprintf(`{"type":"message","id":"d0000002","parentId":"d0000001","timestamp":"2026-05-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"x","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":%d}}`, ms("2026-05-01T00:00:00Z"))},
	}
	// mtimes oldest for the newest activity: an mtime order would reverse
	// pi's.
	mtimes := map[string]string{"a": "2025-01-01T00:00:00Z", "b": "2025-02-01T00:00:00Z", "c": "2025-01-15T00:00:00Z", "d": "2025-03-01T00:00:00Z"}
	for name, lines := range files {
		p := filepath.Join(dir, "2026-01-01T00-00-00-000Z_"+name+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		mt, _ := time.Parse(time.RFC3339, mtimes[name])
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	ours, err := session.List(context.Background(), root, cwd)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range ours {
		got = append(got, filepath.Base(in.Path)+" "+in.Modified.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	want := []string{
		"2026-01-01T00-00-00-000Z_c.jsonl 2026-04-01T00:00:00.000Z",
		"2026-01-01T00-00-00-000Z_a.jsonl 2026-03-01T00:00:00.000Z",
		"2026-01-01T00-00-00-000Z_b.jsonl 2026-02-01T00:00:00.000Z",
		"2026-01-01T00-00-00-000Z_d.jsonl 2026-01-20T00:00:00.000Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("pi-lsp's list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var pis []string
	for _, s := range pitest.ListSessions(t, cwd, dir) {
		pis = append(pis, filepath.Base(s.Path)+" "+s.Modified)
	}
	if strings.Join(pis, "\n") != strings.Join(got, "\n") {
		t.Fatalf("pi lists:\n%s\npi-lsp lists:\n%s", strings.Join(pis, "\n"), strings.Join(got, "\n"))
	}
}
