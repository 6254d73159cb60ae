package tools

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	f := newFixture(t)
	r := f.run("write", map[string]any{"path": "deep/new/file.txt", "content": "hello\n"})
	if got := ok(t, r); got != "Successfully wrote 6 bytes to deep/new/file.txt" {
		t.Fatalf("text %q", got)
	}
	if f.read("deep/new/file.txt") != "hello\n" {
		t.Fatal("content")
	}
	if r.Path != filepath.Join(f.dir, "deep/new/file.txt") || !strings.HasPrefix(r.Diff, "--- /dev/null\n+++ b/deep/new/file.txt\n") {
		t.Fatalf("path %q diff %q", r.Path, r.Diff)
	}
	r = f.run("write", map[string]any{"path": "deep/new/file.txt", "content": "bye\n"})
	ok(t, r)
	if !strings.Contains(r.Diff, "-hello\n+bye\n") {
		t.Fatalf("diff %q", r.Diff)
	}
	// Empty content is a valid write; missing content is not.
	ok(t, f.run("write", map[string]any{"path": "empty", "content": ""}))
	fails(t, f.run("write", map[string]any{"path": "x"}), "content is required")
	fails(t, f.run("write", map[string]any{"content": "x"}), "path is required")
	f.write(map[string]string{"dir/a": ""})
	fails(t, f.run("write", map[string]any{"path": "dir", "content": "x"}), "dir is a directory")
}
